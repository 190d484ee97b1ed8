// RUN: tle-opt %s --tle-distribute-tensors -split-input-file | FileCheck %s --enable-var-scope

// --tle-distribute-tensors on 16-bit tle.local_load / tle.local_store in
// the wgmma layouts (MatrixLoadStore.cpp): a thread's elements are whole
// 8x8 matrices, moved by ldmatrix / stmatrix, four per instruction. Lane
// l gives the address of row l % 8 + 8 (l / 8 mod 2) and column
// 8 (l / 16 mod 2) of its warp's 16 rows (plus the warp's place, from
// lane 0's warp index); each further instruction is 16 columns on. The
// f32 and blocked-layout paths (vector ld/st.shared) are in
// load-store.mlir. Function arguments and results stay out of it, so
// values come from constants or loop-carried arguments.

// The SparseMLA P store: a 64 x 64 bf16 accumulator into the 128-byte
// swizzle. Instruction k is 16 k columns (32 k bytes) further in the same
// swizzle row, and a lane's column (0 or 8) never shares a bit with it:
// its address is the lane's XORed with 32 k, no new swizzle.
// CHECK-LABEL: func.func @store_accumulator_swizzled
// CHECK: scf.for {{.*}} iter_args(%[[X:.*]] = %{{.*}}) -> (vector<32xbf16>)
// CHECK-NEXT: %[[PAIRS:.*]] = vector.bitcast %[[X]] : vector<32xbf16> to vector<16xi32>
// Row: 16 x (warp mod 4) + lane mod 8 + 8 x (lane / 8 mod 2).
// CHECK: gpu.shuffle  idx
// CHECK: %[[WARP:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK-NEXT: %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[WM:.*]] = arith.remui %[[WARP]], %[[C4]] : index
// CHECK-NEXT: %[[C16:.*]] = arith.constant 16 : index
// CHECK-NEXT: arith.muli %[[WM]], %[[C16]] : index
// CHECK: %[[L8:.*]] = arith.muli %{{.*}}, %c8{{.*}} : index
// CHECK-NEXT: %[[ROW:.*]] = arith.addi %{{.*}}, %[[L8]] : index
// Column: 8 x (lane / 16 mod 2).
// CHECK-NEXT: %[[TID:.*]] = gpu.thread_id  x
// CHECK: arith.divui %[[TID]], %{{.*}} : index
// CHECK: %[[COL:.*]] = arith.addi
// CHECK: %[[ROWBYTES:.*]] = arith.muli %[[ROW]], %c128{{.*}} : index
// CHECK: %[[SWZ:.*]] = arith.xori
// CHECK-NEXT: %[[LANE:.*]] = arith.addi %{{.*}}, %[[SWZ]] : i64
// CHECK-NEXT: %[[C32:.*]] = arith.constant 32 : i64
// CHECK-NEXT: %[[A1:.*]] = arith.xori %[[LANE]], %[[C32]] : i64
// CHECK-NEXT: %[[C64:.*]] = arith.constant 64 : i64
// CHECK-NEXT: %[[A2:.*]] = arith.xori %[[LANE]], %[[C64]] : i64
// CHECK-NEXT: %[[C96:.*]] = arith.constant 96 : i64
// CHECK-NEXT: %[[A3:.*]] = arith.xori %[[LANE]], %[[C96]] : i64
// Pairs 0..3: rows 0-7 and 8-15 of columns 0-7, then of columns 8-15.
// CHECK-NEXT: %[[R0:.*]] = vector.extract %[[PAIRS]][0] : i32 from vector<16xi32>
// CHECK-NEXT: %[[R1:.*]] = vector.extract %[[PAIRS]][1] : i32 from vector<16xi32>
// CHECK-NEXT: %[[R2:.*]] = vector.extract %[[PAIRS]][2] : i32 from vector<16xi32>
// CHECK-NEXT: %[[R3:.*]] = vector.extract %[[PAIRS]][3] : i32 from vector<16xi32>
// CHECK-NEXT: %[[P0:.*]] = llvm.inttoptr %[[LANE]] : i64 to !llvm.ptr<3>
// CHECK-NEXT: nvvm.stmatrix %[[P0]], %[[R0]], %[[R1]], %[[R2]], %[[R3]] {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : !llvm.ptr<3>, i32, i32, i32, i32
// CHECK: %[[P1:.*]] = llvm.inttoptr %[[A1]] : i64 to !llvm.ptr<3>
// CHECK-NEXT: nvvm.stmatrix %[[P1]],
// CHECK: %[[P2:.*]] = llvm.inttoptr %[[A2]] : i64 to !llvm.ptr<3>
// CHECK-NEXT: nvvm.stmatrix %[[P2]],
// CHECK: %[[P3:.*]] = llvm.inttoptr %[[A3]] : i64 to !llvm.ptr<3>
// CHECK-NEXT: nvvm.stmatrix %[[P3]],
// CHECK-NOT: nvvm.stmatrix
// CHECK-NOT: llvm.store
// CHECK: scf.yield %[[X]]
#sw = #tle.shared<swizzle = 128>
#acc = #tle.mma<warp_groups = [1, 1]>
func.func @store_accumulator_swizzled(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = tle.shared_alloc : memref<64x64xbf16, #sw>
  %init = arith.constant dense<1.0> : tensor<64x64xbf16, #acc>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %init) -> tensor<64x64xbf16, #acc> {
    tle.local_store %x, %buf : tensor<64x64xbf16, #acc>, memref<64x64xbf16, #sw>
    scf.yield %x : tensor<64x64xbf16, #acc>
  }
  return
}

