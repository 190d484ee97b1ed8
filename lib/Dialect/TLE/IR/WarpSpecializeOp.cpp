//===- WarpSpecializeOp.cpp - tle.warp_specialize and its terminators -----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/IR/Diagnostics.h"
#include "tle/Dialect/TLE/IR/TLEDialect.h"
#include "tle/Dialect/TLE/IR/WarpLayout.h"
#include "tle/Support/Hopper.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tle;
namespace hopper = ::tle::hopper;

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

unsigned WarpLayout::getNumThreads() const {
  return numWarps * hopper::kWarpSize;
}

WarpLayout mlir::tle::computeWarpLayout(WarpSpecializeOp op) {
  WarpLayout layout;
  unsigned next = 0;
  for (auto [i, warps] : llvm::enumerate(op.getPartitionNumWarps())) {
    unsigned align = std::min<unsigned>(warps, hopper::kWarpsPerWarpGroup);
    for (unsigned r = 0, e = op.getNumReplicas(i); r < e; ++r) {
      unsigned first = llvm::alignTo(next, align);
      layout.partitions.push_back(
          {first, static_cast<unsigned>(warps), static_cast<unsigned>(i), r});
      next = first + warps;
    }
  }
  layout.numWarps = llvm::alignTo(next, hopper::kWarpsPerWarpGroup);
  layout.warpGroupPartitions.resize(layout.numWarps /
                                    hopper::kWarpsPerWarpGroup);
  for (auto [i, placement] : llvm::enumerate(layout.partitions)) {
    unsigned firstGroup = placement.firstWarp / hopper::kWarpsPerWarpGroup;
    unsigned lastGroup = (placement.firstWarp + placement.numWarps - 1) /
                         hopper::kWarpsPerWarpGroup;
    for (unsigned g = firstGroup; g <= lastGroup; ++g)
      layout.warpGroupPartitions[g].push_back(i);
  }
  for (ArrayRef<unsigned> partitions : layout.warpGroupPartitions) {
    unsigned requested = 0;
    for (unsigned p : partitions)
      if (!requested)
        requested = op.getRequestedRegisters(layout.partitions[p].partition)
                        .value_or(0);
    layout.requestedRegisters.push_back(requested);
  }
  return layout;
}

unsigned mlir::tle::getEntryRegisters(unsigned numThreads) {
  unsigned registers = std::min<int64_t>(
      hopper::kRegistersPerSM / std::max(numThreads, 1u), 255);
  return registers - registers % hopper::kRegisterGranule;
}

unsigned mlir::tle::getRegisterCapacity(unsigned numThreads) {
  return getEntryRegisters(numThreads) * numThreads;
}

SmallVector<unsigned>
mlir::tle::deriveWarpGroupRegisters(const WarpLayout &layout) {
  unsigned perThreadPool =
      getRegisterCapacity(layout.getNumThreads()) / hopper::kWarpGroupThreads;
  unsigned requestedSum = 0, unrequested = 0;
  for (unsigned registers : layout.requestedRegisters) {
    requestedSum += registers;
    unrequested += registers == 0;
  }
  unsigned share = hopper::kMinRegisters;
  if (unrequested && perThreadPool > requestedSum) {
    share = (perThreadPool - requestedSum) / unrequested;
    share -= share % hopper::kRegisterGranule;
    share = std::clamp<unsigned>(share, hopper::kMinRegisters,
                                 hopper::kMaxRegisters);
  }
  SmallVector<unsigned> budgets;
  for (unsigned registers : layout.requestedRegisters)
    budgets.push_back(registers ? registers : share);
  return budgets;
}

//===----------------------------------------------------------------------===//
// WarpSpecializeOp
//===----------------------------------------------------------------------===//

std::string WarpSpecializeOp::getPartitionLabel(unsigned i) {
  StringRef name = cast<StringAttr>(getPartitionNames()[i]).getValue();
  if (!name.empty())
    return name.str();
  return i == 0 ? "default" : "partition" + std::to_string(i);
}

std::optional<unsigned> WarpSpecializeOp::getRequestedRegisters(unsigned i) {
  int32_t registers = getRequestedRegisters()[i];
  if (registers == 0)
    return std::nullopt;
  return registers;
}

