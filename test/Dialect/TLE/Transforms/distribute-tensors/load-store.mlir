// RUN: tle-opt %s --tle-distribute-tensors -split-input-file -verify-diagnostics | FileCheck %s --enable-var-scope

// --tle-distribute-tensors on tle.local_load, tle.local_store, tle.load and
// tle.store (LoadStore.cpp): vector accesses at swizzled, row-major or
// strided addresses, bounds-checked in global memory.
// Function arguments and results stay out of it (the pass converts bodies
// only), so values come from constants or loop-carried arguments, which
// also keeps the conversion from folding them away.

// Storing a #tle.mma f32 tile into the 128-byte swizzle (16-bit tiles take
// stmatrix instead, matrix-load-store.mlir): each thread writes its (col,
// col+1) pairs as 8-byte vectors, 16 of them. The byte offset of (row,
// col) is chunk (col / 32) x 64 rows x 128 B + row x 128 B + (col mod 32)
// x 4 B; the swizzle then XORs bits 7..9 of the offset (the row within the
// 1024-byte pattern, which a tile starts on) into bits 4..6 (the 16-byte
// unit), and the tile's address is added last.
// CHECK-LABEL: func.func @local_store_mma_swizzled
// CHECK: scf.for {{.*}} iter_args(%[[X:.*]] = %{{.*}}) -> (vector<32xf32>)
// CHECK: %[[ROW0:.*]] = arith.addi %[[ROWBASE:.*]], %c0{{.*}} : index
// CHECK-NEXT: arith.constant 0 : index
// CHECK-NEXT: %[[COL0:.*]] = arith.addi %[[COLBASE:.*]], %c0{{.*}} : index
// CHECK-NEXT: %[[W:.*]] = arith.constant 32 : index
// CHECK-NEXT: %[[CHUNK:.*]] = arith.divui %[[COL0]], %[[W]] : index
// CHECK-NEXT: %[[W2:.*]] = arith.constant 32 : index
// CHECK-NEXT: %[[IN:.*]] = arith.remui %[[COL0]], %[[W2]] : index
// CHECK-NEXT: %[[CB:.*]] = arith.constant 8192 : index
// CHECK-NEXT: %[[CHUNKBYTES:.*]] = arith.muli %[[CHUNK]], %[[CB]] : index
// CHECK-NEXT: %[[RB:.*]] = arith.constant 128 : index
// CHECK-NEXT: %[[ROWBYTES:.*]] = arith.muli %[[ROW0]], %[[RB]] : index
// CHECK-NEXT: %[[EB:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[COLBYTES:.*]] = arith.muli %[[IN]], %[[EB]] : index
// CHECK-NEXT: %[[S1:.*]] = arith.addi %[[CHUNKBYTES]], %[[ROWBYTES]] : index
// CHECK-NEXT: %[[OFF:.*]] = arith.addi %[[S1]], %[[COLBYTES]] : index
// CHECK-NEXT: %[[OFF64:.*]] = arith.index_cast %[[OFF]] : index to i64
// CHECK-NEXT: %[[C7:.*]] = arith.constant 7 : i64
// CHECK-NEXT: %[[SH:.*]] = arith.shrui %[[OFF64]], %[[C7]] : i64
// CHECK-NEXT: %[[MASK:.*]] = arith.constant 7 : i64
// CHECK-NEXT: %[[R8:.*]] = arith.andi %[[SH]], %[[MASK]] : i64
// CHECK-NEXT: %[[C4:.*]] = arith.constant 4 : i64
// CHECK-NEXT: %[[FLIP:.*]] = arith.shli %[[R8]], %[[C4]] : i64
// CHECK-NEXT: %[[SWZ:.*]] = arith.xori %[[OFF64]], %[[FLIP]] : i64
// CHECK-NEXT: %[[ADDR:.*]] = arith.addi %[[BASE:.*]], %[[SWZ]] : i64
// CHECK-NEXT: %[[P0:.*]] = llvm.inttoptr %[[ADDR]] : i64 to !llvm.ptr<3>
// Register 2 is row + 8 of the same columns.
// CHECK-NEXT: %[[C8:.*]] = arith.constant 8 : index
// CHECK-NEXT: arith.addi %[[ROWBASE]], %[[C8]] : index
// CHECK: %[[V0:.*]] = vector.shuffle %[[X]], %[[X]] [0, 1] : vector<32xf32>, vector<32xf32>
// CHECK-NEXT: llvm.store %[[V0]], %[[P0]] {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK-NEXT: vector.shuffle %[[X]], %[[X]] [2, 3]
// CHECK-COUNT-15: llvm.store %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK-NOT: llvm.store
// CHECK: scf.yield %[[X]]
#acc = #tle.mma<warp_groups = [1, 1]>
#sw = #tle.shared<swizzle = 128>
func.func @local_store_mma_swizzled(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = tle.shared_alloc : memref<64x64xf32, #sw>
  %init = arith.constant dense<1.0> : tensor<64x64xf32, #acc>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %init) -> tensor<64x64xf32, #acc> {
    tle.local_store %x, %buf : tensor<64x64xf32, #acc>, memref<64x64xf32, #sw>
    scf.yield %x : tensor<64x64xf32, #acc>
  }
  return
}

