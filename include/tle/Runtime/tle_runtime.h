/*===- tle_runtime.h - C interface of the TLE runtime -------------*- C -*-===*\
|*                                                                            *|
|* For callers that cannot use C++, above all Python through ctypes           *|
|* (libtle_runtime.so). Handles are opaque; every call that can fail returns  *|
|* one of the TLE_RT_* codes, which are also tle-run's exit codes, and        *|
|* tle_rt_last_error() then says why. docs/Runtime.md has an example.         *|
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

enum {
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
};

typedef struct tle_rt_device tle_rt_device;
typedef struct tle_rt_module tle_rt_module;
typedef struct tle_rt_kernel tle_rt_kernel;
typedef struct tle_rt_args tle_rt_args;

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

/* Kernels belong to their module. A NULL name picks the module's only
   kernel. */
TLE_RT_API int tle_rt_module_get_kernel(tle_rt_module *module, const char *name,
                                        tle_rt_kernel **kernel);
TLE_RT_API const char *tle_rt_kernel_name(const tle_rt_kernel *kernel);
/** The number of source arguments (memrefs and tensor maps count once), or
    -1 when the metadata has no signature. */
TLE_RT_API int tle_rt_kernel_num_args(const tle_rt_kernel *kernel);
TLE_RT_API void tle_rt_kernel_block(const tle_rt_kernel *kernel, int block[3]);
TLE_RT_API int64_t tle_rt_kernel_shared_memory(const tle_rt_kernel *kernel);

/* Argument lists, in the order of the kernel's signature. A NULL strides
   means contiguous (row-major). */
TLE_RT_API int tle_rt_args_create(tle_rt_args **args);
TLE_RT_API void tle_rt_args_free(tle_rt_args *args);
TLE_RT_API int tle_rt_args_add_memref(tle_rt_args *args, uint64_t address,
                                      int rank, const int64_t *sizes,
                                      const int64_t *strides, int64_t offset);
/** A TMA descriptor (a `!tle.tensor_map<...>` argument) over the global
    tensor at `address` (16-byte aligned) with `rank` sizes and strides in
    elements, outermost first; the innermost stride must be 1 and the others
    multiples of 16 bytes. The kernel's signature gives the box, element
    type and swizzle: the descriptor is encoded at each launch, and
    tle_rt_args_check checks every rule of its encoding. */
TLE_RT_API int tle_rt_args_add_tensor_map(tle_rt_args *args, uint64_t address,
                                          int rank, const int64_t *sizes,
                                          const int64_t *strides);
TLE_RT_API int tle_rt_args_add_index(tle_rt_args *args, int64_t value);
TLE_RT_API int tle_rt_args_add_i32(tle_rt_args *args, int32_t value);
TLE_RT_API int tle_rt_args_add_f32(tle_rt_args *args, float value);
/** Checks the list against the kernel's metadata; launches do too. */
TLE_RT_API int tle_rt_args_check(const tle_rt_args *args,
                                 const tle_rt_kernel *kernel);

/* Launches. tle_rt_launch and tle_rt_time run on the runtime's own stream,
   each launch waited for under the device's watchdog: work of other
   libraries on their streams (e.g. the inputs PyTorch wrote) must be
   complete before the call. tle_rt_launch_on_stream enqueues on the
   caller's stream instead and does not wait. */
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
/** `warmup` untimed launches, then `reps` launches timed with CUDA events;
    times in milliseconds. */
TLE_RT_API int tle_rt_time(tle_rt_kernel *kernel, unsigned grid_x,
                           unsigned grid_y, unsigned grid_z, tle_rt_args *args,
                           int warmup, int reps, double *median_ms,
                           double *min_ms, double *max_ms);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TLE_RUNTIME_TLE_RUNTIME_H */
