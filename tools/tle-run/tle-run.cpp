//===- tle-run.cpp - Run, check and time a TLE kernel on the GPU ----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// tle-run KERNEL(.mlir|.ptx|.cubin) --problem NAME [options]; see
// docs/Runtime.md. Everything that can be checked without a GPU (options,
// the --json file, problem, shape, kernel file, metadata, compilation, the
// kernel's arguments against the problem's) is checked before the device
// is opened,
// so that those errors show on any machine.
//
// Exit codes are the runtime's tle_rt_status: 0 ok, 1 check failed or any
// error, 2 no CUDA driver or device, 3 a launch outlived the watchdog.
//
//===----------------------------------------------------------------------===//

#include "Options.h"
#include "Report.h"

#include "tle/Support/Strings.h"

#ifdef TLE_RUN_WITH_COMPILER
#include "Compile.h"
#endif

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <unistd.h>

using namespace tle;
using namespace tle::run;
using problems::Problem;
using runtime::Status;

namespace {
/// The module to load: its image and its kernels.
struct KernelSource {
  std::string image;
  bool isPTX = true;
  std::vector<runtime::KernelInfo> kernels;
};
} // namespace

static int failWith(const Status &status);

static int fail(const std::string &message) {
  return failWith(Status::error(message));
}

static int usageError(const std::string &message) {
  std::fprintf(stderr, "tle-run: %s\nrun 'tle-run --help' for usage\n",
               message.c_str());
  return TLE_RT_ERROR;
}

/// Says why a runtime call failed and returns its code as the exit code. A
/// hung kernel keeps its context busy forever: tearing anything down would
/// block, so the process ends here without destructors.
static int failWith(const Status &status) {
  std::string message = status.message;
  if (status.code == TLE_RT_NO_DEVICE &&
      message.rfind("no CUDA device", 0) != 0)
    message = "no CUDA device: " + message;
  std::fprintf(stderr, "tle-run: %s\n", message.c_str());
  if (status.code != TLE_RT_HANG)
    return status.code;
  std::fflush(stdout);
  std::fflush(stderr);
  _exit(TLE_RT_HANG);
}

