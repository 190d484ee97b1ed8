//===- SparseMLACompare.cpp - Kernel outputs against the reference --------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The element rule and the cosine difference are the ones FlashMLA's test
// applies; SparseMLA.h states them. Like that test, out is compared in bf16
// on both sides: the reference is rounded the way the kernel rounds its
// result, so a kernel's own rounding is not counted against its budget.
//
//===----------------------------------------------------------------------===//

#include "tle/Problems/BFloat16.h"
#include "tle/Problems/SparseMLA.h"

#include <cassert>
#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>

using namespace tle::problems;

/// Keeps the relative error finite where the expected value is 0.
static constexpr double kRelativeFloor = 1e-6;
/// Below this squared norm the reference counts as zero and the cosine
/// difference as 0.
static constexpr double kZeroNorm = 1e-12;

/// "out[b=0, s=12, h=3, d=5]" for a flat index into an output tensor; `dv`
/// is 1 for the statistics, which have no d.
static std::string describeElement(const SparseMLAConfig &config,
                                   const std::string &name, int64_t position,
                                   int64_t dv) {
  int64_t d = position % dv;
  int64_t head = position / dv % config.h;
  int64_t row = position / dv / config.h;
  std::ostringstream os;
  os << name << "[b=" << row / config.sq << ", s=" << row % config.sq
     << ", h=" << head;
  if (dv > 1)
    os << ", d=" << d;
  os << "]";
  return os.str();
}

namespace {
/// Accumulates the comparison of one tensor element by element.
class TensorComparer {
public:
  TensorComparer(const SparseMLAConfig &config, std::string name, int64_t dv,
                 SparseMLATolerance tolerance)
      : config(config), dv(dv), tolerance(tolerance) {
    report.name = std::move(name);
  }

  void add(int64_t position, double expected, double actual);
  SparseMLATensorReport finish();

private:
  void addSpecial(int64_t position, double expected, double actual);
  void recordMismatch(int64_t position, double expected, double actual);

  const SparseMLAConfig &config;
  int64_t dv;
  SparseMLATolerance tolerance;
  SparseMLATensorReport report;
  double dotProduct = 0;
  double sumOfSquares = 0;
  double expectedSquares = 0;
};
} // namespace

void TensorComparer::add(int64_t position, double expected, double actual) {
  ++report.compared;
  if (!std::isfinite(expected) || !std::isfinite(actual))
    return addSpecial(position, expected, actual);
  double absError = std::abs(actual - expected);
  double relError = absError / (std::abs(expected) + kRelativeFloor);
  report.maxAbsError = std::max(report.maxAbsError, absError);
  report.maxRelError = std::max(report.maxRelError, relError);
  dotProduct += actual * expected;
  sumOfSquares += actual * actual + expected * expected;
  expectedSquares += expected * expected;
  // Either bound suffices: small values are held to the absolute one and
  // large values to the relative one.
  if (absError >= tolerance.abs && relError >= tolerance.rel)
    recordMismatch(position, expected, actual);
}

/// Infinities and NaNs must match exactly; matching ones add nothing to the
/// error figures or the cosine.
void TensorComparer::addSpecial(int64_t position, double expected,
                                double actual) {
  bool bothNaN = std::isnan(expected) && std::isnan(actual);
  if (!bothNaN && expected != actual)
    recordMismatch(position, expected, actual);
}

void TensorComparer::recordMismatch(int64_t position, double expected,
                                    double actual) {
  if (report.mismatches++ > 0)
    return;
  report.firstMismatch = position;
  report.firstMismatchAt = describeElement(config, report.name, position, dv);
  report.expected = expected;
  report.actual = actual;
}

SparseMLATensorReport TensorComparer::finish() {
  if (expectedSquares >= kZeroNorm)
    report.cosDiff = 1 - 2 * dotProduct / sumOfSquares;
  report.passed =
      report.mismatches == 0 && std::abs(report.cosDiff) <= tolerance.cosDiff;
  return report;
}

static double roundToBFloat16(double value) {
  return bfloat16ToFloat(floatToBFloat16(float(value)));
}

static void compareSampledRows(const SparseMLAInputs &inputs,
                               const SparseMLAReference &reference,
                               const SparseMLAOutputs &outputs,
                               SparseMLAReport &report) {
  const SparseMLAConfig &config = inputs.config;
  TensorComparer out(config, "out", config.dv, kSparseMLAOutTolerance);
  TensorComparer maxLogits(config, "max_logits", 1, kSparseMLAStatTolerance);
  TensorComparer lse(config, "lse", 1, kSparseMLAStatTolerance);
  for (size_t index = 0; index < reference.rows.size(); ++index) {
    for (int64_t head = 0; head < config.h; ++head) {
      int64_t stat = int64_t(index) * config.h + head;
      int64_t position = reference.rows[index] * config.h + head;
      maxLogits.add(position, reference.maxLogits[stat],
                    outputs.maxLogits[position]);
      lse.add(position, reference.lse[stat], outputs.lse[position]);
      for (int64_t d = 0; d < config.dv; ++d)
        out.add(position * config.dv + d,
                roundToBFloat16(reference.out[stat * config.dv + d]),
                bfloat16ToFloat(outputs.out[position * config.dv + d]));
    }
  }
  report.rowsCompared = reference.rows.size();
  report.out = out.finish();
  report.maxLogits = maxLogits.finish();
  report.lse = lse.finish();
}

