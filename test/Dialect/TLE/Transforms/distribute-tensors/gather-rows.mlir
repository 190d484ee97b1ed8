// RUN: tle-opt %s --tle-distribute-tensors -split-input-file -verify-diagnostics | FileCheck %s --enable-var-scope

// --tle-distribute-tensors on tle.gather_rows (GatherRows.cpp): 16-byte
// cp.async pieces, zero-filled for rows whose index is out of range.
// Function arguments and results stay out of it (the pass converts bodies
// only), so values come from constants or loop-carried arguments, which
// also keeps the conversion from folding them away.

// tle.gather_rows with indices in global memory, into a 128-byte swizzled
// [64, 576] bf16 tile, in a 4-warp partition. Each warp loads the indices
// once, lane l holding rows l and l + 32 (clamped to the last row, 63);
// each round then takes its row's index from lane row mod 32 of register
// row / 32 by a shuffle. A row is 576 x 2 B = 72 pieces of 16 B; 64 rows
// are 4608 pieces, 36 rounds of 128 threads. An index outside [0, R)
// copies 0 bytes (cp.async zero-fills) from row 0's address.
// CHECK-LABEL: func.func @gather_rows_indexed
// CHECK-SAME: (%[[SRC:[^:]*]]: memref<?x576xbf16, {{.*}}>, %[[IDS:[^:]*]]: memref<64xi32, {{.*}}>)
// CHECK: partition "gather" warps(4) {
// CHECK-NEXT: %{{.*}}, %{{.*}}, %[[SIZES:.*]]:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata %[[SRC]]
// CHECK: %[[TID:.*]] = gpu.thread_id  x
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[WARP:.*]] = arith.constant 32 : index
// CHECK-NEXT: %[[LANE:.*]] = arith.remui %[[TID]], %[[WARP]] : index
// CHECK-DAG: %[[LAST0:.*]] = arith.constant 63 : index
// CHECK-DAG: %[[ADD0:.*]] = arith.constant 0 : index
// CHECK: %[[ROW0:.*]] = arith.addi %[[LANE]], %[[ADD0]] : index
// CHECK-NEXT: %[[CLAMP0:.*]] = arith.minui %[[ROW0]], %[[LAST0]] : index
// CHECK-NEXT: %[[ID0:.*]] = memref.load %[[IDS]][%[[CLAMP0]]]
// CHECK-DAG: %[[LAST1:.*]] = arith.constant 63 : index
// CHECK-DAG: %[[ADD1:.*]] = arith.constant 32 : index
// CHECK: %[[ROW1:.*]] = arith.addi %[[LANE]], %[[ADD1]] : index
// CHECK-NEXT: %[[CLAMP1:.*]] = arith.minui %[[ROW1]], %[[LAST1]] : index
// CHECK-NEXT: %[[ID1:.*]] = memref.load %[[IDS]][%[[CLAMP1]]]
// CHECK-NOT: memref.load
// CHECK: scf.for %[[I:.*]] = %[[ZERO]] to %c36{{(_[0-9]+)?}} step %{{.*}} {
// CHECK-NEXT: %[[THREADS:.*]] = arith.constant 128 : index
// CHECK-NEXT: %[[SKIP:.*]] = arith.muli %[[I]], %[[THREADS]] : index
// CHECK-NEXT: %[[PIECE:.*]] = arith.addi %[[TID]], %[[SKIP]] : index
// CHECK-NEXT: %[[PPR:.*]] = arith.constant 72 : index
// CHECK-NEXT: %[[ROW:.*]] = arith.divui %[[PIECE]], %[[PPR]] : index
// CHECK: %[[INROW:.*]] = arith.remui %[[PIECE]], %{{.*}} : index
// CHECK-NEXT: %[[COL:.*]] = arith.muli %[[INROW]], %{{.*}} : index
// CHECK-NEXT: arith.constant 32 : index
// CHECK-NEXT: %[[FROM:.*]] = arith.remui %[[ROW]], %{{.*}} : index
// CHECK-NEXT: %[[FROM32:.*]] = arith.index_cast %[[FROM]] : index to i32
// CHECK-NEXT: %[[WIDTH:.*]] = arith.constant 32 : i32
// CHECK-NEXT: arith.constant 32 : index
// CHECK-NEXT: %[[REG:.*]] = arith.divui %[[ROW]], %{{.*}} : index
// CHECK-NEXT: %[[X0:.*]], %{{.*}} = gpu.shuffle  idx %[[ID0]], %[[FROM32]], %[[WIDTH]] : i32
// CHECK-NEXT: %[[X1:.*]], %{{.*}} = gpu.shuffle  idx %[[ID1]], %[[FROM32]], %[[WIDTH]] : i32
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[IS1:.*]] = arith.cmpi eq, %[[REG]], %[[ONE]] : index
// CHECK-NEXT: %[[ID:.*]] = arith.select %[[IS1]], %[[X1]], %[[X0]] : i32
// CHECK-NEXT: %[[SROW:.*]] = arith.index_cast %[[ID]] : i32 to index
// CHECK-NEXT: %[[VALID:.*]] = arith.cmpi ult, %[[SROW]], %[[SIZES]]#0 : index
// CHECK-NEXT: %[[SAFE:.*]] = arith.select %[[VALID]], %[[SROW]], %[[ZERO]] : index
// CHECK: %[[SLIN:.*]] = arith.muli %[[SAFE]], %[[STRIDES]]#0 : index
// CHECK-NEXT: %[[SELEM:.*]] = arith.addi %[[SLIN]], %[[COL]] : index
// CHECK: arith.muli %[[SELEM]], %c2{{.*}} : index
// CHECK: %[[SPTR:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<1>
// Destination: chunk (col / 64) x 64 rows x 128 B + row x 128 B +
// (col mod 64) x 2 B, then the 128-byte swizzle.
// CHECK-NEXT: %[[W64:.*]] = arith.constant 64 : index
// CHECK-NEXT: %[[CHUNK:.*]] = arith.divui %[[COL]], %[[W64]] : index
// CHECK: %[[CB:.*]] = arith.constant 8192 : index
// CHECK-NEXT: arith.muli %[[CHUNK]], %[[CB]] : index
// CHECK-NEXT: %[[RB:.*]] = arith.constant 128 : index
// CHECK-NEXT: arith.muli %[[ROW]], %[[RB]] : index
// CHECK: %[[DADDR:.*]] = arith.addi %{{.*}}, %{{.*}} : i64
// CHECK-NEXT: %[[C7:.*]] = arith.constant 7 : i64
// CHECK-NEXT: %[[SH:.*]] = arith.shrui %[[DADDR]], %[[C7]] : i64
// CHECK-NEXT: %[[MASK:.*]] = arith.constant 7 : i64
// CHECK-NEXT: %[[R8:.*]] = arith.andi %[[SH]], %[[MASK]] : i64
// CHECK-NEXT: %[[C4:.*]] = arith.constant 4 : i64
// CHECK-NEXT: %[[FLIP:.*]] = arith.shli %[[R8]], %[[C4]] : i64
// CHECK-NEXT: %[[SWZ:.*]] = arith.xori %[[DADDR]], %[[FLIP]] : i64
// CHECK-NEXT: %[[DPTR:.*]] = llvm.inttoptr %[[SWZ]] : i64 to !llvm.ptr<3>
// CHECK-DAG: %[[NONE:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[FULL:.*]] = arith.constant 16 : i32
// CHECK: %[[BYTES:.*]] = arith.select %[[VALID]], %[[FULL]], %[[NONE]] : i32
// CHECK-NEXT: nvvm.cp.async.shared.global %[[DPTR]], %[[SPTR]], 16, cache =  cg, %[[BYTES]] : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK-NEXT: }
// CHECK-NEXT: tle.warp_return
#sw = #tle.shared<swizzle = 128>
func.func @gather_rows_indexed(%src: memref<?x576xbf16, strided<[576, 1], offset: ?>>,
                               %ids: memref<64xi32, strided<[1], offset: ?>>) {
  %dst = tle.shared_alloc : memref<64x576xbf16, #sw>
  tle.warp_specialize
  default warps(4) {
    tle.warp_yield
  }
  partition "gather" warps(4) {
    tle.gather_rows %src rows(%ids : memref<64xi32, strided<[1], offset: ?>>) into %dst
        : memref<?x576xbf16, strided<[576, 1], offset: ?>>, memref<64x576xbf16, #sw>
    tle.warp_return
  }
  return
}

