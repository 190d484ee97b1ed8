//===- PTX.h - Translation of TLE kernels to PTX and cubin ------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The last step of the TLE flow: a module in the LLVM dialect with NVVM ops
// and attributes (the output of `tle-opt --tle-to-llvm`) becomes PTX through
// LLVM's NVPTX backend, and a cubin through the CUDA toolkit's ptxas. The
// launch facts a runtime needs (block size, dynamic shared memory, parameter
// types) are collected as JSON next to it.
//
// Chip and PTX ISA version. The default target is `sm_90a` with `+ptx86`,
// i.e. PTX ISA 8.6. LLVM 22's NVPTX backend knows PTX 3.2 up to 9.0
// (`+ptx32` .. `+ptx90`); `sm_90a` needs at least 8.0 (LLVM refuses lower
// versions for it), the first version with the Hopper instructions TLE
// emits (setmaxnreg, mbarrier expect-tx, cp.async.bulk, wgmma). 8.6 adds
// the one-directional proxy fence `fence.proxy.async::generic.acquire`
// that the readers of cp.async data issue before the tensor cores read it
// (tle-place-proxy-fences): sound by the ISA, and free in SASS where the
// bidirectional fence costs a memory barrier (docs/SyncDerivation.md). So
// the default is 8.6, which ptxas and drivers accept from CUDA 12.8 on;
// `+ptx80` still translates a kernel built with
// `--tle-to-llvm=proxy-fence-form=bidirectional`.
// `sm_90a`, not `sm_90`: setmaxnreg and wgmma exist only on the
// architecture-specific target.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_TARGET_PTX_H
#define TLE_TARGET_PTX_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>

namespace mlir {
class DialectRegistry;

namespace tle {

/// The default NVPTX target: Hopper with its architecture-specific
/// instructions.
constexpr llvm::StringLiteral kDefaultChip = "sm_90a";

/// The default NVPTX features: PTX ISA 8.6, the first with the readers'
/// one-directional proxy fence.
constexpr llvm::StringLiteral kDefaultFeatures = "+ptx86";

/// The PTX ISA version that kDefaultFeatures selects.
constexpr llvm::StringLiteral kDefaultPTXVersion = "8.6";

/// Adds the dialects a kernel module is made of (builtin, LLVM, NVVM) and
/// their translations to LLVM IR.
void registerPTXTranslationDialects(DialectRegistry &registry);

/// Translates `module` (LLVM dialect with NVVM) to PTX for `chip` with the
/// NVPTX `features` (comma separated, e.g. "+ptx80"), optimizing at O3.
/// Failures, including LLVM backend errors such as an instruction the chip
/// lacks, are reported as diagnostics on the module.
FailureOr<std::string>
translateModuleToPTX(ModuleOp module, StringRef chip = kDefaultChip,
                     StringRef features = kDefaultFeatures);

/// The PTX ISA version that a PTX text declares (`.version 8.0` gives
/// "8.0"), or nullopt when it declares none.
std::optional<std::string> getPTXVersion(StringRef ptx);

/// Assembles `ptx` for `chip` with ptxas and returns the cubin. ptxas is
/// found through the TLE_PTXAS environment variable, else PATH, else
/// /usr/local/cuda/bin/ptxas. It runs with -v; its output (the resource
/// usage and any warnings) goes to `log` when given, and its warnings are
/// also reported as warnings at `loc`. Failures are errors at `loc`.
FailureOr<std::string> assembleWithPtxas(StringRef ptx, StringRef chip,
                                         Location loc,
                                         std::string *log = nullptr);

/// Describes the kernels (llvm.func with `nvvm.kernel`) of `module` for a
/// launcher, with the keys of tle/Support/KernelMetadataFormat.h:
///
///   {"chip": "sm_90a", "ptx_version": "8.0", "kernels": [
///     {"name": "k", "block": [128, 1, 1], "dynamic_shared_memory": 1024,
///      "params": ["ptr", "ptr", "i64", "i64", "i64", "i32"],
///      "args": [{"kind": "memref", "type": "memref<?xf32>",
///                "element_type": "f32", "sizes": [-1],
///                "layout": "identity"}, {"kind": "i32", "type": "i32"}],
///      "grid": "n / 128"}]}
///
/// `block` comes from `nvvm.maxntid` (required), `dynamic_shared_memory`
/// from TLEDialect::kSharedMemorySizeAttrName (0 when absent), `params` are the
/// LLVM parameter types (every pointer is "ptr"), `args` describes each type
/// of TLEDialect::kKernelSignatureAttrName and `grid` is copied from
/// kGridAttrName, when present. A signature type that a launch cannot pass
/// is an error at the kernel.
FailureOr<llvm::json::Object>
getKernelMetadata(ModuleOp module, StringRef chip = kDefaultChip,
                  StringRef ptxVersion = kDefaultPTXVersion);

/// Registers the `--tle-to-ptx` and `--tle-to-cubin` translations and
/// their options (`--tle-chip`, `--tle-features`, `--tle-metadata`,
/// `--tle-ptxas-log`).
void registerTLETranslations();

} // namespace tle
} // namespace mlir

#endif // TLE_TARGET_PTX_H
