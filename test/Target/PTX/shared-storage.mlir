// REQUIRES: ptxas
//
// A kernel in the seesaw's shape whose pipes share storage, checked,
// planned, lowered and assembled for sm_90a.
//
// RUN: tle-opt %s --tle-verify-pipes=strict=true -o /dev/null
// RUN: tle-opt %s --tle-derive-sync --tle-sync-plan -o /dev/null \
// RUN:   | FileCheck %s --check-prefix=PLAN --match-full-lines --strict-whitespace
// RUN: tle-opt %s --tle-derive-sync --tle-lower-pipes | FileCheck %s --check-prefix=LOWER
// RUN: tle-opt %s --tle-to-llvm=strict-pipes=true -o %t.llvm.mlir
// RUN: tle-translate --tle-to-ptx %t.llvm.mlir -o %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx
//
// Two consumers, wg0 and wg1, and a producer. The producer stages q once
// (one_shot) and streams k through two slots; each slot of k has a main
// part and a rope part. wg0 reads both parts, computes p from them and
// hands p to wg1 through pipe `p`, whose storage is the rope part of the
// same slot of k: the rope is dead once wg0 has read it. wg1 declares the
// rope field of k without touching it, so that the producer refills the
// rope only after wg1 has also released the slot, and with it p. At the
// end both consumers reclaim q and stage their output through disjoint
// halves of its storage.

#smem = #gpu.address_space<workgroup>

// PLAN:pipes:
// PLAN-NEXT:  pipe  capacity      field  slot     bytes/slot
// PLAN-NEXT:  q     1 (one_shot)  q      128xf32  512
// PLAN-NEXT:  k     2             main   128xf32  512
// PLAN-NEXT:                      rope   64xf32   256
// PLAN-NEXT:  p     2             p      64xf32   256
// PLAN-NEXT:barriers (one mbarrier per slot):
// PLAN-NEXT:  barrier  slots  count  tx bytes  arrive      fence  arrives   waits
// PLAN-NEXT:  q.full   1      128    0         per_thread  no     producer  wg0, wg1
// PLAN-NEXT:  k.full   2      128    0         per_thread  no     producer  wg0, wg1
// PLAN-NEXT:  k.free   2      256    0         per_thread  no     wg0, wg1  producer
// PLAN-NEXT:  p.full   2      128    0         per_thread  no     wg0       wg1
// PLAN-NEXT:  p.free   2      128    0         per_thread  no     wg1       wg0
// PLAN-NEXT:reclaims (one mbarrier each: every thread of the readers arrives, then waits):
// PLAN-NEXT:  barrier    count  readers
// PLAN-NEXT:  q.reclaim  256    wg0, wg1
// PLAN-NEXT:shared memory: 2048 B of buffers + 80 B of barriers = 2128 B (before alignment)

// The readers of q reclaim it on one mbarrier of 256 arrivals (both
// consumers' threads), then use their parts.
// LOWER:      %[[RECLAIM:.*]] = tle.shared_alloc {name = "q.reclaim"} : memref<1xi64, #gpu.address_space<workgroup>>
// LOWER:      tle.mbarrier_init %[[RECLAIM]][%{{.*}}] count 256
// LOWER:      nvvm.fence.mbarrier.init
// LOWER:      tle.mbarrier_arrive %[[RECLAIM]][%[[Z0:.*]]] plain
// LOWER-NEXT: tle.mbarrier_wait %[[RECLAIM]][%[[Z0]]], %{{.*}} :
// LOWER:      memref.store %{{.*}}, %[[LEFT:.*]][%{{.*}}, %{{.*}}] : memref<1x64xf32, strided<[128, 1]>, #gpu.address_space<workgroup>>
// LOWER:      tle.mbarrier_arrive %[[RECLAIM]][%[[Z1:.*]]] plain
// LOWER-NEXT: tle.mbarrier_wait %[[RECLAIM]][%[[Z1]]], %{{.*}} :
// LOWER:      memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<1x64xf32, strided<[128, 1], offset: 64>, #gpu.address_space<workgroup>>

// PTXAS-NOT: C7508
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// PTX: .maxntid 384, 1, 1
// PTX-COUNT-10: mbarrier.init.shared.b64

