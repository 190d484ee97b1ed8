//===- SparseMLAProblem.cpp - The SparseMLA problem on the device ---------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The inputs, the reference and the comparison are in this folder's other
// files; this one reads the shape keys, moves the tensors to and from the
// device and packs the arguments that SparseMLA.h describes.
//
//===----------------------------------------------------------------------===//

#include "tle/Problems/Problem.h"
#include "tle/Problems/SparseMLA.h"
#include "tle/Support/Strings.h"

#include <array>
#include <functional>
#include <limits>
#include <optional>
#include <sstream>

using namespace tle;
using namespace tle::problems;
using runtime::DeviceBuffer;
using runtime::Status;

/// The kernel arguments without and with attn_sink and topk_length, and
/// with those and out_map (out as a TMA descriptor over [B * SQ * H, DV]).
static constexpr size_t kBaseArguments = 7;
static constexpr size_t kOptionalArguments = 9;
static constexpr size_t kOutMapArguments = 10;

//===----------------------------------------------------------------------===//
// Shape keys
//===----------------------------------------------------------------------===//

namespace {
/// What --shape sets.
struct Settings {
  SparseMLAConfig config;
  /// Evenly spaced rows compared with the reference (empty rows come on
  /// top). About a second of CPU time per hundred rows and core at the
  /// benchmark shape.
  int64_t rowsChecked = 128;
};

using Setter = std::function<bool(const std::string &, Settings &)>;
} // namespace

static Setter setInteger(int64_t SparseMLAConfig::*member) {
  return [member](const std::string &text, Settings &settings) {
    return parseInteger(text, settings.config.*member);
  };
}

static Setter setFraction(double SparseMLAConfig::*member) {
  return [member](const std::string &text, Settings &settings) {
    return parseReal(text, settings.config.*member);
  };
}

static Setter setFlag(bool SparseMLAConfig::*member) {
  return [member](const std::string &text, Settings &settings) {
    if (text != "0" && text != "1")
      return false;
    settings.config.*member = text == "1";
    return true;
  };
}

static bool setDistribution(const std::string &text, Settings &settings) {
  if (text != "random" && text != "locality")
    return false;
  settings.config.distribution = text == "random" ? IndexDistribution::Random
                                                  : IndexDistribution::Locality;
  return true;
}

static bool setRowsChecked(const std::string &text, Settings &settings) {
  return parseInteger(text, settings.rowsChecked) && settings.rowsChecked > 0;
}

static bool setScale(const std::string &text, Settings &settings) {
  double scale;
  if (!parseReal(text, scale))
    return false;
  settings.config.smScale = float(scale);
  return true;
}

static const std::map<std::string, Setter> &getSetters() {
  static const std::map<std::string, Setter> setters = {
      {"b", setInteger(&SparseMLAConfig::b)},
      {"sq", setInteger(&SparseMLAConfig::sq)},
      {"h", setInteger(&SparseMLAConfig::h)},
      {"topk", setInteger(&SparseMLAConfig::topk)},
      {"skv", setInteger(&SparseMLAConfig::skv)},
      {"q_pad", setInteger(&SparseMLAConfig::qPad)},
      {"invalid", setFraction(&SparseMLAConfig::invalidFraction)},
      {"empty", setFraction(&SparseMLAConfig::emptyRowFraction)},
      {"sink", setFlag(&SparseMLAConfig::attnSink)},
      {"topk_length", setFlag(&SparseMLAConfig::topkLength)},
      {"distribution", setDistribution},
      {"rows_checked", setRowsChecked},
      {"sm_scale", setScale},
  };
  return setters;
}

