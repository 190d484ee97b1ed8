//===- Strings.h - Joining lists and reading numbers strictly ---*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The runtime, the problems and tle-run name lists in their messages and read
// numbers from command lines, shapes and metadata. Plain C++ with no LLVM,
// like Hopper.h: all three build on GPU machines that have no LLVM.
//
// The parsers take a whole string or nothing: "12x" or "" is no number, where
// strtoll alone would read 12 and 0.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_SUPPORT_STRINGS_H
#define TLE_SUPPORT_STRINGS_H

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace tle {

/// "a, b, c" (or with another separator).
inline std::string join(const std::vector<std::string> &items,
                        const std::string &separator = ", ") {
  std::string result;
  for (size_t i = 0; i < items.size(); ++i)
    result += (i ? separator : "") + items[i];
  return result;
}

/// "128x64" from {128, 64} and "x".
inline std::string join(const std::vector<int64_t> &values,
                        const std::string &separator) {
  std::vector<std::string> items;
  for (int64_t value : values)
    items.push_back(std::to_string(value));
  return join(items, separator);
}

/// A whole string as a decimal integer that fits int64_t.
inline bool parseInteger(const std::string &text, int64_t &value) {
  if (text.empty())
    return false;
  char *end = nullptr;
  errno = 0;
  long long parsed = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0')
    return false;
  value = parsed;
  return true;
}

/// A whole string as a decimal integer that fits uint64_t; no sign.
inline bool parseUnsigned(const std::string &text, uint64_t &value) {
  if (text.empty() || text[0] == '-' || text[0] == '+')
    return false;
  char *end = nullptr;
  errno = 0;
  unsigned long long parsed = std::strtoull(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0')
    return false;
  value = parsed;
  return true;
}

/// A whole string as a finite real number.
inline bool parseReal(const std::string &text, double &value) {
  if (text.empty())
    return false;
  char *end = nullptr;
  double parsed = std::strtod(text.c_str(), &end);
  if (*end != '\0' || !std::isfinite(parsed))
    return false;
  value = parsed;
  return true;
}

} // namespace tle

#endif // TLE_SUPPORT_STRINGS_H
