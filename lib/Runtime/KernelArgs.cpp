//===- KernelArgs.cpp - Launch arguments in the kernel ABI ----------------===//
//
// MLIR's default calling convention expands a rank-r memref into 3 + 2r
// parameters; packing them by hand is where launches go wrong, so every
// launch checks the packed list against the kernel's metadata first.
//
//===----------------------------------------------------------------------===//

#include "TensorMap.h"

#include "tle/Support/Strings.h"

#include <cstring>

using namespace tle;
using namespace tle::runtime;
using detail::TensorMapEncoding;

/// The size and alignment of a CUtensorMap: the PTX parameter is
/// `.align 64 .b8 [128]`, cuTensorMapEncodeTiled writes to 64-byte aligned
/// storage, and cuda.h declares the type 128-byte aligned.
static constexpr size_t kTensorMapBytes = 128;
static_assert(sizeof(CUtensorMap) == kTensorMapBytes &&
              alignof(CUtensorMap) <= kTensorMapBytes);

/// Empty `strides` stand for the contiguous (row-major) ones of `sizes`.
static std::vector<int64_t> resolveStrides(std::vector<int64_t> strides,
                                           const std::vector<int64_t> &sizes) {
  if (!strides.empty())
    return strides;
  strides.assign(sizes.size(), 1);
  for (size_t i = sizes.size(); i-- > 1;)
    strides[i - 1] = strides[i] * sizes[i];
  return strides;
}

/// Appends a parameter at the next offset aligned to `align` (which divides
/// the block size). cuLaunchKernel reads as many bytes at the parameter's
/// pointer as the kernel's parameter has.
void KernelArgs::addParam(std::string kind, const void *value, size_t size,
                          size_t align) {
  size_t offset = (used + align - 1) / align * align;
  used = offset + size;
  storage.resize((used + sizeof(Block) - 1) / sizeof(Block));
  params.push_back({std::move(kind), offset});
  std::memcpy(paramStorage(params.size() - 1), value, size);
}

unsigned char *KernelArgs::paramStorage(size_t param) {
  return reinterpret_cast<unsigned char *>(storage.data()) +
         params[param].offset;
}

void KernelArgs::addMemRef(uint64_t address, std::vector<int64_t> sizes,
                           std::vector<int64_t> strides, int64_t offset) {
  strides = resolveStrides(std::move(strides), sizes);
  SourceArg arg{"memref", sizes};
  arg.param = params.size();
  // A stride list of the wrong length is caught by check(): the rank the
  // kernel sees is sizes.size(), the parameter count then differs.
  if (strides.size() != sizes.size())
    arg.kind = "memref with " + std::to_string(sizes.size()) + " sizes but " +
               std::to_string(strides.size()) + " strides";
  sourceArgs.push_back(std::move(arg));
  addParam("ptr", &address, sizeof(address), sizeof(address));
  addParam("ptr", &address, sizeof(address), sizeof(address));
  addParam("i64", &offset, sizeof(offset), sizeof(offset));
  for (int64_t size : sizes)
    addParam("i64", &size, sizeof(size), sizeof(size));
  for (int64_t stride : strides)
    addParam("i64", &stride, sizeof(stride), sizeof(stride));
}

void KernelArgs::addTensorMap(uint64_t address, std::vector<int64_t> sizes,
                              std::vector<int64_t> strides) {
  strides = resolveStrides(std::move(strides), sizes);
  sourceArgs.push_back({"tensor_map", std::move(sizes), std::move(strides),
                        address, params.size()});
  // Zeros until encodeTensorMaps writes the descriptor.
  const unsigned char zeros[kTensorMapBytes] = {};
  addParam("tensor_map", zeros, kTensorMapBytes, kTensorMapBytes);
}

void KernelArgs::addIndex(int64_t value) {
  sourceArgs.push_back({"index", {}, {}, 0, params.size()});
  addParam("i64", &value, sizeof(value), sizeof(value));
}

void KernelArgs::addI32(int32_t value) {
  sourceArgs.push_back({"i32", {}, {}, 0, params.size()});
  addParam("i32", &value, sizeof(value), sizeof(value));
}

void KernelArgs::addF32(float value) {
  sourceArgs.push_back({"f32", {}, {}, 0, params.size()});
  addParam("f32", &value, sizeof(value), sizeof(value));
}

void KernelArgs::clear() {
  params.clear();
  sourceArgs.clear();
  storage.clear();
  used = 0;
}

std::vector<void *> KernelArgs::pointers() {
  std::vector<void *> result;
  for (size_t i = 0; i < params.size(); ++i)
    result.push_back(paramStorage(i));
  return result;
}

std::string KernelArgs::describe() const {
  std::vector<std::string> kinds;
  for (const Param &param : params)
    kinds.push_back(param.kind);
  return join(kinds);
}