func.func @seesaw_storage(%q_in: memref<128xf32>, %kv: memref<?x192xf32>,
                          %out: memref<?x128xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %rope_at = arith.constant 1024 : index
  %b = gpu.block_id x
  %first = arith.muli %b, %n : index

  %qbuf = tle.shared_alloc {name = "q"} : memref<1x128xf32, #smem>
  %q_left = memref.subview %qbuf[0, 0] [1, 64] [1, 1]
      : memref<1x128xf32, #smem> to memref<1x64xf32, strided<[128, 1]>, #smem>
  %q_right = memref.subview %qbuf[0, 64] [1, 64] [1, 1]
      : memref<1x128xf32, #smem> to memref<1x64xf32, strided<[128, 1], offset: 64>, #smem>
  // Two slots of k: main at bytes 0..1023, rope at 1024..1535.
  %kmem = tle.shared_alloc {name = "k"} : memref<1536xi8, #smem>
  %kmain = memref.view %kmem[%c0][]
      : memref<1536xi8, #smem> to memref<2x128xf32, #smem>
  %krope = memref.view %kmem[%rope_at][]
      : memref<1536xi8, #smem> to memref<2x64xf32, #smem>
  %pbuf = memref.view %kmem[%rope_at][]
      : memref<1536xi8, #smem> to memref<2x64xf32, #smem>
  %q = tle.pipe "q" capacity 1 one_shot
      fields(q = %qbuf : memref<1x128xf32, #smem>) readers(wg0, wg1)
  %k = tle.pipe "k" capacity 2
      fields(main = %kmain : memref<2x128xf32, #smem>,
             rope = %krope : memref<2x64xf32, #smem>)
      readers(wg0, wg1)
  %p = tle.pipe "p" capacity 2
      fields(p = %pbuf : memref<2x64xf32, #smem>) readers(wg1)

  tle.warp_specialize
  default "wg0" warps(4) registers(232) {
    %t = gpu.thread_id x
    %lane = arith.remui %t, %c64 : index
    %low = arith.cmpi ult, %t, %c64 : index
    %qv = tle.wait %q reader "wg0" -> memref<128xf32, #smem>
    %qx = memref.load %qv[%t] : memref<128xf32, #smem>
    %acc = scf.for %i = %c0 to %n step %c1 iter_args(%a = %qx) -> f32 {
      %m, %r = tle.wait %k[%i : index] reader "wg0"
          -> memref<128xf32, #smem>, memref<64xf32, #smem>
      %x = memref.load %m[%t] : memref<128xf32, #smem>
      %y = memref.load %r[%lane] : memref<64xf32, #smem>
      %s = arith.mulf %x, %y : f32
      // p overwrites the rope of this slot, which wg0 has read.
      %pv = tle.acquire %p[%i : index] -> memref<64xf32, #smem>
      scf.if %low {
        memref.store %s, %pv[%t] : memref<64xf32, #smem>
      }
      tle.commit %p[%i : index]
      tle.release %k[%i : index] reader "wg0"
      %a2 = arith.addf %a, %s : f32
      scf.yield %a2 : f32
    }
    %stage = tle.reclaim %q reader "wg0" scratch %q_left
        : memref<1x64xf32, strided<[128, 1]>, #smem>
    scf.if %low {
      memref.store %acc, %stage[%c0, %t] : memref<1x64xf32, strided<[128, 1]>, #smem>
    }
    gpu.barrier
    %o = memref.load %stage[%c0, %lane] : memref<1x64xf32, strided<[128, 1]>, #smem>
    memref.store %o, %out[%first, %t] : memref<?x128xf32>
    tle.warp_yield
  }
  partition "wg1" warps(4) registers(232) {
    %t = gpu.thread_id x
    %lane = arith.remui %t, %c64 : index
    %low = arith.cmpi ult, %t, %c64 : index
    %qv = tle.wait %q reader "wg1" -> memref<128xf32, #smem>
    %qx = memref.load %qv[%t] : memref<128xf32, #smem>
    %acc = scf.for %i = %c0 to %n step %c1 iter_args(%a = %qx) -> f32 {
      // wg1 holds the rope of k (unread) while it reads p from it.
      %m, %r = tle.wait %k[%i : index] reader "wg1"
          -> memref<128xf32, #smem>, memref<64xf32, #smem>
      %pv = tle.wait %p[%i : index] reader "wg1" -> memref<64xf32, #smem>
      %x = memref.load %m[%t] : memref<128xf32, #smem>
      %y = memref.load %pv[%lane] : memref<64xf32, #smem>
      tle.release %p[%i : index] reader "wg1"
      tle.release %k[%i : index] reader "wg1"
      %s = arith.mulf %x, %y : f32
      %a2 = arith.addf %a, %s : f32
      scf.yield %a2 : f32
    }
    %stage = tle.reclaim %q reader "wg1" scratch %q_right
        : memref<1x64xf32, strided<[128, 1], offset: 64>, #smem>
    scf.if %low {
      memref.store %acc, %stage[%c0, %t] : memref<1x64xf32, strided<[128, 1], offset: 64>, #smem>
    }
    gpu.barrier
    %o = memref.load %stage[%c0, %lane] : memref<1x64xf32, strided<[128, 1], offset: 64>, #smem>
    %row = arith.addi %first, %c1 : index
    memref.store %o, %out[%row, %t] : memref<?x128xf32>
    tle.warp_return
  }
  partition "producer" warps(4) registers(40) {
    %t = gpu.thread_id x
    %low = arith.cmpi ult, %t, %c64 : index
    %rope_col = arith.addi %t, %c128 : index
    %qx = memref.load %q_in[%t] : memref<128xf32>
    memref.store %qx, %qbuf[%c0, %t] : memref<1x128xf32, #smem>
    tle.commit %q
    scf.for %i = %c0 to %n step %c1 {
      %row = arith.addi %first, %i : index
      %m, %r = tle.acquire %k[%i : index]
          -> memref<128xf32, #smem>, memref<64xf32, #smem>
      %x = memref.load %kv[%row, %t] : memref<?x192xf32>
      memref.store %x, %m[%t] : memref<128xf32, #smem>
      scf.if %low {
        %y = memref.load %kv[%row, %rope_col] : memref<?x192xf32>
        memref.store %y, %r[%t] : memref<64xf32, #smem>
      }
      tle.commit %k[%i : index]
    }
    tle.warp_return
  }
  return
}
