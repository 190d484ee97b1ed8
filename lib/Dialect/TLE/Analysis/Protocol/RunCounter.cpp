//===- RunCounter.cpp - How often an op runs, as a polynomial -------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "RunCounter.h"
#include "tle/Dialect/TLE/IR/Diagnostics.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tle;

bool RunCounter::hasNonNegativeRange(Value value) {
  if (!ranges)
    ranges.emplace(ws->getParentOp());
  return ranges->isNeverNegative(value);
}

Polynomial RunCounter::unknown(const std::string &key, const std::string &text,
                               bool isNonNegative) {
  auto [it, inserted] = ids.try_emplace(key, texts.size());
  if (inserted) {
    texts.push_back(text);
    nonNegative.push_back(isNonNegative);
  }
  return Polynomial::unknown(it->second);
}

std::string RunCounter::keyOf(const Polynomial &p) const {
  std::string key;
  for (auto &[monomial, c] : p.terms) {
    key += std::to_string(c) + "*";
    for (unsigned id : monomial)
      key += std::to_string(id) + ".";
    key += "+";
  }
  return key;
}

std::string RunCounter::print(const Polynomial &p) const {
  if (p.terms.empty())
    return "0";
  std::string text;
  bool first = true;
  // The constant term, which std::map orders first, reads best last.
  auto printTerm = [&](const SmallVector<unsigned> &monomial, int64_t c) {
    text += first ? (c < 0 ? "-" : "") : (c < 0 ? " - " : " + ");
    first = false;
    int64_t magnitude = c < 0 ? -c : c;
    if (monomial.empty() || magnitude != 1)
      text += std::to_string(magnitude) + (monomial.empty() ? "" : " x ");
    for (auto [i, id] : llvm::enumerate(monomial))
      text += (i ? " x " : "") + texts[id];
  };
  for (auto &[monomial, c] : p.terms)
    if (!monomial.empty())
      printTerm(monomial, c);
  if (auto it = p.terms.find(SmallVector<unsigned>()); it != p.terms.end())
    printTerm(it->first, it->second);
  return text;
}

bool RunCounter::hasOnlyNonNegativeUnknowns(const Polynomial &p) const {
  return llvm::all_of(p.terms, [&](auto &term) {
    return llvm::all_of(term.first,
                        [&](unsigned id) { return nonNegative[id]; });
  });
}

std::optional<Polynomial> RunCounter::of(Value value) {
  if (auto it = memo.find(value); it != memo.end())
    return it->second;
  std::optional<Polynomial> result = compute(value);
  memo[value] = result;
  return result;
}

