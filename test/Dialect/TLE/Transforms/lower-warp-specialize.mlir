// RUN: tle-opt %s -split-input-file -verify-diagnostics --tle-lower-warp-specialize | FileCheck %s --enable-var-scope

// Three warp groups: the default partition increases to 232, the 1-warp
// producers that share the last warp group decrease to 40 with one
// setmaxnreg; thread ids become partition-local and gpu.barrier becomes
// each partition's named barrier; the code after the op runs in the
// default branch with the yielded value.
// CHECK-LABEL: func.func @dispatch
// CHECK-SAME: attributes {tle.block_size = 384 : i32}
// The CTA-wide barrier before the split stays a CTA barrier.
// CHECK: gpu.barrier
// CHECK-NEXT: %[[TID:.*]] = gpu.thread_id x
// CHECK-NEXT: %[[C32:.*]] = arith.constant 32 : index
// CHECK-NEXT: %[[WARP:.*]] = arith.divui %[[TID]], %[[C32]]
// CHECK-NEXT: %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[WG0:.*]] = arith.cmpi ult, %[[WARP]], %[[C4]]
// CHECK-NEXT: scf.if %[[WG0]] {
// 384 threads start with 65536 / 384 = 170, rounded down to 168 registers.
// CHECK-NEXT: nvvm.setmaxregister increase 232
// CHECK: %[[LTID:.*]] = arith.subi %[[TID]], %{{.*}}
// CHECK: nvvm.barrier id = %[[ID1:.*]] number_of_threads = %[[N128:.*]]
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%[[LTID]]]
// The code after the op runs here, with the yielded value.
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// CHECK-NEXT: memref.store %arg1
// CHECK: } else {
// CHECK: %[[WG1:.*]] = arith.cmpi ult, %[[WARP]], %{{.*}}
// CHECK-NEXT: scf.if %[[WG1]] {
// CHECK-NEXT: nvvm.setmaxregister increase 232
// CHECK-NEXT: %[[C128:.*]] = arith.constant 128 : index
// CHECK-NEXT: %[[RTID:.*]] = arith.subi %[[TID]], %[[C128]]
// CHECK-NEXT: %[[ID2:.*]] = arith.constant 2 : i32
// CHECK-NEXT: %[[N:.*]] = arith.constant 128 : i32
// CHECK-NEXT: nvvm.barrier id = %[[ID2]] number_of_threads = %[[N]]
// CHECK: } else {
// One setmaxnreg for the warp group the two 1-warp partitions share.
// CHECK-NEXT: nvvm.setmaxregister decrease 40
// CHECK-NOT: nvvm.setmaxregister
// CHECK: arith.cmpi uge, %[[WARP]]
// CHECK: scf.if
// CHECK-NEXT: %[[C256:.*]] = arith.constant 256 : index
// CHECK-NEXT: arith.subi %[[TID]], %[[C256]]
// CHECK-NEXT: %[[ID3:.*]] = arith.constant 3 : i32
// CHECK-NEXT: %[[N32:.*]] = arith.constant 32 : i32
// CHECK-NEXT: nvvm.barrier id = %[[ID3]] number_of_threads = %[[N32]]
// CHECK: } else {
// CHECK: scf.if
// CHECK-NEXT: %[[C288:.*]] = arith.constant 288 : index
// CHECK-NEXT: arith.subi %[[TID]], %[[C288]]
// CHECK-NOT: tle.warp_specialize
// CHECK: return
func.func @dispatch(%out: memref<?xf32>, %x: f32) {
  %c0 = arith.constant 0 : index
  gpu.barrier
  %r = tle.warp_specialize -> (f32)
  default "left" warps(4) registers(232) {
    %t = gpu.thread_id x
    gpu.barrier
    memref.store %x, %out[%t] : memref<?xf32>
    tle.warp_yield %x : f32
  }
  partition "right" warps(4) registers(232) {
    %t = gpu.thread_id x
    gpu.barrier
    memref.store %x, %out[%t] : memref<?xf32>
    tle.warp_return
  }
  partition "load" warps(1) registers(40) {
    %t = gpu.thread_id x
    gpu.barrier
    memref.store %x, %out[%t] : memref<?xf32>
    tle.warp_return
  }
  partition "store" warps(1) {
    %t = gpu.thread_id x
    memref.store %x, %out[%t] : memref<?xf32>
    tle.warp_return
  }
  %t = gpu.thread_id x
  gpu.barrier
  memref.store %r, %out[%t] : memref<?xf32>
  return
}

// -----

// One warp group with the whole register budget: nothing to dispatch and no
// setmaxnreg.
// CHECK-LABEL: func.func @single
// CHECK-SAME: attributes {tle.block_size = 128 : i32}
// CHECK-NOT: nvvm.setmaxregister
// CHECK-NOT: scf.if
// CHECK: memref.store
func.func @single(%out: memref<?xf32>, %x: f32) {
  tle.warp_specialize
  default warps(4) registers(248) {
    %t = gpu.thread_id x
    memref.store %x, %out[%t] : memref<?xf32>
    tle.warp_yield
  }
  return
}

