// RUN: tle-opt %s --tle-to-llvm | tle-translate --tle-to-ptx -o %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// tle.scale on a wgmma accumulator carried by a loop, as an online softmax
// rescales its output: the warp votes, a warp whose factors are all 1 jumps
// over the multiplies, and both paths reach the next wgmma with the
// accumulator in the same registers, so ptxas keeps the multiply pipeline
// (no "warpgroup.wait is injected" or serialization warning) and spills
// nothing. The multiplies round to nearest without flushing subnormals, so
// skipping a multiply by 1 changes nothing.

// CHECK:      [[MMA:\$L__BB[0-9_]+]]:
// CHECK-NEXT: wgmma.fence.sync.aligned;
// CHECK:      setp.neu.f32 [[NE0:%p[0-9]+]], {{%r[0-9]+}}, 0f3F800000;
// CHECK-NEXT: setp.neu.f32 [[NE1:%p[0-9]+]], {{%r[0-9]+}}, 0f3F800000;
// CHECK-NEXT: or.pred [[NE:%p[0-9]+]], [[NE0]], [[NE1]];
// CHECK-NEXT: vote.sync.any.pred [[ANY:%p[0-9]+]], [[NE]], -1;
// CHECK-NEXT: not.pred [[NONE:%p[0-9]+]], [[ANY]];
// CHECK-NEXT: @[[NONE]] bra [[MMA]];
// CHECK-COUNT-128: mul.rn.f32
// CHECK-NEXT: bra.uni [[MMA]];

// PTXAS-NOT:  C75
// PTXAS:      0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT:  C75

#sw = #tle.shared<swizzle = 128>
#smem = #gpu.address_space<workgroup>
#acc = #tle.mma<warp_groups = [1, 1]>
#row = #tle.slice<dim = 1, parent = #acc>

func.func @online_rescale(%out: memref<64x256xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tle.shared_alloc {name = "a"} : memref<64x64xbf16, #sw>
  %b = tle.shared_alloc {name = "b"} : memref<64x256xbf16, #sw>
  tle.warp_specialize
  default "mma" warps(4) registers(232) {
    %zero = arith.constant dense<0.0> : tensor<64x256xf32, #acc>
    %m_init = arith.constant dense<-1.0e+30> : tensor<64xf32, #row>
    %acc, %m = scf.for %i = %c0 to %n step %c1 iter_args(%o = %zero, %m_old = %m_init)
        -> (tensor<64x256xf32, #acc>, tensor<64xf32, #row>) {
      %tile_max = tle.reduce max %o dim 1 : tensor<64x256xf32, #acc> -> tensor<64xf32, #row>
      %m_new = arith.maximumf %m_old, %tile_max : tensor<64xf32, #row>
      %diff = arith.subf %m_old, %m_new : tensor<64xf32, #row>
      %alpha = math.exp2 %diff fastmath<afn> : tensor<64xf32, #row>
      %scaled = tle.scale %o by %alpha dim 1 : tensor<64x256xf32, #acc>, tensor<64xf32, #row>
      %issued = tle.wgmma %a, %b, %scaled
          : memref<64x64xbf16, #sw>, memref<64x256xbf16, #sw>, tensor<64x256xf32, #acc>
      %done = tle.wgmma_wait %issued pending(0) : tensor<64x256xf32, #acc>
      scf.yield %done, %m_new : tensor<64x256xf32, #acc>, tensor<64xf32, #row>
    }
    tle.store %acc, %out[%c0, %c0] : tensor<64x256xf32, #acc>, memref<64x256xf32>
    tle.warp_yield
  }
  return
}
