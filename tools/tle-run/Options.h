//===- Options.h - tle-run's command line -----------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Parsed by hand rather than with llvm::cl: tle-run must also build where
// there is no LLVM (TLE_RUNTIME_ONLY).
//
//===----------------------------------------------------------------------===//

#ifndef TLE_TOOLS_TLE_RUN_OPTIONS_H
#define TLE_TOOLS_TLE_RUN_OPTIONS_H

#include "tle/Problems/Problem.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tle::run {

using problems::Shape;

struct Options {
  /// What to do instead of running a kernel.
  bool help = false;
  bool listProblems = false;
  /// Print the device and exit 0, or exit 2 without one.
  bool probe = false;

  std::string kernelPath;
  std::string problem;
  std::string kernelName;
  std::string metadataPath;
  Shape shape;
  uint64_t seed = 1;
  bool check = false;
  bool bench = false;
  int warmup = 10;
  int reps = 100;
  double watchdogSeconds = 10;
  std::string jsonPath;
  int device = 0;
  /// Compile .mlir input without tle-verify-pipes (for deadlock tests).
  bool noVerifyPipes = false;
  /// Also print the driver JIT's log.
  bool verbose = false;
};

/// Parses the arguments after the program name. Without --check and
/// --bench, a run checks.
runtime::Status parseOptions(const std::vector<std::string> &args,
                             Options &options);

/// Parses `k=v,k=v` into `shape`, adding to what it holds; duplicate keys
/// are errors.
runtime::Status parseShape(const std::string &text, Shape &shape);

/// The text of --help.
std::string getUsage();

} // namespace tle::run

#endif // TLE_TOOLS_TLE_RUN_OPTIONS_H
