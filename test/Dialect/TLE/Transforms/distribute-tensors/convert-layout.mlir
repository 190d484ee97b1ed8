// RUN: tle-opt %s --tle-distribute-tensors -split-input-file -verify-diagnostics | FileCheck %s --enable-var-scope

// --tle-distribute-tensors on tle.convert_layout (ConvertLayout.cpp):
// nothing where every thread keeps its elements, else a scratch buffer.
// Function arguments and results stay out of it (the pass converts bodies
// only), so values come from constants or loop-carried arguments, which
// also keeps the conversion from folding them away.

// #tle.mma -> #tle.mma_operand with one warp group per row block moves no
// data: the vector passes through unchanged.
// CHECK-LABEL: func.func @convert_layout
// CHECK: scf.for {{.*}} iter_args(%[[P:.*]] = %{{.*}}) -> (vector<8xbf16>)
// CHECK-NEXT: arith.negf %[[P]] : vector<8xbf16>
// CHECK-NOT: tle.convert_layout
#acc = #tle.mma<warp_groups = [1, 1]>
#opnd = #tle.mma_operand<warp_groups = [1, 1]>
func.func @convert_layout(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = arith.constant dense<1.0> : tensor<64x16xbf16, #acc>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%p = %init) -> tensor<64x16xbf16, #acc> {
    %a = tle.convert_layout %p : tensor<64x16xbf16, #acc> -> tensor<64x16xbf16, #opnd>
    %neg = arith.negf %a : tensor<64x16xbf16, #opnd>
    scf.yield %p : tensor<64x16xbf16, #acc>
  }
  return
}

// -----

