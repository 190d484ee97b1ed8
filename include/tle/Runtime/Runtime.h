//===- Runtime.h - Load, launch and time TLE kernels ------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The runtime needs only the CUDA driver, which it loads at run time
// (dlopen of libcuda.so.1), and no LLVM: it builds on any machine with a C++
// compiler. Errors never throw: every call that can fail returns a Status.
//
// The C interface over this one, for ctypes and other foreign callers, is
// tle_runtime.h; docs/Runtime.md describes both.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_RUNTIME_RUNTIME_H
#define TLE_RUNTIME_RUNTIME_H

#include "tle/Runtime/tle_runtime.h"
#include "tle/Support/Hopper.h"
#include "tle/Support/KernelMetadataFormat.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tle::runtime {

/// Success, or a message for a person. The code is the C API's status
/// (tle_runtime.h), which is also tle-run's exit code.
struct Status {
  using Code = tle_rt_status;
  /// TLE_RT_NO_DEVICE: no CUDA driver or no CUDA device. TLE_RT_HANG: a
  /// kernel did not finish within the watchdog limit (a deadlocked pipe):
  /// the context is unusable and the process must exit.
  Code code = TLE_RT_OK;
  std::string message;

  static Status ok() { return {}; }
  static Status error(std::string message) {
    return {TLE_RT_ERROR, std::move(message)};
  }
  static Status noDevice(std::string message) {
    return {TLE_RT_NO_DEVICE, std::move(message)};
  }
  static Status hang(std::string message) {
    return {TLE_RT_HANG, std::move(message)};
  }
  explicit operator bool() const { return code == TLE_RT_OK; }
};

/// One argument of a kernel as tle-translate's metadata describes it
/// (tle/Support/KernelMetadataFormat.h): what a caller must pass for it.
struct KernelArgInfo {
  /// The C API's kinds (tle_runtime.h).
  enum class Kind {
    MemRef = TLE_RT_ARG_MEMREF,
    TensorMap = TLE_RT_ARG_TENSOR_MAP,
    Index = TLE_RT_ARG_INDEX,
    I32 = TLE_RT_ARG_I32,
    F32 = TLE_RT_ARG_F32,
  };
  Kind kind = Kind::Index;
  /// The type as the kernel's author wrote it, for messages:
  /// "memref<?x256xf32>", "!tle.tensor_map<128x64xbf16, swizzle = 128>".
  std::string type;
  /// Empty when the metadata names no argument.
  std::string name;
  /// Memrefs and tensor maps, as MLIR spells it: "bf16", "f32", "i32".
  std::string elementType;
  /// Memrefs: the sizes (metadata::kDynamic where dynamic); with the
  /// identity layout the memref is contiguous with offset 0, otherwise
  /// `strides` and `offset` hold the layout's (kDynamic where dynamic).
  std::vector<int64_t> sizes;
  bool identityLayout = true;
  std::vector<int64_t> strides;
  int64_t offset = 0;
  /// Tensor maps: the box one copy moves (outermost dimension first) and
  /// the shared-memory swizzle span in bytes (0, 32, 64 or 128).
  std::vector<int64_t> box;
  int swizzle = 0;

  /// "argument 2 (memref<?x?xbf16>)", or "argument 2 'c' (...)" when named.
  std::string describe(size_t index) const;
};

/// What tle-translate writes beside the PTX for one kernel.
struct KernelInfo {
  std::string name;
  int block[3] = {1, 1, 1};
  int64_t dynamicSharedMemory = 0;
  /// LLVM parameter types ("ptr", "i64", "i32", "f32", "tensor_map", ...).
  std::vector<std::string> params;
  /// The source arguments; empty when the metadata has none.
  std::vector<KernelArgInfo> args;
  std::string grid;
  /// The kernel loops over the work items of its CTA's linear id
  /// (tle.persistent): at most one CTA per multiprocessor.
  bool persistent = false;
};

/// Parses the metadata JSON; `kernels` gets one entry per kernel.
Status parseKernelMetadata(const std::string &json,
                           std::vector<KernelInfo> &kernels);

/// Reads a whole file (binary safe).
Status readFile(const std::string &path, std::string &contents);

/// Whether a module image is PTX text rather than a cubin (an ELF file).
bool isPTXImage(const std::string &image);

/// Where tle-translate's metadata for a kernel file is by convention: the
/// same path with the extension replaced by ".json" ("k.ptx" -> "k.json").
std::string defaultMetadataPath(const std::string &kernelPath);

namespace detail {
struct Context;
struct TensorMapEncoding;
} // namespace detail

/// A device allocation (freed on destruction).
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  DeviceBuffer(DeviceBuffer &&other) noexcept;
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept;
  ~DeviceBuffer();

  uint64_t address() const { return ptr; }
  size_t size() const { return bytes; }

