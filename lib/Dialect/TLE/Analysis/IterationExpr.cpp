//===- IterationExpr.cpp - Iterations as affine expressions ---------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/Analysis/IterationExpr.h"
#include "tle/Dialect/TLE/IR/Diagnostics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tle;

IterationExpr IterationExpr::constant(int64_t value) {
  IterationExpr expr;
  expr.constantTerm = value;
  return expr;
}

std::optional<IterationExpr> IterationExpr::add(const IterationExpr &b,
                                                int64_t scale) const {
  IterationExpr sum = *this;
  int64_t scaled;
  if (llvm::MulOverflow(b.constantTerm, scale, scaled) ||
      llvm::AddOverflow(sum.constantTerm, scaled, sum.constantTerm))
    return std::nullopt;
  for (auto [atom, coefficient] : b.terms) {
    auto *it =
        llvm::find_if(sum.terms, [&](auto &t) { return t.first == atom; });
    if (it == sum.terms.end())
      it = sum.terms.insert(
          llvm::lower_bound(sum.terms, atom,
                            [](auto &t, Value v) {
                              return t.first.getAsOpaquePointer() <
                                     v.getAsOpaquePointer();
                            }),
          {atom, 0});
    if (llvm::MulOverflow(coefficient, scale, scaled) ||
        llvm::AddOverflow(it->second, scaled, it->second))
      return std::nullopt;
    if (it->second == 0)
      sum.terms.erase(it);
  }
  return sum;
}

/// Whether the cast `op` keeps every value of its source: it widens.
static bool widens(Operation *op) {
  auto width = [](Type type) {
    return type.isIndex() ? 64u : type.getIntOrFloatBitWidth();
  };
  return width(op->getOperand(0).getType()) <=
         width(op->getResult(0).getType());
}

IterationExpr IterationExpr::get(Value value) {
  APInt constantValue;
  if (matchPattern(value, m_ConstantInt(&constantValue)))
    return constant(constantValue.getSExtValue());
  IterationExpr atom;
  atom.terms.push_back({value, 1});
  Operation *def = value.getDefiningOp();
  if (!def)
    return atom;
  std::optional<IterationExpr> expr =
      llvm::TypeSwitch<Operation *, std::optional<IterationExpr>>(def)
          .Case([](arith::AddIOp add) {
            return get(add.getLhs()).add(get(add.getRhs()));
          })
          .Case([](arith::SubIOp sub) {
            return get(sub.getLhs()).add(get(sub.getRhs()), -1);
          })
          .Case([](arith::MulIOp mul) -> std::optional<IterationExpr> {
            IterationExpr lhs = get(mul.getLhs()), rhs = get(mul.getRhs());
            if (!lhs.terms.empty())
              std::swap(lhs, rhs);
            if (!lhs.terms.empty())
              return std::nullopt;
            return IterationExpr().add(rhs, lhs.constantTerm);
          })
          .Case<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
                arith::ExtUIOp>(
              [](Operation *cast) -> std::optional<IterationExpr> {
                if (!widens(cast))
                  return std::nullopt;
                return get(cast->getOperand(0));
              })
          .Default([](Operation *) { return std::nullopt; });
  return expr ? *expr : atom;
}

std::optional<IterationExpr>
IterationExpr::substitute(Value atom, const IterationExpr &replacement) const {
  int64_t coefficient = getCoefficient(atom);
  if (coefficient == 0)
    return *this;
  IterationExpr rest = *this;
  llvm::erase_if(rest.terms, [&](auto &t) { return t.first == atom; });
  return rest.add(replacement, coefficient);
}

int64_t IterationExpr::getCoefficient(Value atom) const {
  const auto *it =
      llvm::find_if(terms, [&](auto &t) { return t.first == atom; });
  return it == terms.end() ? 0 : it->second;
}

std::string IterationExpr::describe() const {
  // Atoms are ordered by address; print them in an order that does not
  // change from run to run.
  SmallVector<std::pair<std::string, int64_t>> parts;
  for (auto [atom, coefficient] : terms)
    parts.push_back({describeValue(atom), coefficient});
  llvm::sort(parts);
  auto magnitude = [](int64_t v) {
    return std::to_string(v < 0 ? 0 - static_cast<uint64_t>(v)
                                : static_cast<uint64_t>(v));
  };
  std::string text;
  for (auto [name, coefficient] : parts) {
    text += text.empty() ? (coefficient < 0 ? "-" : "")
                         : (coefficient < 0 ? " - " : " + ");
    if (coefficient != 1 && coefficient != -1)
      text += magnitude(coefficient) + " x ";
    text += name;
  }
  if (text.empty())
    return std::to_string(constantTerm);
  if (constantTerm != 0)
    text += (constantTerm < 0 ? " - " : " + ") + magnitude(constantTerm);
  return text;
}
