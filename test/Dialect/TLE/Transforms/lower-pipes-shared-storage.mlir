// RUN: tle-opt %s --tle-derive-sync --tle-lower-pipes | FileCheck %s --enable-var-scope
//
// A release of pipe k takes effect only after the multiply that reads pipe
// p, which lies in k's rope field, is retired: the multiply reads k's bytes
// through p's view (docs/SyncDerivation.md, "Shared storage").

// CHECK-LABEL: func.func @nested_retired
// CHECK:       %[[KROPE:.*]] = tle.shared_alloc {name = "k.free.rope"}
// CHECK:       %[[PFREE:.*]] = tle.shared_alloc {name = "p.free"}
// CHECK:       partition "wg1"
// CHECK:         %[[D:.*]] = tle.wgmma
// CHECK-NEXT:    tle.wgmma_wait %[[D]] pending(0)
// CHECK-NEXT:    tle.mbarrier_arrive %[[KROPE]][%{{.*}}] plain
// CHECK-NEXT:    tle.mbarrier_arrive %[[PFREE]][%{{.*}}] plain
// CHECK:       partition "prod"
#sw = #tle.shared<swizzle = 128>
#acc = #tle.mma<warp_groups = [1, 1]>
func.func @nested_retired(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8192 = arith.constant 8192 : index
  %kmem = tle.shared_alloc : memref<16384xi8, #sw>
  %main = memref.view %kmem[%c0][] : memref<16384xi8, #sw> to memref<1x64x64xbf16, #sw>
  %rope = memref.view %kmem[%c8192][] : memref<16384xi8, #sw> to memref<1x64x64xbf16, #sw>
  %pbuf = memref.view %kmem[%c8192][] : memref<16384xi8, #sw> to memref<1x64x64xbf16, #sw>
  %bbuf = tle.shared_alloc : memref<64x64xbf16, #sw>
  %k = tle.pipe "k" capacity 1 fields(main = %main : memref<1x64x64xbf16, #sw>, rope = %rope : memref<1x64x64xbf16, #sw>) readers(wg0, wg1 = [rope])
  %p = tle.pipe "p" capacity 1 fields(p = %pbuf : memref<1x64x64xbf16, #sw>) readers(wg1)
  tle.warp_specialize
  default "wg0" warps(4) {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    %out = scf.for %i = %c0 to %n step %c1 iter_args(%a = %zero) -> tensor<64x64xf32, #acc> {
      %m, %r = tle.wait %k[%i : index] reader "wg0" -> memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>
      %d = tle.wgmma %r, %bbuf, %a
          : memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>
      %s = tle.wgmma_wait %d pending(0) : tensor<64x64xf32, #acc>
      %pv = tle.acquire %p[%i : index] -> memref<64x64xbf16, #sw>
      tle.commit %p[%i : index]
      tle.release %k[%i : index] reader "wg0"
      scf.yield %s : tensor<64x64xf32, #acc>
    }
    tle.warp_yield
  }
  partition "wg1" warps(4) {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    %out = scf.for %i = %c0 to %n step %c1 iter_args(%a = %zero) -> tensor<64x64xf32, #acc> {
      %r = tle.wait %k[%i : index] reader "wg1" -> memref<64x64xbf16, #sw>
      %pv = tle.wait %p[%i : index] reader "wg1" -> memref<64x64xbf16, #sw>
      %d = tle.wgmma %pv, %bbuf, %a
          : memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>
      tle.release %p[%i : index] reader "wg1"
      tle.release %k[%i : index] reader "wg1"
      %s = tle.wgmma_wait %d pending(0) : tensor<64x64xf32, #acc>
      scf.yield %s : tensor<64x64xf32, #acc>
    }
    tle.warp_return
  }
  partition "prod" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %m, %r = tle.acquire %k[%i : index] -> memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>
      tle.commit %k[%i : index]
    }
    tle.warp_return
  }
  return
}
