//===- KernelMetadata.cpp - tle-translate's launch metadata ---------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Reads the JSON that tle-translate --tle-metadata writes (docs/Translation.md)
// into KernelInfo: the only reader of it, Python included (through the C
// API), with the keys of tle/Support/KernelMetadataFormat.h.
//
//===----------------------------------------------------------------------===//

#include "Json.h"

#include "tle/Runtime/Runtime.h"
#include "tle/Support/Hopper.h"
#include "tle/Support/KernelMetadataFormat.h"
#include "tle/Support/Strings.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace tle;
using namespace tle::runtime;
using json::Kind;
using json::Value;
namespace md = tle::metadata;

Status tle::runtime::readFile(const std::string &path, std::string &contents) {
  FILE *file = std::fopen(path.c_str(), "rb");
  if (!file)
    return Status::error("cannot open '" + path + "': " + std::strerror(errno));
  contents.clear();
  char buffer[1 << 16];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), file)) > 0)
    contents.append(buffer, n);
  bool failed = std::ferror(file);
  std::fclose(file);
  if (failed)
    return Status::error("cannot read '" + path + "'");
  return Status::ok();
}

bool tle::runtime::isPTXImage(const std::string &image) {
  return image.compare(0, 4,
                       "\x7f"
                       "ELF") != 0;
}

std::string tle::runtime::defaultMetadataPath(const std::string &kernelPath) {
  size_t slash = kernelPath.find_last_of('/');
  size_t dot = kernelPath.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash))
    return kernelPath + ".json";
  return kernelPath.substr(0, dot) + ".json";
}

std::string KernelArgInfo::describe(size_t index) const {
  std::string text = "argument " + std::to_string(index);
  if (!name.empty())
    text += " '" + name + "'";
  return text + " (" + type + ")";
}

//===----------------------------------------------------------------------===//
// KernelInfo from JSON
//===----------------------------------------------------------------------===//

namespace {
/// Reads the members of one JSON object; `where` prefixes every message
/// ("kernels[0] ('pipes')").
class ObjectReader {
public:
  ObjectReader(const Value &object, std::string where)
      : object(object), where(std::move(where)) {}

protected:
  Status fail(const std::string &message) const {
    return Status::error("kernel metadata: " + where + ": " + message);
  }

  /// The member `key` with the kind `kind`; null (and `status` ok) when it
  /// is absent and optional.
  const Value *get(const char *key, Kind kind, bool required,
                   Status &status) const {
    const Value *value = json::find(object, key);
    if (!value) {
      if (required)
        status = fail(std::string("missing key '") + key + "'");
      return nullptr;
    }
    if (json::kindOf(*value) != kind) {
      status =
          fail(std::string("'") + key + "' must be " + json::describe(kind) +
               ", not " + json::describe(json::kindOf(*value)));
      return nullptr;
    }
    return value;
  }

  Status readString(const char *key, bool required, std::string &out) const {
    Status status;
    if (const Value *value = get(key, Kind::String, required, status))
      out = value->get<std::string>();
    return status;
  }

  Status readBool(const char *key, bool &out) const {
    Status status;
    if (const Value *value = get(key, Kind::Bool, false, status))
      out = value->get<bool>();
    return status;
  }

  Status readStrings(const char *key, std::vector<std::string> &out) const {
    Status status;
    const Value *value = get(key, Kind::Array, true, status);
    if (!value)
      return status;
    for (const Value &item : *value) {
      if (!item.is_string())
        return fail(std::string("'") + key + "' must hold only strings");
      out.push_back(item.get<std::string>());
    }
    return Status::ok();
  }

  /// A required integer of at least `min`.
  Status readInteger(const char *key, int64_t min, int64_t &out) const {
    Status status;
    const Value *value = get(key, Kind::Number, true, status);
    if (!value)
      return status;
    if (!json::getInteger(*value, out) || out < min)
      return fail(std::string("'") + key + "' must be an integer of at least " +
                  std::to_string(min));
    return Status::ok();
  }

  /// A required array of integers of at least `min` each.
  Status readIntegers(const char *key, int64_t min,
                      std::vector<int64_t> &out) const {
    Status status;
    const Value *value = get(key, Kind::Array, true, status);
    if (!value)
      return status;
    for (const Value &item : *value) {
      int64_t integer;
      if (!json::getInteger(item, integer) || integer < min)
        return fail(std::string("'") + key +
                    "' must hold integers of at least " + std::to_string(min));
      out.push_back(integer);
    }
    return Status::ok();
  }

  const Value &object;
  std::string where;
};

/// One member of a kernel's "args".
class ArgReader : public ObjectReader {
public:
  using ObjectReader::ObjectReader;