/// Compares one source argument with its signature entry.
static Status checkArg(size_t index, const std::string &type,
                       const std::string &kind,
                       const std::vector<int64_t> &sizes) {
  std::string where = "argument " + std::to_string(index) + " (" + type + ")";
  if (type.compare(0, 7, "memref<") != 0) {
    bool same = kind == type || (kind == "index" && type == "i64");
    if (!same)
      return Status::error(where + " was passed as " + kind);
    return Status::ok();
  }
  if (kind != "memref")
    return Status::error(where + " was passed as " + kind);
  MemRefTypeInfo info;
  if (Status s = parseMemRefType(type, info); !s)
    return Status::error(where + ": " + s.message);
  if (info.shape.size() != sizes.size())
    return Status::error(
        where + " has rank " + std::to_string(info.shape.size()) +
        ", the memref passed has rank " + std::to_string(sizes.size()));
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (info.shape[d] >= 0 && info.shape[d] != sizes[d])
      return Status::error(where + ": dimension " + std::to_string(d) + " is " +
                           std::to_string(info.shape[d]) +
                           ", the memref passed has size " +
                           std::to_string(sizes[d]));
    if (sizes[d] < 0)
      return Status::error(where + ": negative size " +
                           std::to_string(sizes[d]) + " in dimension " +
                           std::to_string(d));
  }
  return Status::ok();
}

/// The signature entry of argument `index` must be a tensor map type.
Status KernelArgs::getTensorMapEncoding(const KernelInfo &kernel, size_t index,
                                        TensorMapEncoding &encoding) const {
  const SourceArg &arg = sourceArgs[index];
  const std::string &type = kernel.signature[index];
  TensorMapTypeInfo info;
  Status s = parseTensorMapType(type, info);
  if (s)
    s = detail::buildTensorMapEncoding(info, arg.address, arg.sizes,
                                       arg.strides, encoding);
  if (s)
    return s;
  return Status::error("argument " + std::to_string(index) + " (" + type +
                       "): " + s.message);
}

Status KernelArgs::checkSignature(const KernelInfo &kernel) const {
  if (sourceArgs.size() != kernel.signature.size())
    return Status::error("kernel '" + kernel.name + "' takes " +
                         std::to_string(kernel.signature.size()) +
                         " arguments (" + join(kernel.signature) + "), " +
                         std::to_string(sourceArgs.size()) + " were passed");
  for (size_t i = 0; i < sourceArgs.size(); ++i) {
    const SourceArg &arg = sourceArgs[i];
    const std::string &type = kernel.signature[i];
    TensorMapEncoding unused;
    Status s = arg.kind == "tensor_map" && isTensorMapType(type)
                   ? getTensorMapEncoding(kernel, i, unused)
                   : checkArg(i, type, arg.kind, arg.sizes);
    if (!s)
      return Status::error("kernel '" + kernel.name + "': " + s.message);
  }
  return Status::ok();
}

Status KernelArgs::checkParams(const KernelInfo &kernel) const {
  if (params.size() != kernel.params.size())
    return Status::error("kernel '" + kernel.name + "' has " +
                         std::to_string(kernel.params.size()) +
                         " parameters (" + join(kernel.params) + "), " +
                         std::to_string(params.size()) + " were packed (" +
                         describe() + ")");
  for (size_t i = 0; i < params.size(); ++i)
    if (params[i].kind != kernel.params[i] &&
        !(params[i].kind == "tensor_map" && kernel.params[i] == "ptr"))
      return Status::error("kernel '" + kernel.name + "': parameter " +
                           std::to_string(i) + " is " + kernel.params[i] +
                           ", a " + params[i].kind + " was packed");
  return Status::ok();
}

/// The signature is checked first because its messages name source
/// arguments; the parameters last, since they are what the launch reads. A
/// tensor map may be listed as a "ptr" parameter, by metadata writers that
/// spell the byval pointer of its LLVM parameter as they do any other: the
/// signature has already said what it is.
Status KernelArgs::check(const KernelInfo &kernel) const {
  if (!kernel.signature.empty()) {
    if (Status s = checkSignature(kernel); !s)
      return s;
  } else {
    for (const SourceArg &arg : sourceArgs)
      if (arg.kind == "tensor_map")
        return Status::error(
            "kernel '" + kernel.name +
            "' has no signature in its metadata, which a tensor map "
            "argument needs (for its box, element type and swizzle)");
  }
  return checkParams(kernel);
}

Status KernelArgs::encodeTensorMaps(const KernelInfo &kernel,
                                    const TensorMapEncoder &encode) {
  if (Status s = check(kernel); !s)
    return s;
  for (size_t i = 0; i < sourceArgs.size(); ++i) {
    if (sourceArgs[i].kind != "tensor_map")
      continue;
    TensorMapEncoding encoding;
    if (Status s = getTensorMapEncoding(kernel, i, encoding); !s)
      return s;
    if (Status s = encode(encoding, paramStorage(sourceArgs[i].param)); !s)
      return Status::error("kernel '" + kernel.name + "': argument " +
                           std::to_string(i) + " (" + kernel.signature[i] +
                           "): " + s.message);
  }
  return Status::ok();
}
