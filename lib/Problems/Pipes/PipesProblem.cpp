//===- PipesProblem.cpp - The problem of examples/pipes -------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// examples/pipes streams rows of 256 floats through a pipe: CTA b handles
// rows b*n .. b*n+n-1 and writes
//
//   out[r, c] = in[r, c] * 2 + 1   for c <  128
//   out[r, c] = in[r, c] * 3       for c >= 128
//
// Both formulas are exact in float whether or not the compiler fuses the
// multiply and add (x * 2 is exact), so every element is compared bit for
// bit. Shape keys: ctas (default: one CTA per multiprocessor) and n (rows
// per CTA, default 64).
//
//===----------------------------------------------------------------------===//

#include "tle/Problems/Problem.h"

#include <cstdio>
#include <cstring>
#include <random>

using namespace tle;
using namespace tle::problems;
using runtime::Status;

namespace {
class PipesProblem : public Problem {
public:
  static constexpr int64_t columns = 256;
  static constexpr int64_t half = 128;

  PipesProblem() : Problem("pipes") {}
  Status configure(const Shape &shape) override;
  std::string describe() const override;
  Status prepare(runtime::Device &device, uint64_t seed,
                 const runtime::KernelInfo &kernel, runtime::KernelArgs &args,
                 unsigned grid[3]) override;
  Status poisonOutputs(runtime::Device &device) override;
  Status check(runtime::Device &device, CheckResult &result) override;
  double bytesMoved() const override;
  double flops() const override { return 0; }

protected:
  void packArguments(const runtime::KernelInfo &kernel,
                     runtime::KernelArgs &args) const override;

private:
  int64_t rows() const { return ctas * n; }
  static float expected(float in, int64_t column) {
    return column < half ? in * 2.0f + 1.0f : in * 3.0f;
  }
  std::string describeMismatch(int64_t index, float got) const;

  /// 0 until prepare() when not given: the device's multiprocessors.
  int64_t ctas = 0;
  int64_t n = 64;
  std::vector<float> input;
  runtime::DeviceBuffer in, out;
};
} // namespace

/// Two buffers of up to 4 GiB each.
static constexpr int64_t maxRows = int64_t(1) << 22;

Status PipesProblem::configure(const Shape &shape) {
  if (Status s = checkShapeKeys(shape, {"ctas", "n"}, name()); !s)
    return s;
  if (Status s = getShapeInt(shape, "ctas", 1, 1 << 20, ctas); !s)
    return s;
  if (Status s = getShapeInt(shape, "n", 1, maxRows, n); !s)
    return s;
  if (ctas && rows() > maxRows)
    return Status::error("pipes: ctas * n must be at most " +
                         std::to_string(maxRows) + " rows");
  return Status::ok();
}

std::string PipesProblem::describe() const {
  std::string ctasText = ctas ? std::to_string(ctas) : "(one per SM)";
  return "ctas=" + ctasText + " n=" + std::to_string(n);
}

/// Random inputs in [-4, 4): signs, fractions and exponents all vary, and
/// a zero input (which a kernel that never ran could fake) is unlikely.
static std::vector<float> makeInput(int64_t elements, uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<float> distribution(-4.0f, 4.0f);
  std::vector<float> values(static_cast<size_t>(elements));
  for (float &value : values)
    value = distribution(engine);
  return values;
}

/// `in` and `out` of ctas * n rows (0 before the device gives the default
/// ctas: the rows are a dynamic size), and n.
void PipesProblem::packArguments(const runtime::KernelInfo &,
                                 runtime::KernelArgs &args) const {
  args.addMemRef(in.address(), "f32", {rows(), columns});
  args.addMemRef(out.address(), "f32", {rows(), columns});
  args.addIndex(n);
}

Status PipesProblem::prepare(runtime::Device &device, uint64_t seed,
                             const runtime::KernelInfo &kernel,
                             runtime::KernelArgs &args, unsigned grid[3]) {
  if (!ctas) {
    int sms = device.multiprocessorCount();
    ctas = sms > 0 ? sms : 132;
    if (rows() > maxRows)
      return Status::error("pipes: ctas * n must be at most " +
                           std::to_string(maxRows) + " rows");
  }
  input = makeInput(rows() * columns, seed);
  size_t bytes = input.size() * sizeof(float);
  Status s = device.allocate(bytes, in);
  if (s)
    s = device.allocate(bytes, out);
  if (s)
    s = device.upload(in, input.data(), bytes);
  if (!s)
    return s;
  args.clear();
  packArguments(kernel, args);
  grid[0] = static_cast<unsigned>(ctas);
  grid[1] = grid[2] = 1;
  return args.check(kernel);
}

Status PipesProblem::poisonOutputs(runtime::Device &device) {
  // All-ones bytes are a NaN: no correct output has that pattern.
  return device.fill(out, 0xFF);
}

std::string PipesProblem::describeMismatch(int64_t index, float got) const {
  int64_t row = index / columns, column = index % columns;
  char text[160];
  std::snprintf(text, sizeof(text),
                "first at row %lld (CTA %lld), column %lld: got %.9g, "
                "expected %.9g",
                static_cast<long long>(row), static_cast<long long>(row / n),
                static_cast<long long>(column), got,
                expected(input[index], column));
  return text;
}

Status PipesProblem::check(runtime::Device &device, CheckResult &result) {
  std::vector<float> output(input.size());
  if (Status s =
          device.download(output.data(), out, output.size() * sizeof(float));
      !s)
    return s;
  int64_t mismatches = 0, first = -1;
  for (size_t i = 0; i < output.size(); ++i) {
    float want = expected(input[i], static_cast<int64_t>(i) % columns);
    if (std::memcmp(&want, &output[i], sizeof(float)) != 0) {
      if (first < 0)
        first = static_cast<int64_t>(i);
      ++mismatches;
    }
  }
  int64_t total = static_cast<int64_t>(output.size());
  result.passed = mismatches == 0;
  result.summary = "exact: " + std::to_string(total - mismatches) + " of " +
                   std::to_string(total) + " elements";
  if (!result.passed)
    result.summary += "; " + describeMismatch(first, output[first]);
  result.metrics["elements"] = static_cast<double>(total);
  result.metrics["mismatches"] = static_cast<double>(mismatches);
  return Status::ok();
}

double PipesProblem::bytesMoved() const {
  return 2.0 * static_cast<double>(rows()) * columns * sizeof(float);
}

std::unique_ptr<Problem> problems::createPipesProblem() {
  return std::make_unique<PipesProblem>();
}
