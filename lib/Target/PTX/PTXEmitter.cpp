//===- PTXEmitter.cpp - LLVM-dialect modules to PTX -----------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// MLIR's LLVM IR export followed by LLVM's O3 pipeline and the NVPTX
// backend's assembly printer.
//
//===----------------------------------------------------------------------===//

#include "tle/Target/PTX.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/Threading.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"

using namespace mlir;

static constexpr llvm::StringLiteral kNVPTXTriple = "nvptx64-nvidia-cuda";

void tle::registerPTXTranslationDialects(DialectRegistry &registry) {
  registry.insert<LLVM::LLVMDialect, NVVM::NVVMDialect>();
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}

/// Only the NVPTX backend is linked in, so only it is initialized; doing it
/// once keeps repeated translations cheap and thread safe.
static void initializeNVPTXBackend() {
  static llvm::once_flag initialized;
  llvm::call_once(initialized, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

/// Lists the names of `table` (processors or features) for an error
/// message.
template <typename KV> static std::string joinNames(ArrayRef<KV> table) {
  SmallVector<StringRef> names;
  for (const KV &entry : table)
    names.push_back(entry.Key);
  return llvm::join(names, ", ");
}

/// Checks the chip and features against the NVPTX tables first: LLVM only
/// warns about unknown ones on stderr and then generates code for a
/// different target than the one asked for.
static LogicalResult verifyTarget(ModuleOp module, const llvm::Target &target,
                                  StringRef chip, StringRef features) {
  std::unique_ptr<llvm::MCSubtargetInfo> info(
      target.createMCSubtargetInfo(llvm::Triple(kNVPTXTriple), "", ""));
  if (!info->isCPUStringValid(chip))
    return emitError(module.getLoc())
           << "unknown NVPTX chip '" << chip << "'; known chips: "
           << joinNames(info->getAllProcessorDescriptions());

  SmallVector<StringRef> list;
  features.split(list, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (StringRef feature : list) {
    StringRef name = feature.trim();
    bool hasSign = name.consume_front("+") || name.consume_front("-");
    bool known = llvm::any_of(
        info->getAllProcessorFeatures(),
        [&](const llvm::SubtargetFeatureKV &kv) { return name == kv.Key; });
    if (!hasSign || !known)
      return emitError(module.getLoc())
             << "invalid NVPTX feature '" << feature.trim()
             << "': expected '+' or '-' and one of "
             << joinNames(info->getAllProcessorFeatures());
  }
  return success();
}

/// MLIR's export translates any other op in the module body as if it were
/// inside a function, which crashes on an instruction (e.g. a stray
/// nvvm.barrier0), and it skips nested modules without a word.
static LogicalResult verifyModuleLevelOps(ModuleOp module) {
  for (Operation &op : module.getBody()->getOperations()) {
    if (isa<LLVM::LLVMFuncOp, LLVM::GlobalOp, LLVM::GlobalCtorsOp,
            LLVM::GlobalDtorsOp, LLVM::AliasOp, LLVM::IFuncOp, LLVM::ComdatOp,
            LLVM::ModuleFlagsOp, LLVM::LinkerOptionsOp>(op))
      continue;
    return emitError(op.getLoc())
           << "'" << op.getName() << "' cannot be translated at module "
           << "level; a kernel module holds llvm.func, llvm.mlir.global and "
              "other LLVM module-level ops";
  }
  return success();
}

/// The libdevice bitcode of the CUDA toolkit: $TLE_LIBDEVICE, else under
/// $CUDA_HOME, else under /usr/local/cuda.
static std::string findLibdevice() {
  if (std::optional<std::string> path =
          llvm::sys::Process::GetEnv("TLE_LIBDEVICE"))
    return *path;
  std::string home =
      llvm::sys::Process::GetEnv("CUDA_HOME").value_or("/usr/local/cuda");
  SmallString<128> path(home);
  llvm::sys::path::append(path, "nvvm", "libdevice", "libdevice.10.bc");
  return std::string(path);
}

/// Math the NVPTX backend has no instruction for (exp, log, tanh, ...) is
/// lowered to calls of libdevice's __nv_* functions; link the ones the
/// module uses, so that the PTX has no unresolved externs.
static LogicalResult linkLibdevice(ModuleOp module, llvm::Module &llvmModule) {
  std::string used;
  for (const llvm::Function &function : llvmModule)
    if (function.isDeclaration() && function.getName().starts_with("__nv_"))
      used = function.getName().str();
  if (used.empty())
    return success();
  std::string path = findLibdevice();
  llvm::SMDiagnostic error;
  std::unique_ptr<llvm::Module> libdevice =
      llvm::parseIRFile(path, error, llvmModule.getContext());
  if (!libdevice)
    return emitError(module.getLoc())
           << "the kernel calls " << used << ", which comes from CUDA's "
           << "libdevice, but '" << path << "' cannot be read ("
           << error.getMessage() << "); set TLE_LIBDEVICE or CUDA_HOME";
  // Both sides get the NVPTX triple and libdevice's layout so that the
  // linker does not warn; emitPTX sets the target machine's layout after.
  llvm::Triple triple(kNVPTXTriple);
  libdevice->setTargetTriple(triple);
  llvmModule.setTargetTriple(triple);
  llvmModule.setDataLayout(libdevice->getDataLayout());
  if (llvm::Linker::linkModules(llvmModule, std::move(libdevice),
                                llvm::Linker::Flags::LinkOnlyNeeded))
    return emitError(module.getLoc())
           << "cannot link libdevice '" << path << "' into the kernel module";
  return success();
}

/// Runs `fn`, turning LLVM fatal errors into a failure with `message`
/// instead of an exit of the whole process. The NVPTX backend reports
/// user-level problems this way: a PTX version below the chip's minimum
/// ("PTX version 7.8 does not support target 'sm_90a'") or an intrinsic the
/// chip lacks ("Cannot select: intrinsic %llvm.nvvm.setmaxnreg...").
/// Crash recovery unwinds with longjmp, like clang's, so objects that `fn`
/// owned when it failed are leaked rather than destroyed.
static LogicalResult runRecoveringFatalErrors(llvm::function_ref<void()> fn,
                                              std::string &message) {
  // Enabling is idempotent; a signal outside a recovery context still
  // reaches the previous handlers.
  llvm::CrashRecoveryContext::Enable();
  auto handler = [](void *data, const char *reason, bool) {
    *static_cast<std::string *>(data) = reason;
    if (llvm::CrashRecoveryContext *context =
            llvm::CrashRecoveryContext::GetCurrent())
      context->HandleExit(/*RetCode=*/1);
  };
  llvm::ScopedFatalErrorHandler scopedHandler(handler, &message);
  llvm::CrashRecoveryContext context;
  if (context.RunSafely(fn))
    return success();
  if (message.empty())
    message = "the NVPTX backend crashed (exit code " +
              std::to_string(context.RetCode) + ")";
  return failure();
}

/// Runs LLVM's O3 pipeline with the NVPTX target's own passes (e.g.
/// NVVMReflect, address-space inference) registered through the machine.
static void optimize(llvm::Module &module, llvm::TargetMachine &machine) {
  llvm::LoopAnalysisManager loopAM;
  llvm::FunctionAnalysisManager functionAM;
  llvm::CGSCCAnalysisManager cgsccAM;
  llvm::ModuleAnalysisManager moduleAM;
  llvm::PassBuilder builder(&machine);
  builder.registerModuleAnalyses(moduleAM);
  builder.registerCGSCCAnalyses(cgsccAM);
  builder.registerFunctionAnalyses(functionAM);
  builder.registerLoopAnalyses(loopAM);
  builder.crossRegisterProxies(loopAM, functionAM, cgsccAM, moduleAM);
  llvm::ModulePassManager passes =
      builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  passes.run(module, moduleAM);
}

/// Optimizes `llvmModule` and prints it as PTX into `ptx`; returns false
/// when the backend cannot emit assembly at all.
static bool emitPTX(llvm::Module &llvmModule, const llvm::Target &target,
                    StringRef chip, StringRef features, std::string &ptx) {
  llvm::Triple triple(kNVPTXTriple);
  std::unique_ptr<llvm::TargetMachine> machine(target.createTargetMachine(
      triple, chip, features, llvm::TargetOptions(), std::nullopt, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  llvmModule.setTargetTriple(triple);
  llvmModule.setDataLayout(machine->createDataLayout());
  optimize(llvmModule, *machine);

  llvm::raw_string_ostream os(ptx);
  llvm::buffer_ostream buffer(os);
  llvm::legacy::PassManager codegen;
  if (machine->addPassesToEmitFile(codegen, buffer, /*DwoOut=*/nullptr,
                                   llvm::CodeGenFileType::AssemblyFile))
    return false;
  codegen.run(llvmModule);
  return true;
}

FailureOr<std::string>
tle::translateModuleToPTX(ModuleOp module, StringRef chip, StringRef features) {
  // The caller's context may lack the translation interfaces.
  DialectRegistry registry;
  registerPTXTranslationDialects(registry);
  module->getContext()->appendDialectRegistry(registry);

  initializeNVPTXBackend();
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(llvm::Triple(kNVPTXTriple), error);
  if (!target)
    return emitError(module.getLoc())
           << "the NVPTX backend is unavailable: " << error;
  if (failed(verifyTarget(module, *target, chip, features)))
    return failure();

  if (failed(verifyModuleLevelOps(module)))
    return failure();
  auto llvmContext = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, *llvmContext, "tle");
  if (!llvmModule)
    return emitError(module.getLoc())
           << "cannot translate the module to LLVM IR; everything must be "
              "lowered to the LLVM and NVVM dialects first";

  if (failed(linkLibdevice(module, *llvmModule)))
    return failure();

  std::string ptx;
  bool emitted = false;
  if (failed(runRecoveringFatalErrors(
          [&] { emitted = emitPTX(*llvmModule, *target, chip, features, ptx); },
          error))) {
    // The backend stopped halfway through the module; tearing it down
    // could touch that state, so the IR and its context are leaked.
    (void)llvmModule.release();
    (void)llvmContext.release();
    InFlightDiagnostic diag = emitError(module.getLoc())
                              << "PTX generation for " << chip << " ("
                              << features << ") failed: " << error;
    // Instruction selection fails this way on an intrinsic the chip lacks.
    if (StringRef(error).starts_with("Cannot select"))
      diag.attachNote() << "the kernel uses an instruction that " << chip
                        << " does not have (setmaxnreg and wgmma need sm_90a)";
    return diag;
  }
  if (!emitted)
    return emitError(module.getLoc())
           << "the NVPTX backend cannot emit assembly for " << chip;
  return ptx;
}

std::optional<std::string> tle::getPTXVersion(StringRef ptx) {
  SmallVector<StringRef> lines;
  ptx.split(lines, '\n');
  for (StringRef line : lines) {
    line = line.trim();
    if (line.consume_front(".version"))
      return line.trim().str();
  }
  return std::nullopt;
}
