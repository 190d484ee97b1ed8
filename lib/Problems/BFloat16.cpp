//===- BFloat16.cpp - bf16 bit patterns on the host -----------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tle/Problems/BFloat16.h"

#include <cmath>
#include <cstring>

using namespace tle::problems;

uint16_t tle::problems::floatToBFloat16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  // Truncating a NaN whose payload sits in the low half would give an
  // infinity; keep the sign and exponent and force the quiet bit instead.
  if (std::isnan(value))
    return static_cast<uint16_t>((bits >> 16) | 0x0040);
  // Adding 0x7FFF plus the lowest kept bit rounds half-way cases to the even
  // neighbour; a carry out of the mantissa correctly bumps the exponent, up
  // to infinity for the largest floats.
  uint32_t lowestKeptBit = (bits >> 16) & 1;
  bits += 0x7FFF + lowestKeptBit;
  return static_cast<uint16_t>(bits >> 16);
}

float tle::problems::bfloat16ToFloat(uint16_t bits) {
  uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &wide, sizeof(value));
  return value;
}
