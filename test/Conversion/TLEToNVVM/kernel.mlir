// RUN: tle-opt %s --convert-scf-to-cf --convert-tle-to-nvvm --convert-nvvm-to-llvm --reconcile-unrealized-casts | FileCheck %s

// A whole kernel lowers in one conversion: nothing of the source dialects is
// left, the kernel attributes survive onto the llvm.func, and its signature
// records how the expanded parameters group into the kernel's arguments.
//
// The kernel is marked by `tle.block_size` (LLVM 22's NVVM dialect accepts
// `nvvm.kernel` only on llvm.func): the pass turns it into nvvm.kernel and
// the launch bounds nvvm.maxntid and nvvm.minctasm = 1.

// CHECK: llvm.mlir.global external @tle_dynamic_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// Each memref is (allocated, aligned, offset, sizes[2], strides[2]).
// CHECK-LABEL: llvm.func @k(
// CHECK-SAME: %arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: i64, %arg3: i64, %arg4: i64, %arg5: i64, %arg6: i64,
// CHECK-SAME: %arg7: !llvm.ptr, %arg8: !llvm.ptr, %arg9: i64, %arg10: i64, %arg11: i64, %arg12: i64, %arg13: i64,
// CHECK-SAME: %arg14: i64)
// CHECK-SAME: attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>, nvvm.minctasm = 1 : i32, tle.block_size = 128 : i32, tle.grid = "rows / 1", tle.kernel_signature = ["memref<?x256xf32>", "memref<?x256xf32>", "index"], tle.shared_memory_size = 2048 : i64}
// CHECK-NOT: = {{(tle|gpu|memref|vector|arith|scf|cf|math|index|func)\.}}
// CHECK-NOT: {{^ *(tle|gpu|memref|vector|arith|scf|cf|math|index|func)\.}}
// CHECK-NOT: unrealized_conversion_cast
// CHECK: nvvm.read.ptx.sreg.tid.x
// CHECK: nvvm.read.ptx.sreg.ctaid.x
// CHECK: llvm.mlir.addressof @tle_dynamic_smem
// CHECK: llvm.getelementptr %{{.*}}[0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: llvm.cond_br
// CHECK: llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f32
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> vector<4xf32>
// CHECK: llvm.store %{{.*}}, %{{.*}} : vector<4xf32>, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr
// CHECK: llvm.return
// CHECK-NOT: = {{(tle|gpu|memref|vector|arith|scf|cf|math|index|func)\.}}
// CHECK-NOT: {{^ *(tle|gpu|memref|vector|arith|scf|cf|math|index|func)\.}}
// CHECK-NOT: unrealized_conversion_cast
func.func @k(%in: memref<?x256xf32>, %out: memref<?x256xf32>, %n: index)
    attributes {tle.block_size = 128 : i32, tle.grid = "rows / 1",
                tle.shared_memory_size = 2048 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %tid = gpu.thread_id x
  %bid = gpu.block_id x
  %buf = tle.shared_alloc {offset = 0 : i64}
      : memref<2x128xf32, #gpu.address_space<workgroup>>
  scf.for %s = %c0 to %c2 step %c1 {
    %view = tle.slot %buf[%s] : memref<2x128xf32, #gpu.address_space<workgroup>>
        -> memref<128xf32, #gpu.address_space<workgroup>>
    %col = arith.muli %s, %c128 : index
    %v = vector.load %in[%bid, %col] : memref<?x256xf32>, vector<4xf32>
    vector.store %v, %view[%c0]
        : memref<128xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    gpu.barrier
    %x = memref.load %view[%tid] : memref<128xf32, #gpu.address_space<workgroup>>
    %c = arith.addi %col, %tid : index
    memref.store %x, %out[%bid, %c] : memref<?x256xf32>
  }
  return
}