static Status applyShape(const Shape &shape, Settings &settings) {
  const std::map<std::string, Setter> &setters = getSetters();
  for (const auto &[key, value] : shape) {
    auto setter = setters.find(key);
    if (setter == setters.end()) {
      std::vector<std::string> known;
      for (const auto &entry : setters)
        known.push_back(entry.first);
      return Status::error("sparse_mla: unknown shape key '" + key +
                           "' (known: " + join(known) + ")");
    }
    if (!setter->second(value, settings))
      return Status::error("sparse_mla: bad value '" + value + "' for '" + key +
                           "'");
  }
  std::string error = validateSparseMLAConfig(settings.config);
  if (!error.empty())
    return Status::error("sparse_mla: " + error);
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// The kernel's arguments
//===----------------------------------------------------------------------===//

namespace {
/// Device memory for the inputs and outputs.
struct Buffers {
  DeviceBuffer q, kv, indices, out, maxLogits, lse, attnSink, topkLength;
};
} // namespace

/// The arguments in the kernel's order (SparseMLA.h); attn_sink,
/// topk_length and out_map only for a kernel that takes them. q alone may
/// be strided.
static void packArguments(const SparseMLAConfig &config, const Buffers &buffers,
                          size_t count, runtime::KernelArgs &args) {
  int64_t b = config.b, sq = config.sq, h = config.h;
  std::array<int64_t, 4> qStrides = getSparseMLAQStrides(config);
  args.addMemRef(buffers.q.address(), "bf16", {b, sq, h, config.dqk},
                 {qStrides.begin(), qStrides.end()});
  args.addMemRef(buffers.kv.address(), "bf16",
                 {b, config.skv, config.hkv, config.dqk});
  args.addMemRef(buffers.indices.address(), "i32",
                 {b, sq, config.hkv, config.topk});
  args.addMemRef(buffers.out.address(), "bf16", {b, sq, h, config.dv});
  args.addMemRef(buffers.maxLogits.address(), "f32", {b, sq, h});
  args.addMemRef(buffers.lse.address(), "f32", {b, sq, h});
  args.addF32(config.smScale);
  if (count < kOptionalArguments)
    return;
  args.addMemRef(buffers.attnSink.address(), "f32", {h});
  args.addMemRef(buffers.topkLength.address(), "i32", {config.rows()});
  if (count < kOutMapArguments)
    return;
  args.addTensorMap(buffers.out.address(), "bf16", {b * sq * h, config.dv});
}

/// The number of arguments tells whether the kernel takes the optional
/// ones; the runtime checks each (Problem::checkKernel).
static Status checkArgumentCount(const SparseMLAConfig &config,
                                 const runtime::KernelInfo &kernel) {
  size_t count = kernel.args.size();
  std::string where = "sparse_mla: kernel '" + kernel.name + "'";
  if (count == 0)
    return Status::error(where + " has no arguments in its metadata, so "
                                 "they cannot be checked");
  if (count != kBaseArguments && count != kOptionalArguments &&
      count != kOutMapArguments)
    return Status::error(
        where + " takes " + std::to_string(count) +
        " arguments; SparseMLA passes (q, kv, indices, out, max_logits, lse, "
        "sm_scale), optionally (attn_sink, topk_length) and after them "
        "optionally out_map");
  if (count == kBaseArguments && (config.attnSink || config.topkLength))
    return Status::error(where + " takes no attn_sink and topk_length, but "
                                 "the shape asks for sink=1 or topk_length=1");
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// Device transfers
//===----------------------------------------------------------------------===//

/// Runs `steps` in order up to the first that fails.
static Status runSteps(std::initializer_list<std::function<Status()>> steps) {
  for (const std::function<Status()> &step : steps)
    if (Status status = step(); !status)
      return status;
  return Status::ok();
}

template <typename T>
static Status download(runtime::Device &device, const DeviceBuffer &buffer,
                       std::vector<T> &host, size_t count) {
  host.resize(count);
  return device.download(host.data(), buffer, count * sizeof(T));
}

/// attn_sink and topk_length for a kernel that takes them: the generated
/// ones, or where the shape leaves them off, values that change nothing
/// (so that one kernel serves both).
static std::vector<float> getSinksToPass(const SparseMLAInputs &inputs) {
  if (inputs.config.attnSink)
    return inputs.attnSink;
  return std::vector<float>(inputs.config.h,
                            -std::numeric_limits<float>::infinity());
}

static std::vector<int32_t> getTopkLengthToPass(const SparseMLAInputs &inputs) {
  if (inputs.config.topkLength)
    return inputs.topkLength;
  return std::vector<int32_t>(inputs.config.rows(),
                              int32_t(inputs.config.topk));
}

static Status uploadInputs(runtime::Device &device,
                           const SparseMLAInputs &inputs, bool withOptional,
                           Buffers &buffers) {
  Status status = runSteps({
      [&] { return upload(device, inputs.q, buffers.q); },
      [&] { return upload(device, inputs.kv, buffers.kv); },
      [&] { return upload(device, inputs.indices, buffers.indices); },
  });
  if (!status || !withOptional)
    return status;
  return runSteps({
      [&] { return upload(device, getSinksToPass(inputs), buffers.attnSink); },
      [&] {
        return upload(device, getTopkLengthToPass(inputs), buffers.topkLength);
      },
  });
}

static Status allocateOutputs(runtime::Device &device,
                              const SparseMLAConfig &config, Buffers &buffers) {
  size_t stats = config.rows() * config.h;
  return runSteps({
      [&] {
        return device.allocate(stats * config.dv * sizeof(uint16_t),
                               buffers.out);
      },
      [&] { return device.allocate(stats * sizeof(float), buffers.maxLogits); },
      [&] { return device.allocate(stats * sizeof(float), buffers.lse); },
  });
}

static Status downloadOutputs(runtime::Device &device,
                              const SparseMLAConfig &config,
                              const Buffers &buffers,
                              SparseMLAOutputs &outputs) {
  size_t stats = config.rows() * config.h;
  return runSteps({
      [&] {
        return download(device, buffers.out, outputs.out, stats * config.dv);
      },
      [&] {
        return download(device, buffers.maxLogits, outputs.maxLogits, stats);
      },
      [&] { return download(device, buffers.lse, outputs.lse, stats); },
  });
}

//===----------------------------------------------------------------------===//
// The problem
//===----------------------------------------------------------------------===//

static void addMetrics(const SparseMLATensorReport &tensor,
                       std::map<std::string, double> &metrics) {
  metrics[tensor.name + "_max_abs_err"] = tensor.maxAbsError;
  metrics[tensor.name + "_max_rel_err"] = tensor.maxRelError;
  metrics[tensor.name + "_cos_diff"] = tensor.cosDiff;
  metrics[tensor.name + "_mismatches"] = double(tensor.mismatches);
}

namespace {
class SparseMLAProblem : public Problem {
public:
  SparseMLAProblem() : Problem("sparse_mla") {}
  Status configure(const Shape &shape) override;
  std::string describe() const override;
  Status prepare(runtime::Device &device, uint64_t seed,
                 const runtime::KernelInfo &kernel, runtime::KernelArgs &args,
                 unsigned grid[3]) override;
  Status poisonOutputs(runtime::Device &device) override;
  Status check(runtime::Device &device, CheckResult &result) override;
  /// Known once prepared (it counts the distinct kv rows gathered); 0 before.
  double bytesMoved() const override { return minimumBytes; }
  double flops() const override {
    return double(getSparseMLAFlops(settings.config));
  }

protected:
  Status checkKernelRules(const runtime::KernelInfo &kernel) const override {
    return checkArgumentCount(settings.config, kernel);
  }
  void packArguments(const runtime::KernelInfo &kernel,
                     runtime::KernelArgs &args) const override {
    ::packArguments(settings.config, buffers, kernel.args.size(), args);
  }

private:
  Settings settings;
  Buffers buffers;
  std::optional<SparseMLAInputs> inputs;
  /// Computed by the first check and kept for later ones.
  std::optional<SparseMLAReference> reference;
  double minimumBytes = 0;
};
} // namespace

Status SparseMLAProblem::configure(const Shape &shape) {
  Settings updated;
  if (Status status = applyShape(shape, updated); !status)
    return status;
  settings = updated;
  return Status::ok();
}

std::string SparseMLAProblem::describe() const {
  const SparseMLAConfig &config = settings.config;
  std::ostringstream os;
  os << "b=" << config.b << " sq=" << config.sq << " h=" << config.h
     << " topk=" << config.topk << " skv=" << config.skv
     << " invalid=" << config.invalidFraction
     << " empty=" << config.emptyRowFraction << " sink=" << config.attnSink
     << " topk_length=" << config.topkLength << " q_pad=" << config.qPad
     << " distribution="
     << (config.distribution == IndexDistribution::Random ? "random"
                                                          : "locality")
     << " rows_checked=" << settings.rowsChecked
     << " sm_scale=" << config.smScale;
  return os.str();
}

Status SparseMLAProblem::prepare(runtime::Device &device, uint64_t seed,
                                 const runtime::KernelInfo &kernel,
                                 runtime::KernelArgs &args, unsigned grid[3]) {
  const SparseMLAConfig &config = settings.config;
  bool withOptional = kernel.args.size() >= kOptionalArguments;
  inputs = generateSparseMLAInputs(config, seed);
  reference.reset();
  minimumBytes = getSparseMLAMinimumBytes(*inputs);
  Status status = runSteps({
      [&] { return uploadInputs(device, *inputs, withOptional, buffers); },
      [&] { return allocateOutputs(device, config, buffers); },
  });
  if (!status)
    return status;

  args.clear();
  packArguments(kernel, args);
  std::array<unsigned, 3> dims =
      getSparseMLAGrid(config, kernel.persistent, device.multiprocessorCount());
  std::copy(dims.begin(), dims.end(), grid);
  return args.check(kernel);
}

Status SparseMLAProblem::poisonOutputs(runtime::Device &device) {
  // All-ones bytes are NaN in bf16 and in f32: no correct kernel writes
  // them, and the scan in check() finds every one left.
  return runSteps({
      [&] { return device.fill(buffers.out, 0xFF); },
      [&] { return device.fill(buffers.maxLogits, 0xFF); },
      [&] { return device.fill(buffers.lse, 0xFF); },
  });
}

Status SparseMLAProblem::check(runtime::Device &device, CheckResult &result) {
  if (!inputs)
    return Status::error("sparse_mla: check before prepare");
  SparseMLAOutputs outputs;
  if (Status status =
          downloadOutputs(device, settings.config, buffers, outputs);
      !status)
    return status;
  if (!reference)
    reference = computeSparseMLAReference(
        *inputs, sampleSparseMLARows(*inputs, settings.rowsChecked));

  SparseMLAReport report = compareSparseMLA(*inputs, *reference, outputs);
  result.passed = report.passed();
  result.summary = report.summary();
  result.metrics.clear();
  result.metrics["rows_compared"] = double(report.rowsCompared);
  result.metrics["rows_scanned"] = double(report.rowsScanned);
  result.metrics["scan_errors"] = double(report.scanErrors);
  addMetrics(report.out, result.metrics);
  addMetrics(report.maxLogits, result.metrics);
  addMetrics(report.lse, result.metrics);
  return Status::ok();
}

std::unique_ptr<Problem> problems::createSparseMLAProblem() {
  return std::make_unique<SparseMLAProblem>();
}
