# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The one benchmark harness: every implementation, ours and the peers', is
timed by the same functions, in the same process, in interleaved rounds.
The benchmarks are its submodules (python -m tle.bench.sparse_mla,
python -m tle.bench.gemm); each imports its timing from here, none from
another.

Two methods for GPU time, each applied alike to everything compared:

- `do_bench_ms`: triton.testing.do_bench's median (it clears L2 before each
  call and sizes the loop by time);
- `events_ms`: launches back to back on PyTorch's current stream, a pair of
  CUDA events around each, one synchronization at the end; the median of
  the per-launch times (as tle_rt_time and `tle-run --bench` measure).

Both keep the GPU busy from one launch to the next, as a real workload
does: a timer that waits for each launch before the next lets the GPU cool
and boost between launches and flatters whoever it times. Our kernels go
through `Kernel.launch_async`, which enqueues on the current stream like a
Triton or PyTorch kernel. `interleaved` alternates the implementations
round by round, so that a drift of the card's clock over the run falls on
all of them.

`cpu_us` measures the other cost of a call: the CPU time the host spends
in it (checks, allocation, the launch itself), which bounds how fast a
model can issue small kernels.

torch and triton are imported when a timer runs, so that the harness's
bookkeeping can be tested without them.
"""

import statistics
import time


def do_bench_ms(fn, warmup_ms, rep_ms):
    """triton.testing.do_bench's median of `fn`, in milliseconds."""
    import triton.testing
    try:
        return float(triton.testing.do_bench(fn, warmup=warmup_ms, rep=rep_ms,
                                             return_mode="median"))
    except TypeError:  # older Triton: no return_mode
        return float(triton.testing.do_bench(fn, warmup=warmup_ms, rep=rep_ms,
                                             quantiles=[0.5]))


def events_ms(fn, warmup, reps):
    """Median of `reps` calls of `fn`, enqueued back to back on the current
    stream after `warmup` untimed ones, each between two CUDA events, with
    a single synchronization at the end; in milliseconds."""
    import torch
    for _ in range(warmup):
        fn()
    pairs = [(torch.cuda.Event(enable_timing=True),
              torch.cuda.Event(enable_timing=True)) for _ in range(reps)]
    for start, end in pairs:
        start.record()
        fn()
        end.record()
    torch.cuda.synchronize()
    return statistics.median(start.elapsed_time(end) for start, end in pairs)


def cpu_us(fn, calls, warmup=10):
    """Microseconds of CPU time per call of `fn`: perf_counter around
    `calls` calls made back to back, after `warmup` untimed ones. The GPU is
    synchronized before and after, outside the timing, so that its queue
    never fills (a launch into a full queue waits, and that wait is not
    the call's cost); keep `calls` in the hundreds."""
    import torch
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    elapsed = time.perf_counter() - start
    torch.cuda.synchronize()
    return elapsed / calls * 1e6


def interleaved(functions, measure, rounds):
    """{name: [time of each round]} for the callables `functions` ({name:
    fn}), each round measuring every one with `measure(fn)` in turn. Round
    r starts r places further down the list, so that over len(functions)
    rounds each takes every place once: on the H200 the place in a round
    alone moved a kernel's do_bench time by 2-4% (the GPU's clock follows
    its power draw, which the kernel before sets)."""
    names = list(functions)
    times = {name: [] for name in names}
    for r in range(rounds):
        shift = r % len(names) if names else 0
        for name in names[shift:] + names[:shift]:
            times[name].append(measure(functions[name]))
    return times
