//===- ReportTest.cpp - tle-run's JSON report -----------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Report.h"

#include <nlohmann/json.hpp>

#include "gtest/gtest.h"

#include <cmath>

using namespace tle;
using namespace tle::run;

namespace {

Report makeReport() {
  Report report;
  report.kernel = "k\"1\n";
  report.kernelFile = "out/k.ptx";
  report.problem = "pipes";
  report.shape = "ctas=2 n=64";
  report.seed = 7;
  report.device = "NVIDIA H200";
  report.computeCapability = 90;
  report.multiprocessors = 132;
  report.bytesMoved = 1e9;
  return report;
}

TEST(Report, KeysInOrderAndNullsWhereNotRun) {
  std::string text = formatJSON(makeReport());
  EXPECT_EQ(text, R"({
  "kernel": "k\"1\n",
  "kernel_file": "out/k.ptx",
  "problem": "pipes",
  "shape": "ctas=2 n=64",
  "seed": 7,
  "device": {
    "name": "NVIDIA H200",
    "compute_capability": 90,
    "multiprocessors": 132
  },
  "check": null,
  "timing": null,
  "bytes_moved": 1000000000.0,
  "flops": 0.0
}
)");
}

TEST(Report, CheckAndTimingRoundTrip) {
  Report report = makeReport();
  report.check =
      CheckResult{true, "exact: 8 of 8 elements", {{"max_abs", 0.5}}};
  report.timing = runtime::Timing{0.5, 0.25, 1.0, 20};
  report.warmup = 5;
  auto parsed = nlohmann::json::parse(formatJSON(report), nullptr, false);
  ASSERT_FALSE(parsed.is_discarded());
  EXPECT_EQ(parsed["check"]["passed"], true);
  EXPECT_EQ(parsed["check"]["summary"], "exact: 8 of 8 elements");
  EXPECT_EQ(parsed["check"]["metrics"]["max_abs"], 0.5);
  EXPECT_EQ(parsed["timing"]["median_ms"], 0.5);
  EXPECT_EQ(parsed["timing"]["reps"], 20);
  EXPECT_EQ(parsed["timing"]["warmup"], 5);
  EXPECT_EQ(parsed["timing"]["gb_per_s"], 2000.0);
}

TEST(Report, NonFiniteNumbersAndBadTextDoNotBreakIt) {
  Report report = makeReport();
  report.check = CheckResult{false, "bad \xff bytes", {{"err", INFINITY}}};
  auto parsed = nlohmann::json::parse(formatJSON(report), nullptr, false);
  ASSERT_FALSE(parsed.is_discarded());
  EXPECT_TRUE(parsed["check"]["metrics"]["err"].is_null());
  EXPECT_EQ(parsed["check"]["summary"], "bad \xef\xbf\xbd bytes");
}

} // namespace
