//===- JsonTest.cpp - The runtime's JSON reading (nlohmann/json) ----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Json.h"

#include "gtest/gtest.h"

using namespace tle::runtime;
using json::Kind;
using json::Value;

namespace {

Value parseOk(const std::string &text) {
  Value value;
  Status status = json::parse(text, value);
  EXPECT_TRUE(status) << status.message;
  return value;
}

std::string parseError(const std::string &text) {
  Value value;
  Status status = json::parse(text, value);
  EXPECT_FALSE(status) << "accepted: " << text;
  return status.message;
}

TEST(Json, Scalars) {
  EXPECT_EQ(json::kindOf(parseOk("null")), Kind::Null);
  EXPECT_TRUE(parseOk(" true ").get<bool>());
  EXPECT_FALSE(parseOk("false").get<bool>());
  EXPECT_EQ(parseOk("\"hi\"").get<std::string>(), "hi");
  EXPECT_DOUBLE_EQ(parseOk("-1.5e2").get<double>(), -150.0);
  EXPECT_DOUBLE_EQ(parseOk("0.25").get<double>(), 0.25);
  EXPECT_EQ(json::kindOf(parseOk("3")), Kind::Number);
  EXPECT_EQ(json::kindOf(parseOk("-3.5")), Kind::Number);
}

TEST(Json, IntegersStayExact) {
  int64_t value = 0;
  EXPECT_TRUE(json::getInteger(parseOk("9007199254740993"), value));
  EXPECT_EQ(value, 9007199254740993LL);
  EXPECT_TRUE(json::getInteger(parseOk("-42"), value));
  EXPECT_EQ(value, -42);
  EXPECT_TRUE(json::getInteger(parseOk("9223372036854775807"), value));
  EXPECT_EQ(value, INT64_MAX);
  // Past int64_t, and numbers with a fraction or exponent, are no integers.
  EXPECT_FALSE(json::getInteger(parseOk("9223372036854775808"), value));
  EXPECT_FALSE(json::getInteger(parseOk("1.0"), value));
  EXPECT_FALSE(json::getInteger(parseOk("1e3"), value));
  EXPECT_FALSE(json::getInteger(parseOk("\"1\""), value));
}

TEST(Json, ArraysAndObjects) {
  Value value = parseOk(R"({"b": [1, 2, {"c": null}], "a": {}})");
  ASSERT_EQ(json::kindOf(value), Kind::Object);
  EXPECT_EQ(value.size(), 2u);
  const Value *b = json::find(value, "b");
  ASSERT_TRUE(b);
  ASSERT_EQ(json::kindOf(*b), Kind::Array);
  ASSERT_EQ(b->size(), 3u);
  EXPECT_EQ(json::kindOf(*json::find((*b)[2], "c")), Kind::Null);
  EXPECT_EQ(json::find(value, "missing"), nullptr);
  EXPECT_EQ(json::find(*b, "c"), nullptr);
  EXPECT_TRUE(parseOk("[]").empty());
}

TEST(Json, Escapes) {
  EXPECT_EQ(parseOk(R"("a\"b\\c\/d\n\t\r\b\f")").get<std::string>(),
            "a\"b\\c/d\n\t\r\b\f");
  EXPECT_EQ(parseOk(R"("\u0041\u00e9\u20ac")").get<std::string>(),
            "A\xc3\xa9\xe2\x82\xac");
  // A surrogate pair is one code point (U+1F600).
  EXPECT_EQ(parseOk(R"("\ud83d\ude00")").get<std::string>(),
            "\xf0\x9f\x98\x80");
}

TEST(Json, MalformedSaysWhere) {
  EXPECT_EQ(parseError("{\"a\": 1,\n  \"b\" 2}"),
            "line 2, column 7: syntax error while parsing object separator - "
            "unexpected number literal; expected ':'");
  EXPECT_EQ(parseError("[1, 2"),
            "line 1, column 6: syntax error while parsing array - unexpected "
            "end of input; expected ']'");
  EXPECT_EQ(parseError(""), "line 1, column 1: syntax error while parsing "
                            "value - unexpected end of input; expected '[', "
                            "'{', or a literal");
}

TEST(Json, MalformedCases) {
  for (const char *text :
       {"{",       "[1,]",        "{\"a\":}",    "{a: 1}",      "tru",
        "01",      "1.",          "-",           "1e",          "\"abc",
        "\"\\x\"", "\"\\u12g4\"", "\"\\ud800\"", "\"\\udc00\"", "\"a\nb\"",
        "[1] 2",   "+1",          ".5",          "nul",         "[1, 2] ]"})
    EXPECT_EQ(parseError(text).rfind("line ", 0), 0u) << text;
}

TEST(Json, NoKeyTwice) {
  EXPECT_EQ(parseError(R"({"a": 1, "a": 2})"),
            "the key 'a' appears twice in one object");
  EXPECT_EQ(parseError(R"([{"k": {"x": 1}, "x": 2, "k": 3}])"),
            "the key 'k' appears twice in one object");
  // The same key in different objects is fine.
  parseOk(R"({"a": {"a": 1}, "b": [{"a": 1}, {"a": 2}]})");
}

TEST(Json, DepthIsLimited) {
  std::string deep(1000, '[');
  deep += std::string(1000, ']');
  EXPECT_EQ(parseError(deep), "arrays and objects nested more than " +
                                  std::to_string(json::kMaxDepth) + " deep");
  std::string fits(json::kMaxDepth, '[');
  fits += std::string(json::kMaxDepth, ']');
  parseOk(fits);
  // Unbalanced: a syntax error, wherever it is.
  EXPECT_NE(parseError(std::string(1000, '[')).find("line 1, column 1001"),
            std::string::npos);
}

TEST(Json, Describe) {
  EXPECT_STREQ(json::describe(json::kindOf(parseOk("{}"))), "an object");
  EXPECT_STREQ(json::describe(json::kindOf(parseOk("[]"))), "an array");
  EXPECT_STREQ(json::describe(json::kindOf(parseOk("1"))), "a number");
  EXPECT_STREQ(json::describe(json::kindOf(parseOk("\"\""))), "a string");
  EXPECT_STREQ(json::describe(json::kindOf(parseOk("true"))), "a boolean");
  EXPECT_STREQ(json::describe(json::kindOf(parseOk("null"))), "null");
}

} // namespace
