//===- Driver.cpp - The CUDA driver API, loaded at run time ---------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Driver.h"

#include <dlfcn.h>

#include <string>
#include <type_traits>

using namespace tle::runtime;
using namespace tle::runtime::detail;

std::string Driver::describe(CUresult result) const {
  const char *name = nullptr;
  const char *text = nullptr;
  if (getErrorName)
    getErrorName(result, &name);
  if (getErrorString)
    getErrorString(result, &text);
  std::string message =
      name ? name : "CUDA error " + std::to_string(static_cast<int>(result));
  if (text)
    message += std::string(" (") + text + ")";
  return message;
}

Status Driver::check(CUresult result, const std::string &call) const {
  if (result == CUDA_SUCCESS)
    return Status::ok();
  return Status::error(call + " failed: " + describe(result));
}

namespace {
/// The outcome of loading the driver, computed once per process.
struct LoadedDriver {
  Driver driver;
  Status status;
};
} // namespace

/// Resolves every entry point; a driver that lacks one predates what the
/// runtime needs (cuEventElapsedTime_v2 came with CUDA 12.8, and older
/// drivers export the same function unversioned).
static Status resolve(void *library, Driver &driver) {
  auto lookup = [&](const char *symbol, auto &member) {
    void *address = dlsym(library, symbol);
    if (!address && std::string(symbol) == "cuEventElapsedTime_v2")
      address = dlsym(library, "cuEventElapsedTime");
    member =
        reinterpret_cast<std::remove_reference_t<decltype(member)>>(address);
    return address != nullptr;
  };
#define TLE_RESOLVE(member, symbol)                                            \
  if (!lookup(#symbol, driver.member))                                         \
    return Status::noDevice("the CUDA driver (libcuda.so.1) is too old: it "   \
                            "lacks " #symbol);
  TLE_CUDA_DRIVER_FUNCTIONS(TLE_RESOLVE)
#undef TLE_RESOLVE
  return Status::ok();
}

/// cuInit fails with CUDA_ERROR_NO_DEVICE on a machine with a driver but
/// no GPU, and with CUDA_ERROR_STUB_LIBRARY when the library found is the
/// toolkit's link stub rather than a driver.
static Status initialize(const Driver &driver) {
  CUresult result = driver.init(0);
  if (result == CUDA_SUCCESS)
    return Status::ok();
  if (result == CUDA_ERROR_NO_DEVICE)
    return Status::noDevice("no CUDA device");
  if (result == CUDA_ERROR_STUB_LIBRARY)
    return Status::noDevice("no CUDA driver (libcuda.so.1) on this machine; "
                            "the one found is the CUDA toolkit's stub");
  return Status::noDevice("the CUDA driver did not initialize: cuInit: " +
                          driver.describe(result));
}

static LoadedDriver load() {
  LoadedDriver loaded;
  // RTLD_LOCAL: the driver's symbols must not satisfy anyone else's.
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    loaded.status =
        Status::noDevice("no CUDA driver (libcuda.so.1) on this machine");
    return loaded;
  }
  loaded.status = resolve(library, loaded.driver);
  if (loaded.status)
    loaded.status = initialize(loaded.driver);
  // The library stays loaded for the life of the process: buffers and
  // modules may be freed from static destructors.
  return loaded;
}

const Driver *tle::runtime::detail::getDriver(Status &status) {
  static const LoadedDriver loaded = load();
  status = loaded.status;
  return loaded.status ? &loaded.driver : nullptr;
}

Context::~Context() {
  if (!hung)
    driver.primaryCtxRelease(device);
}

ScopedContext::ScopedContext(const Context &context) : context(context) {
  if (context.hung) {
    result = Status::hang("the device's context is unusable: a kernel hung");
    return;
  }
  CUcontext current = nullptr;
  if (context.driver.ctxGetCurrent(&current) == CUDA_SUCCESS &&
      current == context.context)
    return;
  result = context.driver.check(context.driver.ctxPushCurrent(context.context),
                                "cuCtxPushCurrent");
  pushed = static_cast<bool>(result);
}

ScopedContext::~ScopedContext() {
  if (!pushed)
    return;
  CUcontext popped;
  context.driver.ctxPopCurrent(&popped);
}
