// RUN: tle-opt %s --tle-distribute-tensors --canonicalize -split-input-file | FileCheck %s --enable-var-scope

// Views of #tle.shared tiles (lib/Dialect/TLE/IR/SwizzledViews.cpp): the
// memref of a memref.subview counts its start row-major (row x stride +
// column), but the swizzled layout stores a [R, C] tile as C / w column
// chunks of R rows of `swizzle` bytes (w = swizzle / element bytes). Every
// access of a view starts where the layout puts it: column c0 (a multiple
// of w) at chunk c0 / w, R x swizzle bytes per chunk, and row r0 (a
// multiple of 8, within one chunk) r0 x swizzle bytes into it. After
// canonicalization the row-major part and the correction fold into one
// constant. Rejected views: test/Dialect/TLE/invalid-views.mlir.

// B = columns [256, 512) of a 64 x 576 bf16 tile in the 128-byte swizzle:
// chunk 4 of 64 rows x 128 B = 32768 bytes in (row-major it would be
// 512), so the descriptor's start address field is (base + 32768) >> 4.
// CHECK-LABEL: func.func @wgmma_column_block
// CHECK-DAG: %[[C32768:.*]] = arith.constant 32768 : index
// CHECK: scf.for
// CHECK: %[[PTR:.*]] = memref.extract_aligned_pointer_as_index
// CHECK-NEXT: %[[START:.*]] = arith.addi %[[PTR]], %[[C32768]] : index
// CHECK-NEXT: %[[START64:.*]] = arith.index_cast %[[START]] : index to i64
// CHECK: arith.shrui %[[START64]], %c4_i64
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16
#sw = #tle.shared<swizzle = 128>
#acc = #tle.mma<warp_groups = [1, 1]>
#opnd = #tle.mma_operand<warp_groups = [1, 1]>
func.func @wgmma_column_block(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tle.shared_alloc : memref<64x576xbf16, #sw>
  %bv = memref.subview %b[0, 256] [64, 256] [1, 1]
      : memref<64x576xbf16, #sw> to memref<64x256xbf16, strided<[576, 1], offset: 256>, #sw>
  %a = arith.constant dense<1.0> : tensor<64x256xbf16, #opnd>
  %init = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> tensor<64x64xf32, #acc> {
    %d = tle.wgmma %a, %bv, %acc transpose_b
        : tensor<64x256xbf16, #opnd>, memref<64x256xbf16, strided<[576, 1], offset: 256>, #sw>,
          tensor<64x64xf32, #acc>
    %w = tle.wgmma_wait %d pending(0) : tensor<64x64xf32, #acc>
    scf.yield %w : tensor<64x64xf32, #acc>
  }
  return
}

// -----

// B = rows [16, 32) of column chunk 1 of a 64 x 128 tile: 64 x 128 B +
// 16 x 128 B = 10240 bytes in (row-major: 16 x 256 B + 128 B = 4224).
// CHECK-LABEL: func.func @wgmma_row_block
// CHECK-DAG: %[[C10240:.*]] = arith.constant 10240 : index
// CHECK: scf.for
// CHECK: %[[PTR:.*]] = memref.extract_aligned_pointer_as_index
// CHECK-NEXT: %[[START:.*]] = arith.addi %[[PTR]], %[[C10240]] : index
// CHECK-NEXT: %[[START64:.*]] = arith.index_cast %[[START]] : index to i64
// CHECK-NEXT: arith.shrui %[[START64]], %c4_i64
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16
#sw = #tle.shared<swizzle = 128>
#acc = #tle.mma<warp_groups = [1, 1]>
#opnd = #tle.mma_operand<warp_groups = [1, 1]>
func.func @wgmma_row_block(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tle.shared_alloc : memref<64x128xbf16, #sw>
  %bv = memref.subview %b[16, 64] [16, 64] [1, 1]
      : memref<64x128xbf16, #sw> to memref<16x64xbf16, strided<[128, 1], offset: 2112>, #sw>
  %a = arith.constant dense<1.0> : tensor<64x16xbf16, #opnd>
  %init = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> tensor<64x64xf32, #acc> {
    %d = tle.wgmma %a, %bv, %acc
        : tensor<64x16xbf16, #opnd>, memref<16x64xbf16, strided<[128, 1], offset: 2112>, #sw>,
          tensor<64x64xf32, #acc>
    %w = tle.wgmma_wait %d pending(0) : tensor<64x64xf32, #acc>
    scf.yield %w : tensor<64x64xf32, #acc>
  }
  return
}

// -----

