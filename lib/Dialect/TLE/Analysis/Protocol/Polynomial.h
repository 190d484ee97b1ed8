//===- Polynomial.h - Integer polynomials over unknowns ---------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The algebra of IterationCounts.cpp: counts are sums of integer
// coefficients times products of unknowns (trip counts, conditions,
// values computed from the kernel's inputs), compared exactly.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_LIB_DIALECT_TLE_ANALYSIS_PROTOCOL_POLYNOMIAL_H
#define TLE_LIB_DIALECT_TLE_ANALYSIS_PROTOCOL_POLYNOMIAL_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MathExtras.h"

#include <map>
#include <numeric>
#include <optional>

namespace mlir::tle {

/// A sum of coefficient x product of unknowns; a monomial lists its
/// unknowns' ids in ascending order, the constant term has none.
struct Polynomial {
  std::map<SmallVector<unsigned>, int64_t> terms;

  static Polynomial constant(int64_t value) {
    Polynomial p;
    if (value)
      p.terms[{}] = value;
    return p;
  }
  static Polynomial unknown(unsigned id) {
    Polynomial p;
    p.terms[{id}] = 1;
    return p;
  }
  std::optional<int64_t> getConstant() const {
    if (terms.empty())
      return 0;
    if (terms.size() == 1 && terms.begin()->first.empty())
      return terms.begin()->second;
    return std::nullopt;
  }
  /// The gcd of the coefficients (positive), 0 for the zero polynomial.
  int64_t content() const {
    int64_t g = 0;
    for (auto &[monomial, c] : terms)
      g = std::gcd(g, c < 0 ? -c : c);
    return g;
  }
  Polynomial divideExactly(int64_t d) const {
    Polynomial p;
    for (auto &[monomial, c] : terms)
      p.terms[monomial] = c / d;
    return p;
  }
  bool operator==(const Polynomial &other) const {
    return terms == other.terms;
  }
};

/// Overflow makes a count unknown rather than wrong.
inline std::optional<Polynomial> plus(const Polynomial &a, const Polynomial &b,
                                      int64_t sign = 1) {
  Polynomial sum = a;
  for (auto &[monomial, c] : b.terms) {
    int64_t &into = sum.terms[monomial];
    int64_t scaled;
    if (llvm::MulOverflow(c, sign, scaled) ||
        llvm::AddOverflow(into, scaled, into))
      return std::nullopt;
    if (into == 0)
      sum.terms.erase(monomial);
  }
  return sum;
}

inline std::optional<Polynomial> multiply(const Polynomial &a,
                                          const Polynomial &b) {
  Polynomial product;
  for (auto &[ma, ca] : a.terms)
    for (auto &[mb, cb] : b.terms) {
      SmallVector<unsigned> monomial(ma);
      monomial.append(mb.begin(), mb.end());
      llvm::sort(monomial);
      Polynomial term;
      std::optional<Polynomial> sum;
      if (llvm::MulOverflow(ca, cb, term.terms[monomial]) ||
          !(sum = plus(product, term)))
        return std::nullopt;
      product = *sum;
    }
  return product;
}

} // namespace mlir::tle

#endif // TLE_LIB_DIALECT_TLE_ANALYSIS_PROTOCOL_POLYNOMIAL_H
