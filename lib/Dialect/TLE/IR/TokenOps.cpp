//===- TokenOps.cpp - tle.token, tle.signal and tle.await -----------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/IR/TLEDialect.h"

using namespace mlir;
using namespace mlir::tle;

void TokenOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  // %turn_1 for the token of replica 1, turn#1.
  std::string name = getName().str();
  llvm::replace(name, '#', '_');
  setNameFn(getToken(), name);
}

LogicalResult TokenOp::verify() {
  // `turn#1`: --tle-expand-replicas names the tokens of a ring so. The
  // ends are checked against the tle.warp_specialize: at the signals and
  // awaits, or, for a token nothing uses, by the one beside it.
  if (!isIdentifierOrReplicaName(getName()))
    return emitOpError("token name '") << getName() << "' is not an identifier";
  return success();
}

/// The partition of `ws` labelled `label`, if any.
static std::optional<unsigned> findPartition(WarpSpecializeOp ws,
                                             StringRef label) {
  for (unsigned p = 0, e = ws.getNumPartitions(); p < e; ++p)
    if (ws.getPartitionLabel(p) == label)
      return p;
  return std::nullopt;
}

static std::string describeReplicas(WarpSpecializeOp ws, unsigned partition) {
  if (!ws.isReplicated(partition))
    return "is a single partition";
  unsigned n = ws.getNumReplicas(partition);
  return "runs " + std::to_string(n) + (n == 1 ? " replica" : " replicas");
}

LogicalResult
TokenOp::verifyEnds(WarpSpecializeOp ws,
                    function_ref<InFlightDiagnostic()> emitError) {
  // Used tokens are checked at their uses, inside the op.
  StringRef where = getToken().use_empty() ? "beside" : "around";
  StringRef names[] = {getSignaler(), getWaiter()};
  std::optional<unsigned> ends[2];
  for (auto [i, end] : llvm::enumerate(names)) {
    ends[i] = findPartition(ws, end);
    if (ends[i])
      continue;
    SmallVector<std::string> labels;
    for (unsigned p = 0; p < ws.getNumPartitions(); ++p)
      labels.push_back("'" + ws.getPartitionLabel(p) + "'");
    return emitError() << "on token '" << getName()
                       << "': the token names partition '" << end
                       << "', but the tle.warp_specialize " << where
                       << " it has partitions " << llvm::join(labels, ", ");
  }
  unsigned from = *ends[0], to = *ends[1];
  if (isRing()) {
    if (ws.isReplicated(from) && ws.getNumReplicas(from) >= 2)
      return success();
    InFlightDiagnostic diag = emitError()
                              << "on token '" << getName()
                              << "': the token goes from partition '"
                              << getSignaler() << "' to itself";
    if (ws.isReplicated(from))
      return diag << ", which runs 1 replica; a ring of turns (replica r "
                     "signals replica r + 1 mod N) needs 2 or more";
    return diag << "; a token orders two different partitions, or the "
                   "replicas of one replicated partition in a ring";
  }
  bool replicated = ws.isReplicated(from) || ws.isReplicated(to);
  if (!replicated || (ws.isReplicated(from) && ws.isReplicated(to) &&
                      ws.getNumReplicas(from) == ws.getNumReplicas(to)))
    return success();
  return emitError()
         << "on token '" << getName() << "': the token goes from partition '"
         << getSignaler() << "', which " << describeReplicas(ws, from)
         << ", to partition '" << getWaiter() << "', which "
         << describeReplicas(ws, to)
         << "; a token has one signaler and one waiter per replica, so it "
            "joins two single partitions, the replicas of one partition in "
            "a ring (from and to the same partition: replica r signals "
            "replica r + 1 mod N), or two partitions with as many replicas "
            "(replica r signals replica r)";
}

/// What tle.signal and tle.await share: the token comes straight from
/// tle.token, its ends are partitions it may join, and the op sits in the
/// one partition that may use it this way (`signaler` for tle.signal).
static LogicalResult verifyTokenUse(Operation *op, TokenOp token,
                                    bool signaler) {
  if (!token)
    return op->emitOpError("needs a token defined directly by tle.token; "
                           "token values cannot be passed through block "
                           "arguments");
  StringRef name = token.getName();
  StringRef own = signaler ? token.getSignaler() : token.getWaiter();
  StringRef verb = signaler ? "signals" : "awaits";
  auto ws = op->getParentOfType<WarpSpecializeOp>();
  if (!ws)
    return op->emitOpError("on token '")
           << name << "' is used outside every partition; only partition '"
           << own << "' of a tle.warp_specialize " << verb << " it";
  if (failed(token.verifyEnds(ws, [&] { return op->emitOpError(); })))
    return failure();
  std::string label = ws.getPartitionLabel(*ws.getPartitionOf(op));
  if (label == own)
    return success();
  InFlightDiagnostic diag = op->emitOpError("on token '")
                            << name << "' sits in partition '" << label
                            << "', but only partition '" << own << "' " << verb
                            << " it";
  if (label != token.getSignaler() && label != token.getWaiter())
    diag << "; partition '" << label << "' is neither end of the token (from '"
         << token.getSignaler() << "' to '" << token.getWaiter() << "')";
  return diag;
}

LogicalResult SignalOp::verify() {
  return verifyTokenUse(*this, getTokenOp(), /*signaler=*/true);
}

LogicalResult AwaitOp::verify() {
  return verifyTokenUse(*this, getTokenOp(), /*signaler=*/false);
}
