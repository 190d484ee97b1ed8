//===- CudaDriverAPITest.cpp - The fallback declarations match cuda.h -----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The runtime builds without the CUDA toolkit from its own declarations of
// the driver API (lib/Runtime/CudaDriverAPI.h); where cuda.h exists, this
// test checks that they agree with it.
//
//===----------------------------------------------------------------------===//

#include <cstddef>
#include <cstdint>
#include <cuda.h>
#include <type_traits>

namespace subset {
#define TLE_CUDA_TYPES_ONLY
#include "CudaDriverAPI.h"
#undef TLE_CUDA_TYPES_ONLY
} // namespace subset

// The prototypes again, at global scope next to cuda.h's: a signature that
// differs does not compile.
#undef TLE_LIB_RUNTIME_CUDADRIVERAPI_H
#define TLE_CUDA_PROTOTYPES_ONLY
#include "CudaDriverAPI.h"
#undef TLE_CUDA_PROTOTYPES_ONLY

#include "gtest/gtest.h"

namespace {

#define TLE_SAME_VALUE(name)                                                   \
  static_assert(static_cast<long long>(subset::name) ==                        \
                    static_cast<long long>(::name),                            \
                #name " differs from cuda.h");
TLE_SAME_VALUE(CUDA_SUCCESS)
TLE_SAME_VALUE(CUDA_ERROR_STUB_LIBRARY)
TLE_SAME_VALUE(CUDA_ERROR_NO_DEVICE)
TLE_SAME_VALUE(CUDA_ERROR_NOT_FOUND)
TLE_SAME_VALUE(CUDA_ERROR_NOT_READY)
TLE_SAME_VALUE(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
TLE_SAME_VALUE(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)
TLE_SAME_VALUE(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)
TLE_SAME_VALUE(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
TLE_SAME_VALUE(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
TLE_SAME_VALUE(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)
TLE_SAME_VALUE(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)
TLE_SAME_VALUE(CU_JIT_INFO_LOG_BUFFER)
TLE_SAME_VALUE(CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES)
TLE_SAME_VALUE(CU_JIT_ERROR_LOG_BUFFER)
TLE_SAME_VALUE(CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
TLE_SAME_VALUE(CU_JIT_LOG_VERBOSE)
TLE_SAME_VALUE(CU_STREAM_NON_BLOCKING)
TLE_SAME_VALUE(CU_EVENT_DEFAULT)
TLE_SAME_VALUE(CU_TENSOR_MAP_DATA_TYPE_UINT8)
TLE_SAME_VALUE(CU_TENSOR_MAP_DATA_TYPE_UINT16)
TLE_SAME_VALUE(CU_TENSOR_MAP_DATA_TYPE_INT32)
TLE_SAME_VALUE(CU_TENSOR_MAP_DATA_TYPE_INT64)
TLE_SAME_VALUE(CU_TENSOR_MAP_DATA_TYPE_FLOAT16)
TLE_SAME_VALUE(CU_TENSOR_MAP_DATA_TYPE_FLOAT32)
TLE_SAME_VALUE(CU_TENSOR_MAP_DATA_TYPE_FLOAT64)
TLE_SAME_VALUE(CU_TENSOR_MAP_DATA_TYPE_BFLOAT16)
TLE_SAME_VALUE(CU_TENSOR_MAP_INTERLEAVE_NONE)
TLE_SAME_VALUE(CU_TENSOR_MAP_SWIZZLE_NONE)
TLE_SAME_VALUE(CU_TENSOR_MAP_SWIZZLE_32B)
TLE_SAME_VALUE(CU_TENSOR_MAP_SWIZZLE_64B)
TLE_SAME_VALUE(CU_TENSOR_MAP_SWIZZLE_128B)
TLE_SAME_VALUE(CU_TENSOR_MAP_L2_PROMOTION_L2_256B)
TLE_SAME_VALUE(CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
#undef TLE_SAME_VALUE

static_assert(std::is_same_v<subset::CUdeviceptr, ::CUdeviceptr>);
static_assert(std::is_same_v<subset::CUdevice, ::CUdevice>);
static_assert(sizeof(subset::CUresult) == sizeof(::CUresult));
static_assert(std::is_same_v<subset::cuuint32_t, ::cuuint32_t>);
static_assert(std::is_same_v<subset::cuuint64_t, ::cuuint64_t>);
static_assert(sizeof(subset::CUtensorMap) == sizeof(::CUtensorMap));
static_assert(alignof(subset::CUtensorMap) == alignof(::CUtensorMap));

TEST(CudaDriverAPI, MatchesCudaH) {
  // Everything is checked at compile time.
  SUCCEED();
}

} // namespace
