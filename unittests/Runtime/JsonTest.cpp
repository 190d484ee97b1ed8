//===- JsonTest.cpp - The runtime's JSON reader and writer ----------------===//

#include "tle/Runtime/Json.h"

#include "gtest/gtest.h"

using namespace tle::runtime;
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
  EXPECT_TRUE(parseOk("null").isNull());
  EXPECT_TRUE(parseOk(" true ").getBool());
  EXPECT_FALSE(parseOk("false").getBool());
  EXPECT_EQ(parseOk("\"hi\"").getString(), "hi");
  EXPECT_DOUBLE_EQ(parseOk("-1.5e2").getNumber(), -150.0);
  EXPECT_DOUBLE_EQ(parseOk("0.25").getNumber(), 0.25);
}

TEST(Json, IntegersStayExact) {
  int64_t value = 0;
  EXPECT_TRUE(parseOk("9007199254740993").getInteger(value));
  EXPECT_EQ(value, 9007199254740993LL);
  EXPECT_TRUE(parseOk("-42").getInteger(value));
  EXPECT_EQ(value, -42);
  // A fraction or exponent makes a number non-integral.
  EXPECT_FALSE(parseOk("1.0").getInteger(value));
  EXPECT_FALSE(parseOk("1e3").getInteger(value));
}

TEST(Json, ArraysAndObjectsKeepOrder) {
  Value value = parseOk(R"({"b": [1, 2, {"c": null}], "a": {}})");
  ASSERT_EQ(value.kind(), Value::Kind::Object);
  ASSERT_EQ(value.getObject().size(), 2u);
  EXPECT_EQ(value.getObject()[0].first, "b");
  EXPECT_EQ(value.getObject()[1].first, "a");
  const Value *b = value.find("b");
  ASSERT_TRUE(b);
  ASSERT_EQ(b->getArray().size(), 3u);
  EXPECT_TRUE(b->getArray()[2].find("c")->isNull());
  EXPECT_EQ(value.find("missing"), nullptr);
  EXPECT_TRUE(parseOk("[]").getArray().empty());
}

TEST(Json, Escapes) {
  EXPECT_EQ(parseOk(R"("a\"b\\c\/d\n\t\r\b\f")").getString(),
            "a\"b\\c/d\n\t\r\b\f");
  EXPECT_EQ(parseOk(R"("\u0041\u00e9\u20ac")").getString(),
            "A\xc3\xa9\xe2\x82\xac");
  // A surrogate pair is one code point (U+1F600).
  EXPECT_EQ(parseOk(R"("\ud83d\ude00")").getString(), "\xf0\x9f\x98\x80");
}

TEST(Json, MalformedSaysWhere) {
  EXPECT_EQ(parseError("{\"a\": 1,\n  \"b\" 2}"),
            "line 2, column 7: expected ':' after a key");
  EXPECT_EQ(parseError("[1, 2"), "line 1, column 6: expected ',' or ']' in "
                                 "an array");
  EXPECT_EQ(parseError(""), "line 1, column 1: expected a value, found the "
                            "end of the text");
}

TEST(Json, MalformedCases) {
  for (const char *text : {"{",
                           "[1,]",
                           "{\"a\":}",
                           "{a: 1}",
                           "tru",
                           "01",
                           "1.",
                           "-",
                           "1e",
                           "\"abc",
                           "\"\\x\"",
                           "\"\\u12g4\"",
                           "\"\\ud800\"",
                           "\"\\udc00\"",
                           "\"a\nb\"",
                           "[1] 2",
                           "{\"a\": 1, \"a\": 2}",
                           "+1",
                           ".5",
                           "nul"})
    parseError(text);
}

TEST(Json, DepthIsLimited) {
  std::string deep(1000, '[');
  EXPECT_NE(parseError(deep).find("nested more than"), std::string::npos);
}

TEST(Json, WriteRoundTrips) {
  Value root = Value::object();
  root.set("name", "k\"1\n");
  root.set("count", int64_t(3));
  root.set("ratio", 0.1);
  root.set("ok", true);
  root.set("none", Value());
  Value list = Value::array();
  list.push(1);
  list.push("x");
  root.set("list", std::move(list));
  std::string text = json::write(root, 0);
  EXPECT_EQ(text, R"({"name":"k\"1\n","count":3,"ratio":0.1,"ok":true,)"
                  R"("none":null,"list":[1,"x"]})");
  Value back = parseOk(json::write(root));
  EXPECT_EQ(json::write(back, 0), text);
}

TEST(Json, WriteNonFiniteAsNull) {
  EXPECT_EQ(json::write(Value(1.0 / 0.0)), "null");
}

} // namespace
