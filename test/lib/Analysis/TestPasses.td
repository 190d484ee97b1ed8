//===- TestPasses.td - The analyses' test passes -----------*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// One tle-test-<analysis> pass per analysis of lib/Dialect/TLE/Analysis
// (Protocol/ for the protocol check's own), each reporting what its
// analysis finds, as remarks or text, for a lit test of
// test/Dialect/TLE/Analysis to check. They are built into tle-opt with
// TLE_INCLUDE_TESTS, as MLIR's test/lib passes are into mlir-opt, and are
// not part of the compiler's pass reference.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_TEST_LIB_ANALYSIS_TESTPASSES
#define TLE_TEST_LIB_ANALYSIS_TESTPASSES

include "mlir/Pass/PassBase.td"

def TLETestIterationExpr : Pass<"tle-test-iteration-expr"> {
  let summary = "Report the iteration of each pipe operation as an affine expression";
}

def TLETestKernelPlacement : Pass<"tle-test-kernel-placement"> {
  let summary = "Check where each tle.warp_specialize sits";
}

def TLETestPipeUsage : Pass<"tle-test-pipe-usage"> {
  let summary = "Report the writer, readers, transports and field groups of each pipe";
}

def TLETestReleasePlacement : Pass<"tle-test-release-placement"> {
  let summary = "Report where each tle.release takes effect";
}

def TLETestStorageFootprint : Pass<"tle-test-storage-footprint"> {
  let summary = "Report the shared-memory bytes each view and pipe slot covers";
}

def TLETestTokenUsage : Pass<"tle-test-token-usage"> {
  let summary = "Report the ends and the named barrier of each token";
}

def TLETestIntegerRanges : Pass<"tle-test-integer-ranges"> {
  let summary = "Report the range of each tagged integer";
}

def TLETestIterationCounts : Pass<"tle-test-iteration-counts"> {
  let summary = "Report how often each commit, wait, signal and await runs, and compare the counts";
}

def TLETestPipeWindows : Pass<"tle-test-pipe-windows"> {
  let summary = "Check that every window closes and report the windows loops carry";
}

def TLETestPartitionUnroller : Pass<"tle-test-partition-unroller"> {
  let summary = "Print each partition's events for one choice of the inputs";
  let options = [
    Option<"input", "input", "int64_t", /*default=*/"0",
           "The value the check gives every input in this run">,
  ];
}

def TLETestBarrierSimulation : Pass<"tle-test-barrier-simulation"> {
  let summary = "Run the partitions' events against the barriers for one choice of the inputs";
  let options = [
    Option<"input", "input", "int64_t", /*default=*/"0",
           "The value the check gives every input in this run">,
  ];
}

def TLETestLapOrder : Pass<"tle-test-lap-order"> {
  let summary = "Check the lap rule on the partitions' events for one choice of the inputs";
  let options = [
    Option<"input", "input", "int64_t", /*default=*/"0",
           "The value the check gives every input in this run">,
  ];
}

def TLETestProtocolSimulation : Pass<"tle-test-protocol-simulation"> {
  let summary = "Print the inputs of each run of the protocol simulation";
}

def TLETestReaderWrites : Pass<"tle-test-reader-writes"> {
  let summary = "Report and check the writes of readers to their slots";
}

def TLETestSlotViews : Pass<"tle-test-slot-views"> {
  let summary = "Check that slots are touched only through their views, inside their windows";
}

def TLETestStorageAliasing : Pass<"tle-test-storage-aliasing"> {
  let summary = "Report nested pipes and check the nesting rule";
}

def TLETestStorageReclaim : Pass<"tle-test-storage-reclaim"> {
  let summary = "Check every tle.reclaim of a kernel";
}

def TLETestUniformity : Pass<"tle-test-uniformity"> {
  let summary = "Report which tagged values every thread of a partition shares";
}

#endif // TLE_TEST_LIB_ANALYSIS_TESTPASSES