std::optional<unsigned> WarpSpecializeOp::getPartitionOf(Operation *op) {
  for (unsigned i = 0, e = getNumPartitions(); i < e; ++i)
    if (getPartitionRegion(i).findAncestorOpInRegion(*op))
      return i;
  return std::nullopt;
}

unsigned WarpSpecializeOp::getNumReplicas(unsigned i) {
  std::optional<ArrayRef<int32_t>> replicas = getPartitionReplicas();
  if (!replicas || i >= replicas->size())
    return 1;
  return std::max<int32_t>((*replicas)[i], 0);
}

std::optional<unsigned> WarpSpecializeOp::getFirstReplicated() {
  for (unsigned i = 0, e = getNumPartitions(); i < e; ++i)
    if (isReplicated(i))
      return i;
  return std::nullopt;
}

LogicalResult mlir::tle::requireExpandedReplicas(Operation *root,
                                                 StringRef pass) {
  WalkResult result = root->walk([&](WarpSpecializeOp op) {
    std::optional<unsigned> replicated = op.getFirstReplicated();
    if (!replicated)
      return WalkResult::advance();
    emitOpErrorAtHead(op) << "has replicated partition '"
                          << op.getPartitionLabel(*replicated) << "' ("
                          << op.getNumReplicas(*replicated)
                          << " replicas), which --" << pass
                          << " does not take; run --tle-expand-replicas "
                             "before it (the tle pipelines do)";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

namespace {
/// What the syntax of one partition holds besides its region.
struct PartitionHeads {
  SmallVector<Attribute> names;
  SmallVector<int32_t> warps, registers, replicas;
};
} // namespace

/// Parses `["name"] warps(N) [registers(R)] [replicas(K) (%r: index)]
/// region` for one partition.
static ParseResult parsePartition(OpAsmParser &parser, Region &region,
                                  PartitionHeads &heads) {
  std::string name;
  if (parser.parseOptionalString(&name).failed())
    name.clear();
  heads.names.push_back(parser.getBuilder().getStringAttr(name));
  int32_t numWarps = 0, numRegisters = 0, numReplicas = 1;
  if (parser.parseKeyword("warps") || parser.parseLParen() ||
      parser.parseInteger(numWarps) || parser.parseRParen())
    return failure();
  if (succeeded(parser.parseOptionalKeyword("registers")) &&
      (parser.parseLParen() || parser.parseInteger(numRegisters) ||
       parser.parseRParen()))
    return failure();
  SmallVector<OpAsmParser::Argument> replicaIndex;
  if (succeeded(parser.parseOptionalKeyword("replicas")) &&
      (parser.parseLParen() || parser.parseInteger(numReplicas) ||
       parser.parseRParen() ||
       parser.parseArgumentList(replicaIndex, AsmParser::Delimiter::Paren,
                                /*allowType=*/true)))
    return failure();
  heads.warps.push_back(numWarps);
  heads.registers.push_back(numRegisters);
  heads.replicas.push_back(numReplicas);
  return parser.parseRegion(region, replicaIndex);
}

ParseResult WarpSpecializeOp::parse(OpAsmParser &parser,
                                    OperationState &result) {
  Builder &b = parser.getBuilder();
  if (succeeded(parser.parseOptionalArrow())) {
    if (parser.parseLParen())
      return failure();
    if (failed(parser.parseOptionalRParen()) &&
        (parser.parseTypeList(result.types) || parser.parseRParen()))
      return failure();
  }
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();

  PartitionHeads heads;
  if (parser.parseKeyword("default") ||
      parsePartition(parser, *result.addRegion(), heads))
    return failure();
  SmallVector<std::unique_ptr<Region>> partitions;
  while (succeeded(parser.parseOptionalKeyword("partition"))) {
    partitions.push_back(std::make_unique<Region>());
    if (parsePartition(parser, *partitions.back(), heads))
      return failure();
  }
  result.addRegions(partitions);
  result.addAttribute("partitionNames", b.getArrayAttr(heads.names));
  result.addAttribute("partitionNumWarps", b.getDenseI32ArrayAttr(heads.warps));
  result.addAttribute("requestedRegisters",
                      b.getDenseI32ArrayAttr(heads.registers));
  if (llvm::any_of(heads.replicas, [](int32_t n) { return n != 1; }))
    result.addAttribute("partitionReplicas",
                        b.getDenseI32ArrayAttr(heads.replicas));
  return success();
}

void WarpSpecializeOp::print(OpAsmPrinter &p) {
  if (getNumResults()) {
    p << " -> (";
    llvm::interleaveComma(getResultTypes(), p);
    p << ")";
  }
  p.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(),
      {getPartitionNamesAttrName(), getPartitionNumWarpsAttrName(),
       getRequestedRegistersAttrName(), getPartitionReplicasAttrName()});
  for (unsigned i = 0, e = getNumPartitions(); i < e; ++i) {
    p.printNewline();
    p << (i == 0 ? "default" : "partition");
    StringRef name = cast<StringAttr>(getPartitionNames()[i]).getValue();
    if (!name.empty())
      p << " \"" << name << "\"";
    p << " warps(" << getPartitionNumWarps()[i] << ")";
    if (std::optional<unsigned> registers = getRequestedRegisters(i))
      p << " registers(" << *registers << ")";
    if (isReplicated(i)) {
      p << " replicas(" << getNumReplicas(i) << ") (";
      p.printRegionArgument(getPartitionRegion(i).getArgument(0));
      p << ")";
    }
    p << ' ';
    p.printRegion(getPartitionRegion(i), /*printEntryBlockArgs=*/false);
  }
}

/// The label of one entry of the layout: `mma#1` for a replica.
static std::string getPlacementLabel(WarpSpecializeOp op,
                                     const PartitionPlacement &placement) {
  std::string label = op.getPartitionLabel(placement.partition);
  return op.isReplicated(placement.partition)
             ? getReplicaName(label, placement.replica)
             : label;
}

/// setmaxnreg acts on whole warp groups: every partition placed on a warp
/// group must agree on its budget.
static LogicalResult verifyWarpGroupBudgets(WarpSpecializeOp op,
                                            const WarpLayout &layout) {
  for (auto [group, partitions] : llvm::enumerate(layout.warpGroupPartitions)) {
    std::optional<unsigned> owner;
    auto requestOf = [&](unsigned p) {
      return op.getRequestedRegisters(layout.partitions[p].partition);
    };
    for (unsigned p : partitions) {
      std::optional<unsigned> requested = requestOf(p);
      if (!requested)
        continue;
      std::optional<unsigned> ownerBudget =
          owner ? requestOf(*owner) : std::nullopt;
      if (ownerBudget && *requested != *ownerBudget)
        return emitOpErrorAtHead(op)
               << "partitions '"
               << getPlacementLabel(op, layout.partitions[*owner]) << "' and '"
               << getPlacementLabel(op, layout.partitions[p])
               << "' share warp group " << group << " but request "
               << *ownerBudget << " and " << *requested
               << " registers; setmaxnreg sets one budget per warp group";
      owner = p;
    }
  }
  return success();
}

/// A replicated partition takes its replica index as its one block
/// argument; a replicated default partition yields nothing (only replica 0
/// goes on past the op).
static LogicalResult verifyReplicas(WarpSpecializeOp op) {
  llvm::StringSet<> labels;
  for (unsigned i = 0, e = op.getNumPartitions(); i < e; ++i)
    labels.insert(op.getPartitionLabel(i));
  for (unsigned i = 0, e = op.getNumPartitions(); i < e; ++i) {
    std::string label = op.getPartitionLabel(i);
    Region &region = op.getPartitionRegion(i);
    unsigned replicas = op.getNumReplicas(i);
    if (i == 0 && op.isReplicated(0) && op.getNumResults() != 0)
      return emitOpErrorAtHead(op)
             << "replicates its default partition '" << label
             << "' but returns values; only replica 0 goes on past the op, "
                "so a replicated default partition yields nothing";
    if (replicas < 1)
      return emitOpErrorAtHead(op)
             << "partition '" << label << "' has " << replicas
             << " replicas; replicas(N) needs N >= 1";
    // Bounded before anything walks the replicas.
    if (replicas > hopper::kNumNamedBarriers - 1)
      return emitOpErrorAtHead(op)
             << "partition '" << label << "' has " << replicas
             << " replicas; each replica is a partition with a named barrier "
                "of its own, so at most "
             << hopper::kNumNamedBarriers - 1 << " fit";
    if (region.getNumArguments() > 1 ||
        (op.isReplicated(i) && !region.getArgument(0).getType().isIndex()))
      return emitOpErrorAtHead(op)
             << "partition '" << label << "' takes " << region.getNumArguments()
             << " block arguments of types " << region.getArgumentTypes()
             << "; a replicated partition takes one, its replica index, of "
                "type index";
    if (!op.isReplicated(i) && replicas != 1)
      return emitOpErrorAtHead(op)
             << "partition '" << label << "' has " << replicas
             << " replicas but takes no replica index; write replicas("
             << replicas << ") (%r: index)";
    for (unsigned r = 0; op.isReplicated(i) && r < replicas; ++r)
      if (labels.contains(getReplicaName(label, r)))
        return emitOpErrorAtHead(op)
               << "has a partition named '" << getReplicaName(label, r)
               << "', the name of replica " << r << " of partition '" << label
               << "'";
  }
  return success();
}

LogicalResult WarpSpecializeOp::verify() {
  unsigned numPartitions = getPartitionRegions().size() + 1;
  std::optional<ArrayRef<int32_t>> replicas = getPartitionReplicas();
  if (getPartitionNames().size() != numPartitions ||
      getPartitionNumWarps().size() != numPartitions ||
      getRequestedRegisters().size() != numPartitions ||
      (replicas && replicas->size() != numPartitions))
    return emitOpErrorAtHead(*this)
           << "needs a name, a warp count and a register request (and, if "
              "any is replicated, a replica count) for each of its "
           << numPartitions << " partitions";
  if ((*this)->getParentOfType<WarpSpecializeOp>())
    return emitOpErrorAtHead(*this)
           << "cannot be nested in another tle.warp_specialize";
  if (failed(verifyReplicas(*this)))
    return failure();
  unsigned numCopies = 0;
  for (unsigned i = 0; i < numPartitions; ++i)
    numCopies += getNumReplicas(i);
  if (numCopies > hopper::kNumNamedBarriers - 1)
    return emitOpErrorAtHead(*this)
           << "has " << numCopies << " partitions"
           << (numCopies != numPartitions ? " (counting each replica)" : "")
           << ", but each partition needs a "
           << "named barrier and a CTA has " << hopper::kNumNamedBarriers
           << " (id 0 is the CTA-wide barrier), so at most "
           << hopper::kNumNamedBarriers - 1 << " partitions fit";

  llvm::StringSet<> names;
  for (unsigned i = 0; i < numPartitions; ++i) {
    auto name = dyn_cast<StringAttr>(getPartitionNames()[i]);
    if (!name)
      return emitOpErrorAtHead(*this) << "partition names must be strings";
    if (!name.getValue().empty() && !names.insert(name.getValue()).second)
      return emitOpErrorAtHead(*this)
             << "has two partitions named '" << name.getValue() << "'";
    int32_t warps = getPartitionNumWarps()[i];
    if (warps <= 0 || !llvm::isPowerOf2_32(warps))
      return emitOpErrorAtHead(*this)
             << "partition '" << getPartitionLabel(i) << "' has " << warps
             << " warps; warps per partition must be a positive power of two";
    // Checked before the layout is worked out, which walks the warp groups.
    if (warps > hopper::kMaxWarpsPerCTA)
      return emitOpErrorAtHead(*this)
             << "partition '" << getPartitionLabel(i) << "' has " << warps
             << " warps, more than the " << hopper::kMaxWarpsPerCTA
             << " a CTA holds";
    int32_t registers = getRequestedRegisters()[i];
    if (registers != 0 && (registers < hopper::kMinRegisters ||
                           registers > hopper::kMaxRegisters ||
                           registers % hopper::kRegisterGranule != 0))
      return emitOpErrorAtHead(*this)
             << "partition '" << getPartitionLabel(i) << "' requests "
             << registers << " registers; setmaxnreg takes a multiple of "
             << hopper::kRegisterGranule << " in " << hopper::kMinRegisters
             << ".." << hopper::kMaxRegisters;
  }

  WarpLayout layout = computeWarpLayout(*this);
  if (layout.numWarps > hopper::kMaxWarpsPerCTA)
    return emitOpErrorAtHead(*this)
           << "places its partitions on " << layout.numWarps << " warps ("
           << layout.getNumThreads() << " threads) but a CTA holds at most "
           << hopper::kMaxWarpsPerCTA << " warps";
  if (failed(verifyWarpGroupBudgets(*this, layout)))
    return failure();
  // Unrequested warp groups count at the smallest budget setmaxnreg allows:
  // whatever the compiler picks for them, it cannot be less.
  unsigned total = 0;
  std::string breakdown;
  for (auto [group, budget] : llvm::enumerate(layout.requestedRegisters)) {
    unsigned registers = budget ? budget : hopper::kMinRegisters;
    total += registers * hopper::kWarpGroupThreads;
    breakdown += (group ? ", " : "") + std::string("warp group ") +
                 std::to_string(group) + ": " + std::to_string(registers) +
                 " x " + std::to_string(hopper::kWarpGroupThreads);
  }
  unsigned threads = layout.getNumThreads();
  if (total > getRegisterCapacity(threads))
    return emitOpErrorAtHead(*this)
           << "register budgets need " << total << " registers per CTA ("
           << breakdown << "), over the " << getRegisterCapacity(threads)
           << " that setmaxnreg can hand out: the CTA's " << threads
           << " threads start with " << getEntryRegisters(threads)
           << " registers each";
  return success();
}

LogicalResult WarpSpecializeOp::verifyRegions() {
  if (!isa<WarpYieldOp>(getDefaultRegion().front().getTerminator()))
    return emitOpErrorAtHead(*this)
           << "default region must end in tle.warp_yield";
  for (unsigned i = 1, e = getNumPartitions(); i < e; ++i)
    if (!isa<WarpReturnOp>(getPartitionRegion(i).front().getTerminator()))
      return emitOpErrorAtHead(*this) << "partition '" << getPartitionLabel(i)
                                      << "' must end in tle.warp_return";
  for (unsigned i = 0, e = getNumPartitions(); i < e; ++i) {
    if (getPartitionNumWarps()[i] % hopper::kWarpsPerWarpGroup == 0)
      continue;
    WalkResult found = getPartitionRegion(i).walk([](Operation *op) {
      return isa<WgmmaOp, NVVM::WgmmaMmaAsyncOp>(op) ? WalkResult::interrupt()
                                                     : WalkResult::advance();
    });
    if (found.wasInterrupted())
      return emitOpErrorAtHead(*this)
             << "partition '" << getPartitionLabel(i)
             << "' issues warp-group MMA but has " << getPartitionNumWarps()[i]
             << " warps; warp-group MMA needs a multiple of "
             << hopper::kWarpsPerWarpGroup << " warps";
  }
  // A token nothing uses still names partitions of this op: a name that is
  // none is a mistake, not a token to leave out of the sync plan.
  for (Operation &op : *getOperation()->getBlock())
    if (auto token = dyn_cast<TokenOp>(op); token && token->use_empty())
      if (failed(token.verifyEnds(*this, [&] { return token.emitOpError(); })))
        return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Terminators
//===----------------------------------------------------------------------===//

LogicalResult WarpYieldOp::verify() {
  auto parent = cast<WarpSpecializeOp>((*this)->getParentOp());
  if ((*this)->getParentRegion() != &parent.getDefaultRegion())
    return emitOpError("ends a partition region; use tle.warp_return there");
  if (TypeRange(getValues().getTypes()) != TypeRange(parent.getResultTypes()))
    return emitOpError("yields ")
           << getValues().size() << " values of types "
           << getValues().getTypes() << " but the tle.warp_specialize returns "
           << parent.getResultTypes();
  return success();
}