private:
  friend class Device;
  void release();

  uint64_t ptr = 0;
  size_t bytes = 0;
  /// Keeps the context alive as long as memory in it is.
  std::shared_ptr<detail::Context> context;
};

/// The argument list of one launch, packed the way MLIR's default calling
/// convention lowers each source argument: a rank-r memref is (allocated
/// ptr, aligned ptr, offset, sizes[r], strides[r]); an index is an i64; a
/// tensor map is one 128-byte CUtensorMap passed by value.
class KernelArgs {
public:
  /// A memref of `elementType` (as MLIR spells it: "bf16", "f32", ...) at
  /// `address`; empty `strides` means contiguous (row-major) for `sizes`.
  void addMemRef(uint64_t address, std::string elementType,
                 std::vector<int64_t> sizes, std::vector<int64_t> strides = {},
                 int64_t offset = 0);
  /// A TMA descriptor over the global tensor of `elementType` at `address`
  /// (16-byte aligned), `sizes` and `strides` in elements, outermost first;
  /// empty `strides` means contiguous. The box and swizzle come from the
  /// kernel's signature, so the descriptor is encoded only when the
  /// arguments meet their kernel (encodeTensorMaps, at every launch).
  void addTensorMap(uint64_t address, std::string elementType,
                    std::vector<int64_t> sizes,
                    std::vector<int64_t> strides = {});
  void addIndex(int64_t value);
  void addI32(int32_t value);
  void addF32(float value);
  void clear();
  /// The number of source arguments added.
  size_t size() const { return sourceArgs.size(); }

  /// Checks the packed arguments against the kernel's arguments and
  /// parameter list: count and kinds; for memrefs the rank, element type,
  /// static sizes, and the strides and offset the layout fixes (an
  /// identity layout: contiguous, offset 0); for tensor maps the element
  /// type and every rule of the descriptor's encoding. A message names the
  /// argument and the rule.
  Status check(const KernelInfo &kernel) const;
  /// Writes the descriptor of every tensor map argument for `kernel`: calls
  /// `encode` with the arguments of cuTensorMapEncodeTiled and the
  /// parameter's storage (128 bytes, 128-byte aligned). Checks first.
  using TensorMapEncoder = std::function<Status(
      const detail::TensorMapEncoding &encoding, void *descriptor)>;
  Status encodeTensorMaps(const KernelInfo &kernel,
                          const TensorMapEncoder &encode);
  /// Replaces the value of every source argument, in order, keeping their
  /// element types, sizes and strides: `values[i]` is the address of a
  /// memref or tensor map, the value of an index, that of an i32
  /// (sign-extended to 64 bits) or the bits of an f32 (in the low 32 bits).
  /// A tensor map is encoded anew with `encode` when its address differs
  /// from the one its descriptor holds (a plan launched again with the same
  /// output skips cuTensorMapEncodeTiled). For a list already checked
  /// against `kernel` (LaunchPlan), so that nothing else is checked again.
  Status setValues(const KernelInfo &kernel, const uint64_t *values,
                   size_t count, const TensorMapEncoder &encode);
  /// Pointers to each parameter's storage, for cuLaunchKernel.
  std::vector<void *> pointers();
  /// The packed parameters, e.g. "ptr, ptr, i64, i64, i64, i64, i64".
  std::string describe() const;

private:
  struct Param {
    std::string kind; // "ptr", "i64", "i32", "f32", "tensor_map"
    size_t offset;
  };
  /// One source argument: a memref or tensor map with the tensor's
  /// element type, address, sizes, strides and offset, or a scalar.
  struct SourceArg {
    KernelArgInfo::Kind kind;
    std::string elementType = {};
    std::vector<int64_t> sizes = {};
    std::vector<int64_t> strides = {};
    int64_t offset = 0;
    uint64_t address = 0;
    /// Its first parameter.
    size_t param = 0;
    /// For a tensor map: its parameter holds the descriptor of `address`.
    bool encoded = false;
  };
  /// Storage in units that keep the largest alignment a parameter needs: a
  /// tensor map's (KernelArgs.cpp).
  struct alignas(hopper::kTensorMapBytes) Block {
    unsigned char bytes[hopper::kTensorMapBytes];
  };
  void addParam(std::string kind, const void *value, size_t size, size_t align);
  unsigned char *paramStorage(size_t param);
  Status checkArgs(const KernelInfo &kernel) const;
  Status checkParams(const KernelInfo &kernel) const;
  Status getTensorMapEncoding(const KernelInfo &kernel, size_t index,
                              detail::TensorMapEncoding &encoding) const;
  Status encodeTensorMap(const KernelInfo &kernel, size_t index,
                         const TensorMapEncoder &encode);

  std::vector<Param> params;
  std::vector<SourceArg> sourceArgs;
  std::vector<Block> storage;
  /// Bytes of `storage` in use.
  size_t used = 0;
};

/// Median, minimum and maximum of the timed launches, in milliseconds.
struct Timing {
  double medianMs = 0, minMs = 0, maxMs = 0;
  int reps = 0;
};

