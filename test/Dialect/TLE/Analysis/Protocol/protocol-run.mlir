// One run of the protocol check, part by part, for inputs the test picks:
// the events each partition makes, those events against the barriers, and
// the lap rule on the events alone.
// RUN: tle-opt %s --tle-test-partition-unroller=input=3 -split-input-file -o /dev/null | FileCheck %s --check-prefix=EVENTS
// RUN: tle-opt %s --tle-test-partition-unroller=input=0 -split-input-file -o /dev/null | FileCheck %s --check-prefix=EMPTY
// RUN: tle-opt %s --tle-test-barrier-simulation=input=3 -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=BARRIERS
// RUN: tle-opt %s --tle-test-lap-order=input=3 -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=LAPS

// The release that a tle.wgmma still reads takes effect at the
// tle.wgmma_wait of the next iteration (and after the loop), where the
// lowering puts it.
// EVENTS: partition 'mma': wait 'ab' mma 0 wait 'ab' mma 1 release 'ab' mma 0 wait 'ab' mma 2 release 'ab' mma 1 release 'ab' mma 2{{$}}
// EVENTS-NEXT: partition 'tma': acquire 'ab' 0 commit 'ab' 0 acquire 'ab' 1 commit 'ab' 1 acquire 'ab' 2 commit 'ab' 2{{$}}
// EMPTY: partition 'mma':{{$}}
// EMPTY-NEXT: partition 'tma':{{$}}
#sw = #tle.shared<swizzle = 128>
#acc = #tle.mma<warp_groups = [1, 1]>
func.func @deferred(%map: !tle.tensor_map<64x64xbf16, swizzle = 128>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = tle.shared_alloc : memref<2x64x64xbf16, #sw>
  %ab = tle.pipe "ab" capacity 2 fields(t = %buf : memref<2x64x64xbf16, #sw>) readers(mma)
  // BARRIERS: protocol-run.mlir:[[@LINE+2]]:3: remark: the run when argument 1 of @deferred = 3 finishes
  // LAPS: protocol-run.mlir:[[@LINE+1]]:3: remark: every side uses every slot for laps 0, 1, 2, ... in order when argument 1 of @deferred = 3
  tle.warp_specialize
  default "mma" warps(4) {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> tensor<64x64xf32, #acc> {
      %t = tle.wait %ab[%i : index] reader "mma" -> memref<64x64xbf16, #sw>
      %d = tle.wgmma %t, %t, %acc transpose_b : memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>
      tle.release %ab[%i : index] reader "mma"
      %w = tle.wgmma_wait %d pending(1) : tensor<64x64xf32, #acc>
      scf.yield %w : tensor<64x64xf32, #acc>
    }
    %done = tle.wgmma_wait %sum pending(0) : tensor<64x64xf32, #acc>
    tle.warp_yield
  }
  partition "tma" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %t = tle.acquire %ab[%i : index] -> memref<64x64xbf16, #sw>
      tle.tma_load %map[%c0, %c0] into %t : !tle.tensor_map<64x64xbf16, swizzle = 128>, memref<64x64xbf16, #sw>
      tle.commit %ab[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// Iterations counted from 2: the first use of slot 0 is lap 1, so the
// reader's wait passes on the fresh barrier (a race), and the lap rule
// names the lap it skipped.
// EVENTS: partition 'r': wait 'kv' r 2 release 'kv' r 2 wait 'kv' r 3 release 'kv' r 3 wait 'kv' r 4 release 'kv' r 4{{$}}
// EVENTS-NEXT: partition 'w': acquire 'kv' 2 commit 'kv' 2 acquire 'kv' 3 commit 'kv' 3 acquire 'kv' 4 commit 'kv' 4{{$}}
func.func @offset(%n: index) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %end = arith.addi %n, %c2 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    scf.for %i = %c2 to %end step %c1 {
      // BARRIERS: protocol-run.mlir:[[@LINE+2]]:12: error: the wait of reader 'r' of pipe 'kv' for iteration 2 (slot 0, lap 1) when argument 0 of @offset = 3 passes on the initial phase of the slot's full barrier, before any commit of the slot: the reader would read data the writer has not written for this iteration (a race)
      // LAPS: protocol-run.mlir:[[@LINE+1]]:12: error: reader 'r' of pipe 'kv' uses slot 0 for lap 1 (iteration 2) when argument 0 of @offset = 3, but its next lap of the slot is lap 0 (iteration 0)
      %v = tle.wait %p[%i : index] reader "r" -> memref<64xf32, 3>
      tle.release %p[%i : index] reader "r"
    }
    tle.warp_yield
  }
  partition "w" warps(1) {
    scf.for %i = %c2 to %end step %c1 {
      %v = tle.acquire %p[%i : index] -> memref<64xf32, 3>
      tle.commit %p[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// A wait for an iteration no one commits: a deadlock for these inputs,
// though every side keeps the laps in order.
// EVENTS: partition 'r': wait 'kv' r 0 release 'kv' r 0 wait 'kv' r 1 release 'kv' r 1 wait 'kv' r 2 release 'kv' r 2 wait 'kv' r 3 release 'kv' r 3{{$}}
// EVENTS-NEXT: partition 'w': acquire 'kv' 0 commit 'kv' 0 acquire 'kv' 1 commit 'kv' 1 acquire 'kv' 2 commit 'kv' 2{{$}}
func.func @one_more(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %more = arith.addi %n, %c1 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  // LAPS: protocol-run.mlir:[[@LINE+1]]:3: remark: every side uses every slot for laps 0, 1, 2, ... in order when argument 0 of @one_more = 3
  tle.warp_specialize
  default "r" warps(4) {
    scf.for %i = %c0 to %more step %c1 {
      // BARRIERS: protocol-run.mlir:[[@LINE+1]]:12: error: deadlock when argument 0 of @one_more = 3: partition 'r' waits as reader 'r' for iteration 3 of pipe 'kv', which partition 'w' has not committed and never will (it has finished)
      %v = tle.wait %p[%i : index] reader "r" -> memref<64xf32, 3>
      tle.release %p[%i : index] reader "r"
    }
    tle.warp_yield
  }
  partition "w" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.acquire %p[%i : index] -> memref<64xf32, 3>
      tle.commit %p[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// A trip count from a load inside the partition: the unroller stops there.
// EVENTS: partition 'r': stopped by a value the check cannot compute at the scf.for at line [[#@LINE+12]]{{$}}
// EVENTS-NEXT: partition 'w': acquire 'kv' 0 commit 'kv' 0 acquire 'kv' 1 commit 'kv' 1 acquire 'kv' 2 commit 'kv' 2{{$}}
func.func @opaque(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %s = tle.shared_alloc : memref<1xi32, 3>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %l = memref.load %s[%c0] : memref<1xi32, 3>
    %m = arith.index_cast %l : i32 to index
    scf.for %i = %c0 to %m step %c1 {
      %v = tle.wait %p[%i : index] reader "r" -> memref<64xf32, 3>
      tle.release %p[%i : index] reader "r"
    }
    tle.warp_yield
  }
  partition "w" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.acquire %p[%i : index] -> memref<64xf32, 3>
      tle.commit %p[%i : index]
    }
    tle.warp_return
  }
  return
}
