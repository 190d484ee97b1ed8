//===- KernelArgs.cpp - Launch arguments in the kernel ABI ----------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// MLIR's default calling convention expands a rank-r memref into 3 + 2r
// parameters; packing them by hand is where launches go wrong, so every
// launch checks the packed list against the kernel's metadata first.
//
//===----------------------------------------------------------------------===//

#include "TensorMap.h"

#include "tle/Support/Hopper.h"
#include "tle/Support/KernelMetadataFormat.h"
#include "tle/Support/Strings.h"

#include <algorithm>
#include <cstring>

using namespace tle;
using namespace tle::runtime;
using detail::TensorMapEncoding;
namespace md = tle::metadata;

/// A descriptor's storage: the PTX parameter is `.align 64 .b8 [128]`,
/// cuTensorMapEncodeTiled writes to 64-byte aligned storage, and cuda.h may
/// declare the type 128-byte aligned; 128 bytes at a 128-byte boundary
/// satisfy all three.
static constexpr size_t kTensorMapBytes = hopper::kTensorMapBytes;
static_assert(sizeof(CUtensorMap) == kTensorMapBytes &&
              alignof(CUtensorMap) <= kTensorMapBytes &&
              hopper::kTensorMapAlignment <= kTensorMapBytes);

/// Empty `strides` stand for the contiguous (row-major) ones of `sizes`,
/// which count an empty dimension as 1, as PyTorch does.
static std::vector<int64_t> resolveStrides(std::vector<int64_t> strides,
                                           const std::vector<int64_t> &sizes) {
  if (!strides.empty())
    return strides;
  strides.assign(sizes.size(), 1);
  for (size_t i = sizes.size(); i-- > 1;)
    strides[i - 1] = strides[i] * std::max<int64_t>(sizes[i], 1);
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

void KernelArgs::addMemRef(uint64_t address, std::string elementType,
                           std::vector<int64_t> sizes,
                           std::vector<int64_t> strides, int64_t offset) {
  strides = resolveStrides(std::move(strides), sizes);
  sourceArgs.push_back({KernelArgInfo::Kind::MemRef, std::move(elementType),
                        sizes, strides, offset, address, params.size()});
  addParam(md::kPtrParam, &address, sizeof(address), sizeof(address));
  addParam(md::kPtrParam, &address, sizeof(address), sizeof(address));
  addParam("i64", &offset, sizeof(offset), sizeof(offset));
  for (int64_t size : sizes)
    addParam("i64", &size, sizeof(size), sizeof(size));
  for (int64_t stride : strides)
    addParam("i64", &stride, sizeof(stride), sizeof(stride));
}

void KernelArgs::addTensorMap(uint64_t address, std::string elementType,
                              std::vector<int64_t> sizes,
                              std::vector<int64_t> strides) {
  strides = resolveStrides(std::move(strides), sizes);
  sourceArgs.push_back({KernelArgInfo::Kind::TensorMap, std::move(elementType),
                        std::move(sizes), std::move(strides), 0, address,
                        params.size()});
  // Zeros until encodeTensorMaps writes the descriptor.
  const unsigned char zeros[kTensorMapBytes] = {};
  addParam(md::kTensorMapParam, zeros, kTensorMapBytes, kTensorMapBytes);
}

void KernelArgs::addIndex(int64_t value) {
  sourceArgs.push_back({KernelArgInfo::Kind::Index});
  sourceArgs.back().param = params.size();
  addParam("i64", &value, sizeof(value), sizeof(value));
}

void KernelArgs::addI32(int32_t value) {
  sourceArgs.push_back({KernelArgInfo::Kind::I32});
  sourceArgs.back().param = params.size();
  addParam("i32", &value, sizeof(value), sizeof(value));
}

void KernelArgs::addF32(float value) {
  sourceArgs.push_back({KernelArgInfo::Kind::F32});
  sourceArgs.back().param = params.size();
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

static const char *describeKind(KernelArgInfo::Kind kind) {
  switch (kind) {
  case KernelArgInfo::Kind::MemRef:
    return "a memref";
  case KernelArgInfo::Kind::TensorMap:
    return "a tensor map";
  case KernelArgInfo::Kind::Index:
    return "an index";
  case KernelArgInfo::Kind::I32:
    return "an i32";
  case KernelArgInfo::Kind::F32:
    return "an f32";
  }
  return "an argument";
}

static std::string str(int64_t value) { return std::to_string(value); }

/// The strides a memref of `info`'s layout must have, md::kDynamic where any
/// will do: the contiguous ones for the identity layout.
static std::vector<int64_t>
getRequiredStrides(const KernelArgInfo &info,
                   const std::vector<int64_t> &sizes) {
  if (!info.identityLayout)
    return info.strides;
  return resolveStrides({}, sizes);
}

/// The rank, element type, sizes, strides and offset of a memref passed for
/// `info`. The stride of a dimension of size 1 is never used, so it may be
/// anything (a PyTorch view made by unsqueeze or expand).
static Status checkMemRef(const KernelArgInfo &info,
                          const std::string &elementType,
                          const std::vector<int64_t> &sizes,
                          const std::vector<int64_t> &strides, int64_t offset) {
  if (info.sizes.size() != sizes.size())
    return Status::error("the type has rank " + str(info.sizes.size()) +
                         ", the memref passed has rank " + str(sizes.size()));
  if (strides.size() != sizes.size())
    return Status::error("the memref passed has " + str(sizes.size()) +
                         " sizes but " + str(strides.size()) + " strides");
  if (info.elementType != elementType)
    return Status::error("the element type is " + info.elementType +
                         ", the memref passed holds " + elementType);
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] < 0)
      return Status::error("negative size " + str(sizes[d]) + " in dimension " +
                           str(d));
    if (info.sizes[d] != md::kDynamic && info.sizes[d] != sizes[d])
      return Status::error("dimension " + str(d) + " is " + str(info.sizes[d]) +
                           ", the memref passed has size " + str(sizes[d]));
  }
  std::vector<int64_t> required = getRequiredStrides(info, sizes);
  const char *layout =
      info.identityLayout ? "identity (contiguous)" : "strided";
  for (size_t d = 0; d < sizes.size(); ++d)
    if (required[d] != md::kDynamic && sizes[d] > 1 &&
        required[d] != strides[d])
      return Status::error("the " + std::string(layout) +
                           " layout has stride " + str(required[d]) +
                           " in dimension " + str(d) +
                           ", the memref passed has stride " + str(strides[d]));
  if (info.offset != md::kDynamic && info.offset != offset)
    return Status::error("the " + std::string(layout) + " layout has offset " +
                         str(info.offset) + ", the memref passed has offset " +
                         str(offset));
  return Status::ok();
}

