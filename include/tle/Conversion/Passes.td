//===- Passes.td - TLE conversion passes -------------------*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TLE_CONVERSION_PASSES
#define TLE_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def ConvertTLEToNVVM : Pass<"convert-tle-to-nvvm", "ModuleOp"> {
  let summary = "Lowers a kernel module to the LLVM dialect with NVVM";
  let description = [{
    Converts what the TLE passes leave — `tle.shared_alloc` with its
    `offset`, `tle.slot`, the `tle.mbarrier_*` ops — together with the
    upstream dialects kernels use (arith, math, index, memref, vector, cf,
    func, gpu thread/block ids, nvgpu cp.async) to the LLVM dialect and
    NVVM, in one conversion with one type converter. Shared buffers become
    addresses in one external `addrspace(3)` array, `@tle_dynamic_smem`,
    aligned to 1024 bytes, which the launch sizes as dynamic shared memory.
    Run `convert-scf-to-cf` first and `convert-nvvm-to-llvm` and
    `reconcile-unrealized-casts` after (the `tle-to-llvm` pipeline does).

    Before:

    ```mlir
    %lo = tle.shared_alloc {offset = 1024 : i64} : memref<2x128xf32, 3>
    %v = tle.slot %lo[%s] : memref<2x128xf32, 3> -> memref<128xf32, 3>
    tle.mbarrier_wait %full[%s], %p : memref<2xi64, 3>
    ```

    After:

    ```mlir
    %base = llvm.mlir.addressof @tle_dynamic_smem : !llvm.ptr<3>
    %lo = llvm.getelementptr %base[1024] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
    ...
    nvvm.mbarrier.try_wait.parity %bar, %p32, %ticks : !llvm.ptr<3>, i32, i32
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

#endif // TLE_CONVERSION_PASSES