  Status read(KernelArgInfo &arg) const {
    std::string kind;
    if (Status s = readString(md::kKind, true, kind); !s)
      return s;
    if (Status s = readString(md::kType, true, arg.type); !s)
      return s;
    if (Status s = readString(md::kName, false, arg.name); !s)
      return s;
    if (kind == md::kMemRefKind)
      return readMemRef(arg);
    if (kind == md::kTensorMapKind)
      return readTensorMap(arg);
    for (auto [name, scalar] :
         {std::pair{md::kIndexKind, KernelArgInfo::Kind::Index},
          std::pair{md::kI32Kind, KernelArgInfo::Kind::I32},
          std::pair{md::kF32Kind, KernelArgInfo::Kind::F32}})
      if (kind == name) {
        arg.kind = scalar;
        return Status::ok();
      }
    return fail("unknown kind '" + kind + "' (known: " +
                join({md::kMemRefKind, md::kTensorMapKind, md::kIndexKind,
                      md::kI32Kind, md::kF32Kind}) +
                ")");
  }

private:
  Status readMemRef(KernelArgInfo &arg) const {
    arg.kind = KernelArgInfo::Kind::MemRef;
    std::string layout;
    Status s = readString(md::kElementType, true, arg.elementType);
    if (s)
      s = readIntegers(md::kSizes, md::kDynamic, arg.sizes);
    if (s)
      s = readString(md::kLayout, true, layout);
    if (!s || layout == md::kIdentityLayout)
      return s;
    if (layout != md::kStridedLayout)
      return fail(std::string("'") + md::kLayout + "' must be '" +
                  md::kIdentityLayout + "' or '" + md::kStridedLayout +
                  "', not '" + layout + "'");
    arg.identityLayout = false;
    s = readIntegers(md::kStrides, md::kDynamic, arg.strides);
    if (s)
      s = readInteger(md::kOffset, md::kDynamic, arg.offset);
    if (s && arg.strides.size() != arg.sizes.size())
      return fail(std::string("'") + md::kStrides +
                  "' must have one entry per size");
    return s;
  }

  Status readTensorMap(KernelArgInfo &arg) const {
    arg.kind = KernelArgInfo::Kind::TensorMap;
    int64_t swizzle = 0;
    Status s = readString(md::kElementType, true, arg.elementType);
    if (s)
      s = readIntegers(md::kBox, 1, arg.box);
    if (s)
      s = readInteger(md::kSwizzle, 0, swizzle);
    arg.swizzle = static_cast<int>(swizzle);
    return s;
  }
};

/// The members of one kernel object.
class KernelReader : public ObjectReader {
public:
  using ObjectReader::ObjectReader;

  Status read(KernelInfo &kernel) {
    if (Status s = readString(md::kName, /*required=*/true, kernel.name); !s)
      return s;
    where += " ('" + kernel.name + "')";
    if (Status s = readBlock(kernel); !s)
      return s;
    // Required although tle-translate writes 0 when a kernel needs none: a
    // kernel launched with too little shared memory fails obscurely.
    if (Status s = readInteger(md::kDynamicSharedMemory, 0,
                               kernel.dynamicSharedMemory);
        !s)
      return s;
    if (Status s = readStrings(md::kParams, kernel.params); !s)
      return s;
    if (Status s = readArgs(kernel); !s)
      return s;
    if (Status s = readString(md::kGrid, false, kernel.grid); !s)
      return s;
    return readBool(md::kPersistent, kernel.persistent);
  }

private:
  Status readBlock(KernelInfo &kernel) const {
    Status status;
    const Value *block = get(md::kBlock, Kind::Array, true, status);
    if (!block)
      return status;
    const Value &dims = *block;
    if (dims.empty() || dims.size() > 3)
      return fail("'block' must have 1 to 3 dimensions");
    int64_t threads = 1;
    for (size_t i = 0; i < dims.size(); ++i) {
      int64_t dim;
      if (!json::getInteger(dims[i], dim) || dim < 1 ||
          dim > hopper::kMaxBlockDims[i])
        return fail("'block' dimension " + std::to_string(i) +
                    " must be an integer from 1 to " +
                    std::to_string(hopper::kMaxBlockDims[i]));
      kernel.block[i] = static_cast<int>(dim);
      threads *= dim;
    }
    if (threads > hopper::kMaxThreadsPerCTA)
      return fail("'block' has " + std::to_string(threads) +
                  " threads; a CTA has at most " +
                  std::to_string(hopper::kMaxThreadsPerCTA));
    return Status::ok();
  }

  /// Optional: metadata written for a hand-lowered kernel has no source
  /// arguments, only parameters.
  Status readArgs(KernelInfo &kernel) const {
    Status status;
    const Value *args = get(md::kArgs, Kind::Array, false, status);
    if (!args)
      return status;
    for (size_t i = 0; i < args->size(); ++i) {
      const Value &item = (*args)[i];
      std::string at = where + ": args[" + std::to_string(i) + "]";
      if (!item.is_object())
        return Status::error("kernel metadata: " + at + " must be an object");
      KernelArgInfo arg;
      if (Status s = ArgReader(item, at).read(arg); !s)
        return s;
      kernel.args.push_back(std::move(arg));
    }
    return Status::ok();
  }
};
} // namespace

Status tle::runtime::parseKernelMetadata(const std::string &text,
                                         std::vector<KernelInfo> &kernels) {
  Value root;
  if (Status s = json::parse(text, root); !s)
    return Status::error("kernel metadata is not valid JSON: " + s.message);
  if (!root.is_object())
    return Status::error("kernel metadata must be a JSON object");
  const Value *list = json::find(root, md::kKernels);
  if (!list)
    return Status::error("kernel metadata: missing key 'kernels'");
  if (!list->is_array())
    return Status::error("kernel metadata: 'kernels' must be an array");
  kernels.clear();
  for (size_t i = 0; i < list->size(); ++i) {
    const Value &item = (*list)[i];
    std::string where = "kernels[" + std::to_string(i) + "]";
    if (!item.is_object())
      return Status::error("kernel metadata: " + where + " must be an object");
    KernelInfo kernel;
    if (Status s = KernelReader(item, where).read(kernel); !s)
      return s;
    kernels.push_back(std::move(kernel));
  }
  return Status::ok();
}