// #tle.mma -> #tle.mma_operand with two warp groups along N moves data:
// warp group g holds accumulator columns [32g, 32g + 32) but A's full 64
// columns. The tile goes through a row-major [64, 72] bf16 scratch buffer
// (rows padded by 16 bytes, so that the 8 rows of a matrix fall in
// different banks) as 8x8 matrices (matrix-load-store.mlir): each lane
// gives the address of row l % 8 + 8 (l / 8 mod 2) of its warp's 16 and
// column 8 (l / 16 mod 2), plus 32 x (warp / 4 mod 2) for the accumulator,
// the warp index taken from lane 0 so that ptxas knows it is warp-uniform.
// Two stmatrix.x4 store the thread's 16 bf16, 32 bytes apart; after a
// barrier four ldmatrix.x4 load the operand's 32. Not in a loop: no
// trailing barrier.
// CHECK-LABEL: func.func @convert_through_scratch
// CHECK-NEXT: %[[SCRATCH:.*]] = tle.shared_alloc {name = "scratch"} : memref<64x72xbf16, #gpu.address_space<workgroup>>
// Rows: 16 x (warp mod 4) + lane mod 8 + 8 x (lane / 8 mod 2).
// CHECK: %[[W:.*]] = arith.divui %{{.*}}, %c32{{.*}} : index
// CHECK-NEXT: %[[W32:.*]] = arith.index_cast %[[W]] : index to i32
// CHECK: %[[LANE0:.*]], %{{.*}} = gpu.shuffle  idx %[[W32]], %c0_i32{{.*}}, %c32_i32{{.*}} : i32
// CHECK-NEXT: %[[WARP:.*]] = arith.index_cast %[[LANE0]] : i32 to index
// CHECK-NEXT: %[[FOUR:.*]] = arith.constant 4 : index
// CHECK-NEXT: arith.remui %[[WARP]], %[[FOUR]] : index
// CHECK: arith.constant 8 : index
// CHECK-NEXT: arith.remui %{{.*}}, %{{.*}} : index
// Columns: 32 x (warp / 4 mod 2) + 8 x (lane / 16 mod 2).
// CHECK: gpu.shuffle  idx
// CHECK-NEXT: %[[WARP2:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK-NEXT: %[[FOUR2:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[WG:.*]] = arith.divui %[[WARP2]], %[[FOUR2]] : index
// CHECK-NEXT: %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[G:.*]] = arith.remui %[[WG]], %[[TWO]] : index
// CHECK-NEXT: %[[C32:.*]] = arith.constant 32 : index
// CHECK-NEXT: %[[GCOL:.*]] = arith.muli %[[G]], %[[C32]] : index
// CHECK: arith.constant 16 : index
// CHECK: memref.extract_strided_metadata %[[SCRATCH]]
// CHECK: %[[PITCH:.*]] = arith.constant 72 : index
// CHECK-NEXT: arith.muli %{{.*}}, %[[PITCH]] : index
// CHECK: %[[ST:.*]] = arith.addi %{{.*}}, %{{.*}} : i64
// CHECK-NOT: arith.xori
// CHECK: %[[STP:.*]] = llvm.inttoptr %[[ST]] : i64 to !llvm.ptr<3>
// CHECK-NEXT: nvvm.stmatrix %[[STP]], %{{.*}} : !llvm.ptr<3>, i32, i32, i32, i32
// CHECK: %[[STP2:.*]] = llvm.inttoptr %[[ST]] : i64 to !llvm.ptr<3>
// CHECK-NEXT: %[[ST32:.*]] = llvm.getelementptr %[[STP2]][32] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NEXT: nvvm.stmatrix %[[ST32]], %{{.*}} : !llvm.ptr<3>, i32, i32, i32, i32
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: nvvm.stmatrix
// CHECK: %[[LD:.*]] = arith.addi %{{.*}}, %{{.*}} : i64
// CHECK-NEXT: %[[LDP:.*]] = llvm.inttoptr %[[LD]] : i64 to !llvm.ptr<3>
// CHECK-NEXT: nvvm.ldmatrix %[[LDP]] {{.*}}num = 4 : i32{{.*}} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK: llvm.getelementptr %{{.*}}[32] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NEXT: nvvm.ldmatrix
// CHECK: llvm.getelementptr %{{.*}}[64] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NEXT: nvvm.ldmatrix
// CHECK: llvm.getelementptr %{{.*}}[96] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NEXT: nvvm.ldmatrix
// CHECK-NOT: nvvm.ldmatrix
// CHECK: %[[A:.*]] = vector.from_elements {{.*}} : vector<32xbf16>
// CHECK-NEXT: arith.negf %[[A]] : vector<32xbf16>
// CHECK-NOT: gpu.barrier
// CHECK: tle.warp_yield
func.func @convert_through_scratch() {
  tle.warp_specialize
  default warps(8) {
    %p = arith.constant dense<1.0> : tensor<64x64xbf16, #tle.mma<warp_groups = [1, 2]>>
    %a = tle.convert_layout %p : tensor<64x64xbf16, #tle.mma<warp_groups = [1, 2]>> -> tensor<64x64xbf16, #tle.mma_operand<warp_groups = [1, 2]>>
    %n = arith.negf %a : tensor<64x64xbf16, #tle.mma_operand<warp_groups = [1, 2]>>
    tle.warp_yield
  }
  return
}

// -----

// One warp group's accumulator, replicated over an 8-warp partition, is
// already the operand layout of both warp groups: no data moves, so no
// scratch buffer and no barrier.
// CHECK-LABEL: func.func @convert_replicated
// CHECK-NOT: tle.shared_alloc
// CHECK: %[[P:.*]] = arith.constant dense<1.000000e+00> : vector<8xbf16>
// CHECK-NEXT: arith.negf %[[P]] : vector<8xbf16>
// CHECK-NOT: gpu.barrier
// CHECK: tle.warp_yield
func.func @convert_replicated() {
  tle.warp_specialize
  default warps(8) {
    %p = arith.constant dense<1.0> : tensor<64x16xbf16, #tle.mma<warp_groups = [1, 1]>>
    %a = tle.convert_layout %p : tensor<64x16xbf16, #tle.mma<warp_groups = [1, 1]>> -> tensor<64x16xbf16, #tle.mma_operand<warp_groups = [1, 2]>>
    %n = arith.negf %a : tensor<64x16xbf16, #tle.mma_operand<warp_groups = [1, 2]>>
    tle.warp_yield
  }
  return
}