/// Argument `index` is a tensor map.
Status KernelArgs::getTensorMapEncoding(const KernelInfo &kernel, size_t index,
                                        TensorMapEncoding &encoding) const {
  const SourceArg &arg = sourceArgs[index];
  const KernelArgInfo &info = kernel.args[index];
  Status s =
      info.elementType == arg.elementType
          ? detail::buildTensorMapEncoding(info, arg.address, arg.sizes,
                                           arg.strides, encoding)
          : Status::error("the element type is " + info.elementType +
                          ", the tensor passed holds " + arg.elementType);
  if (s)
    return s;
  return Status::error("kernel '" + kernel.name + "': " + info.describe(index) +
                       ": " + s.message);
}

Status KernelArgs::checkArgs(const KernelInfo &kernel) const {
  if (sourceArgs.size() != kernel.args.size()) {
    std::vector<std::string> types;
    for (const KernelArgInfo &info : kernel.args)
      types.push_back(info.type);
    return Status::error("kernel '" + kernel.name + "' takes " +
                         str(kernel.args.size()) + " arguments (" +
                         join(types) + "), " + str(sourceArgs.size()) +
                         " were passed");
  }
  for (size_t i = 0; i < sourceArgs.size(); ++i) {
    const SourceArg &arg = sourceArgs[i];
    const KernelArgInfo &info = kernel.args[i];
    std::string where = "kernel '" + kernel.name + "': " + info.describe(i);
    if (arg.kind != info.kind)
      return Status::error(where + " was passed " + describeKind(arg.kind));
    if (arg.kind == KernelArgInfo::Kind::TensorMap) {
      TensorMapEncoding unused;
      if (Status s = getTensorMapEncoding(kernel, i, unused); !s)
        return s;
    } else if (arg.kind == KernelArgInfo::Kind::MemRef) {
      if (Status s = checkMemRef(info, arg.elementType, arg.sizes, arg.strides,
                                 arg.offset);
          !s)
        return Status::error(where + ": " + s.message);
    }
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
        !(params[i].kind == md::kTensorMapParam &&
          kernel.params[i] == md::kPtrParam))
      return Status::error("kernel '" + kernel.name + "': parameter " +
                           std::to_string(i) + " is " + kernel.params[i] +
                           ", a " + params[i].kind + " was packed");
  return Status::ok();
}

