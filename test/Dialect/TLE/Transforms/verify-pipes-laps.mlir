// The lap rule: tle-assign-pipe-phases gives iteration i the slot i mod c
// and the parity (i / c) & 1, which is right only when each side uses
// every slot for laps 0, 1, 2, ... in order. The simulation reports a wait
// or acquire that passes on another iteration's phase as a race, and a
// side that takes a slot's laps out of order as such; patterns that keep
// the order are accepted.
//
// RUN: tle-opt %s --tle-verify-pipes=strict=true -split-input-file -verify-diagnostics | FileCheck %s

// `i + 2` on both sides: slot 0 is first used for lap 1, whose parity a
// fresh barrier counts as completed. (examples/pipes written so gets none
// of its output right on the GPU.)
func.func @plus_two(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "p" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "consumer" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %it = arith.addi %i, %c2 : index
      // expected-error @+1 {{the wait of reader 'r' of pipe 'p' for iteration 2 (slot 0, lap 1) when argument 0 of @plus_two = 1 passes on the initial phase of the slot's full barrier, before any commit of the slot: the reader would read data the writer has not written for this iteration (a race); the parity of iteration i is (i / 2) & 1, which is right only when each side uses every slot for laps 0, 1, 2, ... in order (iteration = lap x capacity + slot); count the pipe's iterations from 0 in the order the slots are used, e.g. by the loop's position rather than a tile index or an offset}}
      %v = tle.wait %p[%it : index] reader "r" -> memref<64xf32, 3>
      tle.release %p[%it : index] reader "r"
    }
    tle.warp_yield
  }
  partition "producer" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %it = arith.addi %i, %c2 : index
      %v = tle.acquire %p[%it : index] -> memref<64xf32, 3>
      tle.commit %p[%it : index]
    }
    tle.warp_return
  }
  return
}

// -----

// `i + off`, the offset an argument (a tile offset, a global tile index):
// wrong for every offset but 0, and found where the check grows it.
func.func @plus_offset(%n: index, %off: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "p" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "consumer" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %it = arith.addi %i, %off : index
      // expected-error @+1 {{the wait of reader 'r' of pipe 'p' for iteration 3 (slot 1, lap 1) when argument 0 of @plus_offset = 3, argument 1 of @plus_offset = 3 passes on the initial phase of the slot's full barrier, before any commit of the slot: the reader would read data the writer has not written for this iteration (a race); the parity of iteration i is (i / 2) & 1, which is right only when each side uses every slot for laps 0, 1, 2, ... in order (iteration = lap x capacity + slot); count the pipe's iterations from 0 in the order the slots are used, e.g. by the loop's position rather than a tile index or an offset}}
      %v = tle.wait %p[%it : index] reader "r" -> memref<64xf32, 3>
      tle.release %p[%it : index] reader "r"
    }
    tle.warp_yield
  }
  partition "producer" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %it = arith.addi %i, %off : index
      %v = tle.acquire %p[%it : index] -> memref<64xf32, 3>
      tle.commit %p[%it : index]
    }
    tle.warp_return
  }
  return
}

// -----

// A step of 3 on capacity 2: slot 1 is first used for lap 1.
func.func @step_three(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "p" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "consumer" warps(4) {
    scf.for %i = %c0 to %n step %c3 {
      %it = arith.addi %i, %c0 : index
      // expected-error @+1 {{the wait of reader 'r' of pipe 'p' for iteration 3 (slot 1, lap 1) when argument 0 of @step_three = 6 passes on the initial phase of the slot's full barrier, before any commit of the slot: the reader would read data the writer has not written for this iteration (a race); the parity of iteration i is (i / 2) & 1, which is right only when each side uses every slot for laps 0, 1, 2, ... in order (iteration = lap x capacity + slot); count the pipe's iterations from 0 in the order the slots are used, e.g. by the loop's position rather than a tile index or an offset}}
      %v = tle.wait %p[%it : index] reader "r" -> memref<64xf32, 3>
      tle.release %p[%it : index] reader "r"
    }
    tle.warp_yield
  }
  partition "producer" warps(1) {
    scf.for %i = %c0 to %n step %c3 {
      %it = arith.addi %i, %c0 : index
      %v = tle.acquire %p[%it : index] -> memref<64xf32, 3>
      tle.commit %p[%it : index]
    }
    tle.warp_return
  }
  return
}

// -----

