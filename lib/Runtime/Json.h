//===- Json.h - Reading JSON with nlohmann/json -----------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The runtime reads tle-translate's metadata with nlohmann/json, a
// header-only library (Debian's nlohmann-json3-dev), so that it needs no
// LLVM; the compiler writes the file with llvm::json, and both take the keys
// from tle/Support/KernelMetadataFormat.h. The runtime builds without
// exceptions, so this is nlohmann's parser without them, with messages that
// say where a document is broken and with the rules the metadata needs
// beyond JSON (no key twice in an object, bounded nesting).
//
//===----------------------------------------------------------------------===//

#ifndef TLE_LIB_RUNTIME_JSON_H
#define TLE_LIB_RUNTIME_JSON_H

#include "tle/Runtime/Runtime.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace tle::runtime::json {

using Value = nlohmann::json;

/// What a reader asks a member to be; every number is one kind.
enum class Kind { Null, Bool, Number, String, Array, Object };

/// Arrays and objects nest at most this deep.
inline constexpr int kMaxDepth = 64;

/// Parses one JSON document. Errors say where ("line 3, column 7: ...").
Status parse(const std::string &text, Value &value);

Kind kindOf(const Value &value);

/// A short name of the kind for messages ("a string", "an array", ...).
const char *describe(Kind kind);

/// The member `key` of an object, or null if absent or not an object.
const Value *find(const Value &object, const char *key);

/// True, with the value, when `value` is an integer that an int64_t holds
/// exactly (written without fraction or exponent).
bool getInteger(const Value &value, int64_t &integer);

} // namespace tle::runtime::json

#endif // TLE_LIB_RUNTIME_JSON_H
