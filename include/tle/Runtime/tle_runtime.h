/*===- tle_runtime.h - C interface of the TLE runtime -------------*- C -*-===*\
|*                                                                            *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                   *|
|*                                                                            *|
|* For callers that cannot use C++, above all Python through ctypes           *|
|* (libtle_runtime.so). Handles are opaque; every call that can fail returns  *|
|* a tle_rt_status (as an int, for ctypes), whose values are also tle-run's   *|
|* exit codes, and tle_rt_last_error() then says why. docs/Runtime.md has an  *|
|* example.                                                                   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TLE_RUNTIME_TLE_RUNTIME_H
#define TLE_RUNTIME_TLE_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define TLE_RT_API __attribute__((visibility("default")))
#else
#define TLE_RT_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** The outcome of every call that can fail; the same values are the C++
    runtime's Status codes and tle-run's exit codes (0 ok, 1 error or a
    failed check, 2 no device, 3 hang). */
typedef enum tle_rt_status {
  TLE_RT_OK = 0,
  /** Any other failure: bad arguments, a rejected module, a kernel fault. */
  TLE_RT_ERROR = 1,
  /** No CUDA driver (libcuda.so.1) or no CUDA device. */
  TLE_RT_NO_DEVICE = 2,
  /** A kernel outlived the watchdog (a deadlocked pipe, most likely). The
      device is unusable from then on (closing it frees nothing, since
      teardown would wait for the kernel): end the process (os._exit in
      Python). */
  TLE_RT_HANG = 3,
} tle_rt_status;

typedef struct tle_rt_device tle_rt_device;
typedef struct tle_rt_module tle_rt_module;
typedef struct tle_rt_metadata tle_rt_metadata;
typedef struct tle_rt_kernel tle_rt_kernel;
typedef struct tle_rt_args tle_rt_args;
typedef struct tle_rt_launch_plan tle_rt_launch_plan;

/** Why the last failed call of this thread failed ("" if none did). */
TLE_RT_API const char *tle_rt_last_error(void);

/* Devices. A device is its primary context, the one the CUDA runtime and
   PyTorch use: their device pointers may be passed to kernels. */
TLE_RT_API int tle_rt_device_open(int ordinal, tle_rt_device **device);
/** Frees the device's allocations. Free its modules first. */
TLE_RT_API void tle_rt_device_close(tle_rt_device *device);
TLE_RT_API const char *tle_rt_device_name(const tle_rt_device *device);
/** Major * 10 + minor, e.g. 90. */
TLE_RT_API int tle_rt_device_compute_capability(const tle_rt_device *device);
TLE_RT_API int tle_rt_device_multiprocessors(const tle_rt_device *device);
/** Seconds a launch may run before it is reported as TLE_RT_HANG
    (default 10). */
TLE_RT_API int tle_rt_device_set_watchdog(tle_rt_device *device,
                                          double seconds);

/* Memory, for callers without another CUDA library. */
TLE_RT_API int tle_rt_malloc(tle_rt_device *device, size_t bytes,
                             uint64_t *address);
TLE_RT_API int tle_rt_free(tle_rt_device *device, uint64_t address);
TLE_RT_API int tle_rt_upload(tle_rt_device *device, uint64_t address,
                             const void *host, size_t bytes);
TLE_RT_API int tle_rt_download(tle_rt_device *device, void *host,
                               uint64_t address, size_t bytes);
/** Sets every byte of the allocation at `address` to `byte`. */
TLE_RT_API int tle_rt_fill(tle_rt_device *device, uint64_t address,
                           uint8_t byte);

/* Modules: PTX or a cubin (told apart by content) with tle-translate's
   metadata; a NULL metadata_path means image_path with its extension
   replaced by ".json". */
TLE_RT_API int tle_rt_module_load(tle_rt_device *device, const char *image_path,
                                  const char *metadata_path,
                                  tle_rt_module **module);
TLE_RT_API void tle_rt_module_free(tle_rt_module *module);

/* Metadata alone, without a device: its kernels describe themselves and
   check argument lists (tle_rt_args_check) but cannot be launched. */
TLE_RT_API int tle_rt_metadata_read(const char *path,
                                    tle_rt_metadata **metadata);
/** Frees the metadata and its kernels. */
TLE_RT_API void tle_rt_metadata_free(tle_rt_metadata *metadata);

/* Kernels belong to their module (or metadata) and live as long as it. A
   NULL name picks the only kernel. */
TLE_RT_API int tle_rt_module_get_kernel(tle_rt_module *module, const char *name,
                                        tle_rt_kernel **kernel);
