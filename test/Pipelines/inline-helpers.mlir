// RUN: tle-opt %s --tle-derive-sync | FileCheck %s
// RUN: tle-opt %s --tle-to-llvm | tle-translate --tle-to-ptx -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}
//
// A kernel's helper functions, here one that two partitions call on their
// distributed tensors, are inlined into the kernel before the protocol
// check and the lowering see it, and dropped: nothing else changes.

// CHECK-LABEL: func.func @kernel
// CHECK-NOT: func.call
// CHECK: tle.warp_specialize
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: tle.warp_return
// CHECK-NOT: func.func private @affine

#lanes = #tle.blocked<per_thread = [1], threads = [32], warps = [4]>

func.func @kernel(%in: memref<128xf32>, %out: memref<256xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  tle.warp_specialize
  default "first" warps(4) registers(120) {
    %x = tle.load %in[%c0] : memref<128xf32> -> tensor<128xf32, #lanes>
    %y = func.call @affine(%x, %s) : (tensor<128xf32, #lanes>, f32) -> tensor<128xf32, #lanes>
    tle.store %y, %out[%c0] : tensor<128xf32, #lanes>, memref<256xf32>
    tle.warp_yield
  }
  partition "second" warps(4) registers(120) {
    %x = tle.load %in[%c0] : memref<128xf32> -> tensor<128xf32, #lanes>
    %y = func.call @affine(%x, %s) : (tensor<128xf32, #lanes>, f32) -> tensor<128xf32, #lanes>
    tle.store %y, %out[%c128] : tensor<128xf32, #lanes>, memref<256xf32>
    tle.warp_return
  }
  return
}

// x * s + 1, element-wise.
func.func private @affine(%x: tensor<128xf32, #lanes>, %s: f32) -> tensor<128xf32, #lanes> {
  %one = arith.constant dense<1.0> : tensor<128xf32, #lanes>
  %sv = tle.splat %s : f32 -> tensor<128xf32, #lanes>
  %m = arith.mulf %x, %sv : tensor<128xf32, #lanes>
  %r = arith.addf %m, %one : tensor<128xf32, #lanes>
  return %r : tensor<128xf32, #lanes>
}
