# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Where the CPU time of one tle.sparse_mla_fwd call goes, on the GPU
machine: the public call, a SparseMLA call with the plan's launch in C
(tle._launch) and with it switched to ctypes, the launch alone both ways,
the output allocations and the signature key (perf_counter over 2,000
calls, best of three).

    PYTHONPATH=SITE python3 bench/probes/sparse_mla_call_cost.py

tle (the wheel) and torch must be importable; the call is the one
`test_cpu_cost_of_a_call` times (SQ=64, SKV=256, H=64, topk=128).
"""

import torch

import tle
from tle import runtime as rt
from tle.bench import cpu_us
from tle.sparse_mla.inputs import make_inputs
from tle.sparse_mla.kernel import SparseMLA


def main():
    print("tle._launch:", "yes" if rt.HAS_C_LAUNCH else "no (ctypes only)")
    q, kv, idx = make_inputs(64, 256, 64, 128)
    forward = SparseMLA()
    call = forward.prepare(q, kv, idx, 0.5)
    plan, device = call.plan, call.device
    out = call.empty_outputs()
    values = (q.data_ptr(), kv.data_ptr(), idx.data_ptr(), out[0].data_ptr(),
              out[1].data_ptr(), out[2].data_ptr(), call.scale_bits, call.sink,
              call.length)
    stream = rt.current_stream(device.index)
    fast_plan, fast_call = plan.c_launch, call.launch
    ctypes_path = plan.launcher(fast=False)

    def through_ctypes(fn):
        def run():
            plan.c_launch, call.launch = False, ctypes_path
            try:
                return fn()
            finally:
                plan.c_launch, call.launch = fast_plan, fast_call
        return run

    def public_call():
        return tle.sparse_mla_fwd(q, kv, idx, 0.5)

    def call_once():
        return forward(q, kv, idx, 0.5)

    def launch():
        plan.launch(values, stream)

    def three_empty():
        return (torch.empty(call.out_shape, dtype=torch.bfloat16, device=device),
                torch.empty(call.stat_shape, dtype=torch.float32, device=device),
                torch.empty(call.stat_shape, dtype=torch.float32, device=device))

    def empty_and_unbind():
        return (torch.empty(call.out_shape, dtype=torch.bfloat16, device=device),
                torch.empty((2,) + tuple(call.stat_shape), dtype=torch.float32,
                            device=device).unbind(0))

    def key():
        return (q.shape, q.stride(), q.dtype, q.get_device(), kv.shape, kv.stride(),
                kv.dtype, kv.get_device(), idx.shape, idx.stride(), idx.dtype,
                idx.get_device(), 0.5, 512, None, None)

    rows = {
        "tle.sparse_mla_fwd": public_call,
        "SparseMLA call, C launch": call_once,
        "SparseMLA call, ctypes launch": through_ctypes(call_once),
        "LaunchPlan.launch, C": launch,
        "LaunchPlan.launch, ctypes": through_ctypes(launch),
        "the outputs (three torch.empty_strided)": call.empty_outputs,
        "three torch.empty": three_empty,
        "one torch.empty and a [2, ...] unbind": empty_and_unbind,
        "the signature key": key,
    }
    for name, fn in rows.items():
        print(f"| {name} | {min(cpu_us(fn, 2000, warmup=50) for _ in range(3)):.1f} |")


if __name__ == "__main__":
    main()
