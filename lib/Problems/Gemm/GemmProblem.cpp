//===- GemmProblem.cpp - The GEMM problem on the device -------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The inputs, the reference and the comparison are in Gemm.cpp; this file
// checks the kernel's arguments, moves the matrices to and from the device
// and packs the arguments.
//
//===----------------------------------------------------------------------===//

#include "tle/Problems/Gemm.h"
#include "tle/Problems/Problem.h"
#include "tle/Support/Hopper.h"
#include "tle/Support/Strings.h"

#include <optional>
#include <tuple>

using namespace tle;
using namespace tle::problems;
using runtime::KernelArgInfo;
using runtime::Status;

/// Entries of C compared at random, besides the corners, a row and a column.
static constexpr int64_t kSampledEntries = 4096;

//===----------------------------------------------------------------------===//
// The kernel's arguments
//===----------------------------------------------------------------------===//

static std::string str(int64_t value) { return std::to_string(value); }

/// A's box is the tile of A one CTA loads per K step, B's box one of the
/// tiles of B that make up a K step of its bn columns.
static Status checkBoxes(const KernelArgInfo &a, const KernelArgInfo &b,
                         const GemmConfig &config, const std::string &where) {
  int64_t bk = a.box[1];
  if (a.box[0] != config.bm)
    return Status::error(
        where + ": A's box is " + join(a.box, "x") +
        " (rows x K step), so its rows must be bm = " + str(config.bm) +
        "; this kernel is built for bm = " + str(a.box[0]));
  if (b.box[0] != bk)
    return Status::error(where + ": B's box is " + join(b.box, "x") +
                         " (K step x columns); its rows must be A's K step " +
                         str(bk));
  if (config.bn % b.box[1])
    return Status::error(where + ": B's box has " + str(b.box[1]) +
                         " columns, which must divide bn = " + str(config.bn));
  if (config.k % bk)
    return Status::error(where + ": k = " + str(config.k) +
                         " must be a multiple of the kernel's K step " +
                         str(bk));
  return Status::ok();
}

/// Whether argument `index` is a tensor map of a 2-d bf16 box.
static bool isMatrixMap(const KernelArgInfo &arg) {
  return arg.kind == KernelArgInfo::Kind::TensorMap && arg.box.size() == 2 &&
         arg.elementType == "bf16";
}

/// Whether the kernel takes C as a tensor map (it stores with TMA) rather
/// than as a memref.
static bool takesMapOfC(const runtime::KernelInfo &kernel) {
  return kernel.args.size() > 2 &&
         kernel.args[2].kind == KernelArgInfo::Kind::TensorMap;
}

Status problems::checkGemmKernel(const runtime::KernelInfo &kernel,
                                 const GemmConfig &config) {
  std::string where = "gemm: kernel '" + kernel.name + "'";
  const std::vector<KernelArgInfo> &args = kernel.args;
  if (args.size() != 4)
    return Status::error(
        where + " takes " + str(args.size()) +
        " arguments; GEMM passes 4: a tensor map over A, one over B, C as "
        "memref<?x?xbf16> or a tensor map, and K as index (the metadata's "
        "args)");
  for (size_t i : {0, 1})
    if (!isMatrixMap(args[i]))
      return Status::error(where + ": " + args[i].describe(i) +
                           " must be a tensor map with a 2-d box of bf16 (" +
                           (i ? "B" : "A") + ")");
  if (takesMapOfC(kernel)) {
    const KernelArgInfo &c = args[2];
    if (!isMatrixMap(c))
      return Status::error(where + ": " + c.describe(2) +
                           " must be a tensor map with a 2-d box of bf16 (C)");
    if (config.bm % c.box[0] || config.bn % c.box[1])
      return Status::error(where + ": C's box is " + join(c.box, "x") +
                           ", which must divide the tile bm x bn = " +
                           str(config.bm) + "x" + str(config.bn));
  }
  return checkBoxes(args[0], args[1], config, where);
}

//===----------------------------------------------------------------------===//
// The problem
//===----------------------------------------------------------------------===//

namespace {
class GemmProblem : public Problem {
public:
  GemmProblem() : Problem("gemm") {}
  Status configure(const Shape &shape) override;
  std::string describe() const override;
  Status prepare(runtime::Device &device, uint64_t seed,
                 const runtime::KernelInfo &kernel, runtime::KernelArgs &args,
                 unsigned grid[3]) override;
  Status poisonOutputs(runtime::Device &device) override;
  Status check(runtime::Device &device, CheckResult &result) override;
  double bytesMoved() const override;
  double flops() const override;

protected:
  Status checkKernelRules(const runtime::KernelInfo &kernel) const override {
    return checkGemmKernel(kernel, config);
  }
  void packArguments(const runtime::KernelInfo &kernel,
                     runtime::KernelArgs &args) const override;

private:
  GemmConfig config;
  uint64_t seed = 0;
  std::optional<GemmInputs> inputs;
  /// Computed by the first check and kept for later ones.
  std::vector<int64_t> entries;
  std::vector<double> reference;
  runtime::DeviceBuffer a, b, c;
};
} // namespace

