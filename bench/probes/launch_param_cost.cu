// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What cuLaunchKernel costs the host with a TLE kernel's parameter list:
// 73 separate parameters (the expanded memref descriptors of a SparseMLA
// kernel: pointers, offsets, sizes, strides, and sm_scale) passed as
// kernelParams, the same bytes as one packed buffer
// (CU_LAUNCH_PARAM_BUFFER_POINTER), and one __grid_constant__ struct of
// that size. Empty kernels on one stream; per way, the best of seven runs
// of 10 x 200 launches (the stream drained between runs of 200).
//
//   nvcc -arch=sm_90a -o launch_param_cost bench/probes/launch_param_cost.cu -lcuda
//   ./launch_param_cost
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>

#define P8(n)                                                                  \
  unsigned long long a##n##0, unsigned long long a##n##1,                      \
      unsigned long long a##n##2, unsigned long long a##n##3,                  \
      unsigned long long a##n##4, unsigned long long a##n##5,                  \
      unsigned long long a##n##6, unsigned long long a##n##7

__global__ void many(P8(0), P8(1), P8(2), P8(3), P8(4), P8(5), P8(6), P8(7),
                     P8(8), float f) {
  if (f == 123.f && a00 == 7)
    *reinterpret_cast<int *>(a81) = 1;
}

struct Packed {
  unsigned long long a[72];
  float f;
};

__global__ void one(const __grid_constant__ Packed p) {
  if (p.f == 123.f && p.a[0] == 7)
    *reinterpret_cast<int *>(p.a[71]) = 1;
}

static bool ok(cudaError_t e, const char *what) {
  if (e == cudaSuccess)
    return true;
  std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
  return false;
}

int main() {
  CUfunction manyFn, oneFn;
  cudaStream_t stream;
  if (!ok(cudaFree(nullptr), "cudaFree") ||
      !ok(cudaGetFuncBySymbol(reinterpret_cast<cudaFunction_t *>(&manyFn),
                              reinterpret_cast<const void *>(many)),
          "cudaGetFuncBySymbol") ||
      !ok(cudaGetFuncBySymbol(reinterpret_cast<cudaFunction_t *>(&oneFn),
                              reinterpret_cast<const void *>(one)),
          "cudaGetFuncBySymbol") ||
      !ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking),
          "cudaStreamCreate"))
    return 1;
  CUstream s = reinterpret_cast<CUstream>(stream);

  unsigned long long values[72] = {};
  float scale = 1.f;
  void *params[73];
  for (int i = 0; i < 72; ++i)
    params[i] = &values[i];
  params[72] = &scale;
  // The 73 parameters laid out as the kernel takes them: 72 x 8 bytes and
  // a float.
  alignas(8) unsigned char packed[sizeof(Packed)] = {};
  size_t packedSize = 72 * 8 + 4;
  void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, packed,
                   CU_LAUNCH_PARAM_BUFFER_SIZE, &packedSize,
                   CU_LAUNCH_PARAM_END};
  void *structParams[] = {packed};

  auto run = [&](int way) {
    double best = 1e30;
    for (int rep = 0; rep < 7; ++rep) {
      double total = 0;
      for (int batch = 0; batch < 10; ++batch) {
        cudaStreamSynchronize(stream);
        auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < 200; ++i) {
          values[0] = i; // a value changes per launch, as in a plan
          CUresult r =
              way == 0   ? cuLaunchKernel(manyFn, 1, 1, 1, 32, 1, 1, 0, s,
                                          params, nullptr)
              : way == 1 ? cuLaunchKernel(manyFn, 1, 1, 1, 32, 1, 1, 0, s,
                                          nullptr, extra)
                         : cuLaunchKernel(oneFn, 1, 1, 1, 32, 1, 1, 0, s,
                                          structParams, nullptr);
          if (r != CUDA_SUCCESS)
            return -1.0;
        }
        total += std::chrono::duration<double, std::micro>(
                     std::chrono::steady_clock::now() - start)
                     .count();
      }
      best = std::min(best, total / 2000);
    }
    return best;
  };
  for (int round = 0; round < 3; ++round) {
    double a = run(0), b = run(1), c = run(2);
    if (a < 0 || b < 0 || c < 0) {
      std::fprintf(stderr, "cuLaunchKernel failed\n");
      return 1;
    }
    std::printf("round %d: 73 kernelParams %.2f us, one packed buffer %.2f us, "
                "one struct %.2f us a launch\n",
                round, a, b, c);
  }
  return ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize") ? 0 : 1;
}