std::optional<Polynomial> RunCounter::compute(Value value) {
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return Polynomial::constant(constant.getSExtValue());
  bool inside = ws->isAncestor(value.getParentRegion()->getParentOp());
  Operation *def = value.getDefiningOp();
  // Before the partitions, whatever the check cannot follow is an input.
  auto input = [&]() -> std::optional<Polynomial> {
    if (inside)
      return std::nullopt;
    return unknown("in:" + std::to_string(reinterpret_cast<uintptr_t>(
                               value.getAsOpaquePointer())),
                   describeValue(value), /*nonNegative=*/false);
  };
  if (!def || def->getNumResults() != 1 || def->getNumOperands() == 0 ||
      !value.getType().isIntOrIndex())
    return input();
  SmallVector<Polynomial> args;
  for (Value operand : def->getOperands()) {
    std::optional<Polynomial> p = of(operand);
    if (!p)
      return input();
    args.push_back(*p);
  }
  // A comparison that says `x > k` is the same condition, and the same
  // unknown, as the test of a loop's trip count (greaterThan).
  if (auto cmp = dyn_cast<arith::CmpIOp>(def))
    if (auto greater = asGreaterThan(cmp))
      if (std::optional<Polynomial> x = of(greater->first))
        return this->opaque("cmpi.sgt",
                            {*x, Polynomial::constant(greater->second)},
                            /*commutative=*/false);
  auto opaque = [&](bool commutative) -> std::optional<Polynomial> {
    std::string name = def->getName().stripDialect().str();
    if (auto cmp = dyn_cast<arith::CmpIOp>(def))
      name += "." + arith::stringifyCmpIPredicate(cmp.getPredicate()).str();
    return this->opaque(name, args, commutative);
  };
  // A division that is exact for every value of the dividend.
  // A division by a positive constant (a right shift is one), as the one
  // unknown that every way of writing it comes to: `(s + 63) / 64`,
  // `(s + 63) >> 6` and, for an s never negative, `ceildiv(s, 64)` are
  // the same count.
  auto divide = [&](Rounding rounding) -> std::optional<Polynomial> {
    std::optional<int64_t> d = args[1].getConstant();
    if (isa<arith::ShRUIOp, arith::ShRSIOp>(def))
      d = d && *d >= 0 && *d < 63 ? std::optional(int64_t(1) << *d)
                                  : std::nullopt;
    if (!d || *d <= 0)
      return opaque(false);
    if (args[0].content() % *d == 0)
      return args[0].divideExactly(*d);
    return divideByConstant(args[0], *d, rounding,
                            hasNonNegativeRange(def->getOperand(0)));
  };
  return llvm::TypeSwitch<Operation *, std::optional<Polynomial>>(def)
      .Case([&](arith::AddIOp) { return plus(args[0], args[1]); })
      .Case([&](arith::SubIOp) { return plus(args[0], args[1], -1); })
      .Case([&](arith::MulIOp) { return multiply(args[0], args[1]); })
      .Case<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
            arith::ExtUIOp>([&](auto) { return args[0]; })
      .Case<arith::DivUIOp, arith::ShRUIOp>(
          [&](auto) { return divide(Rounding::Unsigned); })
      .Case<arith::FloorDivSIOp, arith::ShRSIOp>(
          [&](auto) { return divide(Rounding::Floor); })
      .Case([&](arith::DivSIOp) { return divide(Rounding::TowardZero); })
      .Case([&](arith::CeilDivUIOp) { return divide(Rounding::UnsignedUp); })
      .Case([&](arith::CeilDivSIOp) { return divide(Rounding::Up); })
      .Case([&](arith::ShLIOp) -> std::optional<Polynomial> {
        std::optional<int64_t> k = args[1].getConstant();
        if (!k || *k < 0 || *k >= 63)
          return opaque(false);
        return multiply(args[0], Polynomial::constant(int64_t(1) << *k));
      })
      .Case<arith::MinSIOp, arith::MinUIOp, arith::MaxSIOp, arith::MaxUIOp,
            arith::AndIOp, arith::OrIOp, arith::XOrIOp>(
          [&](auto) { return opaque(true); })
      .Case<arith::RemUIOp, arith::RemSIOp, arith::TruncIOp, arith::SelectOp,
            arith::CmpIOp>([&](auto) { return opaque(false); })
      .Default([&](Operation *) { return input(); });
}

std::optional<Polynomial> RunCounter::divideByConstant(const Polynomial &x,
                                                       int64_t d,
                                                       Rounding rounding,
                                                       bool neverNegative) {
  Polynomial divisor = Polynomial::constant(d);
  // Rounding up unsigned wraps where x + d - 1 does: only x never negative
  // keeps it exact.
  if (rounding == Rounding::Up ||
      (rounding == Rounding::UnsignedUp && neverNegative)) {
    std::optional<Polynomial> up = plus(x, Polynomial::constant(d - 1));
    if (!up)
      return std::nullopt;
    return divideByConstant(*up, d, Rounding::Floor, neverNegative);
  }
  StringRef name = "ceildivui";
  if (rounding == Rounding::Unsigned || neverNegative)
    name = "divui";
  else if (rounding == Rounding::Floor)
    name = "floordivsi";
  else if (rounding == Rounding::TowardZero)
    name = "divsi";
  return opaque(name.str(), {x, divisor}, /*commutative=*/false);
}

std::optional<Polynomial> RunCounter::stepOneTrips(const Polynomial &span) {
  if (std::optional<int64_t> c = span.getConstant())
    return Polynomial::constant(*c > 0 ? *c : 0);
  // max(0, g x) = g max(0, x) with g the content of the span.
  int64_t g = span.content();
  Polynomial reduced = span.divideExactly(g);
  Polynomial trips = unknown("trips(" + keyOf(reduced) + "/1)",
                             "trips(" + print(reduced) + ")",
                             /*nonNegative=*/true);
  stepOneSpans.try_emplace(trips.terms.begin()->first.front(), reduced);
  return multiply(Polynomial::constant(g), trips);
}

