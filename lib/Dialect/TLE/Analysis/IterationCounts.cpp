//===- IterationCounts.cpp - Writer and reader counts, compared -----------===//

#include "tle/Dialect/TLE/Analysis/IterationCounts.h"
#include "tle/Dialect/TLE/IR/Diagnostics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <map>
#include <numeric>

using namespace mlir;
using namespace mlir::tle;

namespace {

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
std::optional<Polynomial> add(const Polynomial &a, const Polynomial &b,
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

std::optional<Polynomial> multiply(const Polynomial &a, const Polynomial &b) {
  Polynomial product;
  for (auto &[ma, ca] : a.terms)
    for (auto &[mb, cb] : b.terms) {
      SmallVector<unsigned> monomial(ma);
      monomial.append(mb.begin(), mb.end());
      llvm::sort(monomial);
      Polynomial term;
      std::optional<Polynomial> sum;
      if (llvm::MulOverflow(ca, cb, term.terms[monomial]) ||
          !(sum = add(product, term)))
        return std::nullopt;
      product = *sum;
    }
  return product;
}

/// Builds the polynomials of one tle.warp_specialize; an unknown is created
/// once per distinct key, so equal keys are the same unknown.
class Counter {
public:
  explicit Counter(WarpSpecializeOp ws) : ws(ws) {}

  /// The number of times `op` runs in its partition.
  std::optional<Polynomial> runs(Operation *op);
  std::string print(const Polynomial &p) const;
  /// Whether every unknown of `p` is a trip count or a condition, which
  /// are never negative.
  bool hasOnlyNonNegativeUnknowns(const Polynomial &p) const;

private:
  /// A fact a then-branch states about a value: `value` >= `atLeast`.
  struct Guard {
    Polynomial value;
    int64_t atLeast;
  };

  std::optional<Polynomial> of(Value value);
  std::optional<Polynomial> compute(Value value);
  std::optional<Polynomial> tripCount(scf::ForOp loop);
  /// max(0, span) for a step of 1.
  std::optional<Polynomial> stepOneTrips(const Polynomial &span);
  /// The guard `branch`'s condition states in its then-region, if it is a
  /// signed comparison of a value with a constant.
  std::optional<Guard> getGuard(scf::IfOp branch);
  /// The guards of the then-branches around `op` inside the partition.
  SmallVector<Guard> getGuardsAround(Operation *op);
  /// [c] x [c] = [c] for a condition c, and [X >= 1] x trips(X) = trips(X):
  /// the trip count is 0 where the condition fails.
  Polynomial simplify(const Polynomial &p) const;
  Polynomial unknown(const std::string &key, const std::string &text,
                     bool nonNegative);
  std::string keyOf(const Polynomial &p) const;

  WarpSpecializeOp ws;
  std::map<std::string, unsigned> ids;
  SmallVector<std::string> texts;
  SmallVector<bool> nonNegative;
  DenseMap<Value, std::optional<Polynomial>> memo;
  /// The branch conditions among the unknowns, with their guards.
  DenseMap<unsigned, std::optional<Guard>> conditions;
  /// The trip counts max(0, span) of step 1, by unknown, with their spans.
  DenseMap<unsigned, Polynomial> stepOneSpans;
};

Polynomial Counter::unknown(const std::string &key, const std::string &text,
                            bool isNonNegative) {
  auto [it, inserted] = ids.try_emplace(key, texts.size());
  if (inserted) {
    texts.push_back(text);
    nonNegative.push_back(isNonNegative);
  }
  return Polynomial::unknown(it->second);
}

std::string Counter::keyOf(const Polynomial &p) const {
  std::string key;
  for (auto &[monomial, c] : p.terms) {
    key += std::to_string(c) + "*";
    for (unsigned id : monomial)
      key += std::to_string(id) + ".";
    key += "+";
  }
  return key;
}

std::string Counter::print(const Polynomial &p) const {
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

bool Counter::hasOnlyNonNegativeUnknowns(const Polynomial &p) const {
  return llvm::all_of(p.terms, [&](auto &term) {
    return llvm::all_of(term.first,
                        [&](unsigned id) { return nonNegative[id]; });
  });
}

std::optional<Polynomial> Counter::of(Value value) {
  if (auto it = memo.find(value); it != memo.end())
    return it->second;
  std::optional<Polynomial> result = compute(value);
  memo[value] = result;
  return result;
}

std::optional<Polynomial> Counter::compute(Value value) {
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
  auto opaque = [&](bool commutative) -> std::optional<Polynomial> {
    SmallVector<std::string> keys, texts;
    for (const Polynomial &arg : args) {
      keys.push_back(keyOf(arg));
      texts.push_back(print(arg));
    }
    if (commutative)
      llvm::sort(keys);
    std::string name = def->getName().stripDialect().str();
    if (auto cmp = dyn_cast<arith::CmpIOp>(def))
      name += "." + arith::stringifyCmpIPredicate(cmp.getPredicate()).str();
    return unknown(name + "(" + llvm::join(keys, ",") + ")",
                   name + "(" + llvm::join(texts, ", ") + ")",
                   /*nonNegative=*/false);
  };
  // A division that is exact for every value of the dividend.
  auto divide = [&]() -> std::optional<Polynomial> {
    std::optional<int64_t> d = args[1].getConstant();
    if (d && *d > 0 && args[0].content() % *d == 0)
      return args[0].divideExactly(*d);
    return opaque(false);
  };
  return llvm::TypeSwitch<Operation *, std::optional<Polynomial>>(def)
      .Case([&](arith::AddIOp) { return add(args[0], args[1]); })
      .Case([&](arith::SubIOp) { return add(args[0], args[1], -1); })
      .Case([&](arith::MulIOp) { return multiply(args[0], args[1]); })
      .Case<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
            arith::ExtUIOp>([&](auto) { return args[0]; })
      .Case<arith::DivUIOp, arith::DivSIOp, arith::CeilDivUIOp,
            arith::CeilDivSIOp, arith::FloorDivSIOp>(
          [&](auto) { return divide(); })
      .Case<arith::MinSIOp, arith::MinUIOp, arith::MaxSIOp, arith::MaxUIOp,
            arith::AndIOp, arith::OrIOp, arith::XOrIOp>(
          [&](auto) { return opaque(true); })
      .Case<arith::RemUIOp, arith::RemSIOp, arith::ShLIOp, arith::ShRUIOp,
            arith::ShRSIOp, arith::TruncIOp, arith::SelectOp, arith::CmpIOp>(
          [&](auto) { return opaque(false); })
      .Default([&](Operation *) { return input(); });
}

std::optional<Polynomial> Counter::stepOneTrips(const Polynomial &span) {
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

std::optional<Polynomial> Counter::tripCount(scf::ForOp loop) {
  std::optional<Polynomial> lb = of(loop.getLowerBound());
  std::optional<Polynomial> ub = of(loop.getUpperBound());
  std::optional<Polynomial> step = of(loop.getStep());
  if (!lb || !ub || !step)
    return std::nullopt;
  std::optional<Polynomial> span = add(*ub, *lb, -1);
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
      std::optional<Polynomial> rest = add(*span, guard.value, -1);
      std::optional<int64_t> d = rest ? rest->getConstant() : std::nullopt;
      if (!d || -*d > guard.atLeast || *d > 0)
        continue;
      std::optional<Polynomial> trips = stepOneTrips(guard.value);
      return trips ? add(*trips, Polynomial::constant(*d)) : std::nullopt;
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

std::optional<Counter::Guard> Counter::getGuard(scf::IfOp branch) {
  auto cmp = branch.getCondition().getDefiningOp<arith::CmpIOp>();
  std::optional<Polynomial> condition = of(branch.getCondition());
  if (!cmp || !condition || condition->getConstant())
    return std::nullopt;
  std::optional<Polynomial> lhs = of(cmp.getLhs()), rhs = of(cmp.getRhs());
  if (!lhs || !rhs)
    return std::nullopt;
  std::optional<int64_t> lc = lhs->getConstant(), rc = rhs->getConstant();
  // value > k is value >= k + 1; k < value likewise.
  std::optional<Guard> guard;
  using P = arith::CmpIPredicate;
  switch (cmp.getPredicate()) {
  case P::sgt:
  case P::sge:
    if (rc && *rc < INT64_MAX)
      guard = Guard{*lhs, *rc + (cmp.getPredicate() == P::sgt)};
    break;
  case P::slt:
  case P::sle:
    if (lc && *lc < INT64_MAX)
      guard = Guard{*rhs, *lc + (cmp.getPredicate() == P::slt)};
    break;
  default:
    break;
  }
  return guard;
}

SmallVector<Counter::Guard> Counter::getGuardsAround(Operation *op) {
  SmallVector<Guard> guards;
  for (Operation *child = op, *parent = op->getParentOp(); parent != ws;
       child = parent, parent = parent->getParentOp())
    if (auto branch = dyn_cast<scf::IfOp>(parent);
        branch && child->getParentRegion() == &branch.getThenRegion())
      if (std::optional<Guard> guard = getGuard(branch))
        guards.push_back(*guard);
  return guards;
}

Polynomial Counter::simplify(const Polynomial &p) const {
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

std::optional<Polynomial> Counter::runs(Operation *op) {
  Polynomial count = Polynomial::constant(1);
  for (Operation *child = op, *parent = op->getParentOp(); parent != ws;
       child = parent, parent = parent->getParentOp()) {
    std::optional<Polynomial> factor;
    if (auto loop = dyn_cast<scf::ForOp>(parent)) {
      factor = tripCount(loop);
    } else if (auto branch = dyn_cast<scf::IfOp>(parent)) {
      std::optional<Polynomial> condition = of(branch.getCondition());
      if (!condition)
        return std::nullopt;
      std::optional<int64_t> known = condition->getConstant();
      Polynomial taken =
          known ? Polynomial::constant(*known != 0)
                : unknown("if(" + keyOf(*condition) + ")",
                          "[" + print(*condition) + "]", /*nonNegative=*/true);
      if (!known) {
        std::optional<Guard> guard = getGuard(branch);
        conditions.try_emplace(taken.terms.begin()->first.front(), guard);
      }
      bool inThen = child->getParentRegion() == &branch.getThenRegion();
      factor = inThen ? taken : add(Polynomial::constant(1), taken, -1);
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

} // namespace

SmallVector<CountComparison>
tle::compareIterationCounts(WarpSpecializeOp ws, const PipeUsage &usage) {
  PipeOp pipe = usage.pipe;
  if (pipe.getOneShot())
    return {};
  Counter counter(ws);
  // nullopt once some op's count is not a polynomial.
  std::optional<Polynomial> committed = Polynomial::constant(0);
  llvm::StringMap<std::optional<Polynomial>> waited;
  for (auto reader : pipe.getReaders().getAsRange<ReaderAttr>())
    waited[reader.getName().getValue()] = Polynomial::constant(0);
  for (auto &entry : usage.opsByPartition)
    for (PipeLifecycleOpInterface op : entry.second) {
      if (!isa<CommitOp, WaitOp>(*op))
        continue;
      std::optional<Polynomial> &total =
          op.isWriterSide() ? committed : waited[op.getReaderAttr().getValue()];
      std::optional<Polynomial> runs = counter.runs(op);
      total = total && runs ? add(*total, *runs) : std::nullopt;
    }
  auto print = [&](const std::optional<Polynomial> &p) {
    return p ? std::optional(counter.print(*p)) : std::nullopt;
  };
  SmallVector<CountComparison> comparisons;
  for (auto reader : pipe.getReaders().getAsRange<ReaderAttr>()) {
    StringRef name = reader.getName().getValue();
    const std::optional<Polynomial> &count = waited[name];
    CountComparison comparison{name, CountComparison::Result::Unknown,
                               print(committed), print(count)};
    std::optional<Polynomial> difference =
        committed && count ? add(*committed, *count, -1) : std::nullopt;
    if (difference && difference->terms.empty())
      comparison.result = CountComparison::Result::Equal;
    else if (difference && counter.hasOnlyNonNegativeUnknowns(*difference) &&
             (llvm::all_of(difference->terms,
                           [](auto &term) { return term.second > 0; }) ||
              llvm::all_of(difference->terms,
                           [](auto &term) { return term.second < 0; })))
      comparison.result = CountComparison::Result::Differ;
    comparisons.push_back(comparison);
  }
  return comparisons;
}
