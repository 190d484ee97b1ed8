// RUN: tle-opt %s --tle-distribute-tensors -split-input-file -verify-diagnostics | FileCheck %s --enable-var-scope

// --tle-distribute-tensors on element-wise arith/math ops, splat constants,
// tle.splat and tle.iota (Elementwise.cpp): a tensor with a TLE layout
// becomes the vector of the elements one thread holds, in register order,
// and the op acts on that vector.
// Function arguments and results stay out of it (the pass converts bodies
// only), so values come from constants or loop-carried arguments, which
// also keeps the conversion from folding them away.

// A 128 x 256 f32 tensor over two warp groups is 128 registers per thread;
// element-wise arith and math ops keep their op on that vector, and truncf
// keeps the count while changing the element type.
// CHECK-LABEL: func.func @elementwise_mma
// CHECK: scf.for {{.*}} iter_args(%[[X:.*]] = %{{.*}}) -> (vector<128xf32>)
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[X]], %[[X]] : vector<128xf32>
// CHECK-NEXT: %[[E:.*]] = math.exp2 %[[M]] : vector<128xf32>
// CHECK-NEXT: %[[S:.*]] = arith.maximumf %[[E]], %[[X]] : vector<128xf32>
// CHECK-NEXT: %[[T:.*]] = arith.truncf %[[S]] : vector<128xf32> to vector<128xbf16>
// CHECK-NEXT: %[[U:.*]] = arith.extf %[[T]] : vector<128xbf16> to vector<128xf32>
// CHECK-NEXT: scf.yield %[[U]] : vector<128xf32>
// CHECK-NOT: tensor<
#acc = #tle.mma<warp_groups = [2, 1]>
func.func @elementwise_mma(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = arith.constant dense<1.0> : tensor<128x256xf32, #acc>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %init) -> tensor<128x256xf32, #acc> {
    %m = arith.mulf %x, %x : tensor<128x256xf32, #acc>
    %e = math.exp2 %m : tensor<128x256xf32, #acc>
    %s = arith.maximumf %e, %x : tensor<128x256xf32, #acc>
    %t = arith.truncf %s : tensor<128x256xf32, #acc> to tensor<128x256xbf16, #acc>
    %u = arith.extf %t : tensor<128x256xbf16, #acc> to tensor<128x256xf32, #acc>
    scf.yield %u : tensor<128x256xf32, #acc>
  }
  return
}

// -----

// A splat constant becomes a splat vector of the per-thread count: 32 rows
// x 4 column blocks of 8 bf16 for the blocked tile, the two rows a thread
// holds for a row slice of #tle.mma, 8 elements for a 64 x 16 operand.
// CHECK-LABEL: func.func @splat_constants
// CHECK-NEXT: arith.constant dense<0.000000e+00> : vector<256xbf16>
// CHECK-NEXT: arith.constant dense<0xFF800000> : vector<2xf32>
// CHECK-NEXT: arith.constant dense<1.000000e+00> : vector<8xf16>
// CHECK-NEXT: return
func.func @splat_constants() {
  %0 = arith.constant dense<0.0> : tensor<64x512xbf16, #tle.blocked<per_thread = [1, 8], threads = [2, 16], warps = [4, 1]>>
  %1 = arith.constant dense<0xFF800000> : tensor<64xf32, #tle.slice<dim = 1, parent = #tle.mma<warp_groups = [1, 1]>>>
  %2 = arith.constant dense<1.0> : tensor<64x16xf16, #tle.mma_operand<warp_groups = [1, 1]>>
  return
}

// -----