// `3 * i`: the same iterations.
func.func @times_three(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "p" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "consumer" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %it = arith.muli %i, %c3 : index
      // expected-error @+1 {{the wait of reader 'r' of pipe 'p' for iteration 3 (slot 1, lap 1) when argument 0 of @times_three = 3 passes on the initial phase of the slot's full barrier, before any commit of the slot: the reader would read data the writer has not written for this iteration (a race); the parity of iteration i is (i / 2) & 1, which is right only when each side uses every slot for laps 0, 1, 2, ... in order (iteration = lap x capacity + slot); count the pipe's iterations from 0 in the order the slots are used, e.g. by the loop's position rather than a tile index or an offset}}
      %v = tle.wait %p[%it : index] reader "r" -> memref<64xf32, 3>
      tle.release %p[%it : index] reader "r"
    }
    tle.warp_yield
  }
  partition "producer" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %it = arith.muli %i, %c3 : index
      %v = tle.acquire %p[%it : index] -> memref<64xf32, 3>
      tle.commit %p[%it : index]
    }
    tle.warp_return
  }
  return
}

// -----

// A step read from an argument: the check tries it at every value up to
// the total capacity plus one (here 3 is wrong, 2 would be right).
func.func @step_argument(%n: index, %s: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "p" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "consumer" warps(4) {
    scf.for %i = %c0 to %n step %s {
      %it = arith.addi %i, %c0 : index
      // expected-error @+1 {{the wait of reader 'r' of pipe 'p' for iteration 3 (slot 1, lap 1) when argument 0 of @step_argument = 6, argument 1 of @step_argument = 3 passes on the initial phase of the slot's full barrier, before any commit of the slot: the reader would read data the writer has not written for this iteration (a race); the parity of iteration i is (i / 2) & 1, which is right only when each side uses every slot for laps 0, 1, 2, ... in order (iteration = lap x capacity + slot); count the pipe's iterations from 0 in the order the slots are used, e.g. by the loop's position rather than a tile index or an offset}}
      %v = tle.wait %p[%it : index] reader "r" -> memref<64xf32, 3>
      tle.release %p[%it : index] reader "r"
    }
    tle.warp_yield
  }
  partition "producer" warps(1) {
    scf.for %i = %c0 to %n step %s {
      %it = arith.addi %i, %c0 : index
      %v = tle.acquire %p[%it : index] -> memref<64xf32, 3>
      tle.commit %p[%it : index]
    }
    tle.warp_return
  }
  return
}

// -----

// A reverse walk on both sides, `n - 1 - i`: for odd n, slot 0 is first
// used for the last lap.
func.func @reverse(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "p" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "consumer" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %last = arith.subi %n, %c1 : index
      %it = arith.subi %last, %i : index
      // expected-error @+1 {{the wait of reader 'r' of pipe 'p' for iteration 2 (slot 0, lap 1) when argument 0 of @reverse = 3 passes on the initial phase of the slot's full barrier, before any commit of the slot: the reader would read data the writer has not written for this iteration (a race); the parity of iteration i is (i / 2) & 1, which is right only when each side uses every slot for laps 0, 1, 2, ... in order (iteration = lap x capacity + slot); count the pipe's iterations from 0 in the order the slots are used, e.g. by the loop's position rather than a tile index or an offset}}
      %v = tle.wait %p[%it : index] reader "r" -> memref<64xf32, 3>
      tle.release %p[%it : index] reader "r"
    }
    tle.warp_yield
  }
  partition "producer" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %last = arith.subi %n, %c1 : index
      %it = arith.subi %last, %i : index
      %v = tle.acquire %p[%it : index] -> memref<64xf32, 3>
      tle.commit %p[%it : index]
    }
    tle.warp_return
  }
  return
}

// -----

// `2 * i` on capacity 2 is right: slot 0 sees laps 0, 1, 2, ... in order.
// CHECK-LABEL: func.func @times_two
func.func @times_two(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "p" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "consumer" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %it = arith.muli %i, %c2 : index
      %v = tle.wait %p[%it : index] reader "r" -> memref<64xf32, 3>
      tle.release %p[%it : index] reader "r"
    }
    tle.warp_yield
  }
  partition "producer" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %it = arith.muli %i, %c2 : index
      %v = tle.acquire %p[%it : index] -> memref<64xf32, 3>
      tle.commit %p[%it : index]
    }
    tle.warp_return
  }
  return
}

// -----

// A step from an argument with the iteration counted by position, as the
// fix says: right for every step.
// CHECK-LABEL: func.func @step_position
func.func @step_position(%n: index, %s: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "p" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "consumer" warps(4) {
    scf.for %i = %c0 to %n step %s {
      %it = arith.divui %i, %s : index
      %v = tle.wait %p[%it : index] reader "r" -> memref<64xf32, 3>
      tle.release %p[%it : index] reader "r"
    }
    tle.warp_yield
  }
  partition "producer" warps(1) {
    scf.for %i = %c0 to %n step %s {
      %it = arith.divui %i, %s : index
      %v = tle.acquire %p[%it : index] -> memref<64xf32, 3>
      tle.commit %p[%it : index]
    }
    tle.warp_return
  }
  return
}

// -----

