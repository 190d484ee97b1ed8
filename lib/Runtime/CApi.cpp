//===- CApi.cpp - C interface of the TLE runtime --------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Thin wrappers: each call converts its handles, calls the C++ runtime and
// turns the Status into a code, keeping the message for tle_rt_last_error.
//
//===----------------------------------------------------------------------===//

#include "tle/Runtime/Runtime.h"
#include "tle/Runtime/tle_runtime.h"

#include <map>

using namespace tle::runtime;

struct tle_rt_device {
  std::unique_ptr<Device> device;
  std::string name;
  /// Allocations made through tle_rt_malloc, by address.
  std::map<uint64_t, DeviceBuffer> buffers;
};

struct tle_rt_kernel {
  /// Null for a kernel of metadata read without a device.
  tle_rt_module *module;
  const KernelInfo *info;
};

/// One handle per kernel, so that handles stay put.
using KernelHandles = std::vector<std::unique_ptr<tle_rt_kernel>>;

struct tle_rt_module {
  tle_rt_device *device;
  std::unique_ptr<Module> module;
  KernelHandles kernels;
};

struct tle_rt_metadata {
  std::vector<KernelInfo> infos;
  KernelHandles kernels;
};

struct tle_rt_args {
  KernelArgs args;
};

struct tle_rt_launch_plan {
  std::unique_ptr<LaunchPlan> plan;
};

static_assert(TLE_RT_DYNAMIC == tle::metadata::kDynamic,
              "the C API spells 'dynamic' as the metadata does");

static thread_local std::string lastError;

static int fail(const Status &status) {
  lastError = status.message;
  return status.code;
}

static int report(const Status &status) {
  return status ? TLE_RT_OK : fail(status);
}

static int invalid(const char *function, const char *what) {
  return fail(Status::error(std::string(function) + ": " + what));
}

const char *tle_rt_last_error(void) { return lastError.c_str(); }

//===----------------------------------------------------------------------===//
// Devices and memory
//===----------------------------------------------------------------------===//

int tle_rt_device_open(int ordinal, tle_rt_device **device) {
  if (!device)
    return invalid(__func__, "device is NULL");
  std::unique_ptr<Device> opened;
  if (Status s = Device::open(ordinal, opened); !s)
    return fail(s);
  *device = new tle_rt_device{std::move(opened), "", {}};
  (*device)->name = (*device)->device->name();
  return TLE_RT_OK;
}

void tle_rt_device_close(tle_rt_device *device) { delete device; }

const char *tle_rt_device_name(const tle_rt_device *device) {
  return device ? device->name.c_str() : "";
}

int tle_rt_device_compute_capability(const tle_rt_device *device) {
  return device ? device->device->computeCapability() : 0;
}

int tle_rt_device_multiprocessors(const tle_rt_device *device) {
  return device ? device->device->multiprocessorCount() : 0;
}

int tle_rt_device_set_watchdog(tle_rt_device *device, double seconds) {
  if (!device)
    return invalid(__func__, "device is NULL");
  if (!(seconds > 0))
    return invalid(__func__, "the watchdog needs a positive number of "
                             "seconds");
  device->device->setWatchdog(seconds);
  return TLE_RT_OK;
}

int tle_rt_malloc(tle_rt_device *device, size_t bytes, uint64_t *address) {
  if (!device || !address)
    return invalid(__func__, "device and address must not be NULL");
  DeviceBuffer buffer;
  if (Status s = device->device->allocate(bytes, buffer); !s)
    return fail(s);
  *address = buffer.address();
  device->buffers.emplace(*address, std::move(buffer));
  return TLE_RT_OK;
}

/// The allocation made by tle_rt_malloc at `address`, or null.
static DeviceBuffer *findBuffer(tle_rt_device *device, uint64_t address) {
  auto it = device->buffers.find(address);
  return it == device->buffers.end() ? nullptr : &it->second;
}

static int unknownAddress(const char *function) {
  return invalid(function, "the address is not the start of an allocation "
                           "made by tle_rt_malloc");
}

int tle_rt_free(tle_rt_device *device, uint64_t address) {
  if (!device)
    return invalid(__func__, "device is NULL");
  if (!device->buffers.erase(address))
    return unknownAddress(__func__);
  return TLE_RT_OK;
}

