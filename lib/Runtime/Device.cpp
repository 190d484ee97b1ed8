//===- Device.cpp - Devices, modules, buffers and launches ----------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Every launch is watched: TLE kernels synchronize through mbarriers, and a
// protocol error (a reader that never releases a slot) shows up as a kernel
// that never ends, not as an error. The host therefore never blocks in the
// driver while a kernel runs; it polls events and gives up after the
// watchdog's limit (Launches.h).
//
//===----------------------------------------------------------------------===//

#include "Launches.h"
#include "TensorMap.h"

#include "tle/Support/Strings.h"

#include <mutex>

using namespace tle;
using namespace tle::runtime;
using namespace tle::runtime::detail;

//===----------------------------------------------------------------------===//
// DeviceBuffer
//===----------------------------------------------------------------------===//

DeviceBuffer::DeviceBuffer(DeviceBuffer &&other) noexcept
    : ptr(other.ptr), bytes(other.bytes), context(std::move(other.context)) {
  other.ptr = 0;
  other.bytes = 0;
}

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&other) noexcept {
  if (this != &other) {
    release();
    ptr = other.ptr;
    bytes = other.bytes;
    context = std::move(other.context);
    other.ptr = 0;
    other.bytes = 0;
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() { release(); }

void DeviceBuffer::release() {
  if (ptr && context && !context->hung) {
    ScopedContext scope(*context);
    if (scope.status())
      context->driver.memFree(ptr);
  }
  ptr = 0;
  bytes = 0;
  context.reset();
}

//===----------------------------------------------------------------------===//
// Module
//===----------------------------------------------------------------------===//

struct Module::Impl {
  std::shared_ptr<Context> context;
  CUmodule module = nullptr;
  /// One function per entry of Module::infos, in the same order.
  std::vector<CUfunction> functions;

  ~Impl() {
    if (!module || context->hung)
      return;
    ScopedContext scope(*context);
    if (scope.status())
      context->driver.moduleUnload(module);
  }
};

Module::Module() : impl(std::make_unique<Impl>()) {}
Module::~Module() = default;

const KernelInfo *Module::findKernel(const std::string &name) const {
  for (const KernelInfo &info : infos)
    if (info.name == name)
      return &info;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Device
//===----------------------------------------------------------------------===//

namespace {
/// One resolved, checked launch: what cuLaunchKernel needs.
struct Launch {
  const KernelInfo *info = nullptr;
  CUfunction function = nullptr;
  unsigned grid[3] = {1, 1, 1};
  std::vector<void *> params;
};
} // namespace

struct Device::Impl {
  const Driver &driver;
  std::shared_ptr<Context> context;
  CUstream stream = nullptr;
  /// Those of watched launches (runLaunches), reused from batch to batch.
  std::vector<CUevent> events;
  std::string name;
  int computeCapability = 0;
  int multiprocessors = 0;
  int sharedMemoryOptin = 0;
  int driverVersion = 0;

  explicit Impl(const Driver &driver) : driver(driver) {}
  ~Impl();
  Status create(CUdevice device);
  Status queryAttributes(CUdevice device);
  Status finish(CUresult enqueued, const std::string &call);
  Status runWatched(Launch &launch, const LaunchBatch &batch,
                    std::vector<double> &times);
};

Device::Impl::~Impl() {
  if (!context || context->hung)
    return;
  ScopedContext scope(*context);
  if (!scope.status())
    return;
  for (CUevent event : events)
    driver.eventDestroy(event);
  if (stream)
    driver.streamDestroy(stream);
}

Status Device::Impl::queryAttributes(CUdevice device) {
  char buffer[256] = {};
  if (Status s =
          driver.check(driver.deviceGetName(buffer, sizeof(buffer) - 1, device),
                       "cuDeviceGetName");
      !s)
    return s;
  name = buffer;
  auto get = [&](CUdevice_attribute attribute, int &value) {
    return driver.check(driver.deviceGetAttribute(&value, attribute, device),
                        "cuDeviceGetAttribute");
  };
  int major = 0, minor = 0;
  Status s = get(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, major);
  if (s)
    s = get(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, minor);
  if (s)
    s = get(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, multiprocessors);
  if (s)
    s = get(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
            sharedMemoryOptin);
  if (s)
    s = driver.check(driver.driverGetVersion(&driverVersion),
                     "cuDriverGetVersion");
  computeCapability = major * 10 + minor;
  return s;
}

/// The primary context, then a stream of our own (non-blocking, so that
/// other work on the legacy stream cannot serialize with it).
Status Device::Impl::create(CUdevice device) {
  if (Status s = queryAttributes(device); !s)
    return s;
  CUcontext primary;
  if (Status s = driver.check(driver.primaryCtxRetain(&primary, device),
                              "cuDevicePrimaryCtxRetain");
      !s)
    return s;
  context = std::make_shared<Context>(driver, device, primary);
  ScopedContext scope(*context);
  if (!scope.status())
    return scope.status();
  return driver.check(driver.streamCreate(&stream, CU_STREAM_NON_BLOCKING),
                      "cuStreamCreate");
}

Device::Device(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}
Device::~Device() = default;

Status Device::open(int ordinal, std::unique_ptr<Device> &device) {
  Status status;
  const Driver *driver = getDriver(status);
  if (!driver)
    return status;
  int count = 0;
  if (Status s =
          driver->check(driver->deviceGetCount(&count), "cuDeviceGetCount");
      !s)
    return s;
  if (count == 0)
    return Status::noDevice("no CUDA device");
  if (ordinal < 0 || ordinal >= count)
    return Status::noDevice("no CUDA device " + std::to_string(ordinal) +
                            " (this machine has " + std::to_string(count) +
                            ")");
  CUdevice handle;
  if (Status s =
          driver->check(driver->deviceGet(&handle, ordinal), "cuDeviceGet");
      !s)
    return s;
  auto impl = std::make_unique<Impl>(*driver);
  if (Status s = impl->create(handle); !s)
    return s;
  device.reset(new Device(std::move(impl)));
  return Status::ok();
}

std::string Device::name() const { return impl->name; }
int Device::computeCapability() const { return impl->computeCapability; }
int Device::multiprocessorCount() const { return impl->multiprocessors; }
int Device::driverVersion() const { return impl->driverVersion; }

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

Status Device::allocate(size_t bytes, DeviceBuffer &buffer) {
  if (bytes == 0)
    return Status::error("cannot allocate 0 bytes on the device");
  ScopedContext scope(*impl->context);
  if (!scope.status())
    return scope.status();
  CUdeviceptr ptr;
  if (Status s =
          impl->driver.check(impl->driver.memAlloc(&ptr, bytes),
                             "cuMemAlloc(" + std::to_string(bytes) + " bytes)");
      !s)
    return s;
  buffer = DeviceBuffer();
  buffer.ptr = ptr;
  buffer.bytes = bytes;
  buffer.context = impl->context;
  return Status::ok();
}

static Status checkTransfer(const DeviceBuffer &buffer, size_t bytes,
                            const char *what) {
  if (bytes > buffer.size())
    return Status::error(std::string(what) + " of " + std::to_string(bytes) +
                         " bytes does not fit a buffer of " +
                         std::to_string(buffer.size()));
  return Status::ok();
}

/// Memory operations go on the device's own stream, in order with its
/// launches, and are waited for. The synchronous driver calls would not
/// do: they run on the legacy stream, which a non-blocking stream does not
/// wait for, and a memset (or the DMA of a pageable upload) may still be
/// running when they return, i.e. land on a kernel's outputs.
Status Device::Impl::finish(CUresult enqueued, const std::string &call) {
  if (Status s = driver.check(enqueued, call); !s)
    return s;
  return driver.check(driver.streamSynchronize(stream),
                      "cuStreamSynchronize after " + call);
}

Status Device::upload(DeviceBuffer &buffer, const void *host, size_t bytes) {
  if (Status s = checkTransfer(buffer, bytes, "an upload"); !s)
    return s;
  ScopedContext scope(*impl->context);
  if (!scope.status())
    return scope.status();
  return impl->finish(
      impl->driver.memcpyHtoDAsync(buffer.address(), host, bytes, impl->stream),
      "cuMemcpyHtoDAsync");
}

Status Device::download(void *host, const DeviceBuffer &buffer, size_t bytes) {
  if (Status s = checkTransfer(buffer, bytes, "a download"); !s)
    return s;
  ScopedContext scope(*impl->context);
  if (!scope.status())
    return scope.status();
  return impl->finish(
      impl->driver.memcpyDtoHAsync(host, buffer.address(), bytes, impl->stream),
      "cuMemcpyDtoHAsync");
}

Status Device::fill(DeviceBuffer &buffer, uint8_t byte) {
  ScopedContext scope(*impl->context);
  if (!scope.status())
    return scope.status();
  return impl->finish(impl->driver.memsetD8Async(buffer.address(), byte,
                                                 buffer.size(), impl->stream),
                      "cuMemsetD8Async");
}

//===----------------------------------------------------------------------===//
// Modules
//===----------------------------------------------------------------------===//

/// PTX goes through the driver's JIT (ptxas inside the driver). Its error
/// log is the only place that says why PTX was rejected; the info log holds
/// the resource usage (verbose), kept for `Module::jitLog`.
static Status loadPTX(const Driver &driver, const std::string &ptx,
                      CUmodule &module, std::string &infoLog) {
  std::vector<char> info(1 << 16, '\0'), errors(1 << 16, '\0');
  CUjit_option options[] = {
      CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
      CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
      CU_JIT_LOG_VERBOSE};
  void *values[] = {info.data(), reinterpret_cast<void *>(info.size() - 1),
                    errors.data(), reinterpret_cast<void *>(errors.size() - 1),
                    reinterpret_cast<void *>(1)};
  CUresult result = driver.moduleLoadDataEx(
      &module, ptx.c_str(), sizeof(options) / sizeof(options[0]), options,
      values);
  infoLog = info.data();
  if (result == CUDA_SUCCESS)
    return Status::ok();
  std::string message =
      "cuModuleLoadDataEx failed to load the PTX: " + driver.describe(result);
  if (errors[0])
    message += "\nJIT error log:\n" + std::string(errors.data());
  return Status::error(message);
}

/// The function of `kernel`, with its launch limits checked against the
/// metadata and the dynamic shared memory limit raised to what it needs
/// (the default limit is 48 KiB).
static Status prepareFunction(const Driver &driver, CUmodule module,
                              const KernelInfo &kernel, int optinLimit,
                              CUfunction &function) {
  CUresult found =
      driver.moduleGetFunction(&function, module, kernel.name.c_str());
  if (found != CUDA_SUCCESS)
    return Status::error(
        "kernel '" + kernel.name +
        "' of the metadata is not in the module: " + driver.describe(found));
  int maxThreads = 0, staticShared = 0;
  if (Status s = driver.check(
          driver.funcGetAttribute(
              &maxThreads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, function),
          "cuFuncGetAttribute");
      !s)
    return s;
  if (Status s = driver.check(
          driver.funcGetAttribute(
              &staticShared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function),
          "cuFuncGetAttribute");
      !s)
    return s;
  int64_t threads =
      int64_t(kernel.block[0]) * kernel.block[1] * kernel.block[2];
  if (threads > maxThreads)
    return Status::error("kernel '" + kernel.name + "' can run at most " +
                         std::to_string(maxThreads) +
                         " threads per block, the metadata asks for " +
                         std::to_string(threads));
  if (kernel.dynamicSharedMemory + staticShared > optinLimit)
    return Status::error("kernel '" + kernel.name + "' needs " +
                         std::to_string(kernel.dynamicSharedMemory) +
                         " bytes of dynamic shared memory (plus " +
                         std::to_string(staticShared) +
                         " static); the device allows " +
                         std::to_string(optinLimit) + " per block");
  return driver.check(
      driver.funcSetAttribute(function,
                              CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                              static_cast<int>(kernel.dynamicSharedMemory)),
      "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, " +
          std::to_string(kernel.dynamicSharedMemory) + ") for '" + kernel.name +
          "'");
}

Status Device::loadModule(const std::string &image, bool isPTX,
                          std::vector<KernelInfo> kernels,
                          std::unique_ptr<Module> &result) {
  const Driver &driver = impl->driver;
  ScopedContext scope(*impl->context);
  if (!scope.status())
    return scope.status();
  std::unique_ptr<Module> module(new Module());
  module->impl->context = impl->context;
  CUmodule &handle = module->impl->module;
  if (isPTX) {
    if (Status s = loadPTX(driver, image, handle, module->log); !s)
      return s;
  } else if (Status s =
                 driver.check(driver.moduleLoadData(&handle, image.data()),
                              "cuModuleLoadData (cubin)");
             !s) {
    return s;
  }
  for (const KernelInfo &kernel : kernels) {
    CUfunction function;
    if (Status s = prepareFunction(driver, handle, kernel,
                                   impl->sharedMemoryOptin, function);
        !s)
      return s;
    module->impl->functions.push_back(function);
  }
  module->infos = std::move(kernels);
  result = std::move(module);
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// Launches
//===----------------------------------------------------------------------===//

static std::string kernelNames(const Module &module) {
  std::vector<std::string> names;
  for (const KernelInfo &info : module.kernels())
    names.push_back("'" + info.name + "'");
  return names.empty() ? "none" : join(names);
}

static Status encodeTensorMap(const Driver &driver, const TensorMapEncoding &e,
                              void *descriptor) {
  return driver.check(
      driver.tensorMapEncodeTiled(
          static_cast<CUtensorMap *>(descriptor), e.dataType, e.rank,
          reinterpret_cast<void *>(static_cast<uintptr_t>(e.address)),
          e.globalDim, e.globalStrides, e.boxDim, e.elementStrides,
          e.interleave, e.swizzle, e.l2Promotion, e.oobFill),
      "cuTensorMapEncodeTiled");
}

/// Checks the grid and the arguments, and encodes the arguments' tensor
/// maps for this kernel.
static Status resolveLaunch(const Driver &driver, CUfunction function,
                            const KernelInfo &info, const unsigned grid[3],
                            KernelArgs &args, Launch &launch) {
  for (int i = 0; i < 3; ++i) {
    if (grid[i] == 0)
      return Status::error("kernel '" + info.name +
                           "': the grid has a zero dimension");
    launch.grid[i] = grid[i];
  }
  if (Status s = args.encodeTensorMaps(
          info,
          [&](const TensorMapEncoding &encoding, void *descriptor) {
            return encodeTensorMap(driver, encoding, descriptor);
          });
      !s)
    return s;
  launch.info = &info;
  launch.function = function;
  launch.params = args.pointers();
  return Status::ok();
}

/// Finds `kernel` in `module` and resolves its launch.
static Status prepareLaunch(const Driver &driver, Module &module,
                            const std::vector<CUfunction> &functions,
                            const std::string &kernel, const unsigned grid[3],
                            KernelArgs &args, Launch &launch) {
  const std::vector<KernelInfo> &infos = module.kernels();
  for (size_t i = 0; i < infos.size(); ++i)
    if (infos[i].name == kernel)
      return resolveLaunch(driver, functions[i], infos[i], grid, args, launch);
  return Status::error("no kernel '" + kernel + "' in the module (it has " +
                       kernelNames(module) + ")");
}

static Status enqueue(const Driver &driver, CUstream stream, Launch &launch) {
  const KernelInfo &info = *launch.info;
  CUresult result = driver.launchKernel(
      launch.function, launch.grid[0], launch.grid[1], launch.grid[2],
      info.block[0], info.block[1], info.block[2],
      static_cast<unsigned>(info.dynamicSharedMemory), stream,
      launch.params.data(), nullptr);
  // The message is built only for a failure: this is every launch's path.
  if (result == CUDA_SUCCESS)
    return Status::ok();
  return driver.check(result, "cuLaunchKernel('" + info.name + "')");
}

/// Runs `batch` of `launch` on the device's stream; a hang leaves the
/// context unusable.
Status Device::Impl::runWatched(Launch &launch, const LaunchBatch &batch,
                                std::vector<double> &times) {
  Status status = runLaunches(
      driver, stream, events, [&] { return enqueue(driver, stream, launch); },
      batch, times);
  if (status.code == TLE_RT_HANG)
    context->hung = true;
  return status;
}

Status Device::launch(Module &module, const std::string &kernel,
                      const unsigned grid[3], KernelArgs &args) {
  ScopedContext scope(*impl->context);
  if (!scope.status())
    return scope.status();
  Launch launch;
  if (Status s = prepareLaunch(impl->driver, module, module.impl->functions,
                               kernel, grid, args, launch);
      !s)
    return s;
  std::vector<double> unused;
  return impl->runWatched(launch, {kernel, 1, 0, watchdogSeconds}, unused);
}

/// A caller's stream, passed as an integer.
static CUstream toStream(uint64_t stream) {
  return reinterpret_cast<CUstream>(static_cast<uintptr_t>(stream));
}

Status Device::launchOnStream(Module &module, const std::string &kernel,
                              const unsigned grid[3], KernelArgs &args,
                              uint64_t stream) {
  ScopedContext scope(*impl->context);
  if (!scope.status())
    return scope.status();
  Launch launch;
  if (Status s = prepareLaunch(impl->driver, module, module.impl->functions,
                               kernel, grid, args, launch);
      !s)
    return s;
  return enqueue(impl->driver, toStream(stream), launch);
}

//===----------------------------------------------------------------------===//
// LaunchPlan
//===----------------------------------------------------------------------===//

/// The arguments and the launch that points into their storage, which
/// setValues rewrites in place: the mutex keeps two threads from
/// rewriting it at once.
struct LaunchPlan::Impl {
  std::shared_ptr<Context> context;
  KernelArgs args;
  Launch launch;
  std::mutex mutex;
};

LaunchPlan::LaunchPlan() : impl(std::make_unique<Impl>()) {}
LaunchPlan::~LaunchPlan() = default;

size_t LaunchPlan::numValues() const { return impl->args.size(); }

Status Device::planLaunch(Module &module, const std::string &kernel,
                          const unsigned grid[3], KernelArgs args,
                          std::unique_ptr<LaunchPlan> &plan) {
  ScopedContext scope(*impl->context);
  if (!scope.status())
    return scope.status();
  std::unique_ptr<LaunchPlan> result(new LaunchPlan());
  LaunchPlan::Impl &planned = *result->impl;
  planned.context = impl->context;
  planned.args = std::move(args);
  if (Status s = prepareLaunch(impl->driver, module, module.impl->functions,
                               kernel, grid, planned.args, planned.launch);
      !s)
    return s;
  plan = std::move(result);
  return Status::ok();
}

Status LaunchPlan::launch(const uint64_t *values, size_t count,
                          uint64_t stream) {
  const Driver &driver = impl->context->driver;
  std::lock_guard<std::mutex> lock(impl->mutex);
  ScopedContext scope(*impl->context);
  if (!scope.status())
    return scope.status();
  if (Status s = impl->args.setValues(
          *impl->launch.info, values, count,
          [&](const TensorMapEncoding &encoding, void *descriptor) {
            return encodeTensorMap(driver, encoding, descriptor);
          });
      !s)
    return s;
  return enqueue(driver, toStream(stream), impl->launch);
}

Status Device::time(Module &module, const std::string &kernel,
                    const unsigned grid[3], KernelArgs &args, int warmup,
                    int reps, Timing &timing) {
  if (warmup < 0 || reps < 1)
    return Status::error("timing needs warmup >= 0 and reps >= 1");
  ScopedContext scope(*impl->context);
  if (!scope.status())
    return scope.status();
  Launch launch;
  if (Status s = prepareLaunch(impl->driver, module, module.impl->functions,
                               kernel, grid, args, launch);
      !s)
    return s;
  std::vector<double> times;
  if (Status s = impl->runWatched(
          launch, {kernel, warmup, reps, watchdogSeconds}, times);
      !s)
    return s;
  timing = summarize(std::move(times));
  return Status::ok();
}
