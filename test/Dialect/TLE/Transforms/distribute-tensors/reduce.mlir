// RUN: tle-opt %s --tle-distribute-tensors -split-input-file -verify-diagnostics | FileCheck %s --enable-var-scope

// --tle-distribute-tensors on tle.reduce, tle.broadcast and tle.scale
// (Reduce.cpp): in-thread folds, lane shuffles and, across warps, a scratch
// buffer; a scale under a warp vote.
// Function arguments and results stay out of it (the pass converts bodies
// only), so values come from constants or loop-carried arguments, which
// also keeps the conversion from folding them away.

// Row maximum of a 64 x 16 #tle.mma tile: a thread holds rows r and r + 8,
// columns {c, c+1, c+8, c+9}; registers 0, 1, 4, 5 are row r and 2, 3, 6, 7
// row r + 8. Each row folds in-thread, then over the quad of lanes that
// share it (xor 1, xor 2); no other lane bits take part.
// CHECK-LABEL: func.func @reduce_max_rows
// CHECK: %[[E0:.*]] = vector.extract %[[S:.*]][0] : f32 from vector<8xf32>
// CHECK-NEXT: %[[E1:.*]] = vector.extract %[[S]][1]
// CHECK-NEXT: %[[E2:.*]] = vector.extract %[[S]][2]
// CHECK-NEXT: %[[E3:.*]] = vector.extract %[[S]][3]
// CHECK-NEXT: %[[E4:.*]] = vector.extract %[[S]][4]
// CHECK-NEXT: %[[E5:.*]] = vector.extract %[[S]][5]
// CHECK-NEXT: %[[E6:.*]] = vector.extract %[[S]][6]
// CHECK-NEXT: %[[E7:.*]] = vector.extract %[[S]][7]
// CHECK-NEXT: %[[A01:.*]] = arith.maximumf %[[E0]], %[[E1]] : f32
// CHECK-NEXT: %[[B23:.*]] = arith.maximumf %[[E2]], %[[E3]] : f32
// CHECK-NEXT: %[[A4:.*]] = arith.maximumf %[[A01]], %[[E4]] : f32
// CHECK-NEXT: %[[A5:.*]] = arith.maximumf %[[A4]], %[[E5]] : f32
// CHECK-NEXT: %[[B6:.*]] = arith.maximumf %[[B23]], %[[E6]] : f32
// CHECK-NEXT: %[[B7:.*]] = arith.maximumf %[[B6]], %[[E7]] : f32
// CHECK-NEXT: %[[M1:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[W:.*]] = arith.constant 32 : i32
// CHECK-NEXT: %[[AX1:.*]], %{{.*}} = gpu.shuffle  xor %[[A5]], %[[M1]], %[[W]] : f32
// CHECK-NEXT: %[[A6:.*]] = arith.maximumf %[[A5]], %[[AX1]] : f32
// CHECK-NEXT: %[[M2:.*]] = arith.constant 2 : i32
// CHECK-NEXT: arith.constant 32 : i32
// CHECK-NEXT: %[[AX2:.*]], %{{.*}} = gpu.shuffle  xor %[[A6]], %[[M2]], %{{.*}} : f32
// CHECK-NEXT: %[[ROW:.*]] = arith.maximumf %[[A6]], %[[AX2]] : f32
// CHECK: gpu.shuffle  xor %[[B7]], %c1_i32{{.*}} : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32{{.*}} : f32
// CHECK-NEXT: %[[ROW8:.*]] = arith.maximumf
// CHECK-NOT: gpu.shuffle
// CHECK-NEXT: vector.from_elements %[[ROW]], %[[ROW8]] : vector<2xf32>
#acc = #tle.mma<warp_groups = [1, 1]>
#row = #tle.slice<dim = 1, parent = #tle.mma<warp_groups = [1, 1]>>
func.func @reduce_max_rows(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = arith.constant dense<1.0> : tensor<64x16xf32, #acc>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%s = %init) -> tensor<64x16xf32, #acc> {
    %m = tle.reduce max %s dim 1 : tensor<64x16xf32, #acc> -> tensor<64xf32, #row>
    scf.yield %s : tensor<64x16xf32, #acc>
  }
  return
}

// -----

