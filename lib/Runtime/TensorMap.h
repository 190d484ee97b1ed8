//===- TensorMap.h - TMA descriptors of kernel arguments --------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A `!tle.tensor_map<...>` argument is a CUtensorMap that the host encodes
// with cuTensorMapEncodeTiled from the global tensor passed and the box,
// element type and swizzle of the kernel's signature. The driver's checks
// of those arguments come back as a bare CUDA_ERROR_INVALID_VALUE, so every
// rule it documents is checked here first, where a message can name it;
// building the call's arguments is kept apart from the call so that it can
// be tested without a driver.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_LIB_RUNTIME_TENSORMAP_H
#define TLE_LIB_RUNTIME_TENSORMAP_H

#include "tle/Runtime/Runtime.h"
#include "tle/Support/Hopper.h"

#include "CudaDriverAPI.h"

namespace tle::runtime::detail {

using hopper::kMaxTensorMapRank;

/// The arguments of cuTensorMapEncodeTiled. Arrays are innermost dimension
/// first, as the driver wants them; only the first `rank` entries (`rank`
/// - 1 for the strides) are meaningful.
struct TensorMapEncoding {
  CUtensorMapDataType dataType = CU_TENSOR_MAP_DATA_TYPE_UINT8;
  cuuint32_t rank = 0;
  uint64_t address = 0;
  cuuint64_t globalDim[kMaxTensorMapRank] = {};
  /// In bytes, of dimensions 1 .. rank - 1 (the innermost is contiguous).
  cuuint64_t globalStrides[kMaxTensorMapRank - 1] = {};
  cuuint32_t boxDim[kMaxTensorMapRank] = {};
  cuuint32_t elementStrides[kMaxTensorMapRank] = {};
  CUtensorMapInterleave interleave = CU_TENSOR_MAP_INTERLEAVE_NONE;
  CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
  CUtensorMapL2promotion l2Promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
  CUtensorMapFloatOOBfill oobFill = CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
};

/// The encoding of the tensor map argument `type` (its box, element type
/// and swizzle) over the global tensor at `address` with `sizes` and
/// `strides` in elements, outermost first. Fails, saying which rule is
/// broken, for anything the driver would reject; the caller names the
/// argument.
Status buildTensorMapEncoding(const KernelArgInfo &type, uint64_t address,
                              const std::vector<int64_t> &sizes,
                              const std::vector<int64_t> &strides,
                              TensorMapEncoding &encoding);

} // namespace tle::runtime::detail

#endif // TLE_LIB_RUNTIME_TENSORMAP_H
