// RUN: tle-opt %s --tle-expand-replicas -split-input-file -verify-diagnostics -allow-unregistered-dialect | FileCheck %s --enable-var-scope

// Three replicas of a reader: each copy is a partition of its own with the
// same warps and budget, the replica index a constant, the views it offsets
// static, and a reader of its own in the pipe's list (with the same fields).

// The TLE op takes the static view; the unknown op keeps the cast back to
// the type written in the source.
#sw = #tle.shared<swizzle = 128>

// CHECK-LABEL: func.func @three_readers
// CHECK:       tle.pipe "kv" capacity 2
// CHECK-SAME:  readers(other = [b], "c#0" = [a], "c#1" = [a], "c#2" = [a])
// CHECK:       tle.warp_specialize
// CHECK-NEXT:  default "producer" warps(1) {
// CHECK:         tle.acquire
// CHECK:       partition "c#0" warps(4) registers(128) {
// CHECK-NOT:     replicas
// CHECK:         tle.wait %{{.*}}[%{{.*}} : index] reader "c#0"
// CHECK-NEXT:    %[[V0:.*]] = memref.subview %{{.*}}[0, 0] [16, 64] [1, 1] : memref<64x64xbf16, #tle.shared<swizzle = 128>> to memref<16x64xbf16, strided<[64, 1]>, #tle.shared<swizzle = 128>>
// CHECK-NEXT:    %[[C0:.*]] = memref.cast %[[V0]] : memref<16x64xbf16, strided<[64, 1]>, #tle.shared<swizzle = 128>> to memref<16x64xbf16, strided<[64, 1], offset: ?>, #tle.shared<swizzle = 128>>
// CHECK-NEXT:    tle.tma_store %{{.*}}[%{{.*}}, %c0] from %[[V0]] : !tle.tensor_map<16x64xbf16, swizzle = 128>, memref<16x64xbf16, strided<[64, 1]>, #tle.shared<swizzle = 128>>
// CHECK-NEXT:    "use"(%[[C0]])
// CHECK-NEXT:    tle.release %{{.*}}[%{{.*}} : index] reader "c#0"
// CHECK:         "use"(%c0{{.*}}) : (index) -> ()
// CHECK:       partition "c#1" warps(4) registers(128) {
// CHECK:         tle.wait %{{.*}}[%{{.*}} : index] reader "c#1"
// CHECK-NEXT:    memref.subview %{{.*}}[16, 0] [16, 64] [1, 1] : memref<64x64xbf16, #tle.shared<swizzle = 128>> to memref<16x64xbf16, strided<[64, 1], offset: 1024>, #tle.shared<swizzle = 128>>
// CHECK:         tle.release %{{.*}}[%{{.*}} : index] reader "c#1"
// CHECK:       partition "c#2" warps(4) registers(128) {
// CHECK:         tle.wait %{{.*}}[%{{.*}} : index] reader "c#2"
// CHECK-NEXT:    memref.subview %{{.*}}[32, 0] [16, 64] [1, 1] : memref<64x64xbf16, #tle.shared<swizzle = 128>> to memref<16x64xbf16, strided<[64, 1], offset: 2048>, #tle.shared<swizzle = 128>>
// CHECK:       partition "o" warps(4) {
// CHECK:         tle.wait %{{.*}}[%{{.*}} : index] reader "other"
func.func @three_readers(%n: index, %map: !tle.tensor_map<16x64xbf16, swizzle = 128>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %a = tle.shared_alloc : memref<2x64x64xbf16, #sw>
  %b = tle.shared_alloc : memref<2x64xf32, 3>
  %kv = tle.pipe "kv" capacity 2
      fields(a = %a : memref<2x64x64xbf16, #sw>, b = %b : memref<2x64xf32, 3>)
      readers(other = [b], c = [a])
  tle.warp_specialize
  default "producer" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %va, %vb = tle.acquire %kv[%i : index]
          -> memref<64x64xbf16, #sw>, memref<64xf32, 3>
      tle.commit %kv[%i : index]
    }
    tle.warp_yield
  }
  partition "c" warps(4) registers(128) replicas(3) (%r: index) {
    %row = arith.muli %r, %c16 : index
    scf.for %i = %c0 to %n step %c1 {
      %va = tle.wait %kv[%i : index] reader "c" -> memref<64x64xbf16, #sw>
      %rows = memref.subview %va[%row, 0] [16, 64] [1, 1]
          : memref<64x64xbf16, #sw> to memref<16x64xbf16, strided<[64, 1], offset: ?>, #sw>
      tle.tma_store %map[%row, %c0] from %rows
          : !tle.tensor_map<16x64xbf16, swizzle = 128>,
            memref<16x64xbf16, strided<[64, 1], offset: ?>, #sw>
      "use"(%rows) : (memref<16x64xbf16, strided<[64, 1], offset: ?>, #sw>) -> ()
      tle.release %kv[%i : index] reader "c"
    }
    "use"(%r) : (index) -> ()
    tle.warp_return
  }
  partition "o" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %vb = tle.wait %kv[%i : index] reader "other" -> memref<64xf32, 3>
      tle.release %kv[%i : index] reader "other"
    }
    tle.warp_return
  }
  return
}

// -----

// A replicated default partition: replica 0 stays the default, the others
// follow it as partitions and end in tle.warp_return. A kernel without
// replicated partitions is left alone.

