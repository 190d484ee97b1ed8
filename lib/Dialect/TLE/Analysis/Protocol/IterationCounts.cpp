//===- IterationCounts.cpp - Writer and reader counts, compared -----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/Analysis/Protocol/IterationCounts.h"
#include "RunCounter.h"

using namespace mlir;
using namespace mlir::tle;

/// `committed` against `waited`: Equal when they are the same polynomial,
/// Differ when their difference has one sign in every term.
static CountComparison::Result
compareCounts(RunCounter &counter, const std::optional<Polynomial> &a,
              const std::optional<Polynomial> &b) {
  std::optional<Polynomial> difference =
      a && b ? plus(*a, *b, -1) : std::nullopt;
  if (difference && difference->terms.empty())
    return CountComparison::Result::Equal;
  if (difference && counter.hasOnlyNonNegativeUnknowns(*difference) &&
      (llvm::all_of(difference->terms,
                    [](auto &term) { return term.second > 0; }) ||
       llvm::all_of(difference->terms,
                    [](auto &term) { return term.second < 0; })))
    return CountComparison::Result::Differ;
  return CountComparison::Result::Unknown;
}

std::optional<std::string> tle::describeRunCount(WarpSpecializeOp ws,
                                                 Operation *op) {
  RunCounter counter(ws);
  std::optional<Polynomial> runs = counter.runs(op);
  return runs ? std::optional(counter.print(*runs)) : std::nullopt;
}

SmallVector<CountComparison>
tle::compareIterationCounts(WarpSpecializeOp ws, const PipeUsage &usage) {
  PipeOp pipe = usage.pipe;
  if (pipe.getOneShot())
    return {};
  RunCounter counter(ws);
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
      total = total && runs ? plus(*total, *runs) : std::nullopt;
    }
  auto print = [&](const std::optional<Polynomial> &p) {
    return p ? std::optional(counter.print(*p)) : std::nullopt;
  };
  SmallVector<CountComparison> comparisons;
  for (auto reader : pipe.getReaders().getAsRange<ReaderAttr>()) {
    StringRef name = reader.getName().getValue();
    const std::optional<Polynomial> &count = waited[name];
    comparisons.push_back({name, compareCounts(counter, committed, count),
                           print(committed), print(count)});
  }
  return comparisons;
}

CountComparison tle::compareTokenCounts(WarpSpecializeOp ws,
                                        const TokenUsage &usage) {
  RunCounter counter(ws);
  std::optional<Polynomial> signaled = Polynomial::constant(0);
  std::optional<Polynomial> awaited = Polynomial::constant(0);
  ws->walk([&](Operation *op) {
    std::optional<Polynomial> *total = nullptr;
    if (auto signal = dyn_cast<SignalOp>(op);
        signal && signal.getTokenOp() == usage.token)
      total = &signaled;
    if (auto await = dyn_cast<AwaitOp>(op);
        await && await.getTokenOp() == usage.token)
      total = &awaited;
    if (!total)
      return;
    std::optional<Polynomial> runs = counter.runs(op);
    *total = *total && runs ? plus(**total, *runs) : std::nullopt;
  });
  auto print = [&](const std::optional<Polynomial> &p) {
    return p ? std::optional(counter.print(*p)) : std::nullopt;
  };
  TokenOp token = usage.token;
  return {token.getName(), compareCounts(counter, signaled, awaited),
          print(signaled), print(awaited)};
}
