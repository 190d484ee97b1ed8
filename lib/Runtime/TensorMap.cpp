//===- TensorMap.cpp - TMA descriptors of kernel arguments ----------------===//
//
// The rules are those of cuTensorMapEncodeTiled in cuda.h, for the tiled,
// non-interleaved descriptors TLE kernels use.
//
//===----------------------------------------------------------------------===//

#include "TensorMap.h"

#include "tle/Support/Strings.h"

#include <cctype>
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

static const ElementType *findElementType(const std::string &name) {
  for (const ElementType &type : elementTypes)
    if (name == type.name)
      return &type;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// The type
//===----------------------------------------------------------------------===//

static const char kPrefix[] = "!tle.tensor_map<";

bool tle::runtime::isTensorMapType(const std::string &type) {
  return type.compare(0, sizeof(kPrefix) - 1, kPrefix) == 0;
}

/// Reads a positive decimal integer at `pos`, advancing past it.
static bool readPositive(const std::string &text, size_t &pos, int64_t &value) {
  size_t begin = pos;
  value = 0;
  while (pos < text.size() &&
         std::isdigit(static_cast<unsigned char>(text[pos])) &&
         value < (int64_t(1) << 40))
    value = value * 10 + (text[pos++] - '0');
  return pos > begin && value > 0;
}

static std::string withoutSpaces(const std::string &text) {
  std::string result;
  for (char c : text)
    if (c != ' ')
      result += c;
  return result;
}

/// "128x64xbf16": the box and the element type.
static Status parseShape(const std::string &shape, TensorMapTypeInfo &info) {
  size_t pos = 0;
  int64_t dim;
  while (pos < shape.size() &&
         std::isdigit(static_cast<unsigned char>(shape[pos]))) {
    if (!readPositive(shape, pos, dim) || pos >= shape.size() ||
        shape[pos] != 'x')
      return Status::error("the box must be positive sizes, each followed "
                           "by 'x'");
    info.box.push_back(dim);
    ++pos;
  }
  if (info.box.empty())
    return Status::error("it has no box");
  info.elementType = shape.substr(pos);
  const ElementType *element = findElementType(info.elementType);
  if (!element) {
    std::vector<std::string> known;
    for (const ElementType &type : elementTypes)
      known.push_back(type.name);
    return Status::error("the element type '" + info.elementType +
                         "' is none of " + join(known));
  }
  info.elementBytes = element->bytes;
  return Status::ok();
}

/// "swizzle=128", spaces removed.
static Status parseSwizzle(const std::string &text, TensorMapTypeInfo &info) {
  const std::string key = "swizzle=";
  if (text.compare(0, key.size(), key) != 0)
    return Status::error("'" + text + "' is not 'swizzle = N'");
  std::string value = text.substr(key.size());
  for (int swizzle : {0, 32, 64, 128})
    if (value == std::to_string(swizzle)) {
      info.swizzle = swizzle;
      return Status::ok();
    }
  return Status::error("the swizzle must be 0, 32, 64 or 128 (bytes), not '" +
                       value + "'");
}

Status tle::runtime::parseTensorMapType(const std::string &type,
                                        TensorMapTypeInfo &info) {
  info = TensorMapTypeInfo();
  auto fail = [&](const std::string &why) {
    return Status::error("'" + type + "' is not a tensor map type: " + why +
                         " (expected e.g. '!tle.tensor_map<128x64xbf16, "
                         "swizzle = 128>')");
  };
  if (!isTensorMapType(type) || type.back() != '>')
    return fail("it is not '" + std::string(kPrefix) + "...>'");
  std::string body = withoutSpaces(type.substr(
      sizeof(kPrefix) - 1, type.size() - (sizeof(kPrefix) - 1) - 1));
  size_t comma = body.find(',');
  if (comma == std::string::npos)
    return fail("it has no swizzle");
  Status s = parseShape(body.substr(0, comma), info);
  if (s)
    s = parseSwizzle(body.substr(comma + 1), info);
  return s ? s : fail(s.message);
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
static Status checkBox(const TensorMapTypeInfo &type) {
  int64_t rank = static_cast<int64_t>(type.box.size());
  if (rank < 1 || rank > kMaxTensorMapRank)
    return Status::error("a tensor map has 1 to " + str(kMaxTensorMapRank) +
                         " dimensions, the box has " + str(rank));
  for (int64_t d = 0; d < rank; ++d)
    if (type.box[d] < 1 || type.box[d] > 256)
      return Status::error("box dimension " + str(d) + " is " +
                           str(type.box[d]) + "; each must be 1 to 256");
  int64_t innerBytes = type.box.back() * type.elementBytes;
  if (innerBytes % 16)
    return Status::error("the box's innermost dimension spans " +
                         str(innerBytes) +
                         " bytes; it must be a multiple of 16");
  if (type.swizzle && innerBytes > type.swizzle)
    return Status::error("the box's innermost dimension spans " +
                         str(innerBytes) + " bytes, more than the " +
                         str(type.swizzle) + "-byte swizzle span");
  return Status::ok();
}

/// The tensor's rules; `strides` has one entry per size.
static Status checkTensor(const TensorMapTypeInfo &type, uint64_t address,
                          const std::vector<int64_t> &sizes,
                          const std::vector<int64_t> &strides) {
  if (address % 16) {
    char text[40];
    std::snprintf(text, sizeof(text), "0x%llx",
                  static_cast<unsigned long long>(address));
    return Status::error("the tensor's address " + std::string(text) +
                         " is not 16-byte aligned");
  }
  int64_t rank = static_cast<int64_t>(sizes.size());
  for (int64_t d = 0; d < rank; ++d)
    if (sizes[d] < 1 || sizes[d] > (int64_t(1) << 32))
      return Status::error("the tensor's size in dimension " + str(d) + " is " +
                           str(sizes[d]) + "; each must be 1 to 2^32");
  if (strides.back() != 1)
    return Status::error("the tensor's innermost dimension must be "
                         "contiguous (stride 1), not stride " +
                         str(strides.back()));
  for (int64_t d = 0; d + 1 < rank; ++d) {
    int64_t bytes = strides[d] * type.elementBytes;
    if (strides[d] < 1 || strides[d] >= (int64_t(1) << 40) / type.elementBytes)
      return Status::error("the tensor's stride in dimension " + str(d) +
                           " is " + str(strides[d]) +
                           " elements; each must be positive and under "
                           "2^40 bytes");
    if (bytes % 16)
      return Status::error("the tensor's stride in dimension " + str(d) +
                           " is " + str(strides[d]) +
                           " elements = " + str(bytes) +
                           " bytes; TMA needs a multiple of 16 bytes");
  }
  return Status::ok();
}

Status detail::buildTensorMapEncoding(const TensorMapTypeInfo &type,
                                      uint64_t address,
                                      const std::vector<int64_t> &sizes,
                                      const std::vector<int64_t> &strides,
                                      TensorMapEncoding &encoding) {
  const ElementType *element = findElementType(type.elementType);
  if (!element || element->bytes != type.elementBytes)
    return Status::error("unsupported element type '" + type.elementType + "'");
  if (Status s = checkBox(type); !s)
    return s;
  size_t rank = type.box.size();
  if (sizes.size() != rank)
    return Status::error("the box has rank " + str(rank) +
                         ", the tensor passed has rank " + str(sizes.size()));
  if (strides.size() != rank)
    return Status::error("the tensor passed has " + str(rank) + " sizes but " +
                         str(strides.size()) + " strides");
  if (Status s = checkTensor(type, address, sizes, strides); !s)
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
          static_cast<cuuint64_t>(strides[d] * type.elementBytes);
  }
  encoding.swizzle = getSwizzle(type.swizzle);
  return Status::ok();
}
