//===- SyncPlan.cpp - Print what the compiler derived for each kernel -----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The report a kernel author reads: partitions and their register split,
// pipes and their slots, every barrier with its count and who arrives and
// waits, the reclaim barriers, the tokens and their named barriers, and
// the shared-memory footprint. Text tables or JSON.
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/Analysis/PipeUsage.h"
#include "tle/Dialect/TLE/Analysis/TokenUsage.h"
#include "tle/Dialect/TLE/IR/TLEDialect.h"
#include "tle/Dialect/TLE/IR/WarpLayout.h"
#include "tle/Dialect/TLE/Transforms/Passes.h"
#include "tle/Support/Hopper.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"

#define DEBUG_TYPE "tle-sync-plan"

namespace mlir::tle {
#define GEN_PASS_DEF_TLESYNCPLAN
#include "tle/Dialect/TLE/Transforms/Passes.h.inc"
} // namespace mlir::tle

using namespace mlir;
using namespace mlir::tle;
namespace hopper = ::tle::hopper;

namespace {

struct PartitionRow {
  std::string name;
  unsigned warps, firstWarp, registers, namedBarrier;
  bool requested;
};

struct FieldRow {
  std::string name, slotType;
  int64_t bytes;
};

struct PipeRow {
  std::string name;
  int64_t capacity;
  bool oneShot;
  SmallVector<FieldRow> fields;
  int64_t bytesPerSlot = 0;
};

struct BarrierRow {
  std::string name;
  BarrierAttr barrier;
  int64_t slots;
};

struct TokenRow {
  std::string name, signaler, waiter;
  unsigned namedBarrier, threads;
};

/// The mbarrier on which the readers of a pipe meet to reclaim it.
struct ReclaimRow {
  std::string name;
  int64_t threads;
  SmallVector<std::string> readers;
};

/// Everything the report shows for one tle.warp_specialize.
struct KernelPlan {
  std::string kernel;
  unsigned warpGroups, threads, registers;
  /// What setmaxnreg can hand out: the threads' registers at entry.
  unsigned registerCapacity;
  SmallVector<PartitionRow> partitions;
  SmallVector<PipeRow> pipes;
  SmallVector<BarrierRow> barriers;
  SmallVector<TokenRow> tokens;
  SmallVector<ReclaimRow> reclaims;
  int64_t bufferBytes = 0, barrierBytes = 0;
  /// False under tle.cp_async_fence = "none".
  bool readersFenceCpAsync = true;
};

/// Verified buffers have a byte size.
int64_t getByteSize(MemRefType type) { return *getBufferByteSize(type); }

/// `64x128xbf16`: the shape and element type of a slot.
std::string printSlotType(MemRefType type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (int64_t dim : type.getShape())
    os << dim << "x";
  type.getElementType().print(os);
  return text;
}

std::string joinStrings(ArrayAttr names) {
  return llvm::join(names.getAsValueRange<StringAttr>(), ", ");
}

/// `rows.full`, `rows.free`, or `rows.free.lo` when the free barrier is split
/// by field groups.
std::string getBarrierName(StringRef pipe, BarrierAttr barrier,
                           bool splitFree) {
  std::string name =
      (pipe + "." + stringifyBarrierKind(barrier.getKind())).str();
  if (barrier.getKind() == BarrierKind::Free && splitFree)
    name += "." +
            llvm::join(barrier.getFields().getAsValueRange<StringAttr>(), "+");
  return name;
}

FailureOr<KernelPlan> buildPlan(WarpSpecializeOp ws) {
  KernelPlan plan;
  auto func = ws->getParentOfType<FunctionOpInterface>();
  plan.kernel = func ? func.getName().str() : "<no function>";
  plan.readersFenceCpAsync = readersFenceCpAsync(ws);

  WarpLayout layout = computeWarpLayout(ws);
  SmallVector<unsigned> budgets = deriveWarpGroupRegisters(layout);
  plan.warpGroups = layout.getNumWarpGroups();
  plan.threads = layout.getNumThreads();
  plan.registerCapacity = getRegisterCapacity(plan.threads);
  plan.registers = 0;
  for (unsigned budget : budgets)
    plan.registers += budget * hopper::kWarpGroupThreads;
  for (auto [i, placement] : llvm::enumerate(layout.partitions)) {
    unsigned group = placement.firstWarp / hopper::kWarpsPerWarpGroup;
    plan.partitions.push_back({ws.getPartitionLabel(i), placement.numWarps,
                               placement.firstWarp, budgets[group],
                               static_cast<unsigned>(i) + 1,
                               ws.getRequestedRegisters(i).has_value()});
  }

  for (const PipeUsage &usage : collectPipeUsages(ws)) {
    PipeOp pipe = usage.pipe;
    auto barriers =
        pipe->getAttrOfType<ArrayAttr>(TLEDialect::kBarriersAttrName);
    if (!barriers)
      return pipe.emitError("pipe '")
             << pipe.getName() << "' has no derived barriers; run "
             << "--tle-infer-arrive-counts before --tle-sync-plan";
    PipeRow row{pipe.getName().str(),
                pipe.getCapacityAttr().getInt(),
                pipe.getOneShot(),
                {},
                0};
    for (unsigned f = 0, e = pipe.getNumFields(); f < e; ++f) {
      MemRefType slot = pipe.getSlotType(f);
      row.fields.push_back(
          {pipe.getFieldName(f).str(), printSlotType(slot), getByteSize(slot)});
      row.bytesPerSlot += getByteSize(slot);
    }
    plan.pipes.push_back(std::move(row));
    unsigned numFree = llvm::count_if(barriers, [](Attribute a) {
      return cast<BarrierAttr>(a).getKind() == BarrierKind::Free;
    });
    for (auto barrier : barriers.getAsRange<BarrierAttr>()) {
      plan.barriers.push_back(
          {getBarrierName(pipe.getName(), barrier, numFree > 1), barrier,
           pipe.getCapacityAttr().getInt()});
      plan.barrierBytes +=
          hopper::kMBarrierBytes * pipe.getCapacityAttr().getInt();
    }
  }

  // --tle-lower-pipes gives every reclaimed pipe one mbarrier, on which
  // each thread of its reclaiming partitions arrives and then waits.
  llvm::MapVector<Operation *, SmallVector<ReclaimOp>> reclaimsByPipe;
  ws->walk([&](ReclaimOp op) { reclaimsByPipe[op.getPipeOp()].push_back(op); });
  for (auto &[pipe, reclaims] : reclaimsByPipe) {
    ReclaimRow row{(cast<PipeOp>(pipe).getName() + ".reclaim").str(), 0, {}};
    for (ReclaimOp op : reclaims) {
      std::optional<unsigned> partition = ws.getPartitionOf(op);
      if (!partition)
        continue;
      row.threads += ws.getPartitionNumWarps()[*partition] * hopper::kWarpSize;
      row.readers.push_back(ws.getPartitionLabel(*partition));
    }
    plan.reclaims.push_back(std::move(row));
    plan.barrierBytes += hopper::kMBarrierBytes;
  }

  for (const TokenUsage &usage : collectTokenUsages(ws)) {
    TokenOp token = usage.token;
    plan.tokens.push_back(
        {token.getName().str(), ws.getPartitionLabel(usage.signaler),
         ws.getPartitionLabel(usage.waiter), usage.barrierId, usage.threads});
  }
  Operation *scope = func ? func.getOperation() : ws->getParentOp();
  scope->walk([&](SharedAllocOp alloc) {
    plan.bufferBytes += getByteSize(alloc.getBuffer().getType());
  });
  return plan;
}

/// Left-aligned columns separated by two spaces.
class Table {
public:
  explicit Table(SmallVector<std::string> header) { rows.push_back(header); }
  void add(SmallVector<std::string> row) { rows.push_back(std::move(row)); }
  void print(raw_ostream &os, StringRef indent) const {
    SmallVector<size_t> widths(rows.front().size(), 0);
    for (const auto &row : rows)
      for (auto [i, cell] : llvm::enumerate(row))
        widths[i] = std::max(widths[i], cell.size());
    for (const auto &row : rows) {
      std::string line = indent.str();
      for (auto [i, cell] : llvm::enumerate(row))
        line += cell +
                std::string(
                    i + 1 < row.size() ? widths[i] - cell.size() + 2 : 0, ' ');
      os << StringRef(line).rtrim() << "\n";
    }
  }

private:
  SmallVector<SmallVector<std::string>> rows;
};

void printText(const KernelPlan &plan, raw_ostream &os) {
  os << "sync plan for @" << plan.kernel << "\n";
  os << "partitions: " << plan.warpGroups << " warp groups, " << plan.threads
     << " threads, " << plan.registers << " of " << plan.registerCapacity
     << " registers\n";
  Table partitions(
      {"partition", "warps", "first warp", "registers", "named barrier"});
  for (const PartitionRow &p : plan.partitions)
    partitions.add(
        {p.name, std::to_string(p.warps), std::to_string(p.firstWarp),
         std::to_string(p.registers) + (p.requested ? "" : " (derived)"),
         std::to_string(p.namedBarrier)});
  partitions.print(os, "  ");

  os << "pipes:\n";
  Table pipes({"pipe", "capacity", "field", "slot", "bytes/slot"});
  for (const PipeRow &p : plan.pipes)
    for (auto [i, f] : llvm::enumerate(p.fields))
      pipes.add(
          {i ? "" : p.name,
           i ? ""
             : std::to_string(p.capacity) + (p.oneShot ? " (one_shot)" : ""),
           f.name, f.slotType, std::to_string(f.bytes)});
  pipes.print(os, "  ");

  os << "barriers (one mbarrier per slot):\n";
  Table barriers({"barrier", "slots", "count", "tx bytes", "arrive", "fence",
                  "arrives", "waits"});
  for (const BarrierRow &b : plan.barriers)
    barriers.add({b.name, std::to_string(b.slots),
                  std::to_string(b.barrier.getCount()),
                  std::to_string(b.barrier.getTxBytes()),
                  stringifyArriveKind(b.barrier.getArrive()).str(),
                  stringifyFenceKind(b.barrier.getFence()).str(),
                  joinStrings(b.barrier.getArrivers()),
                  joinStrings(b.barrier.getWaiters())});
  barriers.print(os, "  ");
  if (!plan.readersFenceCpAsync)
    os << "cp.async data: its readers do not fence it for the tensor cores or "
          "TMA (tle.cp_async_fence = \"none\")\n";
  if (!plan.reclaims.empty()) {
    os << "reclaims (one mbarrier each: every thread of the readers arrives, "
          "then waits):\n";
    Table reclaims({"barrier", "count", "readers"});
    for (const ReclaimRow &r : plan.reclaims)
      reclaims.add(
          {r.name, std::to_string(r.threads), llvm::join(r.readers, ", ")});
    reclaims.print(os, "  ");
  }
  if (!plan.tokens.empty()) {
    os << "tokens (one named barrier each: the signaler arrives, the waiter "
          "syncs):\n";
    Table tokens({"token", "named barrier", "count", "signals", "awaits"});
    for (const TokenRow &t : plan.tokens)
      tokens.add({t.name, std::to_string(t.namedBarrier),
                  std::to_string(t.threads), t.signaler, t.waiter});
    tokens.print(os, "  ");
  }

  os << "shared memory: " << plan.bufferBytes << " B of buffers + "
     << plan.barrierBytes
     << " B of barriers = " << plan.bufferBytes + plan.barrierBytes
     << " B (before alignment)\n";
}

llvm::json::Array toJson(ArrayAttr names) {
  llvm::json::Array array;
  for (StringRef name : names.getAsValueRange<StringAttr>())
    array.push_back(name.str());
  return array;
}

llvm::json::Value toJson(const KernelPlan &plan) {
  llvm::json::Array partitions, pipes, barriers, tokens, reclaims;
  for (const PartitionRow &p : plan.partitions)
    partitions.push_back(
        llvm::json::Object{{"name", p.name},
                           {"warps", p.warps},
                           {"first_warp", p.firstWarp},
                           {"registers", p.registers},
                           {"registers_requested", p.requested},
                           {"named_barrier", p.namedBarrier}});
  for (const PipeRow &p : plan.pipes) {
    llvm::json::Array fields;
    for (const FieldRow &f : p.fields)
      fields.push_back(llvm::json::Object{
          {"name", f.name}, {"slot", f.slotType}, {"bytes", f.bytes}});
    pipes.push_back(llvm::json::Object{{"name", p.name},
                                       {"capacity", p.capacity},
                                       {"one_shot", p.oneShot},
                                       {"bytes_per_slot", p.bytesPerSlot},
                                       {"fields", std::move(fields)}});
  }
  for (const BarrierRow &b : plan.barriers)
    barriers.push_back(llvm::json::Object{
        {"name", b.name},
        {"kind", stringifyBarrierKind(b.barrier.getKind()).str()},
        {"fields", toJson(b.barrier.getFields())},
        {"slots", b.slots},
        {"count", b.barrier.getCount()},
        {"tx_bytes", b.barrier.getTxBytes()},
        {"arrive", stringifyArriveKind(b.barrier.getArrive()).str()},
        {"fence", stringifyFenceKind(b.barrier.getFence()).str()},
        {"arrivers", toJson(b.barrier.getArrivers())},
        {"waiters", toJson(b.barrier.getWaiters())}});
  for (const ReclaimRow &r : plan.reclaims) {
    llvm::json::Array readers;
    for (const std::string &reader : r.readers)
      readers.push_back(reader);
    reclaims.push_back(llvm::json::Object{{"name", r.name},
                                          {"count", r.threads},
                                          {"readers", std::move(readers)}});
  }
  for (const TokenRow &t : plan.tokens)
    tokens.push_back(llvm::json::Object{{"name", t.name},
                                        {"named_barrier", t.namedBarrier},
                                        {"count", t.threads},
                                        {"signaler", t.signaler},
                                        {"waiter", t.waiter}});
  return llvm::json::Object{
      {"kernel", plan.kernel},
      {"warp_groups", plan.warpGroups},
      {"threads", plan.threads},
      {"registers", plan.registers},
      {"register_file", hopper::kRegistersPerSM},
      {"register_capacity", plan.registerCapacity},
      {"partitions", std::move(partitions)},
      {"pipes", std::move(pipes)},
      {"barriers", std::move(barriers)},
      {"reclaims", std::move(reclaims)},
      {"tokens", std::move(tokens)},
      {"cp_async_fence", plan.readersFenceCpAsync ? "readers" : "none"},
      {"shared_memory",
       llvm::json::Object{{"buffers", plan.bufferBytes},
                          {"barriers", plan.barrierBytes},
                          {"total", plan.bufferBytes + plan.barrierBytes}}}};
}

struct SyncPlanPass : mlir::tle::impl::TLESyncPlanBase<SyncPlanPass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(requireExpandedReplicas(getOperation(), getArgument())))
      return signalPassFailure();
    std::vector<KernelPlan> plans;
    WalkResult result = getOperation()->walk([&](WarpSpecializeOp ws) {
      FailureOr<KernelPlan> plan = buildPlan(ws);
      if (failed(plan))
        return WalkResult::interrupt();
      plans.push_back(std::move(*plan));
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();

    std::string error;
    std::unique_ptr<llvm::ToolOutputFile> output =
        openOutputFile(outputFile, &error);
    if (!output) {
      getOperation()->emitError("cannot write the sync plan: ") << error;
      return signalPassFailure();
    }
    raw_ostream &os = output->os();
    if (json) {
      llvm::json::Array kernels;
      for (const KernelPlan &plan : plans)
        kernels.push_back(toJson(plan));
      os << llvm::formatv("{0:2}", llvm::json::Value(llvm::json::Object{
                                       {"kernels", std::move(kernels)}}))
         << "\n";
    } else {
      for (const KernelPlan &plan : plans)
        printText(plan, os);
    }
    output->keep();
  }
};

} // namespace