TLE_RT_API int tle_rt_metadata_get_kernel(tle_rt_metadata *metadata,
                                          const char *name,
                                          tle_rt_kernel **kernel);
TLE_RT_API const char *tle_rt_kernel_name(const tle_rt_kernel *kernel);
/** The number of source arguments (memrefs and tensor maps count once), or
    -1 when the metadata has none. */
TLE_RT_API int tle_rt_kernel_num_args(const tle_rt_kernel *kernel);
TLE_RT_API void tle_rt_kernel_block(const tle_rt_kernel *kernel, int block[3]);
TLE_RT_API int64_t tle_rt_kernel_shared_memory(const tle_rt_kernel *kernel);
/** 1 when the kernel loops over the work items of its CTA's linear id
    (tle.persistent in its source; launch at most one CTA per
    multiprocessor), else 0. */
TLE_RT_API int tle_rt_kernel_persistent(const tle_rt_kernel *kernel);

/* A kernel's arguments, as its metadata describes them. */
enum {
  TLE_RT_ARG_MEMREF = 0,
  TLE_RT_ARG_TENSOR_MAP = 1,
  TLE_RT_ARG_INDEX = 2,
  TLE_RT_ARG_I32 = 3,
  TLE_RT_ARG_F32 = 4,
};
/** A size, stride or offset the argument's type leaves open. */
#define TLE_RT_DYNAMIC (-1)

/** Every pointer in it points into the kernel's metadata and stays valid
    until the module (or metadata) of the kernel is freed; the caller frees
    nothing. Fields that do not apply to the kind are 0, NULL or "". */
typedef struct tle_rt_arg_info {
  /** One of TLE_RT_ARG_*. */
  int kind;
  /** The type as the kernel's author wrote it, for messages:
      "memref<?x256xf32>", "!tle.tensor_map<128x64xbf16, swizzle = 128>". */
  const char *type;
  /** The argument's name, or "" when the metadata has none. */
  const char *name;
  /** Memrefs and tensor maps, as MLIR spells it: "bf16", "f32", "i32". */
  const char *element_type;
  /** Memrefs: the number of sizes; tensor maps: of box dimensions. */
  int rank;
  /** Memrefs: `rank` sizes, TLE_RT_DYNAMIC where dynamic. */
  const int64_t *sizes;
  /** Memrefs with a strided layout: `rank` strides (TLE_RT_DYNAMIC where
      dynamic) and the offset (possibly TLE_RT_DYNAMIC); NULL and 0 for the
      identity layout, which is contiguous with offset 0. */
  const int64_t *strides;
  int64_t offset;
  /** Tensor maps: the box one copy moves, `rank` sizes outermost first, and
      the shared-memory swizzle span in bytes (0, 32, 64 or 128). */
  const int64_t *box;
  int swizzle;
} tle_rt_arg_info;

/** Fills `info` with argument `index` (0 .. tle_rt_kernel_num_args - 1). */
TLE_RT_API int tle_rt_kernel_arg(const tle_rt_kernel *kernel, int index,
                                 tle_rt_arg_info *info);

/* Argument lists, in the order of the kernel's arguments. `element_type`
   is the type of the tensor's elements as MLIR spells it ("bf16", "f16",
   "f32", "i32", ...), which must be the argument's. Sizes, strides and
   offsets are in elements; a NULL strides means contiguous (row-major). */
TLE_RT_API int tle_rt_args_create(tle_rt_args **args);
TLE_RT_API void tle_rt_args_free(tle_rt_args *args);
/** A memref; its strides and offset must be those its layout fixes (for the
    identity layout, contiguous and 0) wherever the size is above 1. */
TLE_RT_API int tle_rt_args_add_memref(tle_rt_args *args, uint64_t address,
                                      const char *element_type, int rank,
                                      const int64_t *sizes,
                                      const int64_t *strides, int64_t offset);
/** A TMA descriptor (a `!tle.tensor_map<...>` argument) over the global
    tensor at `address` (16-byte aligned) with `rank` sizes and strides,
    outermost first; the innermost stride must be 1 and the others
    multiples of 16 bytes. The kernel's argument gives the box and swizzle:
    the descriptor is encoded at each launch, and tle_rt_args_check checks
    every rule of its encoding. */
TLE_RT_API int tle_rt_args_add_tensor_map(tle_rt_args *args, uint64_t address,
                                          const char *element_type, int rank,
                                          const int64_t *sizes,
                                          const int64_t *strides);