int tle_rt_upload(tle_rt_device *device, uint64_t address, const void *host,
                  size_t bytes) {
  if (!device || !host)
    return invalid(__func__, "device and host must not be NULL");
  DeviceBuffer *buffer = findBuffer(device, address);
  if (!buffer)
    return unknownAddress(__func__);
  return report(device->device->upload(*buffer, host, bytes));
}

int tle_rt_download(tle_rt_device *device, void *host, uint64_t address,
                    size_t bytes) {
  if (!device || !host)
    return invalid(__func__, "device and host must not be NULL");
  DeviceBuffer *buffer = findBuffer(device, address);
  if (!buffer)
    return unknownAddress(__func__);
  return report(device->device->download(host, *buffer, bytes));
}

int tle_rt_fill(tle_rt_device *device, uint64_t address, uint8_t byte) {
  if (!device)
    return invalid(__func__, "device is NULL");
  DeviceBuffer *buffer = findBuffer(device, address);
  if (!buffer)
    return unknownAddress(__func__);
  return report(device->device->fill(*buffer, byte));
}

//===----------------------------------------------------------------------===//
// Modules and kernels
//===----------------------------------------------------------------------===//

static KernelHandles makeHandles(tle_rt_module *module,
                                 const std::vector<KernelInfo> &infos) {
  KernelHandles handles;
  for (const KernelInfo &info : infos)
    handles.push_back(
        std::make_unique<tle_rt_kernel>(tle_rt_kernel{module, &info}));
  return handles;
}

int tle_rt_module_load(tle_rt_device *device, const char *imagePath,
                       const char *metadataPath, tle_rt_module **module) {
  if (!device || !imagePath || !module)
    return invalid(__func__, "device, image_path and module must not be "
                             "NULL");
  std::string image, metadata;
  std::string jsonPath =
      metadataPath ? metadataPath : defaultMetadataPath(imagePath);
  std::vector<KernelInfo> kernels;
  Status s = readFile(imagePath, image);
  if (s)
    s = readFile(jsonPath, metadata);
  if (s)
    s = parseKernelMetadata(metadata, kernels);
  std::unique_ptr<Module> loaded;
  if (s)
    s = device->device->loadModule(image, isPTXImage(image), std::move(kernels),
                                   loaded);
  if (!s)
    return fail(s);
  auto *result = new tle_rt_module{device, std::move(loaded), {}};
  result->kernels = makeHandles(result, result->module->kernels());
  *module = result;
  return TLE_RT_OK;
}

void tle_rt_module_free(tle_rt_module *module) { delete module; }

int tle_rt_metadata_read(const char *path, tle_rt_metadata **metadata) {
  if (!path || !metadata)
    return invalid(__func__, "path and metadata must not be NULL");
  std::string text;
  std::vector<KernelInfo> kernels;
  Status s = readFile(path, text);
  if (s)
    s = parseKernelMetadata(text, kernels);
  if (!s)
    return fail(s);
  auto *result = new tle_rt_metadata{std::move(kernels), {}};
  result->kernels = makeHandles(nullptr, result->infos);
  *metadata = result;
  return TLE_RT_OK;
}

void tle_rt_metadata_free(tle_rt_metadata *metadata) { delete metadata; }

/// The kernel called `name` among `kernels`, or the only one for a NULL
/// name.
static int getKernel(const char *function, const KernelHandles &kernels,
                     const char *name, tle_rt_kernel **kernel) {
  if (!kernel)
    return invalid(function, "kernel is NULL");
  if (!name) {
    if (kernels.size() != 1)
      return invalid(function, kernels.empty()
                                   ? "there are no kernels"
                                   : "there are several kernels; name one");
    *kernel = kernels.front().get();
    return TLE_RT_OK;
  }
  for (const auto &entry : kernels) {
    if (entry->info->name == name) {
      *kernel = entry.get();
      return TLE_RT_OK;
    }
  }
  return fail(Status::error(std::string("no kernel '") + name + "'"));
}

int tle_rt_module_get_kernel(tle_rt_module *module, const char *name,
                             tle_rt_kernel **kernel) {
  if (!module)
    return invalid(__func__, "module is NULL");
  return getKernel(__func__, module->kernels, name, kernel);
}

int tle_rt_metadata_get_kernel(tle_rt_metadata *metadata, const char *name,
                               tle_rt_kernel **kernel) {
  if (!metadata)
    return invalid(__func__, "metadata is NULL");
  return getKernel(__func__, metadata->kernels, name, kernel);
}

