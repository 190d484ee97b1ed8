//===- TokenOps.cpp - tle.token, tle.signal and tle.await -----------------===//

#include "tle/Dialect/TLE/IR/TLEDialect.h"

using namespace mlir;
using namespace mlir::tle;

void TokenOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getToken(), getName());
}

LogicalResult TokenOp::verify() {
  if (!isIdentifier(getName()))
    return emitOpError("token name '") << getName() << "' is not an identifier";
  if (getSignaler() == getWaiter())
    return emitOpError("token '")
           << getName() << "' goes from partition '" << getSignaler()
           << "' to itself; a token orders two different partitions";
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

/// What tle.signal and tle.await share: the token comes straight from
/// tle.token, both of its partitions exist, and the op sits in the one
/// partition that may use it this way (`signaler` for tle.signal).
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
  for (StringRef end : {token.getSignaler(), token.getWaiter()}) {
    std::optional<unsigned> partition = findPartition(ws, end);
    if (partition && ws.isReplicated(*partition))
      return op->emitOpError("on token '")
             << name << "': the token names partition '" << end
             << "', which runs " << ws.getNumReplicas(*partition)
             << " replicas; a token orders two single partitions, so it "
                "cannot name a replicated one";
    if (partition)
      continue;
    SmallVector<std::string> labels;
    for (unsigned p = 0; p < ws.getNumPartitions(); ++p)
      labels.push_back("'" + ws.getPartitionLabel(p) + "'");
    return op->emitOpError("on token '")
           << name << "': the token names partition '" << end
           << "', but the tle.warp_specialize around it has partitions "
           << llvm::join(labels, ", ");
  }
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