TLE_RT_API int tle_rt_args_add_index(tle_rt_args *args, int64_t value);
TLE_RT_API int tle_rt_args_add_i32(tle_rt_args *args, int32_t value);
TLE_RT_API int tle_rt_args_add_f32(tle_rt_args *args, float value);
/** Checks the list against the kernel's metadata, naming the argument and
    the rule broken (kinds, element types, ranks, static sizes, layout
    strides and offsets, tensor map rules); launches do too. */
TLE_RT_API int tle_rt_args_check(const tle_rt_args *args,
                                 const tle_rt_kernel *kernel);

/* Launches. tle_rt_launch and tle_rt_time run on the runtime's own stream
   and return when their launches are done, under the device's watchdog:
   work of other libraries on their streams (e.g. the inputs PyTorch wrote)
   must be complete before the call. tle_rt_launch_on_stream enqueues on
   the caller's stream instead and does not wait. */
TLE_RT_API int tle_rt_launch(tle_rt_kernel *kernel, unsigned grid_x,
                             unsigned grid_y, unsigned grid_z,
                             tle_rt_args *args);
/** One launch enqueued on the caller's `stream`, a CUstream of the device's
    primary context as an integer (e.g. PyTorch's
    torch.cuda.current_stream().cuda_stream; 0 is the legacy default
    stream), so that it is ordered with the caller's other work on that
    stream and timed by the caller's events there. Checks `args` against the
    kernel and encodes its tensor maps as tle_rt_launch does, then returns
    without waiting and without the watchdog: an error of the kernel itself
    (a fault; a deadlock, which nothing then interrupts) surfaces only at
    the next call that synchronizes with the stream, such as
    cuStreamSynchronize or torch.cuda.synchronize(). `args` may be freed or
    refilled as soon as the call returns: cuLaunchKernel copies every
    parameter value (tensor map descriptors included) out of the args'
    storage before it returns, and nothing keeps a pointer to it. The
    memory the arguments point to must stay valid until the kernel ends. */
TLE_RT_API int tle_rt_launch_on_stream(tle_rt_kernel *kernel, unsigned grid_x,
                                       unsigned grid_y, unsigned grid_z,
                                       tle_rt_args *args, uint64_t stream);
/** `warmup` untimed launches, then `reps` launches each between two CUDA
    events, all enqueued back to back on the runtime's stream (the GPU does
    not idle between them, as under a peer's timing loop) and waited for
    once, under the watchdog, which gives each launch the watchdog's seconds
    after the one before it finished. The median, minimum and maximum of
    the per-launch times, in milliseconds. */
TLE_RT_API int tle_rt_time(tle_rt_kernel *kernel, unsigned grid_x,
                           unsigned grid_y, unsigned grid_z, tle_rt_args *args,
                           int warmup, int reps, double *median_ms,
                           double *min_ms, double *max_ms);

/* Launch plans, for a kernel launched again and again with new tensors of
   the same shapes (a PyTorch operator): the checks of an argument list are
   made once, when the plan is created, and each launch only replaces the
   arguments' values, one 64-bit value per argument. */

/** Checks `args` and the grid against `kernel` as tle_rt_launch_on_stream
    does and makes a plan of them. The plan keeps a copy of the list (the
    caller still owns and frees `args`) and belongs to the kernel's module:
    free it with tle_rt_plan_free before the module. */
TLE_RT_API int tle_rt_plan_create(tle_rt_kernel *kernel, unsigned grid_x,
                                  unsigned grid_y, unsigned grid_z,
                                  const tle_rt_args *args,
                                  tle_rt_launch_plan **plan);
TLE_RT_API void tle_rt_plan_free(tle_rt_launch_plan *plan);
/** The number of values tle_rt_plan_launch takes: the number of arguments
    of the list the plan was made from. */
TLE_RT_API int tle_rt_plan_num_values(const tle_rt_launch_plan *plan);
/** One launch with the plan's grid and argument list, each argument's value
    replaced by the next of `count` values: a memref's or a tensor map's
    address (a tensor map is encoded anew, and its address checked, as
    tle_rt_args_check does, when its address differs from the one its
    descriptor holds), an index's value, an i32's value sign-extended
    to 64 bits, or an f32's bits in the low 32 bits. Everything else (element
    types, sizes, strides) is the list's, as checked when the plan was made:
    the tensors must have those shapes. Enqueued on `stream` and returned
    from at once, exactly as tle_rt_launch_on_stream: without waiting and
    without the watchdog, errors of the kernel surfacing at the next call
    that synchronizes with the stream. `values` may be reused as soon as the
    call returns. Several threads may launch one plan at once. */
TLE_RT_API int tle_rt_plan_launch(tle_rt_launch_plan *plan,
                                  const uint64_t *values, int count,
                                  uint64_t stream);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TLE_RUNTIME_TLE_RUNTIME_H */