// CHECK-LABEL: func.func @default_replicas
// CHECK:       tle.warp_specialize
// CHECK-NEXT:  default "mma#0" warps(4) {
// CHECK:         "use"(%[[R0:.*]]) : (index) -> ()
// CHECK-NEXT:    tle.warp_yield
// CHECK-NEXT:  }
// CHECK-NEXT:  partition "mma#1" warps(4) {
// CHECK:         "use"(%[[R1:.*]]) : (index) -> ()
// CHECK-NEXT:    tle.warp_return
// CHECK-NEXT:  }
// CHECK-NEXT:  partition "tma" warps(1) {
func.func @default_replicas() {
  tle.warp_specialize
  default "mma" warps(4) replicas(2) (%r: index) {
    "use"(%r) : (index) -> ()
    tle.warp_yield
  }
  partition "tma" warps(1) {
    tle.warp_return
  }
  return
}

// CHECK-LABEL: func.func @no_replicas
// CHECK:       tle.warp_specialize
// CHECK-NEXT:  default "a" warps(4) {
// CHECK:       partition "b" warps(4) {
func.func @no_replicas() {
  tle.warp_specialize
  default "a" warps(4) {
    tle.warp_yield
  }
  partition "b" warps(4) {
    tle.warp_return
  }
  return
}

// -----

func.func @replicated_writer(%n: index) {
  %c0 = arith.constant 0 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %kv = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(c)
  tle.warp_specialize
  default "c" warps(4) {
    %v = tle.wait %kv[%c0 : index] reader "c" -> memref<64xf32, 3>
    tle.release %kv[%c0 : index] reader "c"
    tle.warp_yield
  }
  partition "p" warps(1) replicas(2) (%r: index) {
    // expected-error @+1 {{'tle.acquire' op writes pipe 'kv' in partition 'p', which runs 2 replicas; a pipe has one writer partition, so a replicated partition may only read pipes}}
    %v = tle.acquire %kv[%r : index] -> memref<64xf32, 3>
    tle.commit %kv[%r : index]
    tle.warp_return
  }
  return
}

// -----

func.func @shared_reader(%n: index) {
  %c0 = arith.constant 0 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %kv = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(c)
  tle.warp_specialize
  default "p" warps(1) {
    %v = tle.acquire %kv[%c0 : index] -> memref<64xf32, 3>
    tle.commit %kv[%c0 : index]
    tle.warp_yield
  }
  partition "c" warps(4) replicas(2) (%r: index) {
    %v = tle.wait %kv[%c0 : index] reader "c" -> memref<64xf32, 3>
    tle.release %kv[%c0 : index] reader "c"
    tle.warp_return
  }
  partition "d" warps(4) {
    // expected-error @+1 {{'tle.release' op acts for reader 'c' of pipe 'kv' in partition 'd', but partition 'c' uses that reader too; the reader of a replicated partition is one reader per replica and belongs to that partition alone}}
    tle.release %kv[%c0 : index] reader "c"
    tle.warp_return
  }
  return
}

// -----

// Tokens between replicas become one token per replica. The ring "turn"
// goes from replica r to replica r + 1 mod 3: replica r signals turn#r and
// awaits turn#(r - 1 mod 3). The pair token "done" goes from replica r of
// "mma" to replica r of "epi". Copies whose guard on the replica index
// folds away keep only their own part (replica 2 signals first).
// CHECK-LABEL: func.func @replica_tokens
// CHECK-DAG:   %[[T0:.*]] = tle.token "turn#0" from "mma#0" to "mma#1"
// CHECK-DAG:   %[[T1:.*]] = tle.token "turn#1" from "mma#1" to "mma#2"
// CHECK-DAG:   %[[T2:.*]] = tle.token "turn#2" from "mma#2" to "mma#0"
// CHECK-DAG:   %[[D0:.*]] = tle.token "done#0" from "mma#0" to "epi#0"
// CHECK-DAG:   %[[D1:.*]] = tle.token "done#1" from "mma#1" to "epi#1"
// CHECK-DAG:   %[[D2:.*]] = tle.token "done#2" from "mma#2" to "epi#2"
// CHECK-NOT:   tle.token
// CHECK:       partition "mma#0" warps(4) {
// CHECK-NEXT:    tle.await %[[T2]]
// CHECK-NEXT:    tle.signal %[[T0]]
// CHECK-NEXT:    tle.signal %[[D0]]
// CHECK-NEXT:    tle.warp_return
// CHECK:       partition "mma#1" warps(4) {
// CHECK-NEXT:    tle.await %[[T0]]
// CHECK-NEXT:    tle.signal %[[T1]]
// CHECK-NEXT:    tle.signal %[[D1]]
// CHECK-NEXT:    tle.warp_return
// CHECK:       partition "mma#2" warps(4) {
// CHECK-NEXT:    tle.signal %[[T2]]
// CHECK-NEXT:    tle.await %[[T1]]
// CHECK-NEXT:    tle.signal %[[T2]]
// CHECK-NEXT:    tle.signal %[[D2]]
// CHECK-NEXT:    tle.warp_return
// CHECK:       partition "epi#0" warps(1) {
// CHECK-NEXT:    tle.await %[[D0]]
// CHECK:       partition "epi#2" warps(1) {
// CHECK-NEXT:    tle.await %[[D2]]
func.func @replica_tokens() {
  %c2 = arith.constant 2 : index
  %turn = tle.token "turn" from "mma" to "mma"
  %done = tle.token "done" from "mma" to "epi"
  tle.warp_specialize
  default "tma" warps(1) {
    tle.warp_yield
  }
  partition "mma" warps(4) replicas(3) (%r: index) {
    %last = arith.cmpi eq, %r, %c2 : index
    scf.if %last {
      tle.signal %turn
    }
    tle.await %turn
    tle.signal %turn
    tle.signal %done
    tle.warp_return
  }
  partition "epi" warps(1) replicas(3) (%r: index) {
    tle.await %done
    tle.warp_return
  }
  return
}
