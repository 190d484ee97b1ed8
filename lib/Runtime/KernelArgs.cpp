//===- KernelArgs.cpp - Launch arguments in the kernel ABI ----------------===//
//
// MLIR's default calling convention expands a rank-r memref into 3 + 2r
// parameters; packing them by hand is where launches go wrong, so every
// launch checks the packed list against the kernel's metadata first.
//
//===----------------------------------------------------------------------===//

#include "tle/Runtime/Runtime.h"

#include <cstring>

using namespace tle::runtime;

static uint64_t bitsOf(int64_t value) { return static_cast<uint64_t>(value); }

void KernelArgs::addMemRef(uint64_t address, std::vector<int64_t> sizes,
                           std::vector<int64_t> strides, int64_t offset) {
  if (strides.empty()) {
    strides.assign(sizes.size(), 1);
    for (size_t i = sizes.size(); i-- > 1;)
      strides[i - 1] = strides[i] * sizes[i];
  }
  params.push_back({"ptr", address});
  params.push_back({"ptr", address});
  params.push_back({"i64", bitsOf(offset)});
  for (int64_t size : sizes)
    params.push_back({"i64", bitsOf(size)});
  for (int64_t stride : strides)
    params.push_back({"i64", bitsOf(stride)});
  // A stride list of the wrong length is caught by check(): the rank the
  // kernel sees is sizes.size(), the parameter count then differs.
  SourceArg arg{"memref", std::move(sizes)};
  if (strides.size() != arg.sizes.size())
    arg.kind = "memref with " + std::to_string(arg.sizes.size()) +
               " sizes but " + std::to_string(strides.size()) + " strides";
  sourceArgs.push_back(std::move(arg));
}

void KernelArgs::addIndex(int64_t value) {
  params.push_back({"i64", bitsOf(value)});
  sourceArgs.push_back({"index", {}});
}

void KernelArgs::addI32(int32_t value) {
  params.push_back({"i32", static_cast<uint32_t>(value)});
  sourceArgs.push_back({"i32", {}});
}

void KernelArgs::addF32(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  params.push_back({"f32", bits});
  sourceArgs.push_back({"f32", {}});
}

void KernelArgs::clear() {
  params.clear();
  sourceArgs.clear();
}

/// cuLaunchKernel reads as many bytes at each pointer as the parameter
/// has; a 4-byte value sits in the low bytes of its little-endian slot.
std::vector<void *> KernelArgs::pointers() {
  std::vector<void *> result;
  for (Param &param : params)
    result.push_back(&param.bits);
  return result;
}

std::string KernelArgs::describe() const {
  std::string result;
  for (const Param &param : params)
    result += (result.empty() ? "" : ", ") + param.kind;
  return result;
}

static std::string joined(const std::vector<std::string> &items) {
  std::string result;
  for (const std::string &item : items)
    result += (result.empty() ? "" : ", ") + item;
  return result;
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

Status KernelArgs::checkSignature(const KernelInfo &kernel) const {
  if (sourceArgs.size() != kernel.signature.size())
    return Status::error("kernel '" + kernel.name + "' takes " +
                         std::to_string(kernel.signature.size()) +
                         " arguments (" + joined(kernel.signature) + "), " +
                         std::to_string(sourceArgs.size()) + " were passed");
  for (size_t i = 0; i < sourceArgs.size(); ++i)
    if (Status s = checkArg(i, kernel.signature[i], sourceArgs[i].kind,
                            sourceArgs[i].sizes);
        !s)
      return Status::error("kernel '" + kernel.name + "': " + s.message);
  return Status::ok();
}

Status KernelArgs::checkParams(const KernelInfo &kernel) const {
  if (params.size() != kernel.params.size())
    return Status::error("kernel '" + kernel.name + "' has " +
                         std::to_string(kernel.params.size()) +
                         " parameters (" + joined(kernel.params) + "), " +
                         std::to_string(params.size()) + " were packed (" +
                         describe() + ")");
  for (size_t i = 0; i < params.size(); ++i)
    if (params[i].kind != kernel.params[i])
      return Status::error("kernel '" + kernel.name + "': parameter " +
                           std::to_string(i) + " is " + kernel.params[i] +
                           ", a " + params[i].kind + " was packed");
  return Status::ok();
}

/// The signature is checked first because its messages name source
/// arguments; the parameters last, since they are what the launch reads.
Status KernelArgs::check(const KernelInfo &kernel) const {
  if (!kernel.signature.empty())
    if (Status s = checkSignature(kernel); !s)
      return s;
  return checkParams(kernel);
}
