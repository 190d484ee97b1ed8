// RUN: tle-opt %s --tle-expand-replicas --tle-verify-pipes -split-input-file -verify-diagnostics
// RUN: not tle-opt %s --tle-verify-pipes -split-input-file 2>&1 | FileCheck %s --check-prefix=UNEXPANDED
// RUN: not tle-opt %s --tle-lower-warp-specialize -split-input-file 2>&1 | FileCheck %s --check-prefix=LOWER

// The protocol check sees each replica as the partition it becomes, so a
// replicated consumer that hangs is caught like a written-out one.

// UNEXPANDED: error: 'tle.warp_specialize' op has replicated partition 'consumer' (2 replicas), which --tle-verify-pipes does not take; run --tle-expand-replicas before it (the tle pipelines do)
// LOWER: error: 'tle.warp_specialize' op has replicated partition 'consumer' (2 replicas), which --tle-lower-warp-specialize does not take

// Deadlock: the producer fills 'x' (capacity 1) for every iteration before
// it commits 'y', but each replica needs 'y' before it releases anything
// of 'x'. The producer's acquire needs both replicas' releases.
func.func @replicas_wait_out_of_order(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tle.shared_alloc : memref<1x64xf32, 3>
  %b = tle.shared_alloc : memref<1x64xf32, 3>
  %x = tle.pipe "x" capacity 1 fields(a = %a : memref<1x64xf32, 3>) readers(c)
  %y = tle.pipe "y" capacity 1 one_shot fields(b = %b : memref<1x64xf32, 3>) readers(c)
  tle.warp_specialize
  default "producer" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      // expected-error @+1 {{deadlock when argument 0 of @replicas_wait_out_of_order = 3: partitions wait on each other in a cycle 'producer' -> 'consumer#0' -> 'producer'; partition 'producer' waits to acquire iteration 1 of pipe 'x' (slot 0), which needs iteration 0 released by reader 'c#0', reader 'c#1'}}
      %v = tle.acquire %x[%i : index] -> memref<64xf32, 3>
      tle.commit %x[%i : index]
    }
    tle.commit %y
    tle.warp_yield
  }
  partition "consumer" warps(4) replicas(2) (%r: index) {
    // expected-note @+2 {{partition 'consumer#0' waits as reader 'c#0' for pipe 'y', which partition 'producer' has not committed}}
    // expected-note @+1 {{partition 'consumer#1' waits as reader 'c#1' for pipe 'y', which partition 'producer' has not committed}}
    %vy = tle.wait %y reader "c" -> memref<64xf32, 3>
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.wait %x[%i : index] reader "c" -> memref<64xf32, 3>
      tle.release %x[%i : index] reader "c"
    }
    tle.warp_return
  }
  return
}

// -----

// Only the second replica hangs: its loop runs one iteration longer, from
// its replica index, and waits for an iteration the writer never commits.
func.func @replica_waits_past_the_end(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %x = tle.pipe "x" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(c)
  tle.warp_specialize
  default "producer" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.acquire %x[%i : index] -> memref<64xf32, 3>
      tle.commit %x[%i : index]
    }
    tle.warp_yield
  }
  partition "consumer" warps(4) replicas(2) (%r: index) {
    %end = arith.addi %n, %r : index
    scf.for %i = %c0 to %end step %c1 {
      // expected-error @+1 {{deadlock when argument 0 of @replica_waits_past_the_end = 0: partition 'consumer#1' waits as reader 'c#1' for iteration 0 of pipe 'x', which partition 'producer' has not committed and never will (it has finished)}}
      %v = tle.wait %x[%i : index] reader "c" -> memref<64xf32, 3>
      tle.release %x[%i : index] reader "c"
    }
    tle.warp_return
  }
  return
}

// -----