const char *tle_rt_kernel_name(const tle_rt_kernel *kernel) {
  return kernel ? kernel->info->name.c_str() : "";
}

int tle_rt_kernel_num_args(const tle_rt_kernel *kernel) {
  if (!kernel || kernel->info->args.empty())
    return -1;
  return static_cast<int>(kernel->info->args.size());
}

int tle_rt_kernel_arg(const tle_rt_kernel *kernel, int index,
                      tle_rt_arg_info *info) {
  if (!kernel || !info)
    return invalid(__func__, "kernel and info must not be NULL");
  const std::vector<KernelArgInfo> &args = kernel->info->args;
  if (index < 0 || size_t(index) >= args.size())
    return fail(Status::error(
        std::string(__func__) + ": kernel '" + kernel->info->name + "' has " +
        std::to_string(args.size()) + " arguments, no argument " +
        std::to_string(index)));
  const KernelArgInfo &arg = args[index];
  bool isMap = arg.kind == KernelArgInfo::Kind::TensorMap;
  *info = tle_rt_arg_info();
  info->kind = static_cast<int>(arg.kind);
  info->type = arg.type.c_str();
  info->name = arg.name.c_str();
  info->element_type = arg.elementType.c_str();
  info->rank = static_cast<int>(isMap ? arg.box.size() : arg.sizes.size());
  info->sizes = arg.sizes.data();
  info->strides = arg.identityLayout ? nullptr : arg.strides.data();
  info->offset = arg.offset;
  info->box = isMap ? arg.box.data() : nullptr;
  info->swizzle = arg.swizzle;
  return TLE_RT_OK;
}

void tle_rt_kernel_block(const tle_rt_kernel *kernel, int block[3]) {
  for (int i = 0; i < 3; ++i)
    block[i] = kernel ? kernel->info->block[i] : 0;
}

int64_t tle_rt_kernel_shared_memory(const tle_rt_kernel *kernel) {
  return kernel ? kernel->info->dynamicSharedMemory : 0;
}

int tle_rt_kernel_persistent(const tle_rt_kernel *kernel) {
  return kernel && kernel->info->persistent ? 1 : 0;
}

//===----------------------------------------------------------------------===//
// Arguments and launches
//===----------------------------------------------------------------------===//

int tle_rt_args_create(tle_rt_args **args) {
  if (!args)
    return invalid(__func__, "args is NULL");
  *args = new tle_rt_args();
  return TLE_RT_OK;
}

void tle_rt_args_free(tle_rt_args *args) { delete args; }

/// Copies `rank` sizes and, unless `strides` is NULL, as many strides.
static void copyShape(int rank, const int64_t *sizes, const int64_t *strides,
                      std::vector<int64_t> &sizeList,
                      std::vector<int64_t> &strideList) {
  sizeList.assign(sizes, sizes + rank);
  if (strides)
    strideList.assign(strides, strides + rank);
}

int tle_rt_args_add_memref(tle_rt_args *args, uint64_t address,
                           const char *elementType, int rank,
                           const int64_t *sizes, const int64_t *strides,
                           int64_t offset) {
  if (!args || !elementType)
    return invalid(__func__, "args and element_type must not be NULL");
  if (rank < 0 || (rank > 0 && !sizes))
    return invalid(__func__, "a memref needs a rank >= 0 and its sizes");
  std::vector<int64_t> sizeList, strideList;
  copyShape(rank, sizes, strides, sizeList, strideList);
  args->args.addMemRef(address, elementType, std::move(sizeList),
                       std::move(strideList), offset);
  return TLE_RT_OK;
}

int tle_rt_args_add_tensor_map(tle_rt_args *args, uint64_t address,
                               const char *elementType, int rank,
                               const int64_t *sizes, const int64_t *strides) {
  if (!args || !elementType)
    return invalid(__func__, "args and element_type must not be NULL");
  if (rank < 1 || !sizes)
    return invalid(__func__, "a tensor map needs a rank >= 1 and its sizes");
  std::vector<int64_t> sizeList, strideList;
  copyShape(rank, sizes, strides, sizeList, strideList);
  args->args.addTensorMap(address, elementType, std::move(sizeList),
                          std::move(strideList));
  return TLE_RT_OK;
}

int tle_rt_args_add_index(tle_rt_args *args, int64_t value) {
  if (!args)
    return invalid(__func__, "args is NULL");
  args->args.addIndex(value);
  return TLE_RT_OK;
}