// -----

func.func @returns_value(%x: f32) -> f32 {
  // expected-error @+1 {{is in '@returns_value', which returns values; a GPU kernel returns nothing}}
  tle.warp_specialize
  default warps(4) {
    tle.warp_yield
  }
  return %x : f32
}

// -----

func.func @nested(%c: i1) {
  scf.if %c {
    // expected-error @+1 {{must sit directly in the body of a func.func kernel, not in the scf.if at line 118: it splits the kernel's warps once, so it cannot run in a loop or a branch}}
    tle.warp_specialize
    default warps(4) {
      tle.warp_yield
    }
  }
  return
}

// -----

// Tokens take the named barriers after the partitions' (1..3 here), in the
// order they are declared: a signal is bar.arrive and an await bar.sync,
// counting the threads of both ends.
// CHECK-LABEL: func.func @tokens
// CHECK-NOT: tle.token
func.func @tokens() {
  %t01 = tle.token "turn01" from "wg0" to "wg1"
  %t10 = tle.token "turn10" from "wg1" to "wg0"
  %go = tle.token "go" from "producer" to "wg0"
  tle.warp_specialize
    default "wg0" warps(4) {
      // CHECK: %[[GO:.*]] = arith.constant 6 : i32
      // CHECK-NEXT: %[[N160:.*]] = arith.constant 160 : i32
      // CHECK-NEXT: nvvm.barrier id = %[[GO]] number_of_threads = %[[N160]]
      tle.await %go
      // CHECK: %[[T01:.*]] = arith.constant 4 : i32
      // CHECK-NEXT: %[[N256:.*]] = arith.constant 256 : i32
      // CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.barrier.cta.arrive.aligned.count"(%[[T01]], %[[N256]])
      tle.signal %t01
      // CHECK: %[[T10:.*]] = arith.constant 5 : i32
      // CHECK-NEXT: %[[N256B:.*]] = arith.constant 256 : i32
      // CHECK-NEXT: nvvm.barrier id = %[[T10]] number_of_threads = %[[N256B]]
      tle.await %t10
      tle.warp_yield
    }
    partition "wg1" warps(4) {
      // CHECK: nvvm.barrier id = %{{.*}} number_of_threads
      tle.await %t01
      // CHECK: llvm.call_intrinsic "llvm.nvvm.barrier.cta.arrive.aligned.count"
      tle.signal %t10
      tle.warp_return
    }
    partition "producer" warps(1) {
      // CHECK: %[[GO2:.*]] = arith.constant 6 : i32
      // CHECK-NEXT: %[[N160B:.*]] = arith.constant 160 : i32
      // CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.barrier.cta.arrive.aligned.count"(%[[GO2]], %[[N160B]])
      tle.signal %go
      tle.warp_return
    }
  return
}

// -----

// Two partitions and 14 tokens need 17 named barriers.
func.func @too_many_tokens() {
  %t0 = tle.token "t0" from "a" to "b"
  %t1 = tle.token "t1" from "a" to "b"
  %t2 = tle.token "t2" from "a" to "b"
  %t3 = tle.token "t3" from "a" to "b"
  %t4 = tle.token "t4" from "a" to "b"
  %t5 = tle.token "t5" from "a" to "b"
  %t6 = tle.token "t6" from "a" to "b"
  %t7 = tle.token "t7" from "a" to "b"
  %t8 = tle.token "t8" from "a" to "b"
  %t9 = tle.token "t9" from "a" to "b"
  %t10 = tle.token "t10" from "a" to "b"
  %t11 = tle.token "t11" from "a" to "b"
  %t12 = tle.token "t12" from "a" to "b"
  %t13 = tle.token "t13" from "a" to "b"
  // expected-error @+1 {{'tle.warp_specialize' op needs 17 named barriers (1 for the CTA, 2 for its partitions and 14 for its tokens), but a CTA has 16; use fewer tokens or partitions, or a pipe for some edge}}
  tle.warp_specialize
    default "a" warps(4) {
      tle.signal %t0
      tle.signal %t1
      tle.signal %t2
      tle.signal %t3
      tle.signal %t4
      tle.signal %t5
      tle.signal %t6
      tle.signal %t7
      tle.signal %t8
      tle.signal %t9
      tle.signal %t10
      tle.signal %t11
      tle.signal %t12
      tle.signal %t13
      tle.warp_yield
    }
    partition "b" warps(4) {
      tle.await %t0
      tle.await %t1
      tle.await %t2
      tle.await %t3
      tle.await %t4
      tle.await %t5
      tle.await %t6
      tle.await %t7
      tle.await %t8
      tle.await %t9
      tle.await %t10
      tle.await %t11
      tle.await %t12
      tle.await %t13
      tle.warp_return
    }
  return
}
