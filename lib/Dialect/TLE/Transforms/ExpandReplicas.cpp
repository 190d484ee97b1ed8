//===- ExpandReplicas.cpp - Write out replicated partitions ---------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A partition with `replicas(N) (%r: index)` becomes N ordinary partitions,
// `name#0` .. `name#N-1`: copies of its region with %r a constant and what
// depends on it folded, each reading its pipes as a reader of its own
// (`reader#r`), and each token between replicas becomes one token per
// replica (`turn#r`). The sync passes and the lowering then see ordinary
// partitions only, so a replica is counted, checked and placed like any
// partition an author writes out.
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/IR/Diagnostics.h"
#include "tle/Dialect/TLE/IR/TLEDialect.h"
#include "tle/Dialect/TLE/Transforms/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

#define DEBUG_TYPE "tle-expand-replicas"

namespace mlir::tle {
#define GEN_PASS_DEF_TLEEXPANDREPLICAS
#include "tle/Dialect/TLE/Transforms/Passes.h.inc"
} // namespace mlir::tle

using namespace mlir;
using namespace mlir::tle;

/// The reader an op acts for: tle.wait, tle.release and tle.reclaim.
static std::optional<StringRef> getReaderName(Operation *op) {
  if (auto lifecycle = dyn_cast<PipeLifecycleOpInterface>(op))
    if (StringAttr reader = lifecycle.getReaderAttr())
      return reader.getValue();
  if (auto reclaim = dyn_cast<ReclaimOp>(op))
    return reclaim.getReader();
  return std::nullopt;
}

static void setReaderName(Operation *op, StringRef name) {
  llvm::TypeSwitch<Operation *>(op).Case<WaitOp, ReleaseOp, ReclaimOp>(
      [&](auto reader) { reader.setReader(name); });
}

static PipeOp getPipeOf(Operation *op) {
  if (auto lifecycle = dyn_cast<PipeLifecycleOpInterface>(op))
    return lifecycle.getPipeOp();
  if (auto reclaim = dyn_cast<ReclaimOp>(op))
    return reclaim.getPipe().getDefiningOp<PipeOp>();
  return {};
}

static bool isRefinable(Value value);

/// Whether `user`, an op that takes a view of type `type`, takes one of a
/// more static type as well: TLE ops take views of any layout, and a result
/// of the same type (the part tle.reclaim returns) must be refinable too.
static bool takesAnyLayout(Operation *user, Type type) {
  return isa_and_nonnull<TLEDialect>(user->getDialect()) &&
         llvm::all_of(user->getResults(), [&](Value result) {
           return result.getType() != type || isRefinable(result);
         });
}

static bool isRefinable(Value value) {
  return llvm::all_of(value.getUsers(), [&](Operation *user) {
    return takesAnyLayout(user, value.getType());
  });
}

/// Gives `user`'s results of type `from` the type `to`, and theirs on.
static void refineResults(Operation *user, Type from, Type to) {
  for (Value result : user->getResults()) {
    if (result.getType() != from)
      continue;
    for (Operation *next : result.getUsers())
      refineResults(next, from, to);
    result.setType(to);
  }
}

/// Folding a subview whose offsets became constants casts its static
/// result back to the dynamic type the author wrote. TLE ops take the
/// static view directly, as the author would write for one replica (which
/// also keeps the replicas' code from looking identical to the lowering,
/// one dynamic view apart); other users keep the cast.
static void dropLayoutCasts(Region &region) {
  SmallVector<memref::CastOp> casts;
  region.walk([&](memref::CastOp cast) {
    if (memref::CastOp::canFoldIntoConsumerOp(cast))
      casts.push_back(cast);
  });
  for (memref::CastOp cast : casts) {
    Type from = cast.getType(), to = cast.getSource().getType();
    for (OpOperand &use :
         llvm::make_early_inc_range(cast.getResult().getUses())) {
      if (!takesAnyLayout(use.getOwner(), from))
        continue;
      refineResults(use.getOwner(), from, to);
      use.set(cast.getSource());
    }
    if (cast.use_empty())
      cast.erase();
  }
}

namespace {

/// One reader of one pipe: the pipe's reader names are its own.
using ReaderKey = std::pair<Operation *, StringRef>;

class ReplicaExpander {
public:
  ReplicaExpander(WarpSpecializeOp ws, const FrozenRewritePatternSet &folds)
      : ws(ws), folds(folds) {}

  /// Replaces `ws` by its expanded form.
  LogicalResult run();

private:
  LogicalResult collectReaders();
  void expandPipeReaders();
  void expandTokens();
  WarpSpecializeOp buildExpandedOp();
  void instantiate(Region &region, unsigned replica);