// -----

// Loading a #tle.blocked tile with 8 consecutive bf16 per thread from the
// 128-byte swizzle: one 16-byte vector load, 16-byte aligned (a 16-byte
// unit stays whole under the XOR). The 8 x 128 tile has two column chunks
// of 8 rows x 128 B = 1024 B.
// CHECK-LABEL: func.func @local_load_blocked_swizzled
// CHECK: arith.divui %{{.*}}, %c64{{.*}} : index
// CHECK-NEXT: arith.constant 64 : index
// CHECK-NEXT: arith.remui
// CHECK-NEXT: arith.constant 1024 : index
// CHECK: arith.shrui %{{.*}}, %c7_i64{{.*}} : i64
// CHECK-NEXT: arith.constant 7 : i64
// CHECK-NEXT: arith.andi
// CHECK-NEXT: arith.constant 4 : i64
// CHECK-NEXT: arith.shli
// CHECK-NEXT: %[[SWZ:.*]] = arith.xori
// CHECK-NEXT: %[[ADDR:.*]] = arith.addi %{{.*}}, %[[SWZ]] : i64
// CHECK-NEXT: %[[P:.*]] = llvm.inttoptr %[[ADDR]] : i64 to !llvm.ptr<3>
// CHECK-NEXT: %[[V:.*]] = llvm.load %[[P]] {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xbf16>
// CHECK-NOT: llvm.load
// CHECK: %[[T:.*]] = vector.from_elements {{.*}} : vector<8xbf16>
// CHECK-NEXT: arith.negf %[[T]] : vector<8xbf16>
#sw = #tle.shared<swizzle = 128>
#blk = #tle.blocked<per_thread = [1, 8], threads = [2, 16], warps = [4, 1]>
func.func @local_load_blocked_swizzled() {
  %buf = tle.shared_alloc : memref<8x128xbf16, #sw>
  %t = tle.local_load %buf : memref<8x128xbf16, #sw> -> tensor<8x128xbf16, #blk>
  %neg = arith.negf %t : tensor<8x128xbf16, #blk>
  return
}

// -----

// A row-major shared buffer: the thread's vector at (row x 128 + col) x 2 B,
// no swizzle.
// CHECK-LABEL: func.func @local_row_major
// CHECK: memref.extract_aligned_pointer_as_index
// CHECK: %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[PITCH:.*]] = arith.constant 128 : index
// CHECK-NEXT: %[[RL:.*]] = arith.muli %{{.*}}, %[[PITCH]] : index
// CHECK-NEXT: %[[L0:.*]] = arith.addi %[[Z]], %[[RL]] : index
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[CL:.*]] = arith.muli %{{.*}}, %[[ONE]] : index
// CHECK-NEXT: %[[L1:.*]] = arith.addi %[[L0]], %[[CL]] : index
// CHECK-NEXT: %[[OFF:.*]] = arith.muli %[[L1]], %c2{{.*}} : index
// CHECK-NEXT: %[[OFF64:.*]] = arith.index_cast %[[OFF]] : index to i64
// CHECK-NEXT: %[[ADDR:.*]] = arith.addi %{{.*}}, %[[OFF64]] : i64
// CHECK-NEXT: %[[P:.*]] = llvm.inttoptr %[[ADDR]] : i64 to !llvm.ptr<3>
// CHECK-NEXT: %[[V:.*]] = llvm.load %[[P]] {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xbf16>
// CHECK-NOT: arith.xori
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<3>
// CHECK-NOT: arith.xori
// CHECK: return
#blk = #tle.blocked<per_thread = [1, 8], threads = [2, 16], warps = [4, 1]>
func.func @local_row_major() {
  %buf = tle.shared_alloc : memref<8x128xbf16, 3>
  %t = tle.local_load %buf : memref<8x128xbf16, 3> -> tensor<8x128xbf16, #blk>
  tle.local_store %t, %buf : tensor<8x128xbf16, #blk>, memref<8x128xbf16, 3>
  return
}

// -----