// The simulation's race on another lap's phase: the reader's wait for lap
// 2 of slot 0 passes on the phase that lap 0's commit completed (same
// parity), while the writer is still refilling the slot for lap 1.
func.func @other_lap(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "p" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "consumer" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %it = arith.muli %i, %c4 : index
      // expected-error @+1 {{the wait of reader 'r' of pipe 'p' for iteration 4 (slot 0, lap 2) when argument 0 of @other_lap = 3 passes on the phase that the commit of iteration 0 completed: the reader would read data the writer has not written for this iteration (a race); the parity of iteration i is (i / 2) & 1, which is right only when each side uses every slot for laps 0, 1, 2, ... in order (iteration = lap x capacity + slot); count the pipe's iterations from 0 in the order the slots are used, e.g. by the loop's position rather than a tile index or an offset}}
      %v = tle.wait %p[%it : index] reader "r" -> memref<64xf32, 3>
      tle.release %p[%it : index] reader "r"
    }
    tle.warp_yield
  }
  partition "producer" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %it = arith.addi %i, %c0 : index
      %v = tle.acquire %p[%it : index] -> memref<64xf32, 3>
      tle.commit %p[%it : index]
    }
    tle.warp_return
  }
  return
}

// -----

// An acquire of lap 2 passes on the fresh free barrier (parity 0 counts as
// not yet completed, so parity 1 does) before any reader released lap 1.
func.func @acquire_race(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "p" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "consumer" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %it = arith.muli %i, %c4 : index
      %v = tle.wait %p[%it : index] reader "r" -> memref<64xf32, 3>
      tle.release %p[%it : index] reader "r"
    }
    tle.warp_yield
  }
  partition "producer" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %it = arith.muli %i, %c4 : index
      // expected-error @+1 {{the acquire of the writer of pipe 'p' for iteration 4 (slot 0, lap 2) when argument 0 of @acquire_race = 3 passes on the initial phase of the slot's free barrier, before any release of the slot, not on the releases of iteration 2: the writer would refill the slot while a reader may still read it (a race); the parity of iteration i is (i / 2) & 1, which is right only when each side uses every slot for laps 0, 1, 2, ... in order (iteration = lap x capacity + slot); count the pipe's iterations from 0 in the order the slots are used, e.g. by the loop's position rather than a tile index or an offset}}
      %v = tle.acquire %p[%it : index] -> memref<64xf32, 3>
      tle.commit %p[%it : index]
    }
    tle.warp_return
  }
  return
}

// -----

// A deadlock that a skipped lap causes is reported as the skip: the
// writer starts at lap 1 of slot 0, whose acquire waits for releases of
// iteration 0, which no one commits.
func.func @writer_skips(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "p" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "consumer" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %it = arith.addi %i, %c0 : index
      %v = tle.wait %p[%it : index] reader "r" -> memref<64xf32, 3>
      tle.release %p[%it : index] reader "r"
    }
    tle.warp_yield
  }
  partition "producer" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %it = arith.addi %i, %c2 : index
      // expected-error @+1 {{the writer of pipe 'p' uses slot 0 for lap 1 (iteration 2) when argument 0 of @writer_skips = 1, but its next lap of the slot is lap 0 (iteration 0): a lap out of order makes a wait or acquire pass on the phase of another lap (a race) or never pass; the parity of iteration i is (i / 2) & 1, which is right only when each side uses every slot for laps 0, 1, 2, ... in order (iteration = lap x capacity + slot); count the pipe's iterations from 0 in the order the slots are used, e.g. by the loop's position rather than a tile index or an offset}}
      %v = tle.acquire %p[%it : index] -> memref<64xf32, 3>
      tle.commit %p[%it : index]
    }
    tle.warp_return
  }
  return
}

// -----

// A partition that exits early on a float input: the condition is tried
// at 0 and at 1 with long loops, so the reader that stops after one
// iteration when x <= 0 is found.
func.func @early_exit(%n: index, %x: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %go_on = arith.cmpf ogt, %x, %zero : f32
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  // expected-error @+1 {{the writer of pipe 'p' commits 3 iterations but reader 'r' waits for 1 iteration when argument 0 of @early_exit = 3, the arith.cmpf at line 382 = 0; the iterations it skips are never read}}
  %p = tle.pipe "p" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "consumer" warps(4) {
    %first = arith.minsi %n, %c1 : index
    %end = arith.select %go_on, %n, %first : index
    scf.for %i = %c0 to %end step %c1 {
      %v = tle.wait %p[%i : index] reader "r" -> memref<64xf32, 3>
      tle.release %p[%i : index] reader "r"
    }
    tle.warp_yield
  }
  partition "producer" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.acquire %p[%i : index] -> memref<64xf32, 3>
      tle.commit %p[%i : index]
    }
    tle.warp_return
  }
  return
}