// A sum folds with addf, same lanes.
// CHECK-LABEL: func.func @reduce_sum_rows
// CHECK-COUNT-6: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: %[[M1:.*]] = arith.constant 1 : i32
// CHECK-NEXT: arith.constant 32 : i32
// CHECK-NEXT: %[[X1:.*]], %{{.*}} = gpu.shuffle  xor %[[P:.*]], %[[M1]], %{{.*}} : f32
// CHECK-NEXT: arith.addf %[[P]], %[[X1]] : f32
// CHECK-NOT: arith.maximumf
// CHECK: vector.from_elements %{{.*}}, %{{.*}} : vector<2xf32>
#acc = #tle.mma<warp_groups = [1, 1]>
#row = #tle.slice<dim = 1, parent = #tle.mma<warp_groups = [1, 1]>>
func.func @reduce_sum_rows(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = arith.constant dense<1.0> : tensor<64x16xf32, #acc>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%s = %init) -> tensor<64x16xf32, #acc> {
    %m = tle.reduce sum %s dim 1 : tensor<64x16xf32, #acc> -> tensor<64xf32, #row>
    scf.yield %s : tensor<64x16xf32, #acc>
  }
  return
}

// -----

// A fold into a 64 x 8 tensor of the same layout: the running row sum of an
// online softmax, kept per thread across tiles. Columns c, c + 8 fold into
// column c, which the thread holds itself: registers 0 and 4 (row r,
// column c), 1 and 5, 2 and 6, 3 and 7 combine, and no lane is asked.
// CHECK-LABEL: func.func @fold_sum_rows
// CHECK: %[[E0:.*]] = vector.extract %[[S:.*]][0] : f32 from vector<8xf32>
// CHECK-NEXT: %[[E1:.*]] = vector.extract %[[S]][1]
// CHECK-NEXT: %[[E2:.*]] = vector.extract %[[S]][2]
// CHECK-NEXT: %[[E3:.*]] = vector.extract %[[S]][3]
// CHECK-NEXT: %[[E4:.*]] = vector.extract %[[S]][4]
// CHECK-NEXT: %[[E5:.*]] = vector.extract %[[S]][5]
// CHECK-NEXT: %[[E6:.*]] = vector.extract %[[S]][6]
// CHECK-NEXT: %[[E7:.*]] = vector.extract %[[S]][7]
// CHECK-NEXT: %[[P0:.*]] = arith.addf %[[E0]], %[[E4]] : f32
// CHECK-NEXT: %[[P1:.*]] = arith.addf %[[E1]], %[[E5]] : f32
// CHECK-NEXT: %[[P2:.*]] = arith.addf %[[E2]], %[[E6]] : f32
// CHECK-NEXT: %[[P3:.*]] = arith.addf %[[E3]], %[[E7]] : f32
// CHECK-NEXT: vector.from_elements %[[P0]], %[[P1]], %[[P2]], %[[P3]] : vector<4xf32>
// CHECK-NOT: gpu.shuffle
#acc = #tle.mma<warp_groups = [1, 1]>
func.func @fold_sum_rows(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = arith.constant dense<1.0> : tensor<64x16xf32, #acc>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%s = %init) -> tensor<64x16xf32, #acc> {
    %l = tle.reduce sum %s dim 1 : tensor<64x16xf32, #acc> -> tensor<64x8xf32, #acc>
    scf.yield %s : tensor<64x16xf32, #acc>
  }
  return
}

// -----

