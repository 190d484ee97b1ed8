//===- TestPipeUsage.cpp - Test the analysis of who uses each pipe --------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// tle-test-pipe-usage: a remark at each pipe naming its writer partition
// and the transports it writes each field with, the partition of each
// reader, and the field groups that get a free barrier each; and a remark
// at each tle.wait whose views the async proxy reads, naming those fields
// and whether they hold cp.async data.
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/Analysis/PipeUsage.h"

#include "mlir/Pass/Pass.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::tle;

namespace mlir::tle::test {
#define GEN_PASS_DEF_TLETESTPIPEUSAGE
#include "TestPasses.h.inc"
} // namespace mlir::tle::test

/// "writer 'w' (k: TMA, v: ordinary stores)".
static void printWriter(raw_ostream &os, WarpSpecializeOp ws,
                        const PipeUsage &usage) {
  PipeOp pipe = usage.pipe;
  std::optional<unsigned> writer = usage.getWriterPartition();
  if (!writer) {
    os << "no writer";
    return;
  }
  os << "writer '" << ws.getPartitionLabel(*writer) << "'";
  llvm::MapVector<unsigned, llvm::SetVector<Transport>> transports;
  for (const WriterWindow &window : collectWriterWindows(usage))
    for (const SlotWrite &write : window.writes)
      transports[write.field].insert(write.transport);
  if (transports.empty())
    return;
  os << " (";
  llvm::interleaveComma(transports, os, [&](auto &entry) {
    os << pipe.getFieldName(entry.first) << ": ";
    llvm::interleave(
        entry.second, os,
        [&](Transport transport) { os << stringifyTransport(transport); },
        " and ");
  });
  os << ")";
}

static void reportPipe(WarpSpecializeOp ws, const PipeUsage &usage) {
  PipeOp pipe = usage.pipe;
  auto readers = llvm::to_vector(pipe.getReaders().getAsRange<ReaderAttr>());
  InFlightDiagnostic remark = pipe.emitRemark();
  std::string text;
  llvm::raw_string_ostream os(text);
  printWriter(os, ws, usage);
  os << "; ";
  llvm::interleaveComma(readers, os, [&](ReaderAttr reader) {
    StringRef name = reader.getName().getValue();
    os << "reader '" << name << "' on ";
    if (std::optional<unsigned> p = usage.getReaderPartition(name))
      os << "'" << ws.getPartitionLabel(*p) << "'";
    else
      os << "no partition";
  });
  os << "; free barriers:";
  for (const FieldGroup &group : groupFieldsByReaders(pipe)) {
    os << " [";
    llvm::interleaveComma(group.fields, os,
                          [&](unsigned f) { os << pipe.getFieldName(f); });
    os << "] by";
    for (unsigned r : group.readers)
      os << " " << readers[r].getName().getValue();
  }
  remark << text;
}

static void reportAsyncProxyReads(const PipeUsage &usage) {
  PipeOp pipe = usage.pipe;
  SmallVector<WaitOp> handoffs = findCpAsyncHandoffs(usage);
  llvm::MapVector<Operation *, SmallVector<unsigned>> reads;
  forEachAsyncProxyRead(usage, [&](WaitOp wait, unsigned field) {
    reads[wait].push_back(field);
  });
  for (auto &[op, fields] : reads) {
    InFlightDiagnostic remark = op->emitRemark("the async proxy reads ");
    for (auto [i, f] : llvm::enumerate(fields))
      remark << (i ? ", " : "") << "'" << pipe.getFieldName(f) << "'";
    if (llvm::is_contained(handoffs, cast<WaitOp>(op)))
      remark << " (cp.async data)";
  }
}

namespace {
struct TestPipeUsagePass
    : public test::impl::TLETestPipeUsageBase<TestPipeUsagePass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation()->walk([](WarpSpecializeOp ws) {
      for (const PipeUsage &usage : collectPipeUsages(ws)) {
        reportPipe(ws, usage);
        reportAsyncProxyReads(usage);
      }
    });
  }
};
} // namespace