Status GemmProblem::configure(const Shape &shape) {
  GemmConfig updated;
  if (Status s = checkShapeKeys(shape, {"m", "n", "k", "bm", "bn"}, name()); !s)
    return s;
  for (auto [key, value] :
       {std::pair{"m", &updated.m}, std::pair{"n", &updated.n},
        std::pair{"k", &updated.k}})
    if (Status s = getShapeInt(shape, key, 1, 65536, *value); !s)
      return s;
  // A CTA's tile of C: its rows are the rows of A's TMA box, its columns
  // wgmma's N.
  for (auto [key, value, max] :
       {std::tuple{"bm", &updated.bm, hopper::kMaxTensorMapBoxDim},
        std::tuple{"bn", &updated.bn, hopper::kMaxWgmmaN}})
    if (Status s = getShapeInt(shape, key, 1, max, *value); !s)
      return s;
  std::string error = validateGemmConfig(updated);
  if (!error.empty())
    return Status::error("gemm: " + error);
  config = updated;
  return Status::ok();
}

std::string GemmProblem::describe() const {
  return "m=" + str(config.m) + " n=" + str(config.n) + " k=" + str(config.k) +
         " bm=" + str(config.bm) + " bn=" + str(config.bn);
}

void GemmProblem::packArguments(const runtime::KernelInfo &kernel,
                                runtime::KernelArgs &args) const {
  args.addTensorMap(a.address(), "bf16", {config.m, config.k});
  args.addTensorMap(b.address(), "bf16", {config.k, config.n});
  if (takesMapOfC(kernel))
    args.addTensorMap(c.address(), "bf16", {config.m, config.n});
  else
    args.addMemRef(c.address(), "bf16", {config.m, config.n});
  args.addIndex(config.k);
}

Status GemmProblem::prepare(runtime::Device &device, uint64_t seed,
                            const runtime::KernelInfo &kernel,
                            runtime::KernelArgs &args, unsigned grid[3]) {
  this->seed = seed;
  inputs = generateGemmInputs(config, seed);
  entries.clear();
  reference.clear();
  Status s = upload(device, inputs->a, a);
  if (s)
    s = upload(device, inputs->b, b);
  if (s)
    s = device.allocate(config.m * config.n * sizeof(uint16_t), c);
  if (!s)
    return s;
  args.clear();
  packArguments(kernel, args);
  grid[0] = static_cast<unsigned>(config.n / config.bn);
  grid[1] = static_cast<unsigned>(config.m / config.bm);
  grid[2] = 1;
  return args.check(kernel);
}

Status GemmProblem::poisonOutputs(runtime::Device &device) {
  // 0xFFFF is a NaN in bf16, which no correct kernel writes.
  return device.fill(c, 0xFF);
}

Status GemmProblem::check(runtime::Device &device, CheckResult &result) {
  if (!inputs)
    return Status::error("gemm: check before prepare");
  std::vector<uint16_t> output(config.m * config.n);
  if (Status s =
          device.download(output.data(), c, output.size() * sizeof(uint16_t));
      !s)
    return s;
  if (entries.empty()) {
    entries = sampleGemmEntries(config, seed, kSampledEntries);
    reference = computeGemmReference(*inputs, entries);
  }
  GemmTolerance tolerance = getGemmTolerance(config.k);
  GemmReport report = compareGemm(entries, reference, output, tolerance);
  result.passed = report.passed();
  result.summary = report.summary(config);
  result.metrics.clear();
  result.metrics["compared"] = double(report.compared);
  result.metrics["mismatches"] = double(report.mismatches);
  result.metrics["max_abs_err"] = report.maxAbsError;
  result.metrics["max_rel_err"] = report.maxRelError;
  result.metrics["tolerance_rel"] = tolerance.rel;
  result.metrics["tolerance_abs"] = tolerance.abs;
  result.metrics["nans"] = double(report.nans);
  return Status::ok();
}

double GemmProblem::bytesMoved() const {
  return 2.0 * (double(config.m) * config.k + double(config.k) * config.n +
                double(config.m) * config.n);
}

double GemmProblem::flops() const {
  return 2.0 * double(config.m) * config.n * config.k;
}

std::unique_ptr<Problem> problems::createGemmProblem() {
  return std::make_unique<GemmProblem>();
}