// Each replica reads the half of the slot its index picks, but the
// subview is as long as the slot: replica 1's reaches 128 bytes into the
// next slot, which the producer refills meanwhile. Found once the replica
// index is a constant, per replica.
func.func @replica_past_slot(%n: index, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %x = tle.pipe "x" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(c)
  tle.warp_specialize
  default "producer" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.acquire %x[%i : index] -> memref<64xf32, 3>
      tle.commit %x[%i : index]
    }
    tle.warp_yield
  }
  partition "consumer" warps(4) replicas(2) (%r: index) {
    %off = arith.muli %r, %c32 : index
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.wait %x[%i : index] reader "c" -> memref<64xf32, 3>
      // expected-error @+1 {{this view covers bytes 128..383 of the slot of field 'a' of pipe 'x' that the reader 'c#1' holds in partition 'consumer#1', which has 256 bytes: it reaches into another slot, which its writer refills meanwhile; every view of a slot lies inside it}}
      %part = memref.subview %v[%off] [64] [1] : memref<64xf32, 3> to memref<64xf32, strided<[1], offset: ?>, 3>
      %y = memref.load %part[%c0] : memref<64xf32, strided<[1], offset: ?>, 3>
      memref.store %y, %out[%i] : memref<?xf32>
      tle.release %x[%i : index] reader "c"
    }
    tle.warp_return
  }
  return
}

// -----

// Replicas that each write their own half of one slot: no other reader
// touches the bytes a replica writes, so the writes race with nothing.
func.func @replica_halves(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %f = arith.constant 1.0 : f32
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %x = tle.pipe "x" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(c)
  tle.warp_specialize
  default "producer" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.acquire %x[%i : index] -> memref<64xf32, 3>
      tle.commit %x[%i : index]
    }
    tle.warp_yield
  }
  partition "consumer" warps(4) replicas(2) (%r: index) {
    %off = arith.muli %r, %c32 : index
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.wait %x[%i : index] reader "c" -> memref<64xf32, 3>
      %half = memref.subview %v[%off] [32] [1] : memref<64xf32, 3> to memref<32xf32, strided<[1], offset: ?>, 3>
      %y = memref.load %half[%c0] : memref<32xf32, strided<[1], offset: ?>, 3>
      memref.store %f, %half[%c1] : memref<32xf32, strided<[1], offset: ?>, 3>
      tle.release %x[%i : index] reader "c"
    }
    tle.warp_return
  }
  return
}

// -----

// A replica that writes its half but reads the whole slot: replica 1
// reads the half replica 0 writes.
func.func @replica_halves_overlap(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %f = arith.constant 1.0 : f32
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %x = tle.pipe "x" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(c)
  tle.warp_specialize
  default "producer" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.acquire %x[%i : index] -> memref<64xf32, 3>
      tle.commit %x[%i : index]
    }
    tle.warp_yield
  }
  partition "consumer" warps(4) replicas(2) (%r: index) {
    %off = arith.muli %r, %c32 : index
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.wait %x[%i : index] reader "c" -> memref<64xf32, 3>
      %half = memref.subview %v[%off] [32] [1] : memref<64xf32, 3> to memref<32xf32, strided<[1], offset: ?>, 3>
      %y = memref.load %v[%c0] : memref<64xf32, 3>
      // expected-error @+1 {{reader 'c#0' of pipe 'x' writes the slot of field 'a' in partition 'consumer#0', which reader 'c#1' reads at the same time; a slot that several readers read is read-only, except for bytes that only the writing reader touches}}
      memref.store %f, %half[%c1] : memref<32xf32, strided<[1], offset: ?>, 3>
      tle.release %x[%i : index] reader "c"
    }
    tle.warp_return
  }
  return
}

// -----

