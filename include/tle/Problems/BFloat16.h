//===- BFloat16.h - bf16 bit patterns on the host ---------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The kernels read and write bf16; the host keeps bf16 tensors as their raw
// 16-bit patterns (the high half of an IEEE float) and converts them with the
// rounding the GPU uses, round to nearest even.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_PROBLEMS_BFLOAT16_H
#define TLE_PROBLEMS_BFLOAT16_H

#include <cstdint>

namespace tle::problems {

/// Rounds to the nearest bf16, ties to even. Infinities stay infinities,
/// finite values too large for bf16 become infinities, and every NaN stays a
/// (quiet) NaN even when its payload lies only in the dropped low bits.
uint16_t floatToBFloat16(float value);

/// Exact: every bf16 is a float.
float bfloat16ToFloat(uint16_t bits);

} // namespace tle::problems

#endif // TLE_PROBLEMS_BFLOAT16_H
