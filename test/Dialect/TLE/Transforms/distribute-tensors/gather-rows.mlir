// RUN: tle-opt %s --tle-distribute-tensors -split-input-file -verify-diagnostics | FileCheck %s --enable-var-scope

// --tle-distribute-tensors on tle.gather_rows (GatherRows.cpp): 16-byte
// cp.async pieces, zero-filled for rows whose index is out of range, tiled
// so that their addresses are constants from a per-thread base where the
// shape allows, else in rounds.
// Function arguments and results stay out of it (the pass converts bodies
// only), so values come from constants or loop-carried arguments, which
// also keeps the conversion from folding them away.

// tle.gather_rows with indices in global memory, into a 128-byte swizzled
// [64, 576] bf16 tile, in a 4-warp partition: the tiled form. A row is 72
// pieces of 16 B; 8 consecutive threads split a row (piece c + 8 j for
// thread column c = tid mod 8), and the 16 groups of 8 cover rows
// tid / 8 + 16 k, 4 rows per thread. Each warp loads the indices once,
// lane l holding rows l and l + 32 (clamped to the last row, 63); row
// tid / 8 + 16 k is lane tid / 8 + 16 (k mod 2) of register k / 2. The
// destination base is swizzled once per thread: every other copy adds
// whole 1024-byte swizzle atoms (2048 B per 16 rows, 8192 B per 64-column
// chunk), so its offsets are constants. Unlike ld/st.shared, the XOR
// pattern is applied to the tile's address plus the thread's offset: with
// the base left apart, ptxas 13.0 emits an LDGSTS that faults (see
// getAsyncCopyDestination). An index outside [0, R) copies 0 bytes
// (cp.async zero-fills) from row 0's address; the i32 index is compared
// (unsigned, with min(R, 2^31)) and replaced in 32 bits, then widened.
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
// CHECK: %[[ID1:.*]] = memref.load %[[IDS]]
// CHECK-NEXT: %[[CAP:.*]] = arith.constant 2147483648 : index
// CHECK-NEXT: %[[CAPPED:.*]] = arith.minui %[[SIZES]]#0, %[[CAP]] : index
// CHECK-NEXT: %[[LIMIT:.*]] = arith.index_castui %[[CAPPED]] : index to i32
// CHECK-NOT: memref.load
// CHECK-NOT: scf.for
// CHECK: %[[COL:.*]] = arith.remui %[[TID]], %c8{{.*}} : index
// CHECK-NEXT: %[[C8:.*]] = arith.constant 8 : index
// CHECK-NEXT: %[[FIRST:.*]] = arith.divui %[[TID]], %[[C8]] : index
// CHECK-NEXT: %[[C16:.*]] = arith.constant 16 : index
// CHECK-NEXT: %[[COLB:.*]] = arith.muli %[[COL]], %[[C16]] : index
// CHECK: %[[CHUNK:.*]] = arith.divui %[[COL]], %{{.*}} : index
// CHECK: %[[UNIT:.*]] = arith.remui %[[COL]], %{{.*}} : index
// CHECK: arith.muli %[[UNIT]], %{{.*}} : index
// CHECK: arith.muli %[[FIRST]], %c128{{.*}} : index
// CHECK: arith.muli %[[CHUNK]], %c8192{{.*}} : index
// CHECK: %[[DADDR:.*]] = arith.addi %{{.*}}, %{{.*}} : i64
// CHECK-NEXT: %[[C7:.*]] = arith.constant 7 : i64
// CHECK-NEXT: %[[SH:.*]] = arith.shrui %[[DADDR]], %[[C7]] : i64
// CHECK-NEXT: %[[MASK:.*]] = arith.constant 7 : i64
// CHECK-NEXT: %[[R8:.*]] = arith.andi %[[SH]], %[[MASK]] : i64
// CHECK-NEXT: %[[C4:.*]] = arith.constant 4 : i64
// CHECK-NEXT: %[[FLIP:.*]] = arith.shli %[[R8]], %[[C4]] : i64
// CHECK-NEXT: %[[SWZ:.*]] = arith.xori %[[DADDR]], %[[FLIP]] : i64
// CHECK-NEXT: %[[DPTR:.*]] = llvm.inttoptr %[[SWZ]] : i64 to !llvm.ptr<3>
// Row k = 0: lane tid / 8 of register 0.
// CHECK: %[[L0:.*]] = arith.addi %[[FIRST]], %c0{{.*}} : index
// CHECK-NEXT: %[[L0I:.*]] = arith.index_cast %[[L0]] : index to i32
// CHECK: %[[X0:.*]], %{{.*}} = gpu.shuffle  idx %[[ID0]], %[[L0I]], %{{.*}} : i32
// CHECK-NEXT: %[[VALID:.*]] = arith.cmpi ult, %[[X0]], %[[LIMIT]] : i32
// CHECK-NEXT: %[[ZERO32:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[SAFE32:.*]] = arith.select %[[VALID]], %[[X0]], %[[ZERO32]] : i32
// CHECK-NEXT: %[[SAFE:.*]] = arith.index_castui %[[SAFE32]] : i32 to index
// CHECK: %[[SLIN:.*]] = arith.muli %[[SAFE]], %[[STRIDES]]#0 : index
// CHECK-NEXT: %[[SBYTES:.*]] = arith.muli %[[SLIN]], %{{.*}} : index
// CHECK-NEXT: arith.addi %[[SBYTES]], %[[COLB]] : index
// CHECK: %[[SPTR:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<1>
// CHECK-DAG: %[[NONE:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[FULL:.*]] = arith.constant 16 : i32
// CHECK: %[[BYTES:.*]] = arith.select %[[VALID]], %[[FULL]], %[[NONE]] : i32
// CHECK-NEXT: nvvm.cp.async.shared.global %[[DPTR]], %[[SPTR]], 16, cache =  cg, %[[BYTES]] : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK-NEXT: %[[S1:.*]] = llvm.getelementptr %[[SPTR]][128] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i8
// CHECK-NEXT: %[[D1:.*]] = llvm.getelementptr %[[DPTR]][8192] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NEXT: nvvm.cp.async.shared.global %[[D1]], %[[S1]], 16, cache =  cg, %[[BYTES]]
// CHECK-COUNT-7: nvvm.cp.async.shared.global
// Row k = 1: lane tid / 8 + 16 of register 0, 16 rows (2048 B) further.
// CHECK: %[[L1:.*]] = arith.addi %[[FIRST]], %c16{{.*}} : index
// CHECK-NEXT: %[[L1I:.*]] = arith.index_cast %[[L1]] : index to i32
// CHECK: gpu.shuffle  idx %[[ID0]], %[[L1I]], %{{.*}} : i32
// CHECK: %[[SPTR1:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<1>
// CHECK: %[[E0:.*]] = llvm.getelementptr %[[DPTR]][2048] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NEXT: nvvm.cp.async.shared.global %[[E0]], %[[SPTR1]], 16
// CHECK-COUNT-8: nvvm.cp.async.shared.global
// Rows k = 2, 3 come from register 1 (rows 32..63); the last piece is at
// 3 x 2048 + 8 x 8192 B.
// CHECK: gpu.shuffle  idx %[[ID1]], %{{.*}}, %{{.*}} : i32
// CHECK-COUNT-9: nvvm.cp.async.shared.global
// CHECK: gpu.shuffle  idx %[[ID1]], %{{.*}}, %{{.*}} : i32
// CHECK: %[[LAST:.*]] = llvm.getelementptr %[[DPTR]][71680] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NEXT: nvvm.cp.async.shared.global %[[LAST]]
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
// destination (rows of 128 B, 8 pieces) has no swizzle: 8 threads cover a
// row, and each thread copies rows tid / 8 + 16 k, 2048 B apart.
// CHECK-LABEL: func.func @gather_rows_from
// CHECK-SAME: %[[FIRST:[^:]*]]: index)
// CHECK-NOT: memref.load
// CHECK-NOT: scf.for
// CHECK: %[[ROW:.*]] = arith.divui %{{.*}}, %c8{{.*}} : index
// CHECK: arith.muli %[[ROW]], %c128{{.*}} : index
// CHECK-NOT: arith.xori
// CHECK: %[[DPTR:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<3>
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[R0:.*]] = arith.addi %[[ROW]], %[[C0]] : index
// CHECK-NEXT: %[[SROW:.*]] = arith.addi %[[FIRST]], %[[R0]] : index
// CHECK-NEXT: %[[VALID:.*]] = arith.cmpi ult, %[[SROW]], %{{.*}}#0 : index
// CHECK-NEXT: arith.select %[[VALID]], %[[SROW]], %{{.*}} : index
// CHECK: arith.select %[[VALID]], %c16_i32, %c0_i32 : i32
// CHECK-NEXT: nvvm.cp.async.shared.global %[[DPTR]], %{{.*}}, 16, cache =  cg, %{{.*}} :
// CHECK: llvm.getelementptr %[[DPTR]][2048]
// CHECK: llvm.getelementptr %[[DPTR]][4096]
// CHECK: llvm.getelementptr %[[DPTR]][6144]
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
// i32 elements of the thread's vector feed the shuffles (rows tid / 8 and
// tid / 8 + 16 from the first, the two others from the second); nothing
// reloads them.
// CHECK-LABEL: func.func @gather_rows_tensor_indices
// CHECK: %[[IDS:.*]] = vector.from_elements %{{.*}}, %{{.*}} : vector<2xi32>
// CHECK-NOT: memref.load
// CHECK: %[[ID0:.*]] = vector.extract %[[IDS]][0] : i32 from vector<2xi32>
// CHECK-NEXT: %[[ID1:.*]] = vector.extract %[[IDS]][1] : i32 from vector<2xi32>
// CHECK-NOT: memref.load
// CHECK: gpu.shuffle  idx %[[ID0]], %{{.*}}, %{{.*}} : i32
// CHECK: nvvm.cp.async.shared.global
// CHECK: gpu.shuffle  idx %[[ID0]], %{{.*}}, %{{.*}} : i32
// CHECK: nvvm.cp.async.shared.global
// CHECK: gpu.shuffle  idx %[[ID1]], %{{.*}}, %{{.*}} : i32
// CHECK: nvvm.cp.async.shared.global
// CHECK: gpu.shuffle  idx %[[ID1]], %{{.*}}, %{{.*}} : i32
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