// A column reduction of #tle.mma combines the four warps of the warp group
// (16 rows each) through shared memory. In-thread, rows r and r + 8 fold
// (registers 0 and 2 for column c); in-warp, the lane bits of the row
// (xor 4, 8, 16). Then each warp writes its 4 partials to its own slot
// (warp = tid / 32 mod 4) of a [4, 16] f32 scratch buffer made at the start
// of the function, and after a barrier every thread reads the 4 slots of
// each of its columns and folds them in slot order. Outside any loop the
// buffer is never written again, so there is no trailing barrier.
// CHECK-LABEL: func.func @reduce_across_warps
// CHECK-NEXT: %[[SCRATCH:.*]] = tle.shared_alloc {name = "scratch"} : memref<4x16xf32, #gpu.address_space<workgroup>>
// CHECK: %[[E0:.*]] = vector.extract %{{.*}}[0] : f32 from vector<8xf32>
// CHECK-NEXT: %[[E1:.*]] = vector.extract
// CHECK-NEXT: %[[E2:.*]] = vector.extract
// CHECK: %[[C0:.*]] = arith.maximumf %[[E0]], %[[E2]] : f32
// CHECK: %[[M4:.*]] = arith.constant 4 : i32
// CHECK-NEXT: arith.constant 32 : i32
// CHECK-NEXT: %[[X4:.*]], %{{.*}} = gpu.shuffle  xor %[[C0]], %[[M4]], %{{.*}} : f32
// CHECK-NEXT: %[[P4:.*]] = arith.maximumf %[[C0]], %[[X4]] : f32
// CHECK-NEXT: %[[M8:.*]] = arith.constant 8 : i32
// CHECK-NEXT: arith.constant 32 : i32
// CHECK-NEXT: %[[X8:.*]], %{{.*}} = gpu.shuffle  xor %[[P4]], %[[M8]], %{{.*}} : f32
// CHECK-NEXT: %[[P8:.*]] = arith.maximumf %[[P4]], %[[X8]] : f32
// CHECK-NEXT: %[[M16:.*]] = arith.constant 16 : i32
// CHECK-NEXT: arith.constant 32 : i32
// CHECK-NEXT: %[[X16:.*]], %{{.*}} = gpu.shuffle  xor %[[P8]], %[[M16]], %{{.*}} : f32
// CHECK-NEXT: %[[PART:.*]] = arith.maximumf %[[P8]], %[[X16]] : f32
// CHECK: memref.extract_strided_metadata %[[SCRATCH]]
// CHECK: %[[TID:.*]] = gpu.thread_id  x
// CHECK: %[[WARP:.*]] = arith.divui %[[TID]], %c32{{.*}} : index
// CHECK: arith.remui %[[WARP]], %c4{{.*}} : index
// CHECK: %[[SROW:.*]] = arith.muli %{{.*}}, %c16{{.*}} : index
// CHECK-NEXT: %[[SIDX:.*]] = arith.addi %[[SROW]], %[[COL:.*]] : index
// CHECK-NEXT: %[[SEB:.*]] = arith.constant 4 : index
// CHECK-NEXT: arith.muli %[[SIDX]], %[[SEB]] : index
// CHECK: llvm.store %[[PART]], %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK-COUNT-3: llvm.store %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: %[[S0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[W0:.*]] = arith.constant 16 : index
// CHECK-NEXT: %[[R0:.*]] = arith.muli %[[S0]], %[[W0]] : index
// CHECK-NEXT: arith.addi %[[R0]], %[[COL]] : index
// CHECK: %[[L0:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK-NEXT: %[[S1:.*]] = arith.constant 1 : index
// CHECK: %[[L1:.*]] = llvm.load
// CHECK-NEXT: %[[F01:.*]] = arith.maximumf %[[L0]], %[[L1]] : f32
// CHECK-NEXT: arith.constant 2 : index
// CHECK: %[[L2:.*]] = llvm.load
// CHECK-NEXT: %[[F012:.*]] = arith.maximumf %[[F01]], %[[L2]] : f32
// CHECK-NEXT: arith.constant 3 : index
// CHECK: %[[L3:.*]] = llvm.load
// CHECK-NEXT: %[[COLMAX:.*]] = arith.maximumf %[[F012]], %[[L3]] : f32
// CHECK-NOT: gpu.barrier
// CHECK: vector.from_elements %[[COLMAX]], %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK-NOT: gpu.barrier
// CHECK: return
#acc = #tle.mma<warp_groups = [1, 1]>
func.func @reduce_across_warps() {
  %s = arith.constant dense<1.0> : tensor<64x16xf32, #acc>
  %m = tle.reduce max %s dim 0 : tensor<64x16xf32, #acc> -> tensor<16xf32, #tle.slice<dim = 0, parent = #acc>>
  return
}

// -----

