// RUN: tle-opt %s --convert-tle-to-nvvm | FileCheck %s --enable-var-scope

// A tensor map is a 128-byte .param passed by value; a 64 x 256 swizzled
// tile of 64 x 64 boxes takes four copies, one per 128-byte column chunk
// (8 KiB apart), coordinates innermost first, on the slot's barrier.

// CHECK-LABEL: llvm.func @tma_tile
// CHECK-SAME: (%[[MAP:.*]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}
// CHECK: %[[BAR:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i64
// CHECK: %[[COL:.*]] = llvm.trunc %{{.*}} : i64 to i32
// CHECK: %[[ROW:.*]] = llvm.trunc %{{.*}} : i64 to i32
// CHECK: %[[D0:.*]] = llvm.getelementptr %[[BASE:.*]][0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, bf16
// CHECK: %[[C0:.*]] = llvm.add %[[COL]], %{{.*}} : i32
// CHECK: %[[R0:.*]] = llvm.add %[[ROW]], %{{.*}} : i32
// CHECK: %[[P0:.*]] = llvm.addrspacecast %[[D0]] : !llvm.ptr<3> to !llvm.ptr<7>
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[P0]], %[[MAP]], %[[BAR]], box[%[[C0]], %[[R0]]]
// CHECK: llvm.getelementptr %[[BASE]][4096] : (!llvm.ptr<3>) -> !llvm.ptr<3>, bf16
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: llvm.getelementptr %[[BASE]][8192] : (!llvm.ptr<3>) -> !llvm.ptr<3>, bf16
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: llvm.getelementptr %[[BASE]][12288] : (!llvm.ptr<3>) -> !llvm.ptr<3>, bf16
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK: llvm.return
func.func @tma_tile(%map: !tle.tensor_map<64x64xbf16, swizzle = 128>,
                    %row: index, %col: index, %slot: index)
    attributes {tle.block_size = 128 : i64} {
  %bars = tle.shared_alloc {offset = 0 : i64} : memref<2xi64, 3>
  %tile = tle.shared_alloc {offset = 1024 : i64}
      : memref<64x256xbf16, #tle.shared<swizzle = 128>>
  tle.tma_load %map[%row, %col] into %tile barrier %bars[%slot] : memref<2xi64, 3>
      : !tle.tensor_map<64x64xbf16, swizzle = 128>,
        memref<64x256xbf16, #tle.shared<swizzle = 128>>
  return
}

// A 3-D map with a box of 1 x 64 x 64 fills a 2-D tile: the leading
// coordinate (a head, a batch) picks the plane, and each copy passes it
// unchanged, outermost last, after the column and row of its box.
// CHECK-LABEL: llvm.func @tma_3d_map_2d_tile
// CHECK-SAME: (%[[MAP:.*]]: !llvm.ptr {{.*}}, %[[H:.*]]: i64, %[[R:.*]]: i64, %[[C:.*]]: i64, %{{.*}}: i64)
// CHECK: %[[COL:.*]] = llvm.trunc %[[C]] : i64 to i32
// CHECK: %[[ROW:.*]] = llvm.trunc %[[R]] : i64 to i32
// CHECK: %[[HEAD:.*]] = llvm.trunc %[[H]] : i64 to i32
// CHECK: %[[C0:.*]] = llvm.add %[[COL]], %{{.*}} : i32
// CHECK: %[[R0:.*]] = llvm.add %[[ROW]], %{{.*}} : i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MAP]], %{{.*}}, box[%[[C0]], %[[R0]], %[[HEAD]]]
// CHECK: llvm.getelementptr %{{.*}}[4096] : (!llvm.ptr<3>) -> !llvm.ptr<3>, bf16
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MAP]], %{{.*}}, box[%{{.*}}, %{{.*}}, %[[HEAD]]]
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK: llvm.return
func.func @tma_3d_map_2d_tile(%map: !tle.tensor_map<1x64x64xbf16, swizzle = 128>,
                              %head: index, %row: index, %col: index,
                              %slot: index)
    attributes {tle.block_size = 128 : i64} {
  %bars = tle.shared_alloc {offset = 0 : i64} : memref<2xi64, 3>
  %tile = tle.shared_alloc {offset = 1024 : i64}
      : memref<64x128xbf16, #tle.shared<swizzle = 128>>
  tle.tma_load %map[%head, %row, %col] into %tile barrier %bars[%slot] : memref<2xi64, 3>
      : !tle.tensor_map<1x64x64xbf16, swizzle = 128>,
        memref<64x128xbf16, #tle.shared<swizzle = 128>>
  return
}
