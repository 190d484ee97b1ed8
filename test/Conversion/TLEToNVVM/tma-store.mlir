// RUN: tle-opt %s --convert-tle-to-nvvm | FileCheck %s --enable-var-scope

// The issued form of tle.tma_store: a 64 x 256 swizzled tile of 64 x 64
// boxes is four copies from its four 128-byte column chunks (8 KiB
// apart), coordinates innermost first, committed as one bulk group that
// the thread waits on until the tile has been read.

// CHECK-LABEL: llvm.func @tma_store_tile
// CHECK-SAME: (%[[MAP:.*]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}
// CHECK: %[[COL:.*]] = llvm.trunc %{{.*}} : i64 to i32
// CHECK: %[[ROW:.*]] = llvm.trunc %{{.*}} : i64 to i32
// CHECK: %[[S0:.*]] = llvm.getelementptr %[[BASE:.*]][0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, bf16
// CHECK: %[[C0:.*]] = llvm.add %[[COL]], %{{.*}} : i32
// CHECK: %[[R0:.*]] = llvm.add %[[ROW]], %{{.*}} : i32
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %[[MAP]], %[[S0]], box[%[[C0]], %[[R0]]]
// CHECK: llvm.getelementptr %[[BASE]][4096] : (!llvm.ptr<3>) -> !llvm.ptr<3>, bf16
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK: llvm.getelementptr %[[BASE]][8192] : (!llvm.ptr<3>) -> !llvm.ptr<3>, bf16
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK: llvm.getelementptr %[[BASE]][12288] : (!llvm.ptr<3>) -> !llvm.ptr<3>, bf16
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-NEXT: llvm.return

// (The form a partition writes, not yet expanded, is refused:
// tle-to-nvvm.mlir.)
func.func @tma_store_tile(%map: !tle.tensor_map<64x64xbf16, swizzle = 128>,
                          %row: index, %col: index)
    attributes {tle.block_size = 128 : i64} {
  %tile = tle.shared_alloc {offset = 1024 : i64}
      : memref<64x256xbf16, #tle.shared<swizzle = 128>>
  tle.tma_store %map[%row, %col] from %tile issued
      : !tle.tensor_map<64x64xbf16, swizzle = 128>,
        memref<64x256xbf16, #tle.shared<swizzle = 128>>
  return
}

// A 3-D map with a box of 1 x 64 x 64 takes a 2-D tile to one plane of a
// 3-D tensor (an output [heads, rows, columns]): the leading coordinate
// goes with every copy.
// CHECK-LABEL: llvm.func @tma_store_3d_map_2d_tile
// CHECK-SAME: (%[[MAP:.*]]: !llvm.ptr {{.*}}, %[[H:.*]]: i64, %[[R:.*]]: i64, %[[C:.*]]: i64)
// CHECK: %[[HEAD:.*]] = llvm.trunc %[[H]] : i64 to i32
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %[[MAP]], %{{.*}}, box[%{{.*}}, %{{.*}}, %[[HEAD]]]
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %[[MAP]], %{{.*}}, box[%{{.*}}, %{{.*}}, %[[HEAD]]]
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
func.func @tma_store_3d_map_2d_tile(%map: !tle.tensor_map<1x64x64xbf16, swizzle = 128>,
                                    %head: index, %row: index, %col: index)
    attributes {tle.block_size = 128 : i64} {
  %tile = tle.shared_alloc {offset = 1024 : i64}
      : memref<64x128xbf16, #tle.shared<swizzle = 128>>
  tle.tma_store %map[%head, %row, %col] from %tile issued
      : !tle.tensor_map<1x64x64xbf16, swizzle = 128>,
        memref<64x128xbf16, #tle.shared<swizzle = 128>>
  return
}