  WarpSpecializeOp ws;
  const FrozenRewritePatternSet &folds;
  /// Each pipe reader of a replicated partition, with its replica count.
  llvm::MapVector<ReaderKey, unsigned> replicatedReaders;
  /// The tokens between replicas, with the token of each replica's signal.
  llvm::MapVector<Operation *, SmallVector<TokenOp>> replicatedTokens;
};

/// Every reader-side op of a replicated partition acts for a reader of that
/// partition alone; a replicated partition writes no pipe.
LogicalResult ReplicaExpander::collectReaders() {
  llvm::DenseMap<ReaderKey, unsigned> partitionOf;
  for (unsigned p = 0, e = ws.getNumPartitions(); p < e; ++p) {
    WalkResult result = ws.getPartitionRegion(p).walk([&](Operation *op) {
      auto lifecycle = dyn_cast<PipeLifecycleOpInterface>(op);
      PipeOp pipe = getPipeOf(op);
      if (lifecycle && lifecycle.isWriterSide() && ws.isReplicated(p)) {
        emitOpErrorAtHead(op)
            << "writes pipe '" << (pipe ? pipe.getName() : "?")
            << "' in partition '" << ws.getPartitionLabel(p) << "', which runs "
            << ws.getNumReplicas(p)
            << " replicas; a pipe has one writer partition, so a replicated "
               "partition may only read pipes";
        return WalkResult::interrupt();
      }
      std::optional<StringRef> reader = getReaderName(op);
      if (!reader || !pipe)
        return WalkResult::advance();
      ReaderKey key{pipe, *reader};
      auto [it, inserted] = partitionOf.try_emplace(key, p);
      if (!inserted && it->second != p &&
          (ws.isReplicated(p) || ws.isReplicated(it->second))) {
        emitOpErrorAtHead(op)
            << "acts for reader '" << *reader << "' of pipe '" << pipe.getName()
            << "' in partition '" << ws.getPartitionLabel(p)
            << "', but partition '" << ws.getPartitionLabel(it->second)
            << "' uses that reader too; the reader of a replicated partition "
               "is one reader per replica and belongs to that partition alone";
        return WalkResult::interrupt();
      }
      if (ws.isReplicated(p))
        replicatedReaders[key] = ws.getNumReplicas(p);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return failure();
  }
  return success();
}

/// `readers(mma = [a])` of a two-replica partition becomes
/// `readers("mma#0" = [a], "mma#1" = [a])`.
void ReplicaExpander::expandPipeReaders() {
  llvm::MapVector<Operation *, SmallVector<Attribute>> newReaders;
  for (auto [key, replicas] : replicatedReaders) {
    auto pipe = cast<PipeOp>(key.first);
    if (!newReaders.count(pipe))
      newReaders[pipe] = llvm::to_vector(pipe.getReaders().getValue());
    SmallVector<Attribute> &readers = newReaders[pipe];
    auto *it = llvm::find_if(readers, [&](Attribute attr) {
      return cast<ReaderAttr>(attr).getName().getValue() == key.second;
    });
    // The pipe verifier reports a reader the pipe does not declare.
    if (it == readers.end())
      continue;
    auto reader = cast<ReaderAttr>(*it);
    SmallVector<Attribute> copies;
    for (unsigned r = 0; r < replicas; ++r)
      copies.push_back(ReaderAttr::get(
          pipe.getContext(),
          StringAttr::get(pipe.getContext(), getReplicaName(key.second, r)),
          reader.getFields()));
    it = readers.erase(it);
    readers.insert(it, copies.begin(), copies.end());
  }
  for (auto &[pipe, readers] : newReaders)
    cast<PipeOp>(pipe).setReadersAttr(
        ArrayAttr::get(pipe->getContext(), readers));
}

/// A token whose ends are replicated (the token verifiers allow both or
/// neither) becomes one token per replica, `turn#r`, from replica r of its
/// signaler to replica r + 1 mod N of a ring, or to replica r of the
/// waiter. Unused tokens beside the op are written out too, since the
/// verifier checks them against the expanded partitions.
void ReplicaExpander::expandTokens() {
  llvm::StringMap<unsigned> replicasOf;
  for (unsigned p = 0, e = ws.getNumPartitions(); p < e; ++p)
    if (ws.isReplicated(p))
      replicasOf[ws.getPartitionLabel(p)] = ws.getNumReplicas(p);
  llvm::SetVector<TokenOp> tokens;
  ws->walk([&](Operation *op) {
    if (isa<SignalOp, AwaitOp>(op))
      if (auto token = op->getOperand(0).getDefiningOp<TokenOp>())
        tokens.insert(token);
  });
  for (Operation &op : *ws->getBlock())
    if (auto token = dyn_cast<TokenOp>(op); token && token->use_empty())
      tokens.insert(token);
  for (TokenOp token : tokens) {
    auto it = replicasOf.find(token.getSignaler());
    if (it == replicasOf.end())
      continue;
    unsigned n = it->second;
    OpBuilder b(token->getContext());
    b.setInsertionPointAfter(token);
    SmallVector<TokenOp> &copies = replicatedTokens[token];
    for (unsigned r = 0; r < n; ++r)
      copies.push_back(TokenOp::create(
          b, token.getLoc(), token.getType(),
          getReplicaName(token.getName(), r),
          getReplicaName(token.getSignaler(), r),
          getReplicaName(token.getWaiter(), token.isRing() ? (r + 1) % n : r)));
  }
}

/// The op with one partition per replica, and empty regions.
WarpSpecializeOp ReplicaExpander::buildExpandedOp() {
  SmallVector<Attribute> names;
  SmallVector<int32_t> warps, registers;
  for (unsigned p = 0, e = ws.getNumPartitions(); p < e; ++p) {
    StringRef name = cast<StringAttr>(ws.getPartitionNames()[p]).getValue();
    for (unsigned r = 0, n = ws.getNumReplicas(p); r < n; ++r) {
      std::string label = ws.getPartitionLabel(p);
      names.push_back(StringAttr::get(
          ws.getContext(),
          ws.isReplicated(p) ? getReplicaName(label, r) : name.str()));
      warps.push_back(ws.getPartitionNumWarps()[p]);
      registers.push_back(ws.getRequestedRegisters()[p]);
    }
  }
  OpBuilder b(ws);
  OperationState state(ws.getLoc(), ws->getName());
  state.addTypes(ws.getResultTypes());
  state.addAttributes(llvm::to_vector(ws->getDiscardableAttrs()));
  for (unsigned i = 0, e = names.size(); i < e; ++i)
    state.addRegion();
  auto expanded = cast<WarpSpecializeOp>(b.create(state));
  expanded.setPartitionNamesAttr(b.getArrayAttr(names));
  expanded.setPartitionNumWarps(warps);
  expanded.setRequestedRegisters(registers);
  return expanded;
}

/// Turns a copy of a replicated region into replica `replica`: the index
/// becomes a constant, folded into what uses it, and each reader
/// `reader#replica`.
void ReplicaExpander::instantiate(Region &region, unsigned replica) {
  Block &body = region.front();
  auto b = OpBuilder::atBlockBegin(&body);
  auto index = arith::ConstantIndexOp::create(b, ws.getLoc(), replica);
  body.getArgument(0).replaceAllUsesWith(index);
  body.eraseArgument(0);
  region.walk([&](Operation *op) {
    if (std::optional<StringRef> reader = getReaderName(op))
      setReaderName(op, getReplicaName(*reader, replica));
  });
  // Replica r signals its own token and awaits its predecessor's in a ring,
  // its own of a pair.
  region.walk([&](Operation *op) {
    if (!isa<SignalOp, AwaitOp>(op))
      return;
    auto it = replicatedTokens.find(op->getOperand(0).getDefiningOp());
    if (it == replicatedTokens.end())
      return;
    unsigned n = it->second.size();
    bool ring = cast<TokenOp>(it->first).isRing();
    op->setOperand(
        0,
        it->second[isa<AwaitOp>(op) && ring ? (replica + n - 1) % n : replica]);
  });
  SetVector<Operation *> dependents;
  getForwardSlice(index.getOperation(), &dependents);
  SmallVector<Operation *> worklist{index};
  llvm::append_range(worklist, dependents);
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
  (void)applyOpPatternsGreedily(worklist, folds, config);
  dropLayoutCasts(region);
}

LogicalResult ReplicaExpander::run() {
  if (!ws.getFirstReplicated())
    return success();
  if (failed(collectReaders()))
    return failure();
  expandPipeReaders();
  expandTokens();
  WarpSpecializeOp expanded = buildExpandedOp();
  unsigned next = 0;
  for (unsigned p = 0, e = ws.getNumPartitions(); p < e; ++p) {
    Region &region = ws.getPartitionRegion(p);
    if (!ws.isReplicated(p)) {
      expanded.getPartitionRegion(next++).takeBody(region);
      continue;
    }
    for (unsigned r = 0, n = ws.getNumReplicas(p); r < n; ++r) {
      Region &copy = expanded.getPartitionRegion(next++);
      IRMapping mapping;
      region.cloneInto(&copy, mapping);
      instantiate(copy, r);
      // Replicas 1.. of the default partition become partitions.
      Operation *terminator = copy.front().getTerminator();
      if (next > 1 && isa<WarpYieldOp>(terminator)) {
        OpBuilder b(terminator);
        WarpReturnOp::create(b, terminator->getLoc());
        terminator->erase();
      }
    }
  }
  ws.replaceAllUsesWith(expanded.getResults());
  ws.erase();
  for (auto &[token, copies] : replicatedTokens)
    token->erase();
  return success();
}

struct ExpandReplicasPass
    : mlir::tle::impl::TLEExpandReplicasBase<ExpandReplicasPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    // What the canonicalizer would apply, restricted later to the ops
    // that depend on a replica index.
    RewritePatternSet patterns(context);
    for (Dialect *dialect : context->getLoadedDialects())
      dialect->getCanonicalizationPatterns(patterns);
    for (RegisteredOperationName op : context->getRegisteredOperations())
      op.getCanonicalizationPatterns(patterns, context);
    folds = FrozenRewritePatternSet(std::move(patterns));
    return success();
  }

  void runOnOperation() override {
    SmallVector<WarpSpecializeOp> kernels;
    getOperation()->walk([&](WarpSpecializeOp ws) { kernels.push_back(ws); });
    for (WarpSpecializeOp ws : kernels)
      if (failed(ReplicaExpander(ws, folds).run()))
        return signalPassFailure();
  }

  FrozenRewritePatternSet folds;
};

} // namespace