// Replicas that each reclaim their own half of a dead buffer: once the
// replica index is a constant, the parts are disjoint.
func.func @replica_reclaim_halves() {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %f = arith.constant 1.0 : f32
  %qbuf = tle.shared_alloc {name = "q"} : memref<1x8xf32, 3>
  %q = tle.pipe "q" capacity 1 one_shot fields(q = %qbuf : memref<1x8xf32, 3>) readers(c)
  tle.warp_specialize
  default "prod" warps(1) {
    memref.store %f, %qbuf[%c0, %c0] : memref<1x8xf32, 3>
    tle.commit %q
    tle.warp_yield
  }
  partition "consumer" warps(4) replicas(2) (%r: index) {
    %qv = tle.wait %q reader "c" -> memref<8xf32, 3>
    %x = memref.load %qv[%c0] : memref<8xf32, 3>
    %off = arith.muli %r, %c4 : index
    %part = memref.subview %qbuf[0, %off] [1, 4] [1, 1] : memref<1x8xf32, 3> to memref<1x4xf32, strided<[8, 1], offset: ?>, 3>
    %s = tle.reclaim %q reader "c" scratch %part : memref<1x4xf32, strided<[8, 1], offset: ?>, 3>
    memref.store %x, %s[%c0, %c0] : memref<1x4xf32, strided<[8, 1], offset: ?>, 3>
    tle.warp_return
  }
  return
}

// -----

// FlashAttention-3's ping-pong with its consumers written once: replica r
// hands the turn to replica r + 1 mod 2 after each tile (the ring token
// "turn"); the last replica gives the first its first turn before the
// loop, and the first takes back the last turn after it, so every signal
// is awaited. Each signal after the first is ordered after the await of
// the previous one through the other replica's turn.
func.func @replica_ping_pong(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %x = tle.pipe "x" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(c)
  %turn = tle.token "turn" from "consumer" to "consumer"
  tle.warp_specialize
  default "producer" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.acquire %x[%i : index] -> memref<64xf32, 3>
      tle.commit %x[%i : index]
    }
    tle.warp_yield
  }
  partition "consumer" warps(4) replicas(2) (%r: index) {
    %last = arith.cmpi eq, %r, %c1 : index
    scf.if %last {
      tle.signal %turn
    }
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.wait %x[%i : index] reader "c" -> memref<64xf32, 3>
      tle.await %turn
      tle.signal %turn
      tle.release %x[%i : index] reader "c"
    }
    %first = arith.cmpi eq, %r, %c0 : index
    scf.if %first {
      tle.await %turn
    }
    tle.warp_return
  }
  return
}

// -----

// Without the last replica's first signal, both replicas await each other
// before their first turn.
func.func @replica_ring_without_first_turn(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %turn = tle.token "turn" from "consumer" to "consumer"
  tle.warp_specialize
  default "producer" warps(1) {
    tle.warp_yield
  }
  partition "consumer" warps(4) replicas(2) (%r: index) {
    scf.for %i = %c0 to %n step %c1 {
      // expected-error @+2 {{deadlock when argument 0 of @replica_ring_without_first_turn = 1: partitions wait on each other in a cycle 'consumer#0' -> 'consumer#1' -> 'consumer#0'; partition 'consumer#0' awaits signal 1 of token 'turn#1', which partition 'consumer#1' has not made}}
      // expected-note @+1 {{partition 'consumer#1' awaits signal 1 of token 'turn#0', which partition 'consumer#0' has not made}}
      tle.await %turn
      tle.signal %turn
    }
    tle.warp_return
  }
  return
}

// -----

// A replica that signals twice per turn overruns the next replica's named
// barrier.
func.func @replica_ring_overrun(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %turn = tle.token "turn" from "consumer" to "consumer"
  tle.warp_specialize
  default "producer" warps(1) {
    tle.warp_yield
  }
  partition "consumer" warps(4) replicas(2) (%r: index) {
    %last = arith.cmpi eq, %r, %c1 : index
    scf.if %last {
      tle.signal %turn
    }
    // expected-note @+1 {{the await of partition 'consumer#1' that the previous signal is for}}
    tle.await %turn
    // expected-note @+1 {{the previous signal}}
    tle.signal %turn
    // expected-error @+1 {{token 'turn#0' may be signaled again before its previous signal is awaited: nothing orders this tle.signal in partition 'consumer#0' after partition 'consumer#1' awaits the previous one}}
    tle.signal %turn
    tle.warp_return
  }
  return
}
