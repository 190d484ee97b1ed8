//===- Json.cpp - A small JSON reader and writer --------------------------===//

#include "tle/Runtime/Json.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace tle::runtime;
using namespace tle::runtime::json;

bool Value::getInteger(int64_t &value) const {
  if (k != Kind::Number || !isInt)
    return false;
  value = integer;
  return true;
}

const Value *Value::find(const std::string &key) const {
  for (const Member &member : members)
    if (member.first == key)
      return &member.second;
  return nullptr;
}

void Value::push(Value value) { items.push_back(std::move(value)); }

void Value::set(const std::string &key, Value value) {
  for (Member &member : members) {
    if (member.first == key) {
      member.second = std::move(value);
      return;
    }
  }
  members.emplace_back(key, std::move(value));
}

const char *Value::describe(Kind kind) {
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

//===----------------------------------------------------------------------===//
// Reader
//===----------------------------------------------------------------------===//

namespace {
/// A recursive-descent parser over the whole text. The first error stops
/// it; `error` then holds the message and `pos` where it happened.
class Parser {
public:
  explicit Parser(const std::string &text) : text(text) {}

  Status parseDocument(Value &value) {
    skipSpace();
    if (parseValue(value, 0)) {
      skipSpace();
      if (pos != text.size())
        fail("unexpected text after the JSON value");
    }
    if (error.empty())
      return Status::ok();
    return Status::error(location() + ": " + error);
  }

private:
  /// Deep enough for any metadata, shallow enough for the stack.
  static constexpr int maxDepth = 256;

  bool fail(const std::string &message) {
    if (error.empty())
      error = message;
    return false;
  }

  std::string location() const {
    size_t line = 1, column = 1;
    for (size_t i = 0; i < pos && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    return "line " + std::to_string(line) + ", column " +
           std::to_string(column);
  }

  bool atEnd() const { return pos >= text.size(); }
  char peek() const { return atEnd() ? '\0' : text[pos]; }

  void skipSpace() {
    while (!atEnd() && (peek() == ' ' || peek() == '\t' || peek() == '\n' ||
                        peek() == '\r'))
      ++pos;
  }

  bool consume(char c) {
    if (peek() != c)
      return false;
    ++pos;
    return true;
  }

  bool parseValue(Value &value, int depth) {
    if (depth > maxDepth)
      return fail("nested more than " + std::to_string(maxDepth) +
                  " levels deep");
    if (atEnd())
      return fail("expected a value, found the end of the text");
    char c = peek();
    if (c == '{')
      return parseObject(value, depth);
    if (c == '[')
      return parseArray(value, depth);
    if (c == '"') {
      std::string s;
      if (!parseString(s))
        return false;
      value = Value(std::move(s));
      return true;
    }
    if (c == '-' || (c >= '0' && c <= '9'))
      return parseNumber(value);
    return parseLiteral(value);
  }

  bool parseLiteral(Value &value) {
    static const struct {
      const char *word;
      int kind; // 0 null, 1 true, 2 false
    } literals[] = {{"null", 0}, {"true", 1}, {"false", 2}};
    for (const auto &literal : literals) {
      size_t n = std::strlen(literal.word);
      if (text.compare(pos, n, literal.word) == 0) {
        pos += n;
        value = literal.kind == 0 ? Value() : Value(literal.kind == 1);
        return true;
      }
    }
    return fail(std::string("unexpected character '") + peek() + "'");
  }

  bool parseDigits() {
    size_t start = pos;
    while (peek() >= '0' && peek() <= '9')
      ++pos;
    return pos != start;
  }

  /// JSON's grammar exactly (no leading '+', no leading zeros, no bare
  /// '.'); integers without fraction or exponent are kept exact.
  bool parseNumber(Value &value) {
    size_t start = pos;
    consume('-');
    if (peek() == '0')
      ++pos;
    else if (!parseDigits())
      return fail("expected digits in a number");
    bool integral = true;
    if (consume('.')) {
      integral = false;
      if (!parseDigits())
        return fail("expected digits after '.' in a number");
    }
    if (peek() == 'e' || peek() == 'E') {
      integral = false;
      ++pos;
      if (!consume('+'))
        consume('-');
      if (!parseDigits())
        return fail("expected digits in the exponent of a number");
    }
    std::string literal = text.substr(start, pos - start);
    if (integral) {
      errno = 0;
      long long n = std::strtoll(literal.c_str(), nullptr, 10);
      if (errno == 0) {
        value = Value(static_cast<int64_t>(n));
        return true;
      }
    }
    value = Value(std::strtod(literal.c_str(), nullptr));
    return true;
  }

  bool parseHex4(unsigned &code) {
    code = 0;
    for (int i = 0; i < 4; ++i, ++pos) {
      char c = peek();
      code <<= 4;
      if (c >= '0' && c <= '9')
        code |= c - '0';
      else if (c >= 'a' && c <= 'f')
        code |= c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        code |= c - 'A' + 10;
      else
        return fail("expected 4 hex digits after \\u");
    }
    return true;
  }

  static void appendUTF8(std::string &out, unsigned code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }

  /// \uXXXX, joining a UTF-16 surrogate pair into one code point.
  bool parseUnicodeEscape(std::string &out) {
    unsigned code;
    if (!parseHex4(code))
      return false;
    if (code >= 0xD800 && code < 0xDC00) {
      unsigned low;
      if (text.compare(pos, 2, "\\u") != 0)
        return fail("a high surrogate \\u escape must be followed by a low "
                    "one");
      pos += 2;
      if (!parseHex4(low))
        return false;
      if (low < 0xDC00 || low >= 0xE000)
        return fail("invalid low surrogate in a \\u escape");
      code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
    } else if (code >= 0xDC00 && code < 0xE000) {
      return fail("unpaired low surrogate in a \\u escape");
    }
    appendUTF8(out, code);
    return true;
  }

  bool parseEscape(std::string &out) {
    char c = peek();
    ++pos;
    switch (c) {
    case '"':
    case '\\':
    case '/':
      out += c;
      return true;
    case 'b':
      out += '\b';
      return true;
    case 'f':
      out += '\f';
      return true;
    case 'n':
      out += '\n';
      return true;
    case 'r':
      out += '\r';
      return true;
    case 't':
      out += '\t';
      return true;
    case 'u':
      return parseUnicodeEscape(out);
    default:
      --pos;
      return fail(std::string("invalid escape '\\") + c + "' in a string");
    }
  }

  bool parseString(std::string &out) {
    consume('"');
    while (true) {
      if (atEnd())
        return fail("unterminated string");
      char c = peek();
      if (c == '"') {
        ++pos;
        return true;
      }
      if (static_cast<unsigned char>(c) < 0x20)
        return fail("control character in a string (write it escaped)");
      ++pos;
      if (c != '\\')
        out += c;
      else if (!parseEscape(out))
        return false;
    }
  }

  bool parseArray(Value &value, int depth) {
    consume('[');
    value = Value::array();
    skipSpace();
    if (consume(']'))
      return true;
    while (true) {
      Value item;
      skipSpace();
      if (!parseValue(item, depth + 1))
        return false;
      value.push(std::move(item));
      skipSpace();
      if (consume(']'))
        return true;
      if (!consume(','))
        return fail("expected ',' or ']' in an array");
    }
  }

  bool parseObject(Value &value, int depth) {
    consume('{');
    value = Value::object();
    skipSpace();
    if (consume('}'))
      return true;
    while (true) {
      skipSpace();
      if (peek() != '"')
        return fail("expected a string key in an object");
      std::string key;
      if (!parseString(key))
        return false;
      if (value.find(key))
        return fail("duplicate key '" + key + "' in an object");
      skipSpace();
      if (!consume(':'))
        return fail("expected ':' after a key");
      skipSpace();
      Value member;
      if (!parseValue(member, depth + 1))
        return false;
      value.set(key, std::move(member));
      skipSpace();
      if (consume('}'))
        return true;
      if (!consume(','))
        return fail("expected ',' or '}' in an object");
    }
  }

  const std::string &text;
  size_t pos = 0;
  std::string error;
};
} // namespace

Status json::parse(const std::string &text, Value &value) {
  return Parser(text).parseDocument(value);
}

//===----------------------------------------------------------------------===//
// Writer
//===----------------------------------------------------------------------===//

static void writeString(std::string &out, const std::string &s) {
  out += '"';
  for (char c : s) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        char buffer[8];
        std::snprintf(buffer, sizeof(buffer), "\\u%04x", c);
        out += buffer;
      } else {
        out += c;
      }
    }
  }
  out += '"';
}