// -----

// `from %first`: row i of the tile is source row first + i, with no index
// loads or shuffles; the same bounds check and zero-fill. The row-major
// destination has no swizzle: (row x 64 + col) x 2 B. 64 rows of 8 pieces
// are 4 rounds of 128 threads.
// CHECK-LABEL: func.func @gather_rows_from
// CHECK-SAME: %[[FIRST:[^:]*]]: index)
// CHECK-NOT: memref.load
// CHECK: scf.for %{{.*}} = %{{.*}} to %c4{{(_[0-9]+)?}} step
// CHECK: %[[ROW:.*]] = arith.divui %{{.*}}, %c8{{.*}} : index
// CHECK: %[[SROW:.*]] = arith.addi %[[FIRST]], %[[ROW]] : index
// CHECK-NEXT: %[[VALID:.*]] = arith.cmpi ult, %[[SROW]], %{{.*}}#0 : index
// CHECK-NEXT: arith.select %[[VALID]], %[[SROW]], %{{.*}} : index
// CHECK: %[[W:.*]] = arith.constant 64 : index
// CHECK-NEXT: arith.muli %[[ROW]], %[[W]] : index
// CHECK-NOT: arith.xori
// CHECK: arith.select %[[VALID]], %c16_i32, %c0_i32 : i32
// CHECK-NEXT: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg, %{{.*}} :
// CHECK-NOT: gpu.shuffle
// CHECK: tle.warp_return
func.func @gather_rows_from(%src: memref<?x64xbf16, strided<[64, 1], offset: ?>>, %first: index) {
  %dst = tle.shared_alloc : memref<64x64xbf16, 3>
  tle.warp_specialize
  default warps(4) {
    tle.warp_yield
  }
  partition warps(4) {
    tle.gather_rows %src from %first into %dst
        : memref<?x64xbf16, strided<[64, 1], offset: ?>>, memref<64x64xbf16, 3>
    tle.warp_return
  }
  return
}