// A view of a view of a slot: column block [64, 128) of slot %i of a
// 2 x 64 x 128 f32 buffer (w = 32 columns). The slot's start stays
// row-major (whole tiles are contiguous either way); the column block
// moves 2 chunks x 64 rows x 128 B = 16384 bytes instead of 64 x 4 = 256:
// 16128 more, which keeps the swizzle pattern (a whole number of 8-row
// groups in): the store's swizzle acts on the offset within the view.
// CHECK-LABEL: func.func @store_slot_block
// CHECK-DAG: %[[FIX:.*]] = arith.constant 16128 : index
// CHECK: scf.for %[[I:.*]] =
// CHECK: %[[SLOT:.*]] = memref.subview %{{.*}}[%[[I]], 0, 0] [1, 64, 128] [1, 1, 1]
// CHECK: %[[VIEW:.*]] = memref.subview %[[SLOT]][0, 64] [64, 64] [1, 1]
// CHECK: %{{.*}}, %[[OFFSET:.*]], %{{.*}}:2, %{{.*}}:2 = memref.extract_strided_metadata %[[VIEW]]
// CHECK-NEXT: %[[PTR:.*]] = memref.extract_aligned_pointer_as_index
// CHECK-NEXT: %[[BYTES:.*]] = arith.muli %[[OFFSET]], %c4 : index
// CHECK-NEXT: %[[STRIDED:.*]] = arith.addi %[[PTR]], %[[BYTES]] : index
// CHECK-NEXT: %[[START:.*]] = arith.addi %[[STRIDED]], %[[FIX]] : index
// CHECK-NEXT: %[[START64:.*]] = arith.index_cast %[[START]] : index to i64
// CHECK: %[[SWZ:.*]] = arith.xori
// CHECK-NEXT: arith.addi %[[START64]], %[[SWZ]] : i64
// CHECK-COUNT-16: llvm.store {{.*}} : vector<2xf32>, !llvm.ptr<3>
#sw = #tle.shared<swizzle = 128>
#acc = #tle.mma<warp_groups = [1, 1]>
func.func @store_slot_block(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = tle.shared_alloc : memref<2x64x128xf32, #sw>
  %init = arith.constant dense<1.0> : tensor<64x64xf32, #acc>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %init) -> tensor<64x64xf32, #acc> {
    %s = memref.subview %buf[%i, 0, 0] [1, 64, 128] [1, 1, 1]
        : memref<2x64x128xf32, #sw> to memref<64x128xf32, strided<[128, 1], offset: ?>, #sw>
    %v = memref.subview %s[0, 64] [64, 64] [1, 1]
        : memref<64x128xf32, strided<[128, 1], offset: ?>, #sw> to memref<64x64xf32, strided<[128, 1], offset: ?>, #sw>
    tle.local_store %x, %v : tensor<64x64xf32, #acc>, memref<64x64xf32, strided<[128, 1], offset: ?>, #sw>
    scf.yield %x : tensor<64x64xf32, #acc>
  }
  return
}

// -----

// A 16-bit view read with ldmatrix (matrix-load-store.mlir): the lanes'
// row addresses start at the view, 32768 bytes in.
// CHECK-LABEL: func.func @load_column_block
// CHECK-DAG: %[[C32768:.*]] = arith.constant 32768 : index
// CHECK: %[[PTR:.*]] = memref.extract_aligned_pointer_as_index
// CHECK-NEXT: %[[START:.*]] = arith.addi %[[PTR]], %[[C32768]] : index
// CHECK-NEXT: %[[START64:.*]] = arith.index_cast %[[START]] : index to i64
// CHECK: %[[SWZ:.*]] = arith.xori
// CHECK-NEXT: %[[LANE:.*]] = arith.addi %[[START64]], %[[SWZ]] : i64
// CHECK: %[[P:.*]] = llvm.inttoptr %[[LANE]] : i64 to !llvm.ptr<3>
// CHECK-NEXT: nvvm.ldmatrix %[[P]] {{.*}}num = 4
#sw = #tle.shared<swizzle = 128>
#opnd = #tle.mma_operand<warp_groups = [1, 1]>
func.func @load_column_block(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tle.shared_alloc : memref<64x576xbf16, #sw>
  %bv = memref.subview %b[0, 256] [64, 64] [1, 1]
      : memref<64x576xbf16, #sw> to memref<64x64xbf16, strided<[576, 1], offset: 256>, #sw>
  %init = arith.constant dense<0.0> : tensor<64x64xbf16, #opnd>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %init) -> tensor<64x64xbf16, #opnd> {
    %y = tle.local_load %bv : memref<64x64xbf16, strided<[576, 1], offset: 256>, #sw> -> tensor<64x64xbf16, #opnd>
    scf.yield %y : tensor<64x64xbf16, #opnd>
  }
  return
}

// -----

// tle.tma_load is lowered later, after subviews are expanded: its view
// becomes a reinterpret_cast whose offset (in elements) is where the view
// starts, 32768 bytes = 16384 bf16 in, from which convert-tle-to-nvvm
// places each box.
// CHECK-LABEL: func.func @tma_column_block
// CHECK: %[[VIEW:.*]] = memref.subview
// CHECK-NEXT: %[[MOVED:.*]] = memref.reinterpret_cast %[[VIEW]] to offset: [16384], sizes: [64, 128], strides: [576, 1]
// CHECK-NEXT: %[[CAST:.*]] = memref.cast %[[MOVED]]
// CHECK-NEXT: tle.tma_load %{{.*}} into %[[CAST]]
#sw = #tle.shared<swizzle = 128>
func.func @tma_column_block(%m: !tle.tensor_map<64x64xbf16, swizzle = 128>, %i: index) {
  %b = tle.shared_alloc : memref<64x576xbf16, #sw>
  %v = memref.subview %b[0, 256] [64, 128] [1, 1]
      : memref<64x576xbf16, #sw> to memref<64x128xbf16, strided<[576, 1], offset: 256>, #sw>
  tle.tma_load %m[%i, %i] into %v : !tle.tensor_map<64x64xbf16, swizzle = 128>, memref<64x128xbf16, strided<[576, 1], offset: 256>, #sw>
  return
}