// A [64, 256] bf16 half tile (32 pieces a row) could be split 8 or 16
// threads a row; 8 (one 128-byte line of a row per warp instruction) gives
// each thread 4 rows of 4 pieces instead of 8 rows of 2: 4 index shuffles,
// compares and row addresses per thread, not 8. Both operands of a
// thread's pieces are then constants apart: 2048 B of the tile per 16
// rows, 8192 B per 64-column chunk (two 16-byte units of 8 threads), 128 B
// of the source row per piece.
// CHECK-LABEL: func.func @gather_rows_half_tile
// CHECK: arith.remui %{{.*}}, %c8{{.*}} : index
// CHECK-NEXT: %[[C8:.*]] = arith.constant 8 : index
// CHECK-NEXT: arith.divui %{{.*}}, %[[C8]] : index
// CHECK: gpu.shuffle
// CHECK: nvvm.cp.async.shared.global %[[D:[^,]*]], %[[S:[^,]*]],
// CHECK-NEXT: llvm.getelementptr %[[S]][128] : (!llvm.ptr<1>)
// CHECK-NEXT: llvm.getelementptr %[[D]][8192] : (!llvm.ptr<3>)
// CHECK-COUNT-3: nvvm.cp.async.shared.global
// CHECK-NOT: nvvm.cp.async.shared.global
// CHECK: gpu.shuffle
// CHECK-COUNT-4: nvvm.cp.async.shared.global
// CHECK-NOT: nvvm.cp.async.shared.global
// CHECK: gpu.shuffle
// CHECK-COUNT-4: nvvm.cp.async.shared.global
// CHECK-NOT: nvvm.cp.async.shared.global
// CHECK: gpu.shuffle
// CHECK-COUNT-3: nvvm.cp.async.shared.global
// CHECK: llvm.getelementptr %{{.*}}[384] : (!llvm.ptr<1>)
// CHECK-NEXT: %[[LAST:.*]] = llvm.getelementptr %[[D]][30720] : (!llvm.ptr<3>)
// CHECK-NEXT: nvvm.cp.async.shared.global %[[LAST]]
// CHECK-NOT: gpu.shuffle
// CHECK-NOT: nvvm.cp.async.shared.global
// CHECK: tle.warp_return
#sw = #tle.shared<swizzle = 128>
#lanes = #tle.blocked<per_thread = [1], threads = [32], warps = [1]>
func.func @gather_rows_half_tile(%src: memref<?x256xbf16, strided<[576, 1], offset: ?>>,
                                 %g: memref<?xi32>) {
  %dst = tle.shared_alloc : memref<64x256xbf16, #sw>
  tle.warp_specialize
  default warps(4) {
    tle.warp_yield
  }
  partition warps(4) {
    %c0 = arith.constant 0 : index
    %ids = tle.load %g[%c0] : memref<?xi32> -> tensor<64xi32, #lanes>
    tle.gather_rows %src rows(%ids : tensor<64xi32, #lanes>) into %dst
        : memref<?x256xbf16, strided<[576, 1], offset: ?>>, memref<64x256xbf16, #sw>
    tle.warp_return
  }
  return
}

// -----

// 8 rows of 8 pieces are 64 pieces for 128 threads, too few rows for the
// tiled form (8 threads per 128-byte swizzle row cover 16 rows at once):
// rounds of one piece per thread, here one round, in which threads 64..
// have no piece. They still take part in the shuffle (all
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
// CHECK-NEXT: %[[PIECES:.*]] = arith.constant 64 : index
// CHECK-NEXT: %[[HAS:.*]] = arith.cmpi ult, %[[PIECE]], %[[PIECES]] : index
// CHECK-NEXT: scf.if %[[HAS]] {
// CHECK: arith.cmpi ult, %[[X]], %{{.*}} : i32
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

// -----

// Cache hints: NVVM's cp.async has none, so each copy is written out with
// `.L2::cache_hint` (the policy from one createpolicy per gather) and
// `.L2::256B`, its constant offsets as immediates.
// CHECK-LABEL: func.func @gather_rows_cache_hints
// CHECK: %[[POLICY:.*]] = llvm.inline_asm "createpolicy.fractional.L2::evict_last.b64 $0, 1.0;", "=l"  : () -> i64
// CHECK: llvm.inline_asm has_side_effects "cp.async.cg.shared.global.L2::cache_hint.L2::256B [$0+0], [$1+0], 16, $2, $3;", "l,l,r,l" %[[D:.*]], %[[S:.*]], %[[N:.*]], %[[POLICY]]
// CHECK-NEXT: llvm.inline_asm has_side_effects "cp.async.cg.shared.global.L2::cache_hint.L2::256B [$0+8192], [$1+128], 16, $2, $3;", "l,l,r,l" %[[D]], %[[S]], %[[N]], %[[POLICY]]
// Only a prefetch size: no policy operand.
// CHECK: llvm.inline_asm has_side_effects "cp.async.cg.shared.global.L2::128B [$0+0], [$1+0], 16, $2;", "l,l,r"
// CHECK-NOT: createpolicy
// CHECK: tle.warp_return
#sw = #tle.shared<swizzle = 128>
func.func @gather_rows_cache_hints(%src: memref<?x576xbf16, strided<[576, 1], offset: ?>>,
                                   %ids: memref<64xi32, strided<[1], offset: ?>>) {
  %dst = tle.shared_alloc : memref<64x576xbf16, #sw>
  tle.warp_specialize
  default warps(4) {
    tle.warp_yield
  }
  partition warps(4) {
    tle.gather_rows %src rows(%ids : memref<64xi32, strided<[1], offset: ?>>) into %dst
        l2_prefetch = 256 evict = evict_last
        : memref<?x576xbf16, strided<[576, 1], offset: ?>>, memref<64x576xbf16, #sw>
    tle.gather_rows %src rows(%ids : memref<64xi32, strided<[1], offset: ?>>) into %dst
        l2_prefetch = 128
        : memref<?x576xbf16, strided<[576, 1], offset: ?>>, memref<64x576xbf16, #sw>
    tle.warp_return
  }
  return
}
