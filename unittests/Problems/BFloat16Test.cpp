//===- BFloat16Test.cpp - bf16 rounding -----------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tle/Problems/BFloat16.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace tle::problems;

static float fromBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

TEST(BFloat16, ExactValuesRoundTrip) {
  EXPECT_EQ(floatToBFloat16(1.0f), 0x3F80);
  EXPECT_EQ(floatToBFloat16(-1.5f), 0xBFC0);
  EXPECT_EQ(floatToBFloat16(0.0f), 0x0000);
  EXPECT_EQ(floatToBFloat16(-0.0f), 0x8000);
  for (float value : {1.0f, -1.5f, 0.15625f, 3.0e38f, 1.0e-40f})
    EXPECT_EQ(floatToBFloat16(bfloat16ToFloat(floatToBFloat16(value))),
              floatToBFloat16(value));
  EXPECT_EQ(bfloat16ToFloat(0x4040), 3.0f);
}

TEST(BFloat16, TiesRoundToEven) {
  // 1 + 2^-8 lies half-way between 1 (even) and 1 + 2^-7 (odd).
  EXPECT_EQ(floatToBFloat16(fromBits(0x3F808000)), 0x3F80);
  // 1 + 3 * 2^-8 lies half-way between 1 + 2^-7 (odd) and 1 + 2^-6 (even).
  EXPECT_EQ(floatToBFloat16(fromBits(0x3F818000)), 0x3F82);
  // Just above and below half-way.
  EXPECT_EQ(floatToBFloat16(fromBits(0x3F808001)), 0x3F81);
  EXPECT_EQ(floatToBFloat16(fromBits(0x3F807FFF)), 0x3F80);
  // Negative values round by magnitude.
  EXPECT_EQ(floatToBFloat16(fromBits(0xBF818000)), 0xBF82);
}

TEST(BFloat16, InfinitiesAndOverflow) {
  constexpr float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(floatToBFloat16(inf), 0x7F80);
  EXPECT_EQ(floatToBFloat16(-inf), 0xFF80);
  EXPECT_EQ(floatToBFloat16(std::numeric_limits<float>::max()), 0x7F80);
  EXPECT_EQ(bfloat16ToFloat(0xFF80), -inf);
}

TEST(BFloat16, NaNStaysNaN) {
  EXPECT_TRUE(std::isnan(bfloat16ToFloat(
      floatToBFloat16(std::numeric_limits<float>::quiet_NaN()))));
  // A payload only in the low half would truncate to an infinity.
  uint16_t bits = floatToBFloat16(fromBits(0x7F800001));
  EXPECT_TRUE(std::isnan(bfloat16ToFloat(bits)));
  EXPECT_EQ(bits & 0x8000, 0);
  EXPECT_EQ(floatToBFloat16(fromBits(0xFF800001)) & 0x8000, 0x8000);
}
