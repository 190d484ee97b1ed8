//===- Report.cpp - What tle-run prints and writes ------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Report.h"

#include <nlohmann/json.hpp>

#include <cstdio>

using namespace tle;
using namespace tle::run;
// Keys in the order they are set, as the report's readers see them.
using Json = nlohmann::ordered_json;

double Report::gigabytesPerSecond() const {
  if (!timing || timing->medianMs <= 0 || bytesMoved <= 0)
    return 0;
  return bytesMoved / (timing->medianMs * 1e-3) / 1e9;
}

double Report::teraflops() const {
  if (!timing || timing->medianMs <= 0 || flops <= 0)
    return 0;
  return flops / (timing->medianMs * 1e-3) / 1e12;
}

static std::string format(const char *pattern, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), pattern, value);
  return buffer;
}

static std::string row(const std::string &name, const std::string &value) {
  std::string line = name;
  line.resize(11, ' ');
  return line + value + "\n";
}

static std::string formatTiming(const Report &report) {
  const runtime::Timing &t = *report.timing;
  std::string table = row(
      "time", "median " + format("%.4f", t.medianMs) + " ms  min " +
                  format("%.4f", t.minMs) + " ms  max " +
                  format("%.4f", t.maxMs) + " ms  (" + std::to_string(t.reps) +
                  " reps after " + std::to_string(report.warmup) + " warmup)");
  if (double gbs = report.gigabytesPerSecond())
    table += row("bandwidth", format("%.1f", gbs) + " GB/s");
  if (double tflops = report.teraflops())
    table += row("compute", format("%.1f", tflops) + " TFLOP/s");
  return table;
}

std::string run::formatTable(const Report &report) {
  std::string table =
      row("kernel", report.kernel + "  (" + report.kernelFile + ")");
  table += row("device", report.device + ", sm_" +
                             std::to_string(report.computeCapability) + ", " +
                             std::to_string(report.multiprocessors) + " SMs");
  table += row("problem", report.problem + "  " + report.shape);
  if (report.check)
    table +=
        row("check", std::string(report.check->passed ? "passed" : "FAILED") +
                         "  " + report.check->summary);
  if (report.timing)
    table += formatTiming(report);
  return table;
}

static Json checkToJSON(const CheckResult &check) {
  Json metrics = Json::object();
  for (const auto &metric : check.metrics)
    metrics[metric.first] = metric.second;
  return {{"passed", check.passed},
          {"summary", check.summary},
          {"metrics", std::move(metrics)}};
}

static Json timingToJSON(const Report &report) {
  const runtime::Timing &t = *report.timing;
  return {
      {"median_ms", t.medianMs},     {"min_ms", t.minMs},
      {"max_ms", t.maxMs},           {"reps", t.reps},
      {"warmup", report.warmup},     {"gb_per_s", report.gigabytesPerSecond()},
      {"tflops", report.teraflops()}};
}

std::string run::formatJSON(const Report &report) {
  Json root = {{"kernel", report.kernel},
               {"kernel_file", report.kernelFile},
               {"problem", report.problem},
               {"shape", report.shape},
               {"seed", static_cast<int64_t>(report.seed)},
               {"device",
                {{"name", report.device},
                 {"compute_capability", report.computeCapability},
                 {"multiprocessors", report.multiprocessors}}},
               {"check", report.check ? checkToJSON(*report.check) : Json()},
               {"timing", report.timing ? timingToJSON(report) : Json()},
               {"bytes_moved", report.bytesMoved},
               {"flops", report.flops}};
  // Strings the report took from files may hold invalid UTF-8: replace,
  // rather than abort (the build has no exceptions to throw).
  return root.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}