std::optional<Polynomial> RunCounter::tripCount(scf::ForOp loop) {
  std::optional<Polynomial> lb = of(loop.getLowerBound());
  std::optional<Polynomial> ub = of(loop.getUpperBound());
  std::optional<Polynomial> step = of(loop.getStep());
  if (!lb || !ub || !step)
    return std::nullopt;
  std::optional<Polynomial> span = plus(*ub, *lb, -1);
  std::optional<int64_t> s = step->getConstant();
  if (!span || !s || *s <= 0)
    return unknown("trips(" + keyOf(*lb) + "," + keyOf(*ub) + "," +
                       keyOf(*step) + ")",
                   "trips(" + print(*lb) + " to " + print(*ub) + " step " +
                       print(*step) + ")",
                   /*nonNegative=*/true);
  if (std::optional<int64_t> c = span->getConstant())
    return Polynomial::constant(*c > 0 ? llvm::divideCeil(*c, *s) : 0);
  if (*s == 1) {
    // Under a guard X >= g, a span X - d with d <= g is not negative: the
    // loop runs X - d = trips(X) - d times (a loop that a prologue and an
    // epilogue peel one iteration off, `0 to n - 1` under `n > 0`).
    for (const Guard &guard : getGuardsAround(loop)) {
      std::optional<Polynomial> rest = plus(*span, guard.value, -1);
      std::optional<int64_t> d = rest ? rest->getConstant() : std::nullopt;
      if (!d || -*d > guard.atLeast || *d > 0)
        continue;
      std::optional<Polynomial> trips = stepOneTrips(guard.value);
      return trips ? plus(*trips, Polynomial::constant(*d)) : std::nullopt;
    }
    return stepOneTrips(*span);
  }
  // max(0, ceil(g x / s)) with g the content of the span: when s divides
  // g it is (g / s) max(0, x).
  int64_t g = span->content(), h = std::gcd(g, *s);
  Polynomial reduced = span->divideExactly(*s == h ? g : h);
  int64_t stepLeft = *s / h;
  Polynomial trips = unknown(
      "trips(" + keyOf(reduced) + "/" + std::to_string(stepLeft) + ")",
      "trips(" + print(reduced) +
          (stepLeft == 1 ? "" : " step " + std::to_string(stepLeft)) + ")",
      /*nonNegative=*/true);
  if (stepLeft == 1)
    stepOneSpans.try_emplace(trips.terms.begin()->first.front(), reduced);
  return *s == h ? multiply(Polynomial::constant(g / h), trips) : trips;
}

std::optional<std::pair<int64_t, Polynomial>>
RunCounter::ofInLoop(Value value, scf::ForOp loop) {
  if (value == loop.getInductionVar())
    return std::pair<int64_t, Polynomial>{1, Polynomial::constant(0)};
  if (!loop->isAncestor(value.getParentRegion()->getParentOp()))
    if (std::optional<Polynomial> p = of(value))
      return std::pair<int64_t, Polynomial>{0, *p};
  Operation *def = value.getDefiningOp();
  if (!isa_and_nonnull<arith::AddIOp, arith::SubIOp>(def))
    return std::nullopt;
  auto lhs = ofInLoop(def->getOperand(0), loop);
  auto rhs = ofInLoop(def->getOperand(1), loop);
  if (!lhs || !rhs)
    return std::nullopt;
  int64_t sign = isa<arith::SubIOp>(def) ? -1 : 1;
  int64_t c = lhs->first + sign * rhs->first;
  std::optional<Polynomial> rest = plus(lhs->second, rhs->second, sign);
  if ((c != 0 && c != 1) || !rest)
    return std::nullopt;
  return std::pair<int64_t, Polynomial>{c, *rest};
}

Polynomial RunCounter::opaque(const std::string &name,
                              ArrayRef<Polynomial> args, bool commutative) {
  SmallVector<std::string> keys, texts;
  for (const Polynomial &arg : args) {
    keys.push_back(keyOf(arg));
    texts.push_back(print(arg));
  }
  if (commutative)
    llvm::sort(keys);
  return unknown(name + "(" + llvm::join(keys, ",") + ")",
                 name + "(" + llvm::join(texts, ", ") + ")",
                 /*nonNegative=*/false);
}

Polynomial RunCounter::taken(const Polynomial &condition,
                             std::optional<Guard> guard) {
  Polynomial p = unknown("if(" + keyOf(condition) + ")",
                         "[" + print(condition) + "]", /*nonNegative=*/true);
  conditions.try_emplace(p.terms.begin()->first.front(), guard);
  return p;
}

