//===- Json.cpp - Reading JSON with nlohmann/json -------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Json.h"

#include <set>
#include <vector>

using namespace tle::runtime;
using namespace tle::runtime::json;

namespace {
/// Records nlohmann's message for a malformed document; accepts everything
/// else. sax_parse calls it without throwing.
class ErrorRecorder : public nlohmann::json_sax<Value> {
public:
  std::string message;

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t &) override { return true; }
  bool string(string_t &) override { return true; }
  bool binary(binary_t &) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t &) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string &,
                   const nlohmann::detail::exception &error) override {
    // "[json.exception.parse_error.101] parse error at line 1, column 2:
    // syntax error ..." without the library's prefix.
    message = error.what();
    static constexpr char prefix[] = "parse error at ";
    size_t at = message.find(prefix);
    if (at != std::string::npos)
      message.erase(0, at + sizeof(prefix) - 1);
    return false;
  }
};
} // namespace

Status json::parse(const std::string &text, Value &value) {
  // The keys of each object being read, innermost last; the first breach
  // of a rule beyond JSON's.
  std::vector<std::set<std::string>> keys;
  std::string broken;
  auto check = [&](int depth, nlohmann::json::parse_event_t event,
                   Value &parsed) {
    using Event = nlohmann::json::parse_event_t;
    if (event == Event::object_start)
      keys.emplace_back();
    if (event == Event::object_end)
      keys.pop_back();
    if ((event == Event::object_start || event == Event::array_start) &&
        depth >= kMaxDepth && broken.empty())
      broken = "arrays and objects nested more than " +
               std::to_string(kMaxDepth) + " deep";
    if (event == Event::key && broken.empty()) {
      const auto &key = parsed.get_ref<const std::string &>();
      if (!keys.back().insert(key).second)
        broken = "the key '" + key + "' appears twice in one object";
    }
    // Nothing is discarded: nlohmann then skips the object_end events that
    // keep `keys` balanced. Its parser and destructor do not recurse, so a
    // deep document costs memory, not stack.
    return true;
  };
  value = Value::parse(text, check, /*allow_exceptions=*/false);
  if (value.is_discarded()) {
    ErrorRecorder recorder;
    Value::sax_parse(text, &recorder);
    return Status::error(recorder.message.empty() ? "not a JSON document"
                                                  : recorder.message);
  }
  if (!broken.empty())
    return Status::error(broken);
  return Status::ok();
}

Kind json::kindOf(const Value &value) {
  if (value.is_boolean())
    return Kind::Bool;
  if (value.is_number())
    return Kind::Number;
  if (value.is_string())
    return Kind::String;
  if (value.is_array())
    return Kind::Array;
  if (value.is_object())
    return Kind::Object;
  return Kind::Null;
}

const char *json::describe(Kind kind) {
  switch (kind) {
  case Kind::Null:
    return "null";
  case Kind::Bool:
    return "a boolean";
  case Kind::Number:
    return "a number";
  case Kind::String:
    return "a string";
  case Kind::Array:
    return "an array";
  case Kind::Object:
    return "an object";
  }
  return "a value";
}

const Value *json::find(const Value &object, const char *key) {
  if (!object.is_object())
    return nullptr;
  auto member = object.find(key);
  return member == object.end() ? nullptr : &*member;
}

bool json::getInteger(const Value &value, int64_t &integer) {
  if (value.is_number_unsigned()) {
    auto number = value.get<uint64_t>();
    if (number > static_cast<uint64_t>(INT64_MAX))
      return false;
    integer = static_cast<int64_t>(number);
    return true;
  }
  if (!value.is_number_integer())
    return false;
  integer = value.get<int64_t>();
  return true;
}
