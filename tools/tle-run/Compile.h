//===- Compile.h - In-process compilation of .mlir kernels ------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Only in the full build (TLE_RUN_WITH_COMPILER): what tle-opt --tle-to-llvm
// and tle-translate --tle-to-ptx --tle-metadata do, in one process.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_TOOLS_TLE_RUN_COMPILE_H
#define TLE_TOOLS_TLE_RUN_COMPILE_H

#include "tle/Runtime/Runtime.h"

#include <string>

namespace tle::run {

/// Compiles the TLE kernels of `path` to PTX for sm_90a and their metadata
/// JSON. Diagnostics go to stderr as tle-opt prints them; the Status then
/// only says which step failed. `verifyPipes` false skips the protocol
/// check (tests that need a deadlocking kernel).
runtime::Status compileMLIR(const std::string &path, bool verifyPipes,
                            std::string &ptx, std::string &metadata);

} // namespace tle::run

#endif // TLE_TOOLS_TLE_RUN_COMPILE_H
