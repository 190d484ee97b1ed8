//===- Report.h - What tle-run prints and writes ----------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TLE_TOOLS_TLE_RUN_REPORT_H
#define TLE_TOOLS_TLE_RUN_REPORT_H

#include "tle/Problems/Problem.h"

#include <optional>
#include <string>

namespace tle::run {

using problems::CheckResult;

/// The results of one tle-run invocation.
struct Report {
  std::string kernel;
  std::string kernelFile;
  std::string problem;
  std::string shape;
  uint64_t seed = 0;
  std::string device;
  int computeCapability = 0;
  int multiprocessors = 0;
  std::optional<CheckResult> check;
  std::optional<runtime::Timing> timing;
  int warmup = 0;
  double bytesMoved = 0;
  double flops = 0;

  /// GB/s and TFLOP/s at the median time; 0 when not timed or meaningless.
  double gigabytesPerSecond() const;
  double teraflops() const;
};

/// The short table on stdout.
std::string formatTable(const Report &report);
/// The same numbers as JSON (docs/Runtime.md lists the keys).
std::string formatJSON(const Report &report);

} // namespace tle::run

#endif // TLE_TOOLS_TLE_RUN_REPORT_H
