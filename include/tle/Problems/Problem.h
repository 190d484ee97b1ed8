//===- Problem.h - A named problem a kernel is run and checked on -*- C++ -*-=//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A problem owns the inputs and outputs of one kernel invocation: it builds
// them from a seed, packs the kernel's arguments and grid, poisons the
// outputs before a checked run, and compares them with a reference it
// computes independently of the kernel (on the CPU). Everything about one
// problem lives in its folder of lib/Problems (Pipes/, Gemm/, SparseMLA/):
// inputs, reference, comparison and this device binding.
//
// Plain C++17 over the runtime, without LLVM: tle-run links this on GPU
// machines that have the CUDA driver and nothing else.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_PROBLEMS_PROBLEM_H
#define TLE_PROBLEMS_PROBLEM_H

#include "tle/Runtime/Runtime.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tle::problems {

/// `--shape k=v,...` as written; each problem parses and validates it.
using Shape = std::map<std::string, std::string>;

struct CheckResult {
  bool passed = false;
  /// One line for the report, e.g. "exact: 262144 of 262144 elements".
  std::string summary;
  /// Named figures for the JSON report (max abs error, rows checked, ...).
  std::map<std::string, double> metrics;
};

class Problem {
public:
  explicit Problem(std::string name) : problemName(std::move(name)) {}
  virtual ~Problem() = default;

  /// The name it is registered as, the prefix of its messages.
  const std::string &name() const { return problemName; }

  /// Applies `shape` over the defaults; rejects unknown keys and bad values.
  virtual runtime::Status configure(const Shape &shape) = 0;
  /// The configured shape, e.g. "ctas=132 n=64".
  virtual std::string describe() const = 0;

  /// Whether `kernel` takes the arguments this problem passes: the
  /// problem's own rules, then the runtime's check of the arguments packed
  /// before any buffer exists (at address 0). Needs no device, so that a
  /// wrong kernel is reported before one is opened (or inputs generated).
  runtime::Status checkKernel(const runtime::KernelInfo &kernel) const;

  /// Creates inputs from `seed` and outputs on `device` and packs the
  /// arguments of `kernel`, which checkKernel accepted, and the grid.
  virtual runtime::Status prepare(runtime::Device &device, uint64_t seed,
                                  const runtime::KernelInfo &kernel,
                                  runtime::KernelArgs &args,
                                  unsigned grid[3]) = 0;
  /// Overwrites every output with a pattern no correct kernel leaves.
  virtual runtime::Status poisonOutputs(runtime::Device &device) = 0;
  /// Downloads the outputs and compares them with the reference.
  virtual runtime::Status check(runtime::Device &device,
                                CheckResult &result) = 0;

  /// Bytes one launch must move through device memory at least, and the
  /// FLOPs it performs by the problem's formula (0 where meaningless).
  virtual double bytesMoved() const = 0;
  virtual double flops() const = 0;

protected:
  /// The problem's rules beyond the runtime's check of the arguments (the
  /// argument count, boxes that must fit the shape); none by default.
  virtual runtime::Status
  checkKernelRules(const runtime::KernelInfo &kernel) const;
  /// Appends the arguments for `kernel` at the problem's buffers (address
  /// 0 before prepare allocates them).
  virtual void packArguments(const runtime::KernelInfo &kernel,
                             runtime::KernelArgs &args) const = 0;

private:
  std::string problemName;
};

/// One factory per problem, each defined in its folder and listed in
/// Problem.cpp.
std::unique_ptr<Problem> createPipesProblem();
std::unique_ptr<Problem> createSparseMLAProblem();
std::unique_ptr<Problem> createGemmProblem();

/// The problem called `name`, or null.
std::unique_ptr<Problem> createProblem(const std::string &name);
std::vector<std::string> getProblemNames();

/// Helpers for Problem::configure. Rejects keys of `shape` that are not in
/// `known`, naming the problem and its keys.
runtime::Status checkShapeKeys(const Shape &shape,
                               const std::vector<std::string> &known,
                               const std::string &problem);
/// Reads `key` as an integer in [min, max] into `value`; leaves `value` as
/// it is when `shape` lacks the key.
runtime::Status getShapeInt(const Shape &shape, const std::string &key,
                            int64_t min, int64_t max, int64_t &value);

/// Helper for Problem::prepare: allocates `buffer` for `host` and copies
/// `host` there.
template <typename T>
runtime::Status upload(runtime::Device &device, const std::vector<T> &host,
                       runtime::DeviceBuffer &buffer) {
  size_t bytes = host.size() * sizeof(T);
  if (runtime::Status status = device.allocate(bytes, buffer); !status)
    return status;
  return device.upload(buffer, host.data(), bytes);
}

} // namespace tle::problems

#endif // TLE_PROBLEMS_PROBLEM_H