/// The shortest of %.15g and %.17g that reads back as the same double.
static void writeNumber(std::string &out, const Value &value) {
  int64_t integer;
  if (value.getInteger(integer)) {
    out += std::to_string(integer);
    return;
  }
  double number = value.getNumber();
  if (!std::isfinite(number)) {
    out += "null";
    return;
  }
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.15g", number);
  if (std::strtod(buffer, nullptr) != number)
    std::snprintf(buffer, sizeof(buffer), "%.17g", number);
  out += buffer;
}

static void writeValue(std::string &out, const Value &value, int indent,
                       int level);

static void newline(std::string &out, int indent, int level) {
  if (indent == 0)
    return;
  out += '\n';
  out.append(static_cast<size_t>(indent * level), ' ');
}

static void writeArray(std::string &out, const Value &value, int indent,
                       int level) {
  const std::vector<Value> &items = value.getArray();
  out += '[';
  for (size_t i = 0; i < items.size(); ++i) {
    out += i ? "," : "";
    newline(out, indent, level + 1);
    writeValue(out, items[i], indent, level + 1);
  }
  if (!items.empty())
    newline(out, indent, level);
  out += ']';
}

static void writeObject(std::string &out, const Value &value, int indent,
                        int level) {
  const std::vector<Value::Member> &members = value.getObject();
  out += '{';
  for (size_t i = 0; i < members.size(); ++i) {
    out += i ? "," : "";
    newline(out, indent, level + 1);
    writeString(out, members[i].first);
    out += indent ? ": " : ":";
    writeValue(out, members[i].second, indent, level + 1);
  }
  if (!members.empty())
    newline(out, indent, level);
  out += '}';
}

static void writeValue(std::string &out, const Value &value, int indent,
                       int level) {
  switch (value.kind()) {
  case Value::Kind::Null:
    out += "null";
    return;
  case Value::Kind::Bool:
    out += value.getBool() ? "true" : "false";
    return;
  case Value::Kind::Number:
    writeNumber(out, value);
    return;
  case Value::Kind::String:
    writeString(out, value.getString());
    return;
  case Value::Kind::Array:
    writeArray(out, value, indent, level);
    return;
  case Value::Kind::Object:
    writeObject(out, value, indent, level);
    return;
  }
}

std::string json::write(const Value &value, int indent) {
  std::string out;
  writeValue(out, value, indent, 0);
  return out;
}
