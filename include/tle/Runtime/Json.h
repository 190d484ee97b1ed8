//===- Json.h - A small JSON reader and writer ------------------*- C++ -*-===//
//
// The runtime reads tle-translate's metadata and tle-run writes its report
// without LLVM (whose llvm::json would do both), so that both build on GPU
// machines that have only a C++ compiler. Objects keep their keys in order.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_RUNTIME_JSON_H
#define TLE_RUNTIME_JSON_H

#include "tle/Runtime/Runtime.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tle::runtime::json {

class Value {
public:
  enum class Kind { Null, Bool, Number, String, Array, Object };
  using Member = std::pair<std::string, Value>;

  Value() = default;
  Value(bool value) : k(Kind::Bool), boolean(value) {}
  Value(double value) : k(Kind::Number), number(value) {}
  Value(int value) : Value(static_cast<int64_t>(value)) {}
  Value(int64_t value)
      : k(Kind::Number), number(static_cast<double>(value)), isInt(true),
        integer(value) {}
  Value(std::string value) : k(Kind::String), text(std::move(value)) {}
  Value(const char *value) : Value(std::string(value)) {}
  static Value array() { return Value(Kind::Array); }
  static Value object() { return Value(Kind::Object); }

  Kind kind() const { return k; }
  bool isNull() const { return k == Kind::Null; }
  bool getBool() const { return boolean; }
  double getNumber() const { return number; }
  /// True, with the value, when the number is an integer that an int64_t
  /// holds exactly (written without fraction or exponent, or built so).
  bool getInteger(int64_t &value) const;
  const std::string &getString() const { return text; }
  const std::vector<Value> &getArray() const { return items; }
  const std::vector<Member> &getObject() const { return members; }
  /// The member `key` of an object, or null if absent or not an object.
  const Value *find(const std::string &key) const;

  /// Appends to an array.
  void push(Value value);
  /// Sets `key` of an object, replacing an existing member.
  void set(const std::string &key, Value value);

  /// A short name of the kind for messages ("a string", "an array", ...).
  static const char *describe(Kind kind);

private:
  explicit Value(Kind kind) : k(kind) {}

  Kind k = Kind::Null;
  bool boolean = false;
  double number = 0;
  bool isInt = false;
  int64_t integer = 0;
  std::string text;
  std::vector<Value> items;
  std::vector<Member> members;
};

/// Parses one JSON document. Errors say where: "line 3, column 7: ...".
Status parse(const std::string &text, Value &value);

/// Writes `value`; `indent` spaces per level, or everything on one line
/// when 0. Numbers that are not finite become null.
std::string write(const Value &value, int indent = 2);

} // namespace tle::runtime::json

#endif // TLE_RUNTIME_JSON_H
