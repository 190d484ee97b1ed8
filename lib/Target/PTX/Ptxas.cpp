//===- Ptxas.cpp - Assemble PTX with the CUDA toolkit's ptxas -------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// ptxas is an external program: the PTX goes through a temporary file, and
// its -v report is kept because the register count tells whether the
// warp-specialized register budget (setmaxnreg) took effect.
//
//===----------------------------------------------------------------------===//

#include "tle/Target/PTX.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace mlir;

static constexpr llvm::StringLiteral kCudaPtxas = "/usr/local/cuda/bin/ptxas";

/// TLE_PTXAS may name a path or a program on PATH; without it, PATH is
/// searched before the toolkit's default location so that a user's CUDA
/// version wins.
static FailureOr<std::string> findPtxas(Location loc) {
  if (const char *env = std::getenv("TLE_PTXAS"); env && *env) {
    StringRef program(env);
    // findProgramByName returns anything with a slash unchecked.
    if (program.contains('/')) {
      if (llvm::sys::fs::can_execute(program))
        return program.str();
    } else if (llvm::ErrorOr<std::string> path =
                   llvm::sys::findProgramByName(program)) {
      return *path;
    }
    return emitError(loc) << "TLE_PTXAS='" << env
                          << "' is not an executable program";
  }
  if (llvm::ErrorOr<std::string> path = llvm::sys::findProgramByName("ptxas"))
    return *path;
  if (llvm::sys::fs::can_execute(kCudaPtxas))
    return kCudaPtxas.str();
  return emitError(loc) << "ptxas not found: install the CUDA toolkit ("
                        << kCudaPtxas
                        << "), put ptxas on PATH, or set TLE_PTXAS";
}

/// Creates an empty temporary file named like `tle-%%%%%%.<suffix>`.
static LogicalResult createTempFile(StringRef suffix,
                                    SmallVectorImpl<char> &path, Location loc) {
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("tle", suffix, path))
    return emitError(loc) << "cannot create a temporary ." << suffix
                          << " file: " << ec.message();
  return success();
}

static LogicalResult writeFile(StringRef path, StringRef contents,
                               Location loc) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (!ec) {
    os << contents;
    os.close();
    ec = os.error();
  }
  if (ec)
    return emitError(loc) << "cannot write " << path << ": " << ec.message();
  return success();
}

static FailureOr<std::string> readFile(StringRef path, Location loc) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer)
    return emitError(loc) << "cannot read " << path << ": "
                          << buffer.getError().message();
  return (*buffer)->getBuffer().str();
}

/// ptxas reports problems it works around as warnings, and the one that
/// defeats warp specialization (C7508: setmaxnreg ignored because the
/// register count at entry is unknown) only as "info"; both are passed on
/// so that they are seen without reading the log.
static void reportPtxasWarnings(StringRef output, Location loc) {
  SmallVector<StringRef> lines;
  output.split(lines, '\n', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (StringRef line : lines)
    if (line.contains("warning") || line.contains("(C7508)"))
      emitWarning(loc) << line.trim();
}

FailureOr<std::string> tle::assembleWithPtxas(StringRef ptx, StringRef chip,
                                              Location loc, std::string *log) {
  FailureOr<std::string> ptxas = findPtxas(loc);
  if (failed(ptxas))
    return failure();

  SmallString<128> ptxPath, cubinPath, logPath;
  if (failed(createTempFile("ptx", ptxPath, loc)))
    return failure();
  llvm::FileRemover ptxRemover(ptxPath);
  if (failed(createTempFile("cubin", cubinPath, loc)))
    return failure();
  llvm::FileRemover cubinRemover(cubinPath);
  if (failed(createTempFile("log", logPath, loc)))
    return failure();
  llvm::FileRemover logRemover(logPath);
  if (failed(writeFile(ptxPath, ptx, loc)))
    return failure();

  std::string arch = ("-arch=" + chip).str();
  SmallVector<StringRef> args = {*ptxas, arch, "-v", "-o", cubinPath, ptxPath};
  // stdin is empty (ptxas must not wait on the terminal); stdout and
  // stderr share the log: ptxas prints -v to stderr, a wrapper may use
  // either.
  std::optional<StringRef> redirects[] = {StringRef(), logPath.str(),
                                          logPath.str()};
  std::string execError;
  int exitCode = llvm::sys::ExecuteAndWait(*ptxas, args, /*Env=*/std::nullopt,
                                           redirects, /*SecondsToWait=*/0,
                                           /*MemoryLimit=*/0, &execError);

  FailureOr<std::string> output = readFile(logPath, loc);
  if (failed(output))
    return failure();
  if (log)
    *log = *output;
  if (exitCode < 0)
    return emitError(loc) << "cannot run " << *ptxas << ": " << execError;
  if (exitCode != 0)
    return emitError(loc) << *ptxas << " " << arch << " failed (exit code "
                          << exitCode << ")" << (output->empty() ? "" : ":\n")
                          << StringRef(*output).rtrim();
  reportPtxasWarnings(*output, loc);
  return readFile(cubinPath, loc);
}