// -----

// Indices already in registers, lane l holding rows l and l + 32: the two
// i32 elements of the thread's vector feed the shuffles; nothing reloads
// them.
// CHECK-LABEL: func.func @gather_rows_tensor_indices
// CHECK: %[[IDS:.*]] = vector.from_elements %{{.*}}, %{{.*}} : vector<2xi32>
// CHECK-NOT: memref.load
// CHECK: %[[ID0:.*]] = vector.extract %[[IDS]][0] : i32 from vector<2xi32>
// CHECK-NEXT: %[[ID1:.*]] = vector.extract %[[IDS]][1] : i32 from vector<2xi32>
// CHECK-NOT: memref.load
// CHECK: scf.for
// CHECK: gpu.shuffle  idx %[[ID0]], %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: gpu.shuffle  idx %[[ID1]], %{{.*}}, %{{.*}} : i32
// CHECK: nvvm.cp.async.shared.global
#sw = #tle.shared<swizzle = 128>
#lanes = #tle.blocked<per_thread = [1], threads = [32], warps = [1]>
func.func @gather_rows_tensor_indices(%src: memref<?x64xbf16, strided<[64, 1], offset: ?>>,
                                      %g: memref<?xi32>) {
  %dst = tle.shared_alloc : memref<64x64xbf16, #sw>
  tle.warp_specialize
  default warps(4) {
    tle.warp_yield
  }
  partition warps(4) {
    %c0 = arith.constant 0 : index
    %ids = tle.load %g[%c0] : memref<?xi32> -> tensor<64xi32, #lanes>
    tle.gather_rows %src rows(%ids : tensor<64xi32, #lanes>) into %dst
        : memref<?x64xbf16, strided<[64, 1], offset: ?>>, memref<64x64xbf16, #sw>
    tle.warp_return
  }
  return
}

// -----

// 8 rows of 8 pieces are 64 pieces for 128 threads: one round, in which
// threads 64.. have no piece. They still take part in the shuffle (all
// lanes must), and only then skip the copy under `piece < 64`. With 8
// indices, lanes 8.. reload index 7.
// CHECK-LABEL: func.func @gather_rows_partial_round
// CHECK-DAG: %[[LAST:.*]] = arith.constant 7 : index
// CHECK: arith.minui %{{.*}}, %[[LAST]] : index
// CHECK-NEXT: %[[ID:.*]] = memref.load
// CHECK-NOT: memref.load
// CHECK: scf.for %{{.*}} = %{{.*}} to %c1{{(_[0-9]+)?}} step
// CHECK: %[[PIECE:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK: %[[X:.*]], %{{.*}} = gpu.shuffle  idx %[[ID]], %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: %[[SROW:.*]] = arith.index_cast %[[X]] : i32 to index
// CHECK-NEXT: %[[PIECES:.*]] = arith.constant 64 : index
// CHECK-NEXT: %[[HAS:.*]] = arith.cmpi ult, %[[PIECE]], %[[PIECES]] : index
// CHECK-NEXT: scf.if %[[HAS]] {
// CHECK-NEXT: arith.cmpi ult, %[[SROW]], %{{.*}}#0 : index
// CHECK: nvvm.cp.async.shared.global
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: tle.warp_return
#sw = #tle.shared<swizzle = 128>
func.func @gather_rows_partial_round(%src: memref<?x64xbf16, strided<[64, 1], offset: ?>>,
                                     %ids: memref<8xi32>) {
  %dst = tle.shared_alloc : memref<8x64xbf16, #sw>
  tle.warp_specialize
  default warps(4) {
    tle.warp_yield
  }
  partition warps(4) {
    tle.gather_rows %src rows(%ids : memref<8xi32>) into %dst
        : memref<?x64xbf16, strided<[64, 1], offset: ?>>, memref<8x64xbf16, #sw>
    tle.warp_return
  }
  return
}
