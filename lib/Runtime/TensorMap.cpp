//===- TensorMap.cpp - TMA descriptors of kernel arguments ----------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The rules are those of cuTensorMapEncodeTiled in cuda.h, for the tiled,
// non-interleaved descriptors TLE kernels use.
//
//===----------------------------------------------------------------------===//

#include "TensorMap.h"

#include "tle/Support/Strings.h"

#include <cstdio>

using namespace tle;
using namespace tle::runtime;
using namespace tle::runtime::detail;

namespace {
struct ElementType {
  const char *name;
  int bytes;
  CUtensorMapDataType dataType;
};
} // namespace

/// What a copy does with an element depends only on its size, except for the
/// out-of-bounds fill (zeros here, for every type).
static const ElementType elementTypes[] = {
    {"i8", 1, CU_TENSOR_MAP_DATA_TYPE_UINT8},
    {"f8E4M3FN", 1, CU_TENSOR_MAP_DATA_TYPE_UINT8},
    {"f8E5M2", 1, CU_TENSOR_MAP_DATA_TYPE_UINT8},
    {"i16", 2, CU_TENSOR_MAP_DATA_TYPE_UINT16},
    {"f16", 2, CU_TENSOR_MAP_DATA_TYPE_FLOAT16},
    {"bf16", 2, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16},
    {"i32", 4, CU_TENSOR_MAP_DATA_TYPE_INT32},
    {"f32", 4, CU_TENSOR_MAP_DATA_TYPE_FLOAT32},
    {"i64", 8, CU_TENSOR_MAP_DATA_TYPE_INT64},
    {"f64", 8, CU_TENSOR_MAP_DATA_TYPE_FLOAT64},
};

static Status findElementType(const std::string &name,
                              const ElementType *&found) {
  std::vector<std::string> known;
  for (const ElementType &type : elementTypes) {
    if (name == type.name) {
      found = &type;
      return Status::ok();
    }
    known.push_back(type.name);
  }
  return Status::error("a tensor map's element type must be one of " +
                       join(known) + ", not '" + name + "'");
}

//===----------------------------------------------------------------------===//
// The encoding
//===----------------------------------------------------------------------===//

static std::string str(int64_t value) { return std::to_string(value); }

static CUtensorMapSwizzle getSwizzle(int bytes) {
  switch (bytes) {
  case 32:
    return CU_TENSOR_MAP_SWIZZLE_32B;
  case 64:
    return CU_TENSOR_MAP_SWIZZLE_64B;
  case 128:
    return CU_TENSOR_MAP_SWIZZLE_128B;
  default:
    return CU_TENSOR_MAP_SWIZZLE_NONE;
  }
}

/// The box's own rules, which do not depend on the tensor passed.
static Status checkBox(const KernelArgInfo &type, int elementBytes) {
  int64_t rank = static_cast<int64_t>(type.box.size());
  if (rank < 1 || rank > kMaxTensorMapRank)
    return Status::error("a tensor map has 1 to " + str(kMaxTensorMapRank) +
                         " dimensions, the box has " + str(rank));
  for (int64_t d = 0; d < rank; ++d)
    if (type.box[d] < 1 || type.box[d] > hopper::kMaxTensorMapBoxDim)
      return Status::error("box dimension " + str(d) + " is " +
                           str(type.box[d]) + "; each must be 1 to " +
                           str(hopper::kMaxTensorMapBoxDim));
  if (type.swizzle != 0 &&
      getSwizzle(type.swizzle) == CU_TENSOR_MAP_SWIZZLE_NONE)
    return Status::error("the swizzle must be 0, 32, 64 or 128 bytes, not " +
                         str(type.swizzle));
  int64_t innerBytes = type.box.back() * elementBytes;
  if (innerBytes % hopper::kTensorMapGlobalAlignment)
    return Status::error("the box's innermost dimension spans " +
                         str(innerBytes) + " bytes; it must be a multiple of " +
                         str(hopper::kTensorMapGlobalAlignment));
  if (type.swizzle && innerBytes > type.swizzle)
    return Status::error("the box's innermost dimension spans " +
                         str(innerBytes) + " bytes, more than the " +
                         str(type.swizzle) + "-byte swizzle span");
  return Status::ok();
}