Polynomial RunCounter::greaterThan(const Polynomial &a, const Polynomial &b) {
  std::optional<Guard> guard;
  if (std::optional<int64_t> k = b.getConstant(); k && *k < INT64_MAX)
    guard = Guard{a, *k + 1};
  return taken(opaque("cmpi.sgt", {a, b}, /*commutative=*/false), guard);
}

/// The predicate p' with b p' a exactly when a p b.
static arith::CmpIPredicate swapOperands(arith::CmpIPredicate pred) {
  using P = arith::CmpIPredicate;
  switch (pred) {
  case P::slt:
    return P::sgt;
  case P::sle:
    return P::sge;
  case P::sgt:
    return P::slt;
  case P::sge:
    return P::sle;
  case P::ult:
    return P::ugt;
  case P::ule:
    return P::uge;
  case P::ugt:
    return P::ult;
  case P::uge:
    return P::ule;
  default:
    return pred;
  }
}

std::optional<Polynomial> RunCounter::takenInLoop(scf::IfOp branch,
                                                  scf::ForOp loop) {
  auto cmp = branch.getCondition().getDefiningOp<arith::CmpIOp>();
  std::optional<Polynomial> lb = of(loop.getLowerBound());
  std::optional<Polynomial> ub = of(loop.getUpperBound());
  std::optional<Polynomial> step = of(loop.getStep());
  if (!cmp || !lb || !ub || !step || step->getConstant() != 1)
    return std::nullopt;
  auto lhs = ofInLoop(cmp.getLhs(), loop), rhs = ofInLoop(cmp.getRhs(), loop);
  if (!lhs || !rhs || lhs->first + rhs->first != 1)
    return std::nullopt;
  // As iv <pred> bound.
  using P = arith::CmpIPredicate;
  P pred = lhs->first ? cmp.getPredicate() : swapOperands(cmp.getPredicate());
  std::optional<Polynomial> bound = lhs->first
                                        ? plus(rhs->second, lhs->second, -1)
                                        : plus(lhs->second, rhs->second, -1);
  if (!bound)
    return std::nullopt;
  auto offsetFrom = [&](const Polynomial &base) -> std::optional<int64_t> {
    std::optional<Polynomial> d = plus(*bound, base, -1);
    return d ? d->getConstant() : std::nullopt;
  };
  std::optional<int64_t> fromFirst = offsetFrom(*lb),
                         fromLast = offsetFrom(*ub);
  // An unsigned comparison orders the iterations as a signed one only
  // when none is negative.
  std::optional<int64_t> first = lb->getConstant();
  bool isUnsigned =
      pred == P::ult || pred == P::ule || pred == P::ugt || pred == P::uge;
  if (isUnsigned && (!first || *first < 0))
    return std::nullopt;
  // Which single iteration the condition leaves out (`one` false) or
  // picks (`one` true): the first or the last.
  std::optional<bool> one;
  switch (pred) {
  case P::ne:
    if (fromFirst == 0 || fromLast == -1)
      one = false;
    break;
  case P::eq:
    if (fromFirst == 0 || fromLast == -1)
      one = true;
    break;
  case P::sgt:
  case P::ugt:
    if (fromFirst == 0)
      one = false;
    break;
  case P::sge:
  case P::uge:
    if (fromFirst == 1)
      one = false;
    break;
  case P::slt:
  case P::ult:
    if (fromLast == -1)
      one = false;
    break;
  case P::sle:
  case P::ule:
    if (fromLast == -2)
      one = false;
    break;
  }
  std::optional<Polynomial> trips = tripCount(loop);
  if (!one || !trips)
    return std::nullopt;
  Polynomial any = greaterThan(*ub, *lb);
  return *one ? std::optional(any) : plus(*trips, any, -1);
}

std::optional<std::pair<Value, int64_t>>
RunCounter::asGreaterThan(arith::CmpIOp cmp) {
  std::optional<Polynomial> lhs = of(cmp.getLhs()), rhs = of(cmp.getRhs());
  if (!lhs || !rhs)
    return std::nullopt;
  std::optional<int64_t> lc = lhs->getConstant(), rc = rhs->getConstant();
  // As x <pred> k, the constant on the right.
  using P = arith::CmpIPredicate;
  Value x = cmp.getLhs();
  P pred = cmp.getPredicate();
  std::optional<int64_t> k = rc;
  if (!rc && lc) {
    x = cmp.getRhs();
    pred = swapOperands(pred);
    k = lc;
  }
  if (!k || (lc && rc))
    return std::nullopt;
  // x > k, x >= k + 1; for a never-negative x, x != 0, x >u 0 and
  // x >=u 1 are x > 0.
  switch (pred) {
  case P::sgt:
    return std::pair(x, *k);
  case P::sge:
    if (*k > INT64_MIN)
      return std::pair(x, *k - 1);
    return std::nullopt;
  case P::ne:
  case P::ugt:
    if (*k == 0 && hasNonNegativeRange(x))
      return std::pair(x, int64_t{0});
    return std::nullopt;
  case P::uge:
    if (*k == 1 && hasNonNegativeRange(x))
      return std::pair(x, int64_t{0});
    return std::nullopt;
  default:
    return std::nullopt;
  }
}