// tle.splat of a scalar becomes a vector.broadcast to the thread's count
// (8 registers of a 64 x 16 #tle.mma tile).
// CHECK-LABEL: func.func @splat
// CHECK-SAME: (%[[X:.*]]: f32,
// CHECK: scf.for {{.*}} iter_args(%[[A:.*]] = %{{.*}}) -> (vector<8xf32>)
// CHECK-NEXT: %[[S:.*]] = vector.broadcast %[[X]] : f32 to vector<8xf32>
// CHECK-NEXT: arith.mulf %[[A]], %[[S]] : vector<8xf32>
#acc = #tle.mma<warp_groups = [1, 1]>
func.func @splat(%x: f32, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = arith.constant dense<1.0> : tensor<64x16xf32, #acc>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %init) -> tensor<64x16xf32, #acc> {
    %s = tle.splat %x : f32 -> tensor<64x16xf32, #acc>
    %b = arith.mulf %a, %s : tensor<64x16xf32, #acc>
    scf.yield %b : tensor<64x16xf32, #acc>
  }
  return
}

// -----

// Loop-carried tensors become loop-carried vectors: the init, the block
// argument, the yield and the result all change type together.
// CHECK-LABEL: func.func @loop_iter_args
// CHECK: %[[INIT:.*]] = arith.constant dense<0.000000e+00> : vector<8xf32>
// CHECK: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : vector<8xf32>
// CHECK: %[[R:.*]]:2 = scf.for {{.*}} iter_args(%[[A:.*]] = %[[INIT]], %[[K:.*]] = %{{.*}}) -> (vector<8xf32>, index) {
// CHECK-NEXT: %[[B:.*]] = arith.addf %[[A]], %[[ONE]] : vector<8xf32>
// CHECK-NEXT: scf.yield %[[B]], %[[K]] : vector<8xf32>, index
// CHECK: arith.negf %[[R]]#0 : vector<8xf32>
#acc = #tle.mma<warp_groups = [1, 1]>
func.func @loop_iter_args(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant dense<0.0> : tensor<64x16xf32, #acc>
  %one = arith.constant dense<1.0> : tensor<64x16xf32, #acc>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %z, %k = %c0) -> (tensor<64x16xf32, #acc>, index) {
    %b = arith.addf %a, %one : tensor<64x16xf32, #acc>
    scf.yield %b, %k : tensor<64x16xf32, #acc>, index
  }
  %neg = arith.negf %r#0 : tensor<64x16xf32, #acc>
  return
}

// -----

// tle.iota: each element is its own coordinate. A column vector of
// #tle.mma<[1, 1]> holds columns 2(l % 4) + {0, 1} + 8j: base (tid % 4) * 2,
// offsets 0, 1, 8, 9, ... cast to i32.
// CHECK-LABEL: func.func @iota_columns
// CHECK: %[[T:.*]] = gpu.thread_id x
// CHECK: %[[LANE4:.*]] = arith.remui %[[T]], %c4{{.*}} : index
// CHECK: %[[PAIR:.*]] = arith.muli %[[LANE4]], %c2{{.*}} : index
// CHECK: %[[BASE:.*]] = arith.addi %{{.*}}, %[[PAIR]] : index
// CHECK: %[[E0:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: %[[X1:.*]] = arith.addi %[[BASE]], %c1{{.*}} : index
// CHECK-NEXT: %[[E1:.*]] = arith.index_cast %[[X1]] : index to i32
// CHECK: %[[X8:.*]] = arith.addi %[[BASE]], %c8{{.*}} : index
// CHECK-NEXT: %[[E8:.*]] = arith.index_cast %[[X8]] : index to i32
// CHECK: %[[X9:.*]] = arith.addi %[[BASE]], %c9{{.*}} : index
// CHECK-NEXT: %[[E9:.*]] = arith.index_cast %[[X9]] : index to i32
// CHECK-NEXT: vector.from_elements %[[E0]], %[[E1]], %[[E8]], %[[E9]] : vector<4xi32>
func.func @iota_columns(%out: memref<16xi32>) {
  %c0 = arith.constant 0 : index
  %c = tle.iota dim 0 : tensor<16xi32, #tle.slice<dim = 0, parent = #tle.mma<warp_groups = [1, 1]>>>
  tle.store %c, %out[%c0] : tensor<16xi32, #tle.slice<dim = 0, parent = #tle.mma<warp_groups = [1, 1]>>>, memref<16xi32>
  return
}