/// The tensor's rules; `strides` has one entry per size.
static Status checkTensor(int elementBytes, uint64_t address,
                          const std::vector<int64_t> &sizes,
                          const std::vector<int64_t> &strides) {
  if (address % hopper::kTensorMapGlobalAlignment) {
    char text[40];
    std::snprintf(text, sizeof(text), "0x%llx",
                  static_cast<unsigned long long>(address));
    return Status::error("the tensor's address " + std::string(text) +
                         " is not " + str(hopper::kTensorMapGlobalAlignment) +
                         "-byte aligned");
  }
  int64_t rank = static_cast<int64_t>(sizes.size());
  for (int64_t d = 0; d < rank; ++d)
    if (sizes[d] < 1 || sizes[d] > hopper::kMaxTensorMapGlobalDim)
      return Status::error("the tensor's size in dimension " + str(d) + " is " +
                           str(sizes[d]) + "; each must be 1 to 2^32");
  if (strides.back() != 1)
    return Status::error("the tensor's innermost dimension must be "
                         "contiguous (stride 1), not stride " +
                         str(strides.back()));
  for (int64_t d = 0; d + 1 < rank; ++d) {
    int64_t bytes = strides[d] * elementBytes;
    if (strides[d] < 1 ||
        strides[d] >= hopper::kMaxTensorMapStrideBytes / elementBytes)
      return Status::error("the tensor's stride in dimension " + str(d) +
                           " is " + str(strides[d]) +
                           " elements; each must be positive and under "
                           "2^40 bytes");
    if (bytes % hopper::kTensorMapGlobalAlignment)
      return Status::error("the tensor's stride in dimension " + str(d) +
                           " is " + str(strides[d]) + " elements = " +
                           str(bytes) + " bytes; TMA needs a multiple of " +
                           str(hopper::kTensorMapGlobalAlignment) + " bytes");
  }
  return Status::ok();
}

Status detail::buildTensorMapEncoding(const KernelArgInfo &type,
                                      uint64_t address,
                                      const std::vector<int64_t> &sizes,
                                      const std::vector<int64_t> &strides,
                                      TensorMapEncoding &encoding) {
  const ElementType *element = nullptr;
  if (Status s = findElementType(type.elementType, element); !s)
    return s;
  if (Status s = checkBox(type, element->bytes); !s)
    return s;
  size_t rank = type.box.size();
  if (sizes.size() != rank)
    return Status::error("the box has rank " + str(rank) +
                         ", the tensor passed has rank " + str(sizes.size()));
  if (strides.size() != rank)
    return Status::error("the tensor passed has " + str(rank) + " sizes but " +
                         str(strides.size()) + " strides");
  if (Status s = checkTensor(element->bytes, address, sizes, strides); !s)
    return s;

  encoding = TensorMapEncoding();
  encoding.dataType = element->dataType;
  encoding.rank = static_cast<cuuint32_t>(rank);
  encoding.address = address;
  // Outermost-first in, innermost-first out.
  for (size_t i = 0; i < rank; ++i) {
    size_t d = rank - 1 - i;
    encoding.globalDim[i] = static_cast<cuuint64_t>(sizes[d]);
    encoding.boxDim[i] = static_cast<cuuint32_t>(type.box[d]);
    encoding.elementStrides[i] = 1;
    if (i > 0)
      encoding.globalStrides[i - 1] =
          static_cast<cuuint64_t>(strides[d] * element->bytes);
  }
  encoding.swizzle = getSwizzle(type.swizzle);
  return Status::ok();
}
