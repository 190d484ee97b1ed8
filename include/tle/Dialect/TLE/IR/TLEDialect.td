//===- TLEDialect.td - TLE dialect definition --------------*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The `tle` dialect: declared producer/consumer pipes between the warp groups
// of one CTA, and the op that places code on those warp groups.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_DIALECT
#define TLE_DIALECT

include "mlir/IR/OpBase.td"

def TLE_Dialect : Dialect {
  let name = "tle";
  let cppNamespace = "::mlir::tle";
  let summary = "Warp-specialized kernels with declared shared-memory pipes";
  let description = [{
    TLE describes warp-specialized kernels for NVIDIA Hopper (sm_90a). A kernel
    author states *what* is handed from one warp group to another and leaves
    *how* it is synchronized to the compiler:

    * `tle.warp_specialize` splits one CTA into partitions, each a region run
      by its own warps with its own register budget.
    * `tle.pipe` declares a typed edge between partitions: shared-memory
      buffers ("fields") whose leading dimension is the pipe's capacity, and
      the named readers that consume them.
    * The writer partition brackets each slot with `tle.acquire` and
      `tle.commit`; every reader brackets its use with `tle.wait` and
      `tle.release`. Each of these ops names the logical iteration it is
      working on; the compiler maps iterations to slots and phase parities.

    From these declarations the compiler derives the mbarriers, their arrive
    counts and transaction bytes, the parity used at each wait, the proxy
    fences, the named barriers and the `setmaxnreg` register split. The
    rationale is in docs/Rationale.md.
  }];

  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// The barriers --tle-infer-arrive-counts derived for a tle.pipe: an
    /// array of #tle.barrier, the full barrier first.
    static constexpr ::llvm::StringLiteral kBarriersAttrName = "tle.barriers";
    /// On a kernel function: the threads per CTA, set when warp
    /// specialization is lowered (becomes nvvm.maxntid).
    static constexpr ::llvm::StringLiteral kBlockSizeAttrName =
        "tle.block_size";
    /// On a kernel function: bytes of dynamic shared memory it needs.
    static constexpr ::llvm::StringLiteral kSharedMemorySizeAttrName =
        "tle.shared_memory_size";
    /// On a kernel function: its argument types before lowering, as strings,
    /// so a runtime knows how the LLVM parameters group.
    static constexpr ::llvm::StringLiteral kKernelSignatureAttrName =
        "tle.kernel_signature";
    /// On a kernel function: how its grid follows from the problem, for the
    /// kernel's metadata (free text written by the author).
    static constexpr ::llvm::StringLiteral kGridAttrName = "tle.grid";
    /// On a kernel function (a unit attribute): the kernel takes its work
    /// items in a loop over its CTA's linear id, is correct under any
    /// grid, and wants at most one CTA per multiprocessor.
    static constexpr ::llvm::StringLiteral kPersistentAttrName =
        "tle.persistent";
    /// On a kernel function: "readers" (the default) or "none", whether a
    /// reader fences cp.async data before the async proxy reads it
    /// (docs/SyncDerivation.md, proxy fences).
    static constexpr ::llvm::StringLiteral kCpAsyncFenceAttrName =
        "tle.cp_async_fence";
  }];
}

class TLE_Op<string mnemonic, list<Trait> traits = []>
    : Op<TLE_Dialect, mnemonic, traits>;

#endif // TLE_DIALECT
