//===- Driver.h - The CUDA driver API, loaded at run time -------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The runtime never links libcuda: a build machine has only the toolkit's
// headers (and at most a stub library), and a tool that cannot start
// without a driver could not say "no CUDA driver" in a sentence. cuda.h
// (CudaDriverAPI.h) provides types and enums alone; every entry point is a
// pointer resolved with dlsym.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_LIB_RUNTIME_DRIVER_H
#define TLE_LIB_RUNTIME_DRIVER_H

#include "tle/Runtime/Runtime.h"

#include "CudaDriverAPI.h"

#include <string>

namespace tle::runtime::detail {

/// X(member, exported symbol). The symbols are the versioned names that
/// cuda.h maps the plain ones to (cuMemAlloc -> cuMemAlloc_v2), so that the
/// ABI is the one its declarations describe.
#define TLE_CUDA_DRIVER_FUNCTIONS(X)                                           \
  X(getErrorName, cuGetErrorName)                                              \
  X(getErrorString, cuGetErrorString)                                          \
  X(init, cuInit)                                                              \
  X(driverGetVersion, cuDriverGetVersion)                                      \
  X(deviceGetCount, cuDeviceGetCount)                                          \
  X(deviceGet, cuDeviceGet)                                                    \
  X(deviceGetName, cuDeviceGetName)                                            \
  X(deviceGetAttribute, cuDeviceGetAttribute)                                  \
  X(primaryCtxRetain, cuDevicePrimaryCtxRetain)                                \
  X(primaryCtxRelease, cuDevicePrimaryCtxRelease_v2)                           \
  X(ctxGetCurrent, cuCtxGetCurrent)                                            \
  X(ctxPushCurrent, cuCtxPushCurrent_v2)                                       \
  X(ctxPopCurrent, cuCtxPopCurrent_v2)                                         \
  X(memAlloc, cuMemAlloc_v2)                                                   \
  X(memFree, cuMemFree_v2)                                                     \
  X(memcpyHtoDAsync, cuMemcpyHtoDAsync_v2)                                     \
  X(memcpyDtoHAsync, cuMemcpyDtoHAsync_v2)                                     \
  X(memsetD8Async, cuMemsetD8Async)                                            \
  X(moduleLoadDataEx, cuModuleLoadDataEx)                                      \
  X(moduleLoadData, cuModuleLoadData)                                          \
  X(moduleUnload, cuModuleUnload)                                              \
  X(moduleGetFunction, cuModuleGetFunction)                                    \
  X(funcGetAttribute, cuFuncGetAttribute)                                      \
  X(funcSetAttribute, cuFuncSetAttribute)                                      \
  X(launchKernel, cuLaunchKernel)                                              \
  X(streamCreate, cuStreamCreate)                                              \
  X(streamDestroy, cuStreamDestroy_v2)                                         \
  X(streamSynchronize, cuStreamSynchronize)                                    \
  X(eventCreate, cuEventCreate)                                                \
  X(eventDestroy, cuEventDestroy_v2)                                           \
  X(eventRecord, cuEventRecord)                                                \
  X(eventQuery, cuEventQuery)                                                  \
  X(eventElapsedTime, cuEventElapsedTime_v2)                                   \
  X(tensorMapEncodeTiled, cuTensorMapEncodeTiled)

/// The driver's entry points.
struct Driver {
#define TLE_DECLARE_MEMBER(member, symbol) decltype(&::symbol) member = nullptr;
  TLE_CUDA_DRIVER_FUNCTIONS(TLE_DECLARE_MEMBER)
#undef TLE_DECLARE_MEMBER

  /// "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)"; ok for
  /// CUDA_SUCCESS.
  Status check(CUresult result, const std::string &call) const;
  /// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)".
  std::string describe(CUresult result) const;
};

/// The driver, loaded and initialized (cuInit) on first use; null, with
/// a NoDevice status, when there is no driver or it finds no device.
const Driver *getDriver(Status &status);

/// The primary context of one device, shared by the Device, its modules
/// and its buffers so that none outlives it.
struct Context {
  Context(const Driver &driver, CUdevice device, CUcontext context)
      : driver(driver), device(device), context(context) {}
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;
  ~Context();

  const Driver &driver;
  CUdevice device;
  CUcontext context;
  /// Set when a kernel hung: the context can then be neither used nor torn
  /// down (teardown would wait for the kernel), so everything leaks.
  bool hung = false;
};

/// Makes a context current for the scope of one runtime call, and restores
/// the caller's afterwards (a Python caller may be using another one).
/// Where it is current already (PyTorch's primary context, every launch of
/// a plan), nothing is pushed or popped.
class ScopedContext {
public:
  explicit ScopedContext(const Context &context);
  ~ScopedContext();
  /// Whether the context could be made current; check before any call.
  const Status &status() const { return result; }

private:
  const Context &context;
  Status result;
  bool pushed = false;
};

} // namespace tle::runtime::detail

#endif // TLE_LIB_RUNTIME_DRIVER_H