// -----

// tle.iota on a 2-D layout: dim 0 gives each element its row, dim 1 its
// column, so that a tile can be masked against itself (a causal mask:
// column <= row). In #tle.mma<[1, 1]> a thread of a 64 x 16 tile holds
// rows r, r + 8 (r = 16 (warp % 4) + (tid / 4) % 8, the warp from lane 0's
// shuffle) of columns c, c + 1, c + 8, c + 9 (c = 2 (tid % 4)), in the
// register order (r, c), (r, c+1), (r+8, c), (r+8, c+1), (r, c+8), ...
// CHECK-LABEL: func.func @iota_rows_and_columns
// CHECK: gpu.shuffle idx
// CHECK: %[[QUAD:.*]] = arith.remui %{{.*}}, %c8{{.*}} : index
// CHECK: %[[ROW:.*]] = arith.addi %{{.*}}, %[[QUAD]] : index
// CHECK: arith.addi %[[ROW]], %c0{{.*}} : index
// CHECK: arith.addi %[[ROW]], %c0{{.*}} : index
// CHECK: arith.addi %[[ROW]], %c8{{.*}} : index
// CHECK: arith.addi %[[ROW]], %c8{{.*}} : index
// CHECK: %[[ROWS:.*]] = vector.from_elements {{.*}} : vector<8xi32>
// CHECK: %[[LANE4:.*]] = arith.remui %{{.*}}, %c4{{.*}} : index
// CHECK: %[[PAIR:.*]] = arith.muli %[[LANE4]], %c2{{.*}} : index
// CHECK: %[[COL:.*]] = arith.addi %{{.*}}, %[[PAIR]] : index
// CHECK: arith.addi %[[COL]], %c0{{.*}} : index
// CHECK: arith.addi %[[COL]], %c1{{.*}} : index
// CHECK: arith.addi %[[COL]], %c0{{.*}} : index
// CHECK: arith.addi %[[COL]], %c1{{.*}} : index
// CHECK: arith.addi %[[COL]], %c8{{.*}} : index
// CHECK: arith.addi %[[COL]], %c9{{.*}} : index
// CHECK: %[[COLS:.*]] = vector.from_elements {{.*}} : vector<8xi32>
// CHECK: %[[MASK:.*]] = arith.cmpi sle, %[[COLS]], %[[ROWS]] : vector<8xi32>
// CHECK: arith.select %[[MASK]], %{{.*}}, %{{.*}} : vector<8xi1>, vector<8xf32>
func.func @iota_rows_and_columns(%out: memref<64x16xf32>) {
  %c0 = arith.constant 0 : index
  %r = tle.iota dim 0 : tensor<64x16xi32, #tle.mma<warp_groups = [1, 1]>>
  %c = tle.iota dim 1 : tensor<64x16xi32, #tle.mma<warp_groups = [1, 1]>>
  %causal = arith.cmpi sle, %c, %r : tensor<64x16xi32, #tle.mma<warp_groups = [1, 1]>>
  %one = arith.constant dense<1.0> : tensor<64x16xf32, #tle.mma<warp_groups = [1, 1]>>
  %ninf = arith.constant dense<0xFF800000> : tensor<64x16xf32, #tle.mma<warp_groups = [1, 1]>>
  %s = arith.select %causal, %one, %ninf : tensor<64x16xi1, #tle.mma<warp_groups = [1, 1]>>, tensor<64x16xf32, #tle.mma<warp_groups = [1, 1]>>
  tle.store %s, %out[%c0, %c0] : tensor<64x16xf32, #tle.mma<warp_groups = [1, 1]>>, memref<64x16xf32>
  return
}