// A row maximum over #tle.mma<warp_groups = [1, 2]> in an 8-warp
// partition: each warp group holds 32 of the 64 columns, so after the
// quad shuffles (xor 1, 2) the two warp groups exchange through a [2, 64]
// f32 scratch buffer: element slot x 64 + row for its rows r and r + 8,
// slot = tid / 128 mod 2. After the barrier each row folds slot 0, then 1.
// CHECK-LABEL: func.func @reduce_across_warp_groups
// CHECK-NEXT: %[[SCRATCH:.*]] = tle.shared_alloc {name = "scratch"} : memref<2x64xf32, #gpu.address_space<workgroup>>
// CHECK: default warps(8)
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32
// CHECK-NEXT: %[[ROWPART:.*]] = arith.maximumf
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32
// CHECK-NEXT: %[[ROW8PART:.*]] = arith.maximumf
// CHECK-NOT: gpu.shuffle
// CHECK: memref.extract_strided_metadata %[[SCRATCH]]
// CHECK: %[[TID:.*]] = gpu.thread_id  x
// CHECK: %[[WG:.*]] = arith.divui %[[TID]], %c128{{.*}} : index
// CHECK: arith.remui %[[WG]], %c2{{.*}} : index
// CHECK: %[[R:.*]] = arith.addi %{{.*}}, %c0{{.*}} : index
// CHECK-NEXT: %[[C8:.*]] = arith.constant 8 : index
// CHECK-NEXT: %[[R8:.*]] = arith.addi %{{.*}}, %[[C8]] : index
// CHECK-NEXT: %[[W:.*]] = arith.constant 64 : index
// CHECK-NEXT: %[[SROW:.*]] = arith.muli %{{.*}}, %[[W]] : index
// CHECK-NEXT: arith.addi %[[SROW]], %[[R]] : index
// CHECK: llvm.store %[[ROWPART]], %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK: llvm.store %[[ROW8PART]], %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: %[[S0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[W0:.*]] = arith.constant 64 : index
// CHECK-NEXT: %[[O0:.*]] = arith.muli %[[S0]], %[[W0]] : index
// CHECK-NEXT: arith.addi %[[O0]], %[[R]] : index
// CHECK: %[[L0:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK-NEXT: %[[S1:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[W1:.*]] = arith.constant 64 : index
// CHECK-NEXT: %[[O1:.*]] = arith.muli %[[S1]], %[[W1]] : index
// CHECK-NEXT: arith.addi %[[O1]], %[[R]] : index
// CHECK: %[[L1:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK-NEXT: %[[MAXR:.*]] = arith.maximumf %[[L0]], %[[L1]] : f32
// CHECK: arith.addi %{{.*}}, %[[R8]] : index
// CHECK: arith.addi %{{.*}}, %[[R8]] : index
// CHECK: %[[MAXR8:.*]] = arith.maximumf
// CHECK-NEXT: %[[V:.*]] = vector.from_elements %[[MAXR]], %[[MAXR8]] : vector<2xf32>
// CHECK-NEXT: arith.negf %[[V]] : vector<2xf32>
// CHECK-NOT: gpu.barrier
// CHECK: tle.warp_yield
#acc = #tle.mma<warp_groups = [1, 2]>
#row = #tle.slice<dim = 1, parent = #acc>
func.func @reduce_across_warp_groups() {
  tle.warp_specialize
  default warps(8) {
    %s = arith.constant dense<1.0> : tensor<64x64xf32, #acc>
    %m = tle.reduce max %s dim 1 : tensor<64x64xf32, #acc> -> tensor<64xf32, #row>
    %n = arith.negf %m : tensor<64xf32, #row>
    tle.warp_yield
  }
  return
}

// -----

// Broadcasting a row vector back: register i of the 64 x 16 tile takes the
// value of its row (0, 0, 8, 8 per column group), i.e. slice element 0 or 1.
// CHECK-LABEL: func.func @broadcast_rows
// CHECK: scf.for {{.*}} iter_args(%[[V:.*]] = %{{.*}}) -> (vector<2xf32>)
// CHECK-NEXT: %[[B:.*]] = vector.shuffle %[[V]], %[[V]] [0, 0, 1, 1, 0, 0, 1, 1] : vector<2xf32>, vector<2xf32>
// CHECK-NEXT: arith.negf %[[B]] : vector<8xf32>
#acc = #tle.mma<warp_groups = [1, 1]>
#row = #tle.slice<dim = 1, parent = #tle.mma<warp_groups = [1, 1]>>
func.func @broadcast_rows(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = arith.constant dense<1.0> : tensor<64xf32, #row>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%v = %init) -> tensor<64xf32, #row> {
    %b = tle.broadcast %v dim 1 : tensor<64xf32, #row> -> tensor<64x16xf32, #acc>
    %neg = arith.negf %b : tensor<64x16xf32, #acc>
    scf.yield %v : tensor<64xf32, #row>
  }
  return
}