// A global load: one 8 x bf16 vector per thread at (i + row, j + col)
// when the row and the vector's last column (col + 7) are in bounds; a
// vector that straddles the end of the row loads element by element, each
// under its own check. Out of bounds yields zeros and never loads.
// CHECK-LABEL: func.func @global_load
// CHECK-SAME: (%[[G:.*]]: memref<?x?xbf16>, %[[I:.*]]: index, %[[J:.*]]: index)
// CHECK: %{{.*}}, %{{.*}}, %[[SIZES:.*]]:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata %[[G]]
// The thread's first element: (i + row) x stride 0 + (j + col), 2 B each
// (the unit stride is known from the type).
// CHECK: %[[R:.*]] = arith.addi %[[I]], %{{.*}} : index
// CHECK-NEXT: %[[C:.*]] = arith.addi %[[J]], %{{.*}} : index
// CHECK: %[[RL:.*]] = arith.muli %[[R]], %[[STRIDES]]#0 : index
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[CL:.*]] = arith.muli %[[C]], %[[ONE]] : index
// CHECK: %[[P:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<1>
// Bounds of the row and of the vector's last column.
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT: %[[R2:.*]] = arith.addi %[[I]], %{{.*}} : index
// CHECK-NEXT: %[[RIN:.*]] = arith.cmpi ult, %[[R2]], %[[SIZES]]#0 : index
// CHECK-NEXT: %[[ROWIN:.*]] = arith.andi %[[TRUE]], %[[RIN]] : i1
// CHECK-NEXT: %[[C2:.*]] = arith.addi %[[J]], %{{.*}} : index
// CHECK-NEXT: %[[SEVEN:.*]] = arith.constant 7 : index
// CHECK-NEXT: %[[LAST:.*]] = arith.addi %[[C2]], %[[SEVEN]] : index
// CHECK-NEXT: %[[LASTIN:.*]] = arith.cmpi ult, %[[LAST]], %[[SIZES]]#1 : index
// CHECK-NEXT: %[[IN:.*]] = arith.andi %[[ROWIN]], %[[LASTIN]] : i1
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<8xbf16>
// CHECK-NEXT: %[[V:.*]] = scf.if %[[IN]] -> (vector<8xbf16>) {
// CHECK-NEXT: %[[LD:.*]] = llvm.load %[[P]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xbf16>
// CHECK-NEXT: scf.yield %[[LD]] : vector<8xbf16>
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[E0P:.*]] = llvm.getelementptr %[[P]][0] : (!llvm.ptr<1>) -> !llvm.ptr<1>, bf16
// CHECK-NEXT: %{{.*}} = arith.constant 0 : index
// CHECK-NEXT: %[[C0:.*]] = arith.addi %[[C2]], %{{.*}} : index
// CHECK-NEXT: %[[C0IN:.*]] = arith.cmpi ult, %[[C0]], %[[SIZES]]#1 : index
// CHECK-NEXT: %[[E0IN:.*]] = arith.andi %[[ROWIN]], %[[C0IN]] : i1
// CHECK-NEXT: %[[F0:.*]] = vector.extract %[[ZERO]][0] : bf16 from vector<8xbf16>
// CHECK-NEXT: %[[E0:.*]] = scf.if %[[E0IN]] -> (bf16) {
// CHECK-NEXT: %[[S0:.*]] = llvm.load %[[E0P]] {alignment = 2 : i64} : !llvm.ptr<1> -> bf16
// CHECK-NEXT: scf.yield %[[S0]] : bf16
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %[[F0]] : bf16
// CHECK-NEXT: }
// CHECK-NEXT: vector.insert %[[E0]], %[[ZERO]] [0] : bf16 into vector<8xbf16>
// CHECK: llvm.getelementptr %[[P]][7] : (!llvm.ptr<1>) -> !llvm.ptr<1>, bf16
// CHECK: %[[T:.*]] = vector.from_elements {{.*}} : vector<8xbf16>
// CHECK-NEXT: arith.negf %[[T]] : vector<8xbf16>
#blk = #tle.blocked<per_thread = [1, 8], threads = [2, 16], warps = [4, 1]>
func.func @global_load(%g: memref<?x?xbf16>, %i: index, %j: index) {
  %t = tle.load %g[%i, %j] : memref<?x?xbf16> -> tensor<8x128xbf16, #blk>
  %neg = arith.negf %t : tensor<8x128xbf16, #blk>
  return
}

// -----

