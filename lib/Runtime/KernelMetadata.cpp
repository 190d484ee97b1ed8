//===- KernelMetadata.cpp - tle-translate's launch metadata ---------------===//
//
// Reads the JSON that tle-translate --tle-metadata writes (docs/Translation.md)
// into KernelInfo, and the memref types of kernel signatures.
//
//===----------------------------------------------------------------------===//

#include "tle/Runtime/Json.h"
#include "tle/Runtime/Runtime.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace tle::runtime;
using json::Value;

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

//===----------------------------------------------------------------------===//
// KernelInfo from JSON
//===----------------------------------------------------------------------===//

namespace {
/// Reads the members of one kernel object; `where` prefixes every message
/// ("kernels[0] ('pipes')").
class KernelReader {
public:
  KernelReader(const Value &object, std::string where)
      : object(object), where(std::move(where)) {}

  Status read(KernelInfo &kernel) {
    if (Status s = readString("name", /*required=*/true, kernel.name); !s)
      return s;
    where += " ('" + kernel.name + "')";
    if (Status s = readBlock(kernel); !s)
      return s;
    if (Status s = readSharedMemory(kernel); !s)
      return s;
    if (Status s = readStrings("params", /*required=*/true, kernel.params); !s)
      return s;
    if (Status s = readStrings("signature", false, kernel.signature); !s)
      return s;
    return readString("grid", false, kernel.grid);
  }

private:
  Status fail(const std::string &message) const {
    return Status::error("kernel metadata: " + where + ": " + message);
  }

  /// The member `key` with the kind `kind`; null (and `status` ok) when it
  /// is absent and optional.
  const Value *get(const char *key, Value::Kind kind, bool required,
                   Status &status) const {
    const Value *value = object.find(key);
    if (!value) {
      if (required)
        status = fail(std::string("missing key '") + key + "'");
      return nullptr;
    }
    if (value->kind() != kind) {
      status =
          fail(std::string("'") + key + "' must be " + Value::describe(kind) +
               ", not " + Value::describe(value->kind()));
      return nullptr;
    }
    return value;
  }

  Status readString(const char *key, bool required, std::string &out) const {
    Status status;
    if (const Value *value = get(key, Value::Kind::String, required, status))
      out = value->getString();
    return status;
  }

  Status readStrings(const char *key, bool required,
                     std::vector<std::string> &out) const {
    Status status;
    const Value *value = get(key, Value::Kind::Array, required, status);
    if (!value)
      return status;
    for (const Value &item : value->getArray()) {
      if (item.kind() != Value::Kind::String)
        return fail(std::string("'") + key + "' must hold only strings");
      out.push_back(item.getString());
    }
    return Status::ok();
  }

  Status readBlock(KernelInfo &kernel) const {
    Status status;
    const Value *block = get("block", Value::Kind::Array, true, status);
    if (!block)
      return status;
    const std::vector<Value> &dims = block->getArray();
    if (dims.empty() || dims.size() > 3)
      return fail("'block' must have 1 to 3 dimensions");
    for (size_t i = 0; i < dims.size(); ++i) {
      int64_t dim;
      if (!dims[i].getInteger(dim) || dim < 1 || dim > 1024)
        return fail("'block' dimensions must be integers from 1 to 1024");
      kernel.block[i] = static_cast<int>(dim);
    }
    return Status::ok();
  }

  /// Required although tle-translate writes 0 when a kernel needs none: a
  /// kernel launched with too little shared memory fails obscurely.
  Status readSharedMemory(KernelInfo &kernel) const {
    Status status;
    const Value *bytes =
        get("dynamic_shared_memory", Value::Kind::Number, true, status);
    if (!bytes)
      return status;
    if (!bytes->getInteger(kernel.dynamicSharedMemory) ||
        kernel.dynamicSharedMemory < 0)
      return fail("'dynamic_shared_memory' must be a non-negative integer");
    return Status::ok();
  }

  const Value &object;
  std::string where;
};
} // namespace

Status tle::runtime::parseKernelMetadata(const std::string &text,
                                         std::vector<KernelInfo> &kernels) {
  Value root;
  if (Status s = json::parse(text, root); !s)
    return Status::error("kernel metadata is not valid JSON: " + s.message);
  if (root.kind() != Value::Kind::Object)
    return Status::error("kernel metadata must be a JSON object");
  const Value *list = root.find("kernels");
  if (!list)
    return Status::error("kernel metadata: missing key 'kernels'");
  if (list->kind() != Value::Kind::Array)
    return Status::error("kernel metadata: 'kernels' must be an array");
  kernels.clear();
  for (size_t i = 0; i < list->getArray().size(); ++i) {
    const Value &item = list->getArray()[i];
    std::string where = "kernels[" + std::to_string(i) + "]";
    if (item.kind() != Value::Kind::Object)
      return Status::error("kernel metadata: " + where + " must be an object");
    KernelInfo kernel;
    if (Status s = KernelReader(item, where).read(kernel); !s)
      return s;
    kernels.push_back(std::move(kernel));
  }
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// Memref types of a signature
//===----------------------------------------------------------------------===//

/// Splits the shape part of "AxBx...xT" at the top-level 'x's; nested
/// angle brackets (vector element types) are kept whole.
static std::vector<std::string> splitShape(const std::string &shape) {
  std::vector<std::string> parts(1);
  int depth = 0;
  for (char c : shape) {
    depth += c == '<' ? 1 : c == '>' ? -1 : 0;
    if (c == 'x' && depth == 0 && !parts.back().empty() &&
        (parts.back() == "?" ||
         parts.back().find_first_not_of("0123456789") == std::string::npos))
      parts.emplace_back();
    else
      parts.back() += c;
  }
  return parts;
}

Status tle::runtime::parseMemRefType(const std::string &type,
                                     MemRefTypeInfo &info) {
  const std::string prefix = "memref<";
  if (type.compare(0, prefix.size(), prefix) != 0 || type.back() != '>')
    return Status::error("'" + type + "' is not a memref type");
  // The shape and element type end at the first top-level ',' (a layout
  // or memory space follows) or at the closing '>'.
  std::string body =
      type.substr(prefix.size(), type.size() - prefix.size() - 1);
  int depth = 0;
  size_t end = 0;
  for (; end < body.size(); ++end) {
    depth += body[end] == '<' ? 1 : body[end] == '>' ? -1 : 0;
    if (body[end] == ',' && depth == 0)
      break;
  }
  std::vector<std::string> parts = splitShape(body.substr(0, end));
  info.elementType = parts.back();
  info.shape.clear();
  for (size_t i = 0; i + 1 < parts.size(); ++i)
    info.shape.push_back(
        parts[i] == "?" ? -1 : std::strtoll(parts[i].c_str(), nullptr, 10));
  if (info.elementType.empty())
    return Status::error("'" + type + "' has no element type");
  return Status::ok();
}
