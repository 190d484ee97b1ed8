//===- WarpSpecializeOp.cpp - tle.warp_specialize and its terminators -----===//

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
  for (int32_t warps : op.getPartitionNumWarps()) {
    unsigned align = std::min<unsigned>(warps, hopper::kWarpsPerWarpGroup);
    unsigned first = llvm::alignTo(next, align);
    layout.partitions.push_back({first, static_cast<unsigned>(warps)});
    next = first + warps;
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
        requested = op.getRequestedRegisters(p).value_or(0);
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

/// Parses `["name"] warps(N) [registers(R)] region` for one partition.
static ParseResult parsePartition(OpAsmParser &parser, Region &region,
                                  SmallVectorImpl<Attribute> &names,
                                  SmallVectorImpl<int32_t> &warps,
                                  SmallVectorImpl<int32_t> &registers) {
  std::string name;
  if (parser.parseOptionalString(&name).failed())
    name.clear();
  names.push_back(parser.getBuilder().getStringAttr(name));
  int32_t numWarps = 0, numRegisters = 0;
  if (parser.parseKeyword("warps") || parser.parseLParen() ||
      parser.parseInteger(numWarps) || parser.parseRParen())
    return failure();
  if (succeeded(parser.parseOptionalKeyword("registers")) &&
      (parser.parseLParen() || parser.parseInteger(numRegisters) ||
       parser.parseRParen()))
    return failure();
  warps.push_back(numWarps);
  registers.push_back(numRegisters);
  return parser.parseRegion(region, /*arguments=*/{});
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

  SmallVector<Attribute> names;
  SmallVector<int32_t> warps, registers;
  if (parser.parseKeyword("default") ||
      parsePartition(parser, *result.addRegion(), names, warps, registers))
    return failure();
  SmallVector<std::unique_ptr<Region>> partitions;
  while (succeeded(parser.parseOptionalKeyword("partition"))) {
    partitions.push_back(std::make_unique<Region>());
    if (parsePartition(parser, *partitions.back(), names, warps, registers))
      return failure();
  }
  result.addRegions(partitions);
  result.addAttribute("partitionNames", b.getArrayAttr(names));
  result.addAttribute("partitionNumWarps", b.getDenseI32ArrayAttr(warps));
  result.addAttribute("requestedRegisters", b.getDenseI32ArrayAttr(registers));
  return success();
}

void WarpSpecializeOp::print(OpAsmPrinter &p) {
  if (getNumResults()) {
    p << " -> (";
    llvm::interleaveComma(getResultTypes(), p);
    p << ")";
  }
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(),
                                     {getPartitionNamesAttrName(),
                                      getPartitionNumWarpsAttrName(),
                                      getRequestedRegistersAttrName()});
  for (unsigned i = 0, e = getNumPartitions(); i < e; ++i) {
    p.printNewline();
    p << (i == 0 ? "default" : "partition");
    StringRef name = cast<StringAttr>(getPartitionNames()[i]).getValue();
    if (!name.empty())
      p << " \"" << name << "\"";
    p << " warps(" << getPartitionNumWarps()[i] << ")";
    if (std::optional<unsigned> registers = getRequestedRegisters(i))
      p << " registers(" << *registers << ")";
    p << ' ';
    p.printRegion(getPartitionRegion(i), /*printEntryBlockArgs=*/false);
  }
}

/// setmaxnreg acts on whole warp groups: every partition placed on a warp
/// group must agree on its budget.
static LogicalResult verifyWarpGroupBudgets(WarpSpecializeOp op,
                                            const WarpLayout &layout) {
  for (auto [group, partitions] : llvm::enumerate(layout.warpGroupPartitions)) {
    std::optional<unsigned> owner;
    for (unsigned p : partitions) {
      std::optional<unsigned> requested = op.getRequestedRegisters(p);
      if (!requested)
        continue;
      std::optional<unsigned> ownerBudget =
          owner ? op.getRequestedRegisters(*owner) : std::nullopt;
      if (ownerBudget && *requested != *ownerBudget)
        return emitOpErrorAtHead(op)
               << "partitions '" << op.getPartitionLabel(*owner) << "' and '"
               << op.getPartitionLabel(p) << "' share warp group " << group
               << " but request " << *ownerBudget << " and " << *requested
               << " registers; setmaxnreg sets one budget per warp group";
      owner = p;
    }
  }
  return success();
}

LogicalResult WarpSpecializeOp::verify() {
  unsigned numPartitions = getPartitionRegions().size() + 1;
  if (getPartitionNames().size() != numPartitions ||
      getPartitionNumWarps().size() != numPartitions ||
      getRequestedRegisters().size() != numPartitions)
    return emitOpErrorAtHead(*this)
           << "needs a name, a warp count and a register request "
              "for each of its "
           << numPartitions << " partitions";
  if ((*this)->getParentOfType<WarpSpecializeOp>())
    return emitOpErrorAtHead(*this)
           << "cannot be nested in another tle.warp_specialize";
  if (numPartitions > hopper::kNumNamedBarriers - 1)
    return emitOpErrorAtHead(*this)
           << "has " << numPartitions
           << " partitions, but each partition needs a "
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