// -----

// The 32-byte swizzle holds 16 bf16 per row: instruction k starts chunk k,
// 64 rows x 32 B = 2048 k bytes on, a constant the pointer adds (ptxas
// folds it into the instruction).
// CHECK-LABEL: func.func @store_accumulator_swizzle_32
// CHECK: %[[SWZ:.*]] = arith.xori
// CHECK-NEXT: %[[LANE:.*]] = arith.addi %{{.*}}, %[[SWZ]] : i64
// CHECK-NOT: arith.xori
// CHECK: %[[P0:.*]] = llvm.inttoptr %[[LANE]] : i64 to !llvm.ptr<3>
// CHECK-NEXT: nvvm.stmatrix %[[P0]],
// CHECK: %[[Q1:.*]] = llvm.inttoptr %[[LANE]] : i64 to !llvm.ptr<3>
// CHECK-NEXT: %[[P1:.*]] = llvm.getelementptr %[[Q1]][2048] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NEXT: nvvm.stmatrix %[[P1]],
// CHECK: llvm.getelementptr %{{.*}}[4096]
// CHECK-NEXT: nvvm.stmatrix
// CHECK: llvm.getelementptr %{{.*}}[6144]
// CHECK-NEXT: nvvm.stmatrix
// CHECK-NOT: nvvm.stmatrix
#sw32 = #tle.shared<swizzle = 32>
#acc = #tle.mma<warp_groups = [1, 1]>
func.func @store_accumulator_swizzle_32(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = tle.shared_alloc : memref<64x64xbf16, #sw32>
  %init = arith.constant dense<1.0> : tensor<64x64xbf16, #acc>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %init) -> tensor<64x64xbf16, #acc> {
    tle.local_store %x, %buf : tensor<64x64xbf16, #acc>, memref<64x64xbf16, #sw32>
    scf.yield %x : tensor<64x64xbf16, #acc>
  }
  return
}

// -----

// The register A operand from a row-major buffer (128-byte rows, every
// matrix row 16-byte aligned): lane address row x 128 + column x 2, and
// instruction k 32 k bytes on. No swizzle.
// CHECK-LABEL: func.func @load_operand_row_major
// CHECK: %[[C64:.*]] = arith.constant 64 : index
// CHECK-NEXT: %[[LIN:.*]] = arith.muli %{{.*}}, %[[C64]] : index
// CHECK-NEXT: %[[LINC:.*]] = arith.addi %[[LIN]], %{{.*}} : index
// CHECK-NEXT: %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[OFF:.*]] = arith.muli %[[LINC]], %[[C2]] : index
// CHECK-NEXT: %[[OFF64:.*]] = arith.index_cast %[[OFF]] : index to i64
// CHECK-NEXT: %[[LANE:.*]] = arith.addi %{{.*}}, %[[OFF64]] : i64
// CHECK-NEXT: %[[P0:.*]] = llvm.inttoptr %[[LANE]] : i64 to !llvm.ptr<3>
// CHECK-NEXT: %[[M0:.*]] = nvvm.ldmatrix %[[P0]] {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK-NEXT: llvm.extractvalue %[[M0]][0]
// CHECK: llvm.getelementptr %{{.*}}[32] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NEXT: nvvm.ldmatrix
// CHECK: llvm.getelementptr %{{.*}}[64] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NEXT: nvvm.ldmatrix
// CHECK: llvm.getelementptr %{{.*}}[96] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NEXT: nvvm.ldmatrix
// CHECK-NOT: nvvm.ldmatrix
// CHECK: %[[V:.*]] = vector.from_elements {{.*}} : vector<16xi32>
// CHECK-NEXT: vector.bitcast %[[V]] : vector<16xi32> to vector<32xbf16>
#smem = #gpu.address_space<workgroup>
#opnd = #tle.mma_operand<warp_groups = [1, 1]>
func.func @load_operand_row_major(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = tle.shared_alloc : memref<64x64xbf16, #smem>
  %init = arith.constant dense<0.0> : tensor<64x64xbf16, #opnd>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %init) -> tensor<64x64xbf16, #opnd> {
    %y = tle.local_load %buf : memref<64x64xbf16, #smem> -> tensor<64x64xbf16, #opnd>
    scf.yield %y : tensor<64x64xbf16, #opnd>
  }
  return
}

// -----

// Eight columns are two matrices: one stmatrix.x2 (lanes 0-15 address).
// CHECK-LABEL: func.func @store_two_matrices
// CHECK: %[[P:.*]] = llvm.inttoptr
// CHECK-NEXT: nvvm.stmatrix %[[P]], %{{[^,]*}}, %{{[^,]*}} {{{.*}}} : !llvm.ptr<3>, i32, i32
// CHECK-NOT: nvvm.stmatrix
#smem = #gpu.address_space<workgroup>
#acc = #tle.mma<warp_groups = [1, 1]>
func.func @store_two_matrices(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = tle.shared_alloc : memref<64x8xbf16, #smem>
  %init = arith.constant dense<1.0> : tensor<64x8xbf16, #acc>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %init) -> tensor<64x8xbf16, #acc> {
    tle.local_store %x, %buf : tensor<64x8xbf16, #acc>, memref<64x8xbf16, #smem>
    scf.yield %x : tensor<64x8xbf16, #acc>
  }
  return
}
