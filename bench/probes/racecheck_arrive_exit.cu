// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Does compute-sanitizer's racecheck follow the ordering of a named barrier
// whose arriving warps exit right after bar.arrive? The final hand-over of
// examples/ping_pong in CUDA C++, so that the answer does not depend on TLE's
// compiler (docs/Runtime.md, "racecheck and the last hand-over"):
//
//   warps 4-7 store to shared memory, bar.arrive(1, 256), then
//     mode 0: exit at once;
//     mode 1: bar.sync(2, 256) with warps 0-3 first, then exit;
//   warps 0-3 bar.sync(1, 256), load what warps 4-7 stored, bar.arrive(2,
//     256) in mode 1, and write the sum to global memory;
//   mode 2 is one whole turn of examples/ping_pong: warps 0-3 store first
//     and bar.arrive(3, 256), warps 4-7 bar.sync(3, 256), add to what they
//     read and store, then as mode 0.
//
// PTX orders the stores before the loads either way ("barrier{.cta}.arrive
// ... guarantees that when the barrier completes, prior memory accesses
// requested by this thread are performed relative to all threads
// participating in the barrier", PTX ISA, bar/barrier).
//
//   nvcc -arch=sm_90a -lineinfo -o racecheck_arrive_exit bench/probes/racecheck_arrive_exit.cu
//   compute-sanitizer --tool racecheck ./racecheck_arrive_exit MODE
#include <cstdio>
#include <cstdlib>

__global__ void handOver(float *out, int mode) {
  __shared__ float shared[128];
  unsigned t = threadIdx.x;
  if (mode == 2 && t < 128) {
    shared[t] = 100.0f;
    asm volatile("bar.arrive 3, 256;" ::: "memory");
  }
  if (t >= 128) {
    float base = 0.0f;
    if (mode == 2) {
      asm volatile("bar.sync 3, 256;" ::: "memory");
      base = shared[t - 128] - 100.0f;
    }
    shared[t - 128] = base + static_cast<float>(t);
    asm volatile("bar.arrive 1, 256;" ::: "memory");
    if (mode == 1)
      asm volatile("bar.sync 2, 256;" ::: "memory");
    return;
  }
  asm volatile("bar.sync 1, 256;" ::: "memory");
  float value = shared[t];
  if (mode == 1)
    asm volatile("bar.arrive 2, 256;" ::: "memory");
  out[blockIdx.x * 128 + t] = value;
}

int main(int argc, char **argv) {
  int mode = argc > 1 ? std::atoi(argv[1]) : 0;
  const int blocks = 4;
  float *out;
  cudaMalloc(&out, blocks * 128 * sizeof(float));
  handOver<<<blocks, 256>>>(out, mode);
  float host[blocks * 128];
  cudaMemcpy(host, out, sizeof(host), cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int i = 0; i < blocks * 128; ++i)
    wrong += host[i] != static_cast<float>(128 + i % 128);
  std::printf("mode %d: %d wrong values\n", mode, wrong);
  cudaFree(out);
  return wrong != 0;
}