static bool endsWith(const std::string &text, const std::string &suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

//===----------------------------------------------------------------------===//
// The kernel
//===----------------------------------------------------------------------===//

static Status compileKernel(const Options &options, KernelSource &source) {
#ifdef TLE_RUN_WITH_COMPILER
  std::string metadata;
  if (Status s = compileMLIR(options.kernelPath, !options.noVerifyPipes,
                             source.image, metadata);
      !s)
    return s;
  source.isPTX = true;
  return runtime::parseKernelMetadata(metadata, source.kernels);
#else
  (void)source;
  return Status::error("this tle-run was built without the compiler "
                       "(TLE_RUNTIME_ONLY) and cannot compile '" +
                       options.kernelPath +
                       "'; compile it to .ptx with tle-opt and tle-translate");
#endif
}

static Status readKernel(const Options &options, KernelSource &source) {
  if (Status s = runtime::readFile(options.kernelPath, source.image); !s)
    return s;
  source.isPTX = runtime::isPTXImage(source.image);
  std::string path = options.metadataPath.empty()
                         ? runtime::defaultMetadataPath(options.kernelPath)
                         : options.metadataPath;
  std::string metadata;
  if (Status s = runtime::readFile(path, metadata); !s)
    return Status::error("no metadata for '" + options.kernelPath +
                         "': " + s.message +
                         " (tle-translate --tle-metadata=FILE writes it; "
                         "pass it with --metadata FILE)");
  return runtime::parseKernelMetadata(metadata, source.kernels);
}

static Status loadKernel(const Options &options, KernelSource &source) {
  if (endsWith(options.kernelPath, ".mlir"))
    return compileKernel(options, source);
  if (endsWith(options.kernelPath, ".ptx") ||
      endsWith(options.kernelPath, ".cubin"))
    return readKernel(options, source);
  return Status::error("'" + options.kernelPath +
                       "' is not a .mlir, .ptx or .cubin file");
}

static std::string kernelNames(const KernelSource &source) {
  std::vector<std::string> names;
  for (const runtime::KernelInfo &kernel : source.kernels)
    names.push_back(kernel.name);
  return join(names);
}

/// The kernel --kernel names, or the module's only one.
static Status selectKernel(const Options &options, const KernelSource &source,
                           const runtime::KernelInfo *&selected) {
  if (source.kernels.empty())
    return Status::error("'" + options.kernelPath + "' has no kernels");
  if (options.kernelName.empty()) {
    if (source.kernels.size() > 1)
      return Status::error("'" + options.kernelPath + "' has several " +
                           "kernels (" + kernelNames(source) +
                           "); pick one with --kernel");
    selected = &source.kernels.front();
    return Status::ok();
  }
  for (const runtime::KernelInfo &kernel : source.kernels)
    if (kernel.name == options.kernelName) {
      selected = &kernel;
      return Status::ok();
    }
  return Status::error("no kernel '" + options.kernelName + "' in '" +
                       options.kernelPath + "' (it has " + kernelNames(source) +
                       ")");
}

static void printKernel(const Options &options, const KernelSource &source,
                        const runtime::KernelInfo &kernel) {
  std::printf("tle-run: kernel %s from %s (%s): block %dx%dx%d, %lld B "
              "dynamic shared memory\n",
              kernel.name.c_str(), options.kernelPath.c_str(),
              endsWith(options.kernelPath, ".mlir") ? "compiled"
              : source.isPTX                        ? "PTX"
                                                    : "cubin",
              kernel.block[0], kernel.block[1], kernel.block[2],
              static_cast<long long>(kernel.dynamicSharedMemory));
  std::fflush(stdout);
}

//===----------------------------------------------------------------------===//
// Running
//===----------------------------------------------------------------------===//

/// Everything one run needs once the device is open.
struct Session {
  const Options &options;
  runtime::Device &device;
  runtime::Module &module;
  Problem &problem;
  std::string kernel;
  runtime::KernelArgs args;
  unsigned grid[3] = {1, 1, 1};
};

static Status checkOnce(Session &session, CheckResult &result) {
  Status s = session.problem.poisonOutputs(session.device);
  if (s)
    s = session.device.launch(session.module, session.kernel, session.grid,
                              session.args);
  if (s)
    s = session.problem.check(session.device, result);
  return s;
}

static Status runSession(Session &session, Report &report) {
  const Options &options = session.options;
  if (options.check) {
    CheckResult result;
    if (Status s = checkOnce(session, result); !s)
      return s;
    report.check = result;
  }
  if (options.bench) {
    runtime::Timing timing;
    if (Status s = session.device.time(session.module, session.kernel,
                                       session.grid, session.args,
                                       options.warmup, options.reps, timing);
        !s)
      return s;
    report.timing = timing;
    report.warmup = options.warmup;
  }
  return Status::ok();
}

static Status writeJSON(const std::string &path, const Report &report) {
  FILE *file = std::fopen(path.c_str(), "w");
  if (!file)
    return Status::error("cannot write '" + path + "'");
  std::string text = formatJSON(report);
  bool ok = std::fwrite(text.data(), 1, text.size(), file) == text.size();
  ok &= std::fclose(file) == 0;
  return ok ? Status::ok() : Status::error("cannot write '" + path + "'");
}

/// Fails unless `path` can be written, leaving no file behind that was not
/// there: a run may take minutes on the GPU before it writes the JSON.
static Status checkWritable(const std::string &path) {
  bool existed = access(path.c_str(), F_OK) == 0;
  FILE *file = std::fopen(path.c_str(), "a");
  if (!file)
    return Status::error("cannot write '" + path +
                         "': " + std::strerror(errno));
  std::fclose(file);
  if (!existed)
    std::remove(path.c_str());
  return Status::ok();
}

static void fillReport(const Session &session, Report &report) {
  report.kernel = session.kernel;
  report.kernelFile = session.options.kernelPath;
  report.problem = session.options.problem;
  report.shape = session.problem.describe();
  report.seed = session.options.seed;
  report.device = session.device.name();
  report.computeCapability = session.device.computeCapability();
  report.multiprocessors = session.device.multiprocessorCount();
  report.bytesMoved = session.problem.bytesMoved();
  report.flops = session.problem.flops();
}

/// `kernel` by value: loading the module takes the kernels from `source`.
static int runOnDevice(const Options &options, KernelSource &source,
                       std::string kernel, Problem &problem) {
  std::unique_ptr<runtime::Device> device;
  if (Status s = runtime::Device::open(options.device, device); !s)
    return failWith(s);
  device->setWatchdog(options.watchdogSeconds);
  std::unique_ptr<runtime::Module> module;
  if (Status s = device->loadModule(source.image, source.isPTX,
                                    std::move(source.kernels), module);
      !s)
    return failWith(s);
  if (options.verbose && !module->jitLog().empty())
    std::printf("tle-run: driver JIT log:\n%s\n", module->jitLog().c_str());

  Session session{options, *device, *module, problem, kernel, {}, {1, 1, 1}};
  if (Status s =
          problem.prepare(*device, options.seed, *module->findKernel(kernel),
                          session.args, session.grid);
      !s)
    return failWith(s);
  Report report;
  if (Status s = runSession(session, report); !s)
    return failWith(s);
  fillReport(session, report);
  std::fputs(formatTable(report).c_str(), stdout);
  if (!options.jsonPath.empty())
    if (Status s = writeJSON(options.jsonPath, report); !s)
      return fail(s.message);
  return report.check && !report.check->passed ? TLE_RT_ERROR : TLE_RT_OK;
}

static int probe(const Options &options) {
  std::unique_ptr<runtime::Device> device;
  if (Status s = runtime::Device::open(options.device, device); !s)
    return failWith(s);
  int version = device->driverVersion();
  std::printf("%s (sm_%d, %d SMs, driver %d.%d)\n", device->name().c_str(),
              device->computeCapability(), device->multiprocessorCount(),
              version / 1000, version % 1000 / 10);
  return TLE_RT_OK;
}

static int runKernel(const Options &options) {
  if (!options.jsonPath.empty())
    if (Status s = checkWritable(options.jsonPath); !s)
      return fail(s.message);
  std::unique_ptr<Problem> problem = problems::createProblem(options.problem);
  if (!problem)
    return fail("unknown problem '" + options.problem + "' (known problems: " +
                join(problems::getProblemNames()) + ")");
  if (Status s = problem->configure(options.shape); !s)
    return fail(s.message);
  KernelSource source;
  if (Status s = loadKernel(options, source); !s)
    return fail(s.message);
  const runtime::KernelInfo *kernel = nullptr;
  if (Status s = selectKernel(options, source, kernel); !s)
    return fail(s.message);
  printKernel(options, source, *kernel);
  // The last check that needs no GPU: on a machine without one, a kernel
  // that does not fit the problem is an error (1), not "no device" (2).
  if (Status s = problem->checkKernel(*kernel); !s)
    return fail(s.message);
  return runOnDevice(options, source, kernel->name, *problem);
}

int main(int argc, char **argv) {
  Options options;
  if (Status s = parseOptions({argv + 1, argv + argc}, options); !s)
    return usageError(s.message);
  if (options.help) {
    std::fputs(getUsage().c_str(), stdout);
    return TLE_RT_OK;
  }
  if (options.listProblems) {
    for (const std::string &name : problems::getProblemNames())
      std::printf("%s\n", name.c_str());
    return TLE_RT_OK;
  }
  if (options.probe)
    return probe(options);
  return runKernel(options);
}