namespace {
/// Checks every element of every row against what its row allows.
class RowScanner {
public:
  RowScanner(const SparseMLAConfig &config, SparseMLAReport &report)
      : config(config), report(report) {}

  void scanHead(const SparseMLAOutputs &outputs, int64_t position, bool empty);

private:
  /// An empty row must hold exactly `expected`, any other row finite values.
  void check(const char *name, int64_t position, int64_t dv, double actual,
             bool empty, double expected);

  const SparseMLAConfig &config;
  SparseMLAReport &report;
};
} // namespace

void RowScanner::scanHead(const SparseMLAOutputs &outputs, int64_t position,
                          bool empty) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  check("max_logits", position, 1, outputs.maxLogits[position], empty, -inf);
  check("lse", position, 1, outputs.lse[position], empty, inf);
  for (int64_t d = 0; d < config.dv; ++d) {
    int64_t element = position * config.dv + d;
    check("out", element, config.dv, bfloat16ToFloat(outputs.out[element]),
          empty, 0);
  }
}

void RowScanner::check(const char *name, int64_t position, int64_t dv,
                       double actual, bool empty, double expected) {
  if (empty ? actual == expected : std::isfinite(actual))
    return;
  if (report.scanErrors++ > 0)
    return;
  std::ostringstream os;
  os << describeElement(config, name, position, dv) << " = " << actual
     << ", expected ";
  if (empty)
    os << expected << " (the row has no valid index)";
  else
    os << "a finite value";
  report.firstScanError = os.str();
}

static void scanAllRows(const SparseMLAInputs &inputs,
                        const SparseMLAOutputs &outputs,
                        SparseMLAReport &report) {
  const SparseMLAConfig &config = inputs.config;
  RowScanner scanner(config, report);
  for (int64_t row = 0; row < config.rows(); ++row) {
    bool empty = inputs.isEmptyRow(row);
    for (int64_t head = 0; head < config.h; ++head)
      scanner.scanHead(outputs, row * config.h + head, empty);
  }
  report.rowsScanned = config.rows();
}

SparseMLAReport
tle::problems::compareSparseMLA(const SparseMLAInputs &inputs,
                                const SparseMLAReference &reference,
                                const SparseMLAOutputs &outputs) {
  const SparseMLAConfig &config = inputs.config;
  int64_t stats = config.rows() * config.h;
  assert(int64_t(outputs.out.size()) == stats * config.dv &&
         int64_t(outputs.maxLogits.size()) == stats &&
         int64_t(outputs.lse.size()) == stats && "outputs of the wrong size");
  (void)stats;
  SparseMLAReport report;
  compareSampledRows(inputs, reference, outputs, report);
  scanAllRows(inputs, outputs, report);
  return report;
}

bool SparseMLAReport::passed() const {
  return out.passed && maxLogits.passed && lse.passed && scanErrors == 0;
}

static void printTensor(std::ostream &os, const SparseMLATensorReport &tensor,
                        const SparseMLATolerance &tolerance) {
  os << std::setprecision(3) << tensor.name << ": max abs err "
     << tensor.maxAbsError << ", max rel err " << tensor.maxRelError;
  if (std::isfinite(tolerance.cosDiff))
    os << ", cos diff " << tensor.cosDiff << " (limit " << tolerance.cosDiff
       << ")";
  if (tensor.mismatches > 0)
    os << std::setprecision(9) << ", " << tensor.mismatches << " of "
       << tensor.compared << " mismatched, first " << tensor.firstMismatchAt
       << " = " << tensor.actual << ", expected " << tensor.expected;
  os << "; ";
}

std::string SparseMLAReport::summary() const {
  std::ostringstream os;
  os << rowsCompared << " rows compared: ";
  printTensor(os, out, kSparseMLAOutTolerance);
  printTensor(os, maxLogits, kSparseMLAStatTolerance);
  printTensor(os, lse, kSparseMLAStatTolerance);
  os << "scan of " << rowsScanned << " rows: " << scanErrors << " bad elements";
  if (scanErrors > 0)
    os << ", first " << firstScanError;
  return os.str();
}
