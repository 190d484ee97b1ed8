// RUN: tle-opt %s --tle-expand-replicas --tle-infer-arrive-counts --tle-sync-plan -o /dev/null | FileCheck %s --match-full-lines --strict-whitespace
// RUN: tle-opt %s --tle-expand-replicas --tle-infer-arrive-counts=generic-arrive=elected --tle-sync-plan -o /dev/null | FileCheck %s --check-prefix=ELECTED
// RUN: tle-opt %s --tle-derive-sync | FileCheck %s --check-prefix=IR

// Three replicas of a four-warp reader and a two-warp reader: each replica
// is a reader of its own, so the free barrier of the field they all read
// counts 3 x 128 + 64 arrives (one per reader with elected arrives); the
// replicas sit on warp groups 1-3 after the producer's, and the two
// unrequested warp groups share what 3 x 128 leaves of 480: 48 each.

//      CHECK:sync plan for @replicas
// CHECK-NEXT:partitions: 5 warp groups, 640 threads, 61440 of 61440 registers
// CHECK-NEXT:  partition  warps  first warp  registers     named barrier
// CHECK-NEXT:  producer   1      0           48 (derived)  1
// CHECK-NEXT:  c#0        4      4           128           2
// CHECK-NEXT:  c#1        4      8           128           3
// CHECK-NEXT:  c#2        4      12          128           4
// CHECK-NEXT:  other      2      16          48 (derived)  5
// CHECK:barriers (one mbarrier per slot):
// CHECK-NEXT:  barrier    slots  count  tx bytes  arrive      fence  arrives               waits
// CHECK-NEXT:  kv.full    2      32     0         per_thread  no     producer              other, c#0, c#1, c#2
// CHECK-NEXT:  kv.free.a  2      448    0         per_thread  no     other, c#0, c#1, c#2  producer
// CHECK-NEXT:  kv.free.b  2      64     0         per_thread  no     other                 producer

// ELECTED: kv.free.a  2      4      0         elected  no     other, c#0, c#1, c#2  producer
// ELECTED: kv.free.b  2      1      0         elected  no     other                 producer

// IR: tle.pipe "kv"
// IR-SAME: readers(other, "c#0" = [a], "c#1" = [a], "c#2" = [a])
// IR-SAME: #tle.barrier<free, fields = ["a"], count = 448, txBytes = 0, arrive = per_thread, fence = no, arrivers = ["other", "c#0", "c#1", "c#2"], waiters = ["producer"]>
// IR: partition "c#2" warps(4) registers(128) {
// IR: tle.release %kv[%{{.*}} : index] reader "c#2" slot(%{{.*}})

func.func @replicas(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %f = arith.constant 1.0 : f32
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %b = tle.shared_alloc : memref<2x64xf32, 3>
  %kv = tle.pipe "kv" capacity 2
      fields(a = %a : memref<2x64xf32, 3>, b = %b : memref<2x64xf32, 3>)
      readers(other, c = [a])
  tle.warp_specialize
  default "producer" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %va, %vb = tle.acquire %kv[%i : index]
          -> memref<64xf32, 3>, memref<64xf32, 3>
      memref.store %f, %va[%c0] : memref<64xf32, 3>
      memref.store %f, %vb[%c0] : memref<64xf32, 3>
      tle.commit %kv[%i : index]
    }
    tle.warp_yield
  }
  partition "c" warps(4) registers(128) replicas(3) (%r: index) {
    %col = arith.muli %r, %c16 : index
    scf.for %i = %c0 to %n step %c1 {
      %va = tle.wait %kv[%i : index] reader "c" -> memref<64xf32, 3>
      %x = memref.load %va[%col] : memref<64xf32, 3>
      tle.release %kv[%i : index] reader "c"
    }
    tle.warp_return
  }
  partition "other" warps(2) {
    scf.for %i = %c0 to %n step %c1 {
      %va, %vb = tle.wait %kv[%i : index] reader "other"
          -> memref<64xf32, 3>, memref<64xf32, 3>
      tle.release %kv[%i : index] reader "other"
    }
    tle.warp_return
  }
  return
}