int tle_rt_args_add_i32(tle_rt_args *args, int32_t value) {
  if (!args)
    return invalid(__func__, "args is NULL");
  args->args.addI32(value);
  return TLE_RT_OK;
}

int tle_rt_args_add_f32(tle_rt_args *args, float value) {
  if (!args)
    return invalid(__func__, "args is NULL");
  args->args.addF32(value);
  return TLE_RT_OK;
}

int tle_rt_args_check(const tle_rt_args *args, const tle_rt_kernel *kernel) {
  if (!args || !kernel)
    return invalid(__func__, "args and kernel must not be NULL");
  return report(args->args.check(*kernel->info));
}

/// Launches need a kernel loaded on a device, not one of metadata alone.
static int checkLaunchable(const char *function, const tle_rt_kernel *kernel,
                           const tle_rt_args *args) {
  if (!kernel || !args)
    return invalid(function, "kernel and args must not be NULL");
  if (!kernel->module)
    return fail(Status::error(
        std::string(function) + ": kernel '" + kernel->info->name +
        "' comes from metadata read without a device; load its module "
        "with tle_rt_module_load to launch it"));
  return TLE_RT_OK;
}

int tle_rt_launch(tle_rt_kernel *kernel, unsigned gridX, unsigned gridY,
                  unsigned gridZ, tle_rt_args *args) {
  if (int code = checkLaunchable(__func__, kernel, args))
    return code;
  const unsigned grid[3] = {gridX, gridY, gridZ};
  tle_rt_module &module = *kernel->module;
  return report(module.device->device->launch(
      *module.module, kernel->info->name, grid, args->args));
}

int tle_rt_launch_on_stream(tle_rt_kernel *kernel, unsigned gridX,
                            unsigned gridY, unsigned gridZ, tle_rt_args *args,
                            uint64_t stream) {
  if (int code = checkLaunchable(__func__, kernel, args))
    return code;
  const unsigned grid[3] = {gridX, gridY, gridZ};
  tle_rt_module &module = *kernel->module;
  return report(module.device->device->launchOnStream(
      *module.module, kernel->info->name, grid, args->args, stream));
}

int tle_rt_time(tle_rt_kernel *kernel, unsigned gridX, unsigned gridY,
                unsigned gridZ, tle_rt_args *args, int warmup, int reps,
                double *medianMs, double *minMs, double *maxMs) {
  if (int code = checkLaunchable(__func__, kernel, args))
    return code;
  const unsigned grid[3] = {gridX, gridY, gridZ};
  tle_rt_module &module = *kernel->module;
  Timing timing;
  if (Status s =
          module.device->device->time(*module.module, kernel->info->name, grid,
                                      args->args, warmup, reps, timing);
      !s)
    return fail(s);
  if (medianMs)
    *medianMs = timing.medianMs;
  if (minMs)
    *minMs = timing.minMs;
  if (maxMs)
    *maxMs = timing.maxMs;
  return TLE_RT_OK;
}

//===----------------------------------------------------------------------===//
// Launch plans
//===----------------------------------------------------------------------===//

int tle_rt_plan_create(tle_rt_kernel *kernel, unsigned gridX, unsigned gridY,
                       unsigned gridZ, const tle_rt_args *args,
                       tle_rt_launch_plan **plan) {
  if (int code = checkLaunchable(__func__, kernel, args))
    return code;
  if (!plan)
    return invalid(__func__, "plan is NULL");
  const unsigned grid[3] = {gridX, gridY, gridZ};
  tle_rt_module &module = *kernel->module;
  std::unique_ptr<LaunchPlan> made;
  if (Status s = module.device->device->planLaunch(
          *module.module, kernel->info->name, grid, args->args, made);
      !s)
    return fail(s);
  *plan = new tle_rt_launch_plan{std::move(made)};
  return TLE_RT_OK;
}

void tle_rt_plan_free(tle_rt_launch_plan *plan) { delete plan; }

int tle_rt_plan_num_values(const tle_rt_launch_plan *plan) {
  return plan ? static_cast<int>(plan->plan->numValues()) : 0;
}

int tle_rt_plan_launch(tle_rt_launch_plan *plan, const uint64_t *values,
                       int count, uint64_t stream) {
  if (!plan || (count > 0 && !values))
    return invalid(__func__, "plan and values must not be NULL");
  if (count < 0)
    return invalid(__func__, "count must not be negative");
  return report(plan->plan->launch(values, static_cast<size_t>(count), stream));
}