// -----

// Scaling the rows of the 64 x 16 tile: the thread compares its two row
// factors with 1 (unordered: NaN multiplies), the warp votes, and only a
// warp holding a factor other than 1 multiplies, by the broadcast of the
// factors; the other yields the tile unchanged.
// CHECK-LABEL: func.func @scale_rows
// CHECK: scf.for {{.*}} iter_args(%[[S:.*]] = %{{.*}}, %[[F:.*]] = %{{.*}}) -> (vector<8xf32>, vector<2xf32>)
// CHECK-NEXT: %[[F0:.*]] = vector.extract %[[F]][0] : f32 from vector<2xf32>
// CHECK-NEXT: %[[F1:.*]] = vector.extract %[[F]][1] : f32 from vector<2xf32>
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[NE0:.*]] = arith.cmpf une, %[[F0]], %[[ONE]] : f32
// CHECK-NEXT: %[[NE1:.*]] = arith.cmpf une, %[[F1]], %[[ONE]] : f32
// CHECK-NEXT: %[[NE:.*]] = arith.ori %[[NE0]], %[[NE1]] : i1
// CHECK-NEXT: %[[ALL:.*]] = arith.constant -1 : i32
// CHECK-NEXT: %[[ANY:.*]] = nvvm.vote.sync  any %[[ALL]], %[[NE]] -> i1
// CHECK-NEXT: %[[R:.*]] = scf.if %[[ANY]] -> (vector<8xf32>) {
// CHECK-NEXT: %[[B:.*]] = vector.shuffle %[[F]], %[[F]] [0, 0, 1, 1, 0, 0, 1, 1] : vector<2xf32>, vector<2xf32>
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[S]], %[[B]] : vector<8xf32>
// CHECK-NEXT: scf.yield %[[M]] : vector<8xf32>
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %[[S]] : vector<8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: scf.yield %[[R]], %[[F]]
#acc = #tle.mma<warp_groups = [1, 1]>
#row = #tle.slice<dim = 1, parent = #tle.mma<warp_groups = [1, 1]>>
func.func @scale_rows(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = arith.constant dense<1.0> : tensor<64x16xf32, #acc>
  %f0 = arith.constant dense<2.0> : tensor<64xf32, #row>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%s = %init, %f = %f0)
      -> (tensor<64x16xf32, #acc>, tensor<64xf32, #row>) {
    %t = tle.scale %s by %f dim 1 : tensor<64x16xf32, #acc>, tensor<64xf32, #row>
    scf.yield %t, %f : tensor<64x16xf32, #acc>, tensor<64xf32, #row>
  }
  return
}

// -----

// Scaling the columns: a thread holds four of the 16 columns ({c, c+1,
// c+8, c+9}), so it compares four factors, and register i takes the
// factor of its column.
// CHECK-LABEL: func.func @scale_columns
// CHECK-COUNT-4: arith.cmpf une
// CHECK-NOT: arith.cmpf
// CHECK: nvvm.vote.sync  any
// CHECK: vector.shuffle %[[F:.*]], %[[F]] [0, 1, 0, 1, 2, 3, 2, 3] : vector<4xf32>, vector<4xf32>
#acc = #tle.mma<warp_groups = [1, 1]>
#col = #tle.slice<dim = 0, parent = #tle.mma<warp_groups = [1, 1]>>
func.func @scale_columns(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = arith.constant dense<1.0> : tensor<64x16xf32, #acc>
  %f0 = arith.constant dense<2.0> : tensor<16xf32, #col>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%s = %init, %f = %f0)
      -> (tensor<64x16xf32, #acc>, tensor<16xf32, #col>) {
    %t = tle.scale %s by %f dim 0 : tensor<64x16xf32, #acc>, tensor<16xf32, #col>
    scf.yield %t, %f : tensor<64x16xf32, #acc>, tensor<16xf32, #col>
  }
  return
}
