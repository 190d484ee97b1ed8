// RUN: tle-opt %s --tle-distribute-tensors -split-input-file -verify-diagnostics | FileCheck %s --enable-var-scope

// --tle-distribute-tensors on the trailing barrier of exchanges through
// scratch memory (Exchange.cpp). An exchange alone in a loop body keeps it:
// without it a fast thread's next iteration would overwrite the scratch
// buffer while slower threads still read it. (The check must not count the
// op's own first barrier.) Function arguments and results stay out of it
// (the pass converts bodies only), so values come from constants or
// loop-carried arguments, which also keeps the conversion from folding
// them away.

// One cross-warp reduction alone in a loop: a barrier between the writes
// and the reads of its scratch buffer, and one after the reads, before the
// next iteration writes again.
// CHECK-LABEL: func.func @reduce_alone_in_loop
// CHECK: scf.for
// CHECK-NOT: gpu.barrier
// CHECK: llvm.store
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: llvm.load
// CHECK: gpu.barrier
// CHECK-NEXT: vector.from_elements {{.*}} : vector<2xf32>
// CHECK-NOT: gpu.barrier
// CHECK: scf.yield
#acc = #tle.mma<warp_groups = [1, 1]>
#col = #tle.slice<dim = 0, parent = #acc>
func.func @reduce_alone_in_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = arith.constant dense<1.0> : tensor<64x8xf32, #acc>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%s = %init) -> tensor<64x8xf32, #acc> {
    %m = tle.reduce max %s dim 0 : tensor<64x8xf32, #acc> -> tensor<8xf32, #col>
    scf.yield %s : tensor<64x8xf32, #acc>
  }
  return
}

// -----

// The same for a convert_layout that moves data: the trailing barrier
// follows the loads of the target layout.
// CHECK-LABEL: func.func @convert_alone_in_loop
// CHECK: scf.for
// CHECK-NOT: gpu.barrier
// CHECK: nvvm.stmatrix
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: nvvm.ldmatrix
// CHECK: gpu.barrier
// CHECK-NEXT: vector.from_elements {{.*}} : vector<32xbf16>
// CHECK-NOT: gpu.barrier
// CHECK: scf.yield
#acc = #tle.mma<warp_groups = [1, 2]>
#opnd = #tle.mma_operand<warp_groups = [1, 2]>
func.func @convert_alone_in_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = arith.constant dense<1.0> : tensor<64x64xbf16, #acc>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%p = %init) -> tensor<64x64xbf16, #acc> {
    %a = tle.convert_layout %p : tensor<64x64xbf16, #acc> -> tensor<64x64xbf16, #opnd>
    %neg = arith.negf %a : tensor<64x64xbf16, #opnd>
    scf.yield %p : tensor<64x64xbf16, #acc>
  }
  return
}

// -----

// The trailing barrier: an exchange in a loop must keep the next
// iteration's writes to its scratch buffer behind every thread's reads.
// Two exchanges in one loop body guard each other (each one's barrier
// lies between the other's reads and next writes), so each keeps only the
// barrier between its writes and reads.
// CHECK-LABEL: func.func @two_exchanges_in_loop
// CHECK: scf.for
// CHECK-NOT: gpu.barrier
// CHECK: llvm.store
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK-NOT: gpu.barrier
// CHECK: gpu.shuffle  xor
// CHECK-NOT: gpu.barrier
// CHECK: llvm.store
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-NOT: gpu.barrier
// CHECK: scf.yield
#acc = #tle.mma<warp_groups = [1, 1]>
#col = #tle.slice<dim = 0, parent = #acc>
func.func @two_exchanges_in_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = arith.constant dense<1.0> : tensor<64x8xf32, #acc>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%s = %init) -> tensor<64x8xf32, #acc> {
    %m = tle.reduce max %s dim 0 : tensor<64x8xf32, #acc> -> tensor<8xf32, #col>
    %t = tle.reduce sum %s dim 0 : tensor<64x8xf32, #acc> -> tensor<8xf32, #col>
    scf.yield %s : tensor<64x8xf32, #acc>
  }
  return
}

// -----

// With `scratch`, the exchange goes through the author's buffer (here
// swizzled, so stmatrix writes it) and allocates none; used nowhere else
// and outside every loop, it needs only the barrier between its writes and
// reads. The result layout takes 16 bytes a thread.
// CHECK-LABEL: func.func @convert_through_scratch
// CHECK-NOT: tle.shared_alloc
// CHECK-NOT: gpu.barrier
// CHECK: nvvm.stmatrix
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: llvm.load {{.*}} -> vector<8xbf16>
// CHECK-NOT: gpu.barrier
// CHECK: return
#acc = #tle.mma<warp_groups = [1, 1]>
#rows = #tle.blocked<per_thread = [1, 8], threads = [1, 32], warps = [4, 1]>
#sw = #tle.shared<swizzle = 128>
func.func @convert_through_scratch(%buf: memref<64x256xbf16, #sw>) {
  %o = arith.constant dense<1.0> : tensor<64x256xbf16, #acc>
  %r = tle.convert_layout %o scratch %buf
      : tensor<64x256xbf16, #acc> -> tensor<64x256xbf16, #rows>, memref<64x256xbf16, #sw>
  %neg = arith.negf %r : tensor<64x256xbf16, #rows>
  return
}

// -----

// A scratch buffer the partition also accesses elsewhere (a later store
// here) gets a barrier before the exchange and one after it.
// CHECK-LABEL: func.func @convert_through_shared_scratch
// CHECK-NOT: nvvm.stmatrix
// CHECK: gpu.barrier
// CHECK: nvvm.stmatrix
// CHECK: gpu.barrier
// CHECK: llvm.load
// CHECK: gpu.barrier
// CHECK: nvvm.stmatrix
#acc = #tle.mma<warp_groups = [1, 1]>
#rows = #tle.blocked<per_thread = [1, 8], threads = [1, 32], warps = [4, 1]>
#sw = #tle.shared<swizzle = 128>
func.func @convert_through_shared_scratch(%buf: memref<64x256xbf16, #sw>) {
  %o = arith.constant dense<1.0> : tensor<64x256xbf16, #acc>
  %r = tle.convert_layout %o scratch %buf
      : tensor<64x256xbf16, #acc> -> tensor<64x256xbf16, #rows>, memref<64x256xbf16, #sw>
  %neg = arith.negf %r : tensor<64x256xbf16, #rows>
  tle.local_store %o, %buf : tensor<64x256xbf16, #acc>, memref<64x256xbf16, #sw>
  return
}
