//===- Report.cpp - What tle-run prints and writes ------------------------===//

#include "Report.h"

#include "tle/Runtime/Json.h"

#include <cstdio>

using namespace tle;
using namespace tle::run;
namespace json = tle::runtime::json;

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

static json::Value checkToJSON(const CheckResult &check) {
  json::Value value = json::Value::object();
  value.set("passed", check.passed);
  value.set("summary", check.summary);
  json::Value metrics = json::Value::object();
  for (const auto &metric : check.metrics)
    metrics.set(metric.first, metric.second);
  value.set("metrics", std::move(metrics));
  return value;
}

static json::Value timingToJSON(const Report &report) {
  const runtime::Timing &t = *report.timing;
  json::Value value = json::Value::object();
  value.set("median_ms", t.medianMs);
  value.set("min_ms", t.minMs);
  value.set("max_ms", t.maxMs);
  value.set("reps", t.reps);
  value.set("warmup", report.warmup);
  value.set("gb_per_s", report.gigabytesPerSecond());
  value.set("tflops", report.teraflops());
  return value;
}

std::string run::formatJSON(const Report &report) {
  json::Value device = json::Value::object();
  device.set("name", report.device);
  device.set("compute_capability", report.computeCapability);
  device.set("multiprocessors", report.multiprocessors);

  json::Value root = json::Value::object();
  root.set("kernel", report.kernel);
  root.set("kernel_file", report.kernelFile);
  root.set("problem", report.problem);
  root.set("shape", report.shape);
  root.set("seed", static_cast<int64_t>(report.seed));
  root.set("device", std::move(device));
  root.set("check", report.check ? checkToJSON(*report.check) : json::Value());
  root.set("timing", report.timing ? timingToJSON(report) : json::Value());
  root.set("bytes_moved", report.bytesMoved);
  root.set("flops", report.flops);
  return json::write(root) + "\n";
}
