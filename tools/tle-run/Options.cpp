//===- Options.cpp - tle-run's command line -------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Options.h"

#include "tle/Support/Strings.h"

#include <limits>
#include <utility>

using namespace tle;
using namespace tle::run;
using runtime::Status;

std::string run::getUsage() {
  return R"(usage: tle-run KERNEL --problem NAME [options]
       tle-run --probe [--device N]
       tle-run --list-problems

Runs a TLE kernel on the GPU with the inputs of a named problem, checks its
outputs against a CPU reference and times it.

KERNEL is a .ptx or .cubin file with tle-translate's metadata beside it
(KERNEL with the extension replaced by .json), or a .mlir file that tle-run
compiles itself (only when built with the compiler).

options:
  --problem NAME        the problem that makes the inputs and checks outputs
  --kernel NAME         the kernel to run when the module has several
  --metadata FILE       the metadata JSON (default: KERNEL as .json)
  --shape k=v,...       the problem's sizes (see docs/Runtime.md)
  --seed N              seed of the random inputs (default 1)
  --check               run once and compare every output with the reference
  --bench               time the kernel (with --check: after the check)
  --warmup N            untimed launches before timing (default 10)
  --reps N              timed launches; the median is reported (default 100)
  --watchdog SECONDS    a launch running longer is a hang: exit 3 (default 10)
  --json FILE           also write the results as JSON
  --device N            the CUDA device to use (default 0)
  --no-verify-pipes     compile .mlir without the pipe protocol check
  --verbose             also print the driver JIT's log
  --probe               print the device and exit 0 (2 without a device)
  --list-problems       print the known problems
  --help                print this text

Without --check and --bench, tle-run checks.
exit codes: 0 ok, 1 check failed or error, 2 no CUDA device, 3 hang
)";
}

/// A whole string as a number in [min, max].
static bool parseInteger(const std::string &text, int64_t min, int64_t max,
                         int64_t &value) {
  return tle::parseInteger(text, value) && value >= min && value <= max;
}

static bool parseSeconds(const std::string &text, double &value) {
  return parseReal(text, value) && value > 0;
}

Status run::parseShape(const std::string &text, Shape &shape) {
  if (text.empty())
    return Status::error("--shape needs k=v pairs, e.g. --shape n=64,ctas=8");
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos)
      comma = text.size();
    std::string item = text.substr(start, comma - start);
    size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      return Status::error("--shape: '" + item +
                           "' is not of the form key=value");
    std::string key = item.substr(0, eq);
    if (!shape.emplace(key, item.substr(eq + 1)).second)
      return Status::error("--shape: '" + key + "' is given twice");
    start = comma + 1;
  }
  return Status::ok();
}

namespace {
/// Walks the arguments; `--name=value` and `--name value` both work.
class Parser {
public:
  Parser(const std::vector<std::string> &args, Options &options)
      : args(args), options(options) {}

  Status run() {
    for (index = 0; index < args.size(); ++index)
      if (Status s = parseOne(args[index]); !s)
        return s;
    return validate();
  }

private:
  Status parseOne(const std::string &arg) {
    if (arg.size() < 2 || arg[0] != '-')
      return setKernel(arg);
    std::string name = arg, inlineValue;
    bool hasValue = false;
    size_t eq = arg.find('=');
    if (arg.compare(0, 2, "--") == 0 && eq != std::string::npos) {
      name = arg.substr(0, eq);
      inlineValue = arg.substr(eq + 1);
      hasValue = true;
    }
    if (bool *flag = findFlag(name)) {
      if (hasValue)
        return Status::error(name + " takes no value");
      *flag = true;
      return Status::ok();
    }
    std::string value;
    if (Status s = takeValue(name, hasValue, inlineValue, value); !s)
      return s;
    return parseValued(name, value);
  }

  Status setKernel(const std::string &path) {
    if (!options.kernelPath.empty())
      return Status::error("more than one kernel file: '" + options.kernelPath +
                           "' and '" + path + "'");
    options.kernelPath = path;
    return Status::ok();
  }

  /// The option without a value called `name`, or null.
  bool *findFlag(const std::string &name) {
    const std::pair<const char *, bool *> flags[] = {
        {"--help", &options.help},
        {"-h", &options.help},
        {"--list-problems", &options.listProblems},
        {"--probe", &options.probe},
        {"--check", &options.check},
        {"--bench", &options.bench},
        {"--no-verify-pipes", &options.noVerifyPipes},
        {"--verbose", &options.verbose},
        {"-v", &options.verbose}};
    for (const auto &flag : flags)
      if (name == flag.first)
        return flag.second;
    return nullptr;
  }

  Status takeValue(const std::string &name, bool hasValue,
                   const std::string &inlineValue, std::string &value) {
    if (!isValued(name))
      return Status::error("unknown option '" + name + "'");
    if (hasValue) {
      value = inlineValue;
      return Status::ok();
    }
    if (index + 1 >= args.size())
      return Status::error(name + " needs a value");
    value = args[++index];
    return Status::ok();
  }

  static bool isValued(const std::string &name) {
    for (const char *option :
         {"--problem", "--kernel", "--metadata", "--shape", "--seed",
          "--warmup", "--reps", "--watchdog", "--json", "--device"})
      if (name == option)
        return true;
    return false;
  }

  Status parseValued(const std::string &name, const std::string &value) {
    if (name == "--problem")
      options.problem = value;
    else if (name == "--kernel")
      options.kernelName = value;
    else if (name == "--metadata")
      options.metadataPath = value;
    else if (name == "--json")
      options.jsonPath = value;
    else if (name == "--shape")
      return parseShape(value, options.shape);
    else
      return parseNumber(name, value);
    if (value.empty())
      return Status::error(name + " needs a non-empty value");
    return Status::ok();
  }

  Status parseNumber(const std::string &name, const std::string &value) {
    int64_t n = 0;
    const int64_t intMax = std::numeric_limits<int>::max();
    bool ok;
    if (name == "--seed") {
      ok = parseUnsigned(value, options.seed);
    } else if (name == "--watchdog") {
      ok = parseSeconds(value, options.watchdogSeconds);
    } else {
      int64_t min = name == "--reps" ? 1 : 0;
      ok = parseInteger(value, min, intMax, n);
      int &target = name == "--warmup" ? options.warmup
                    : name == "--reps" ? options.reps
                                       : options.device;
      target = static_cast<int>(n);
      seen.push_back(name);
    }
    if (ok)
      return Status::ok();
    const char *expected = name == "--watchdog" ? "a positive number of seconds"
                           : name == "--reps"   ? "a positive integer"
                                                : "a non-negative integer";
    return Status::error(name + " needs " + expected + ", not '" + value + "'");
  }

  bool wasGiven(const std::string &name) const {
    for (const std::string &option : seen)
      if (option == name)
        return true;
    return false;
  }

  Status validate() const {
    if (options.help || options.listProblems || options.probe)
      return Status::ok();
    if (options.kernelPath.empty())
      return Status::error("no kernel file given");
    if (options.problem.empty())
      return Status::error("--problem is required");
    if (!options.bench && (wasGiven("--warmup") || wasGiven("--reps")))
      return Status::error("--warmup and --reps need --bench");
    return Status::ok();
  }

  const std::vector<std::string> &args;
  Options &options;
  size_t index = 0;
  std::vector<std::string> seen;
};
} // namespace

Status run::parseOptions(const std::vector<std::string> &args,
                         Options &options) {
  Status status = Parser(args, options).run();
  if (status && !options.check && !options.bench)
    options.check = true;
  return status;
}