// A global store of a #tle.mma bf16 tile: (col, col+1) pairs as 4-byte
// vectors when both columns are in bounds, else each element under its
// own check (an element past the row end is never written). The pair of
// row + 8 is 8 rows of the dynamic stride further: one product, then a
// pointer offset.
// CHECK-LABEL: func.func @global_store
// CHECK: scf.for {{.*}} iter_args(%[[X:.*]] = %{{.*}}) -> (vector<4xbf16>)
// CHECK: %[[P0:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<1>
// CHECK: %[[ROW0:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK-NEXT: %[[COL0:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[LAST0:.*]] = arith.addi %[[COL0]], %[[ONE]] : index
// CHECK-NEXT: %[[LAST0IN:.*]] = arith.cmpi ult, %[[LAST0]], %{{.*}}#1 : index
// CHECK-NEXT: %[[IN0:.*]] = arith.andi %[[ROW0]], %[[LAST0IN]] : i1
// CHECK: %[[EIGHT:.*]] = arith.constant 8 : index
// CHECK-NEXT: %[[ROWS8:.*]] = arith.muli %[[EIGHT]], %{{.*}}#0 : index
// CHECK: %[[P1:.*]] = llvm.getelementptr %[[P0]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
// CHECK: %[[IN1:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK: %[[V0:.*]] = vector.shuffle %[[X]], %[[X]] [0, 1] : vector<4xbf16>, vector<4xbf16>
// CHECK-NEXT: scf.if %[[IN0]] {
#acc = #tle.mma<warp_groups = [1, 1]>
func.func @global_store(%g: memref<?x?xbf16>, %i: index, %j: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = arith.constant dense<1.0> : tensor<64x8xbf16, #acc>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%x = %init) -> tensor<64x8xbf16, #acc> {
    tle.store %x, %g[%i, %j] : tensor<64x8xbf16, #acc>, memref<?x?xbf16>
    scf.yield %x : tensor<64x8xbf16, #acc>
  }
  return
}

// -----

// #tle.blocked admits per_thread = [1, 6]: a thread's run is 6 bf16 =
// 12 bytes at byte offset 12 x t of its row, so its address is only 4-byte
// aligned. Accesses are powers of two no wider than the run's alignment:
// three 2-element (4-byte) loads at columns +0, +2, +4, each `alignment = 4`,
// at byte offsets 0, 4 and 8 from the thread's first element.
// CHECK-LABEL: func.func @blocked_run_not_power_of_two
// CHECK: %[[T:.*]] = arith.remui %{{.*}}, %c16{{.*}} : index
// CHECK-NEXT: %[[SIX:.*]] = arith.constant 6 : index
// CHECK-NEXT: %[[PIECEOFF:.*]] = arith.muli %[[T]], %[[SIX]] : index
// CHECK-NEXT: %[[COLBASE:.*]] = arith.addi %{{.*}}, %[[PIECEOFF]] : index
// CHECK: arith.muli %[[COLBASE]], %c1{{.*}} : index
// CHECK: %[[P:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<3>
// CHECK-NEXT: %[[P4:.*]] = llvm.getelementptr %[[P]][4] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NEXT: %[[P8:.*]] = llvm.getelementptr %[[P]][8] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NEXT: llvm.load %[[P]] {alignment = 4 : i64} : !llvm.ptr<3> -> vector<2xbf16>
// CHECK: llvm.load %[[P4]] {alignment = 4 : i64} : !llvm.ptr<3> -> vector<2xbf16>
// CHECK: llvm.load %[[P8]] {alignment = 4 : i64} : !llvm.ptr<3> -> vector<2xbf16>
// CHECK-NOT: llvm.load
// CHECK: vector.from_elements {{.*}} : vector<6xbf16>
#blk = #tle.blocked<per_thread = [1, 6], threads = [2, 16], warps = [1, 1]>
func.func @blocked_run_not_power_of_two() {
  %buf = tle.shared_alloc : memref<2x96xbf16, 3>
  %t = tle.local_load %buf : memref<2x96xbf16, 3> -> tensor<2x96xbf16, #blk>
  %neg = arith.negf %t : tensor<2x96xbf16, #blk>
  return
}

// -----

// tle.load with padding: elements outside the memref read as the padding
// value (here -1, how a kernel marks index positions past a row's length).
// CHECK-LABEL: func.func @load_padding
// CHECK: %[[PAD:.*]] = arith.constant dense<-1> : vector<2xi32>
// CHECK: scf.if %{{.*}} -> (vector<2xi32>) {
// CHECK: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<1> -> vector<2xi32>
// CHECK: } else {
// CHECK: vector.extract %[[PAD]][0] : i32 from vector<2xi32>
func.func @load_padding(%ids: memref<?xi32>, %out: memref<64xi32>) {
  %c0 = arith.constant 0 : index
  %t = tle.load %ids[%c0] padding(-1 : i32) : memref<?xi32> -> tensor<64xi32, #tle.slice<dim = 0, parent = #tle.mma<warp_groups = [1, 1]>>>
  tle.store %t, %out[%c0] : tensor<64xi32, #tle.slice<dim = 0, parent = #tle.mma<warp_groups = [1, 1]>>>, memref<64xi32>
  return
}