class Module;
class LaunchPlan;

/// One CUDA device with its primary context, through the driver API. The
/// primary context is the one the CUDA runtime (and PyTorch, CuPy) use, so
/// their device pointers are valid arguments here.
class Device {
public:
  /// Loads the driver and opens device `ordinal`. Fails with
  /// TLE_RT_NO_DEVICE when there is no driver or no device.
  static Status open(int ordinal, std::unique_ptr<Device> &device);
  ~Device();

  std::string name() const;
  /// Major * 10 + minor, e.g. 90 for Hopper.
  int computeCapability() const;
  int multiprocessorCount() const;
  /// The driver's CUDA version, e.g. 13000 for 13.0.
  int driverVersion() const;

  Status allocate(size_t bytes, DeviceBuffer &buffer);
  Status upload(DeviceBuffer &buffer, const void *host, size_t bytes);
  Status download(void *host, const DeviceBuffer &buffer, size_t bytes);
  /// Fills the buffer with a byte pattern (to catch unwritten outputs).
  Status fill(DeviceBuffer &buffer, uint8_t byte);

  /// Loads PTX (through the driver JIT, whose error log the Status carries)
  /// or a cubin, with the kernels' metadata. Every kernel of the metadata
  /// must be in the image; each gets its dynamic shared memory limit raised
  /// to what the metadata asks for.
  Status loadModule(const std::string &image, bool isPTX,
                    std::vector<KernelInfo> kernels,
                    std::unique_ptr<Module> &module);

  /// Seconds a launch may take before it is reported as a hang (counted
  /// from when the launch before it finished, in a batch).
  void setWatchdog(double seconds) { watchdogSeconds = seconds; }
  double watchdog() const { return watchdogSeconds; }

  /// Launches `kernel` and waits for it under the watchdog.
  Status launch(Module &module, const std::string &kernel,
                const unsigned grid[3], KernelArgs &args);
  /// Checks the grid and `args`, encodes the tensor maps and enqueues one
  /// launch on `stream`, a CUstream of this device's primary context as an
  /// integer (0: the legacy default stream), without waiting and without
  /// the watchdog: what goes wrong in the kernel (a fault, a hang) shows at
  /// the next call that synchronizes with the stream. `args` may be changed
  /// or destroyed as soon as this returns (cuLaunchKernel has copied the
  /// parameters); the memory they point to must live until the kernel ends.
  Status launchOnStream(Module &module, const std::string &kernel,
                        const unsigned grid[3], KernelArgs &args,
                        uint64_t stream);
  /// Checks the grid and `args` against `kernel` as launchOnStream does and
  /// keeps them in `plan`, whose launches only replace the arguments'
  /// values (LaunchPlan::launch): a kernel launched again and again with new
  /// tensors of the same shapes is checked once. The plan uses the module's
  /// kernel: destroy it before the module.
  Status planLaunch(Module &module, const std::string &kernel,
                    const unsigned grid[3], KernelArgs args,
                    std::unique_ptr<LaunchPlan> &plan);
  /// `warmup` untimed launches, then `reps` launches each between two CUDA
  /// events, all enqueued back to back (as a peer timed in a loop or by
  /// do_bench runs: the GPU never idles between them) and waited for under
  /// the watchdog, which allows each launch `watchdog()` seconds after the
  /// one before it finished. `timing` summarizes the per-launch times.
  Status time(Module &module, const std::string &kernel, const unsigned grid[3],
              KernelArgs &args, int warmup, int reps, Timing &timing);

private:
  struct Impl;
  explicit Device(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
  double watchdogSeconds = 10.0;
};

/// A launch checked once (Device::planLaunch) and then enqueued again and
/// again on the caller's streams with new argument values.
class LaunchPlan {
public:
  ~LaunchPlan();
  /// How many values a launch takes: one per source argument.
  size_t numValues() const;
  /// Sets the arguments' values (KernelArgs::setValues) and enqueues one
  /// launch on `stream` as Device::launchOnStream does: without waiting and
  /// without the watchdog. Safe to call from several threads at once.
  Status launch(const uint64_t *values, size_t count, uint64_t stream);

private:
  friend class Device;
  struct Impl;
  LaunchPlan();
  std::unique_ptr<Impl> impl;
};

/// A loaded module: its kernels and their metadata.
class Module {
public:
  ~Module();
  const KernelInfo *findKernel(const std::string &name) const;
  const std::vector<KernelInfo> &kernels() const { return infos; }
  /// What the driver's PTX JIT reported (empty for cubins).
  const std::string &jitLog() const { return log; }

private:
  friend class Device;
  struct Impl;
  Module();
  std::unique_ptr<Impl> impl;
  std::vector<KernelInfo> infos;
  std::string log;
};

} // namespace tle::runtime

#endif // TLE_RUNTIME_RUNTIME_H