/// The arguments are checked first because their messages name source
/// arguments; the parameters last, since they are what the launch reads. A
/// tensor map may be listed as a "ptr" parameter, by metadata writers that
/// spell the byval pointer of its LLVM parameter as they do any other: the
/// arguments have already said what it is.
Status KernelArgs::check(const KernelInfo &kernel) const {
  if (!kernel.args.empty()) {
    if (Status s = checkArgs(kernel); !s)
      return s;
  } else {
    for (const SourceArg &arg : sourceArgs)
      if (arg.kind == KernelArgInfo::Kind::TensorMap)
        return Status::error(
            "kernel '" + kernel.name +
            "' has no arguments in its metadata, which a tensor map "
            "argument needs (for its box, element type and swizzle)");
  }
  return checkParams(kernel);
}

/// Argument `index` is a tensor map. Until it succeeds, its parameter
/// holds no descriptor of its address.
Status KernelArgs::encodeTensorMap(const KernelInfo &kernel, size_t index,
                                   const TensorMapEncoder &encode) {
  SourceArg &arg = sourceArgs[index];
  arg.encoded = false;
  TensorMapEncoding encoding;
  if (Status s = getTensorMapEncoding(kernel, index, encoding); !s)
    return s;
  if (Status s = encode(encoding, paramStorage(arg.param)); !s)
    return Status::error("kernel '" + kernel.name + "': " +
                         kernel.args[index].describe(index) + ": " + s.message);
  arg.encoded = true;
  return Status::ok();
}

Status KernelArgs::encodeTensorMaps(const KernelInfo &kernel,
                                    const TensorMapEncoder &encode) {
  if (Status s = check(kernel); !s)
    return s;
  for (size_t i = 0; i < sourceArgs.size(); ++i)
    if (sourceArgs[i].kind == KernelArgInfo::Kind::TensorMap)
      if (Status s = encodeTensorMap(kernel, i, encode); !s)
        return s;
  return Status::ok();
}

/// "kernel 'k': argument 2 (i32)", or without the type where the metadata
/// has no arguments.
static std::string describeArgument(const KernelInfo &kernel, size_t index) {
  return "kernel '" + kernel.name + "': " +
         (index < kernel.args.size() ? kernel.args[index].describe(index)
                                     : "argument " + str(index));
}

Status KernelArgs::setValues(const KernelInfo &kernel, const uint64_t *values,
                             size_t count, const TensorMapEncoder &encode) {
  if (count != sourceArgs.size())
    return Status::error(
        "kernel '" + kernel.name + "' takes " + str(sourceArgs.size()) +
        " argument values (one per argument), " + str(count) + " were given");
  for (size_t i = 0; i < count; ++i) {
    SourceArg &arg = sourceArgs[i];
    uint64_t value = values[i];
    unsigned char *slot = paramStorage(arg.param);
    switch (arg.kind) {
    case KernelArgInfo::Kind::MemRef:
      // The allocated and the aligned pointer.
      arg.address = value;
      std::memcpy(slot, &value, sizeof(value));
      std::memcpy(paramStorage(arg.param + 1), &value, sizeof(value));
      break;
    case KernelArgInfo::Kind::TensorMap:
      if (arg.encoded && arg.address == value)
        break;
      arg.address = value;
      if (Status s = encodeTensorMap(kernel, i, encode); !s)
        return s;
      break;
    case KernelArgInfo::Kind::Index:
      std::memcpy(slot, &value, sizeof(value));
      break;
    case KernelArgInfo::Kind::I32: {
      auto wide = static_cast<int64_t>(value);
      auto narrow = static_cast<int32_t>(wide);
      if (narrow != wide)
        return Status::error(describeArgument(kernel, i) + ": the value " +
                             str(wide) + " does not fit an i32");
      std::memcpy(slot, &narrow, sizeof(narrow));
      break;
    }
    case KernelArgInfo::Kind::F32: {
      if (value >> 32)
        return Status::error(describeArgument(kernel, i) +
                             ": an f32 value is its 32 bits, in the low half "
                             "of the 64; the high half is not 0");
      auto bits = static_cast<uint32_t>(value);
      std::memcpy(slot, &bits, sizeof(bits));
      break;
    }
    }
  }
  return Status::ok();
}