std::optional<RunCounter::Guard> RunCounter::getGuard(scf::IfOp branch) {
  auto cmp = branch.getCondition().getDefiningOp<arith::CmpIOp>();
  std::optional<Polynomial> condition = of(branch.getCondition());
  if (!cmp || !condition || condition->getConstant())
    return std::nullopt;
  auto greater = asGreaterThan(cmp);
  if (!greater || greater->second == INT64_MAX)
    return std::nullopt;
  std::optional<Polynomial> value = of(greater->first);
  if (!value)
    return std::nullopt;
  // value > k is value >= k + 1.
  return Guard{*value, greater->second + 1};
}

SmallVector<RunCounter::Guard> RunCounter::getGuardsAround(Operation *op) {
  SmallVector<Guard> guards;
  for (Operation *child = op, *parent = op->getParentOp(); parent != ws;
       child = parent, parent = parent->getParentOp())
    if (auto branch = dyn_cast<scf::IfOp>(parent);
        branch && child->getParentRegion() == &branch.getThenRegion())
      if (std::optional<Guard> guard = getGuard(branch))
        guards.push_back(*guard);
  return guards;
}

Polynomial RunCounter::simplify(const Polynomial &p) const {
  Polynomial result;
  for (auto &[monomial, c] : p.terms) {
    SmallVector<unsigned> kept;
    for (unsigned id : monomial) {
      auto condition = conditions.find(id);
      if (condition == conditions.end()) {
        kept.push_back(id);
        continue;
      }
      if (llvm::is_contained(kept, id))
        continue;
      const std::optional<Guard> &guard = condition->second;
      bool absorbed =
          guard && guard->atLeast == 1 &&
          llvm::any_of(monomial, [&](unsigned other) {
            auto span = stepOneSpans.find(other);
            return span != stepOneSpans.end() && span->second == guard->value;
          });
      if (!absorbed)
        kept.push_back(id);
    }
    llvm::sort(kept);
    result.terms[kept] += c;
    if (result.terms[kept] == 0)
      result.terms.erase(kept);
  }
  return result;
}

std::optional<Polynomial> RunCounter::runs(Operation *op) {
  Polynomial count = Polynomial::constant(1);
  for (Operation *child = op, *parent = op->getParentOp(); parent != ws;
       child = parent, parent = parent->getParentOp()) {
    std::optional<Polynomial> factor;
    auto branch = dyn_cast<scf::IfOp>(parent);
    auto loop = branch ? dyn_cast<scf::ForOp>(branch->getParentOp()) : nullptr;
    std::optional<Polynomial> inLoop =
        loop ? takenInLoop(branch, loop) : std::nullopt;
    if (inLoop) {
      // The branch and its loop together: the iterations that take it.
      bool inThen = child->getParentRegion() == &branch.getThenRegion();
      std::optional<Polynomial> trips = tripCount(loop);
      factor = inThen  ? inLoop
               : trips ? plus(*trips, *inLoop, -1)
                       : std::nullopt;
      parent = loop;
    } else if (auto loop = dyn_cast<scf::ForOp>(parent)) {
      factor = tripCount(loop);
    } else if (branch) {
      std::optional<Polynomial> condition = of(branch.getCondition());
      if (!condition)
        return std::nullopt;
      std::optional<int64_t> known = condition->getConstant();
      Polynomial then = known ? Polynomial::constant(*known != 0)
                              : taken(*condition, getGuard(branch));
      bool inThen = child->getParentRegion() == &branch.getThenRegion();
      factor = inThen ? then : plus(Polynomial::constant(1), then, -1);
    }
    if (!factor)
      return std::nullopt;
    std::optional<Polynomial> product = multiply(count, *factor);
    if (!product)
      return std::nullopt;
    count = simplify(*product);
  }
  return count;
}
