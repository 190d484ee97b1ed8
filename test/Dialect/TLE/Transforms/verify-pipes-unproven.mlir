// What the protocol check cannot prove is a warning naming the loop or op,
// and an error under strict=true (or the pipelines' strict-pipes=true).
//
// RUN: timeout 60 tle-opt %s --tle-verify-pipes -split-input-file -verify-diagnostics -o /dev/null
// RUN: not tle-opt %s --tle-verify-pipes=strict=true -split-input-file -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=STRICT
// RUN: not tle-opt %s --tle-derive-sync=strict-pipes=true -split-input-file -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=STRICT

// A trip count each partition loads for itself: the check cannot know that
// the two loads agree, nor choose the value.
func.func @loaded_in_partitions(%len: memref<1xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  // expected-warning @+1 {{the protocol check cannot prove that reader 'r' of pipe 'kv' waits for as many iterations as the writer commits: the writer commits a number of iterations the check cannot count, the reader waits for a number of iterations the check cannot count}}
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    // expected-note @+1 {{the value comes from here}}
    %n = memref.load %len[%c0] : memref<1xindex>
    // expected-warning @+1 {{the protocol check cannot simulate this scf.for in partition 'r': it depends on the memref.load at line 21, whose value the check cannot know; deadlock freedom is not proven for the kernel (compute the value before tle.warp_specialize, where the check chooses it)}}
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.wait %p[%i : index] reader "r" -> memref<64xf32, 3>
      tle.release %p[%i : index] reader "r"
    }
    tle.warp_yield
  }
  partition "w" warps(1) {
    %n = memref.load %len[%c0] : memref<1xindex>
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.acquire %p[%i : index] -> memref<64xf32, 3>
      tle.commit %p[%i : index]
    }
    tle.warp_return
  }
  return
}
// STRICT: error: the protocol check cannot simulate this scf.for in partition 'r'

// -----

// Loaded once before the partitions, the same count is an input the check
// chooses: no warning.
func.func @loaded_before(%len: memref<1xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.load %len[%c0] : memref<1xindex>
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
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

// An unsigned guard `n >u 0` of an argument that may be negative: for n =
// -1 the reader would wait for iteration 0, which the writer never
// commits. Not the signed n > 0 that the peeled counts need: unproven.
func.func @ugt_may_be_negative(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  // expected-warning @+1 {{the protocol check cannot prove that reader 'r' of pipe 'kv' waits for as many iterations as the writer commits: the writer commits trips(argument 0 of @ugt_may_be_negative) iterations, the reader waits for [cmpi.ugt(argument 0 of @ugt_may_be_negative, 0)] + [cmpi.ugt(argument 0 of @ugt_may_be_negative, 0)] x trips(argument 0 of @ugt_may_be_negative - 1) iterations}}
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %pos = arith.cmpi ugt, %n, %c0 : index
    scf.if %pos {
      %first = tle.wait %p[%c0 : index] reader "r" -> memref<64xf32, 3>
      %last = arith.subi %n, %c1 : index
      %held = scf.for %i = %c0 to %last step %c1 iter_args(%cur = %first) -> memref<64xf32, 3> {
        %next = arith.addi %i, %c1 : index
        %v = tle.wait %p[%next : index] reader "r" -> memref<64xf32, 3>
        %x = memref.load %cur[%c0] : memref<64xf32, 3>
        tle.release %p[%i : index] reader "r"
        scf.yield %v : memref<64xf32, 3>
      }
      %y = memref.load %held[%c0] : memref<64xf32, 3>
      tle.release %p[%last : index] reader "r"
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

// The same through a truncation: n = arg / 2 is never negative as an
// index, but its low 32 bits may be (n = 2^31), so `n32 >u 0` is not
// n > 0 and the peeled counts stay unproven.
func.func @ugt_through_truncation(%arg: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %n = arith.divui %arg, %c2 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  // expected-warning @+1 {{the protocol check cannot prove that reader 'r' of pipe 'kv' waits for as many iterations as the writer commits: the writer commits trips(divui(argument 0 of @ugt_through_truncation, 2)) iterations, the reader waits for [cmpi.ugt(divui(argument 0 of @ugt_through_truncation, 2), 0)] + [cmpi.ugt(divui(argument 0 of @ugt_through_truncation, 2), 0)] x trips(divui(argument 0 of @ugt_through_truncation, 2) - 1) iterations}}
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %n32 = arith.index_cast %n : index to i32
    %z32 = arith.constant 0 : i32
    %pos = arith.cmpi ugt, %n32, %z32 : i32
    scf.if %pos {
      %first = tle.wait %p[%c0 : index] reader "r" -> memref<64xf32, 3>
      %last = arith.subi %n, %c1 : index
      %held = scf.for %i = %c0 to %last step %c1 iter_args(%cur = %first) -> memref<64xf32, 3> {
        %next = arith.addi %i, %c1 : index
        %v = tle.wait %p[%next : index] reader "r" -> memref<64xf32, 3>
        %x = memref.load %cur[%c0] : memref<64xf32, 3>
        tle.release %p[%i : index] reader "r"
        scf.yield %v : memref<64xf32, 3>
      }
      %y = memref.load %held[%c0] : memref<64xf32, 3>
      tle.release %p[%last : index] reader "r"
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

// Split in halves, the reader's count is right, but not the same
// polynomial as the writer's: the simulation finds no mismatch, the proof
// is missing.
func.func @halves(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  // expected-warning @+1 {{the protocol check cannot prove that reader 'r' of pipe 'kv' waits for as many iterations as the writer commits: the writer commits trips(argument 0 of @halves) iterations, the reader waits for trips(divui(argument 0 of @halves, 2)) + trips(argument 0 of @halves - divui(argument 0 of @halves, 2)) iterations}}
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %half = arith.divui %n, %c2 : index
    scf.for %i = %c0 to %half step %c1 {
      %v = tle.wait %p[%i : index] reader "r" -> memref<64xf32, 3>
      tle.release %p[%i : index] reader "r"
    }
    scf.for %i = %half to %n step %c1 {
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
// STRICT: error: the protocol check cannot prove that reader 'r' of pipe 'kv' waits for as many iterations as the writer commits

// -----

// Branches on the loop variable that leave out or pick one end of the
// loop are counted: the reader waits for tile 0 under n > 0 and for tile
// i + 1 under i + 1 < n, [n > 0] + trips(n) - [n > 0] = trips(n)
// iterations, the writer's count. No warning.
func.func @lookahead_under_branch(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %pos = arith.cmpi sgt, %n, %c0 : index
    scf.if %pos {
      %v = tle.wait %p[%c0 : index] reader "r" -> memref<64xf32, 3>
      tle.release %p[%c0 : index] reader "r"
    }
    scf.for %i = %c0 to %n step %c1 {
      %next = arith.addi %i, %c1 : index
      %more = arith.cmpi ult, %next, %n : index
      scf.if %more {
        %v = tle.wait %p[%next : index] reader "r" -> memref<64xf32, 3>
        tle.release %p[%next : index] reader "r"
      }
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

// A loop that no input makes run capacity + 1 = 5 times.
func.func @too_short(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %m = arith.minui %n, %c2 : index
  %a = tle.shared_alloc : memref<4x64xf32, 3>
  %p = tle.pipe "kv" capacity 4 fields(a = %a : memref<4x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    // expected-warning @+1 {{the protocol check found no inputs for which this scf.for in partition 'r' runs 5 times (the capacity of its pipes, plus one); deadlock freedom is not proven for longer runs: its trip count depends on argument 0 of @too_short, an input the check chooses (a value computed before tle.warp_specialize from the kernel's arguments, block ids, tensor sizes or loads); with argument 0 of @too_short up to 1099511627776 the loop ran at most 2 times, and no input makes it run 5 times: its upper bound (the arith.minui at line 232) is at most 2; compute the trip count from a kernel argument, which the check grows, or write a loop whose trip count grows with its inputs (a limit per block as a branch inside the loop, not a clamp of its bound)}}
    scf.for %i = %c0 to %m step %c1 {
      %v = tle.wait %p[%i : index] reader "r" -> memref<64xf32, 3>
      tle.release %p[%i : index] reader "r"
    }
    tle.warp_yield
  }
  partition "w" warps(1) {
    // expected-warning @+1 {{the protocol check found no inputs for which this scf.for in partition 'w' runs 5 times}}
    scf.for %i = %c0 to %m step %c1 {
      %v = tle.acquire %p[%i : index] -> memref<64xf32, 3>
      tle.commit %p[%i : index]
    }
    tle.warp_return
  }
  return
}
// STRICT: error: the protocol check found no inputs for which this scf.for in partition 'r' runs 5 times

// -----

// A block's share of the rows, clamped to 64 and counted in tiles of 16:
// the block id and the size are inputs the check chooses and grows (all
// alike, so that this block's share is empty), and no choice makes the
// loop run more than 4 times; the message says which bound caps it.
func.func @clamped_by_block(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c15 = arith.constant 15 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %b = gpu.block_id x
  %first = arith.muli %b, %c64 : index
  %left = arith.subi %n, %first : index
  %some = arith.maxsi %left, %c0 : index
  %rows = arith.minsi %some, %c64 : index
  %up = arith.addi %rows, %c15 : index
  %tiles = arith.divui %up, %c16 : index
  %a = tle.shared_alloc : memref<4x64xf32, 3>
  %p = tle.pipe "kv" capacity 4 fields(a = %a : memref<4x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    // expected-warning @+1 {{the protocol check found no inputs for which this scf.for in partition 'r' runs 5 times (the capacity of its pipes, plus one); deadlock freedom is not proven for longer runs: its trip count depends on the gpu.block_id at line 268 and argument 0 of @clamped_by_block, inputs the check chooses (values computed before tle.warp_specialize from the kernel's arguments, block ids, tensor sizes or loads); with the gpu.block_id at line 268 up to 1099511627776 and argument 0 of @clamped_by_block up to 1099511627776 the loop ran at most 0 times, and no input makes it run 5 times: its upper bound (the arith.divui at line 274) is at most 4; compute the trip count from a kernel argument, which the check grows, or write a loop whose trip count grows with its inputs (a limit per block as a branch inside the loop, not a clamp of its bound)}}
    scf.for %i = %c0 to %tiles step %c1 {
      %v = tle.wait %p[%i : index] reader "r" -> memref<64xf32, 3>
      tle.release %p[%i : index] reader "r"
    }
    tle.warp_yield
  }
  partition "w" warps(1) {
    // expected-warning @+1 {{the protocol check found no inputs for which this scf.for in partition 'w' runs 5 times}}
    scf.for %i = %c0 to %tiles step %c1 {
      %v = tle.acquire %p[%i : index] -> memref<64xf32, 3>
      tle.commit %p[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// A loop over a block's own four tiles, from 4 x block id: both bounds
// depend on the block id, which the check therefore does not grow for it.
func.func @offset_by_block() {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %b = gpu.block_id x
  %lb = arith.muli %b, %c4 : index
  %ub = arith.addi %lb, %c4 : index
  %a = tle.shared_alloc : memref<4x64xf32, 3>
  %p = tle.pipe "kv" capacity 4 fields(a = %a : memref<4x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    // expected-warning @+1 {{the protocol check found no inputs for which this scf.for in partition 'r' runs 5 times (the capacity of its pipes, plus one); deadlock freedom is not proven for longer runs: its trip count depends on the gpu.block_id at line 304, an input the check chooses (a value computed before tle.warp_specialize from the kernel's arguments, block ids, tensor sizes or loads), none of which it grows for this loop: it grows what the upper bound depends on and the lower bound does not, and the loop ran at most 4 times; count the loop from 0 to a trip count computed from a kernel argument (`0 to %n`), which the check grows, and add the offset to the index inside the loop}}
    scf.for %i = %lb to %ub step %c1 {
      %j = arith.subi %i, %lb : index
      %v = tle.wait %p[%j : index] reader "r" -> memref<64xf32, 3>
      tle.release %p[%j : index] reader "r"
    }
    tle.warp_yield
  }
  partition "w" warps(1) {
    // expected-warning @+1 {{the protocol check found no inputs for which this scf.for in partition 'w' runs 5 times}}
    scf.for %i = %lb to %ub step %c1 {
      %j = arith.subi %i, %lb : index
      %v = tle.acquire %p[%j : index] -> memref<64xf32, 3>
      tle.commit %p[%j : index]
    }
    tle.warp_return
  }
  return
}

// -----

// An scf.while is simulated, but its count is not a polynomial.
func.func @while_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  // expected-warning @+1 {{the protocol check cannot prove that reader 'r' of pipe 'kv' waits for as many iterations as the writer commits: the writer commits trips(argument 0 of @while_loop) iterations, the reader waits for a number of iterations the check cannot count}}
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %end = scf.while (%i = %c0) : (index) -> index {
      %more = arith.cmpi ult, %i, %n : index
      scf.condition(%more) %i : index
    } do {
    ^bb0(%i: index):
      %v = tle.wait %p[%i : index] reader "r" -> memref<64xf32, 3>
      tle.release %p[%i : index] reader "r"
      %next = arith.addi %i, %c1 : index
      scf.yield %next : index
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

// More steps than the check simulates (2^20): it stops and says so.
func.func @too_long() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %big = arith.constant 4000000 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    // expected-warning @+1 {{the protocol check stopped simulating this scf.for in partition 'r' after 1048576 steps; deadlock freedom is not proven for the kernel}}
    scf.for %i = %c0 to %big step %c1 {
      %v = tle.wait %p[%i : index] reader "r" -> memref<64xf32, 3>
      tle.release %p[%i : index] reader "r"
    }
    tle.warp_yield
  }
  partition "w" warps(1) {
    scf.for %i = %c0 to %big step %c1 {
      %v = tle.acquire %p[%i : index] -> memref<64xf32, 3>
      tle.commit %p[%i : index]
    }
    tle.warp_return
  }
  return
}
// STRICT: error: the protocol check stopped simulating this scf.for

// -----

// A trip count that divides by zero for every input.
func.func @divides_by_zero(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = arith.divui %n, %c0 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    // expected-warning @+1 {{the protocol check cannot simulate this scf.for: it divides by zero or overflows for every input tried}}
    scf.for %i = %c0 to %m step %c1 {
      %v = tle.wait %p[%i : index] reader "r" -> memref<64xf32, 3>
      tle.release %p[%i : index] reader "r"
    }
    tle.warp_yield
  }
  partition "w" warps(1) {
    scf.for %i = %c0 to %m step %c1 {
      %v = tle.acquire %p[%i : index] -> memref<64xf32, 3>
      tle.commit %p[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// Readers of cp.async data without their proxy fences (tle.cp_async_fence =
// "none") rely on what the PTX memory model does not promise.
// expected-warning @+1 {{the protocol check cannot prove that the readers of cp.async data see it through the async proxy (the tensor cores, TMA): tle.cp_async_fence = "none" drops their fence.proxy.async, and the PTX memory model does not promise that a completed cp.async is visible there without one}}
func.func @unfenced_cp_async(%src: memref<?x64xbf16>, %n: index, %d: !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>) attributes {tle.cp_async_fence = "none"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tle.shared_alloc : memref<2x64x64xbf16, 3>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64x64xbf16, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      // expected-note @+1 {{reader 'r' of pipe 'kv' hands cp.async data to the async proxy after this wait}}
      %v = tle.wait %p[%i : index] reader "r" -> memref<64x64xbf16, 3>
      %desc = nvgpu.warpgroup.generate.descriptor %v, %d : memref<64x64xbf16, 3>, !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none> -> !nvgpu.warpgroup.descriptor<tensor = memref<64x64xbf16, 3>>
      tle.release %p[%i : index] reader "r"
    }
    tle.warp_yield
  }
  partition "w" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.acquire %p[%i : index] -> memref<64x64xbf16, 3>
      %t = nvgpu.device_async_copy %src[%i, %c0], %v[%c0, %c0], 8 : memref<?x64xbf16> to memref<64x64xbf16, 3>
      tle.commit %p[%i : index]
    }
    tle.warp_return
  }
  return
}
// STRICT: error: the protocol check cannot prove that the readers of cp.async data

// -----

// The attribute says nothing where no reader hands cp.async data to the
// async proxy: cp.async rows read by loads, tensor-core tiles stored by
// the writer (which fences them itself).
func.func @unfenced_nothing_to_fence(%src: memref<?x64xf32>, %n: index, %x: vector<8xbf16>, %d: !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>) attributes {tle.cp_async_fence = "none"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %s = tle.shared_alloc : memref<2x64x64xbf16, 3>
  %p = tle.pipe "rows" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  %q = tle.pipe "scores" capacity 2 fields(s = %s : memref<2x64x64xbf16, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.wait %p[%i : index] reader "r" -> memref<64xf32, 3>
      %y = memref.load %v[%c0] : memref<64xf32, 3>
      tle.release %p[%i : index] reader "r"
      %w = tle.wait %q[%i : index] reader "r" -> memref<64x64xbf16, 3>
      %desc = nvgpu.warpgroup.generate.descriptor %w, %d : memref<64x64xbf16, 3>, !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none> -> !nvgpu.warpgroup.descriptor<tensor = memref<64x64xbf16, 3>>
      tle.release %q[%i : index] reader "r"
    }
    tle.warp_yield
  }
  partition "w" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.acquire %p[%i : index] -> memref<64xf32, 3>
      %t = nvgpu.device_async_copy %src[%i, %c0], %v[%c0], 4 : memref<?x64xf32> to memref<64xf32, 3>
      tle.commit %p[%i : index]
      %w = tle.acquire %q[%i : index] -> memref<64x64xbf16, 3>
      vector.store %x, %w[%c0, %c0] : memref<64x64xbf16, 3>, vector<8xbf16>
      tle.commit %q[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// ceil(s / 64) written as a division on one side and as a shift on the
// other is one count: a right shift by k is a division by 2^k.
func.func @ceil_shift_and_division(%s: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  %up = arith.addi %s, %c63 : index
  %wt = arith.divui %up, %c64 : index
  %rt = arith.shrui %up, %c6 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "p" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "consumer" warps(4) {
    scf.for %i = %c0 to %rt step %c1 {
      %v = tle.wait %p[%i : index] reader "r" -> memref<64xf32, 3>
      tle.release %p[%i : index] reader "r"
    }
    tle.warp_yield
  }
  partition "producer" warps(1) {
    scf.for %i = %c0 to %wt step %c1 {
      %v = tle.acquire %p[%i : index] -> memref<64xf32, 3>
      tle.commit %p[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// ceildiv(s, 64) is (s + 63) / 64 for an s never negative (a size).
func.func @ceil_of_a_size(%m: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %s = memref.dim %m, %c0 : memref<?xf32>
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  %up = arith.addi %s, %c63 : index
  %wt = arith.ceildivui %s, %c64 : index
  %rt = arith.shrui %up, %c6 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "p" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "consumer" warps(4) {
    scf.for %i = %c0 to %rt step %c1 {
      %v = tle.wait %p[%i : index] reader "r" -> memref<64xf32, 3>
      tle.release %p[%i : index] reader "r"
    }
    tle.warp_yield
  }
  partition "producer" warps(1) {
    scf.for %i = %c0 to %wt step %c1 {
      %v = tle.acquire %p[%i : index] -> memref<64xf32, 3>
      tle.commit %p[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// For an argument, which may be negative, s + 63 may wrap where
// ceildiv(s, 64) does not: the counts stay unproven.
func.func @ceil_may_wrap(%s: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  %up = arith.addi %s, %c63 : index
  %wt = arith.ceildivui %s, %c64 : index
  %rt = arith.shrui %up, %c6 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  // expected-warning @+1 {{the protocol check cannot prove that reader 'r' of pipe 'p' waits for as many iterations as the writer commits: the writer commits trips(ceildivui(argument 0 of @ceil_may_wrap, 64)) iterations, the reader waits for trips(divui(argument 0 of @ceil_may_wrap + 63, 64)) iterations}}
  %p = tle.pipe "p" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "consumer" warps(4) {
    scf.for %i = %c0 to %rt step %c1 {
      %v = tle.wait %p[%i : index] reader "r" -> memref<64xf32, 3>
      tle.release %p[%i : index] reader "r"
    }
    tle.warp_yield
  }
  partition "producer" warps(1) {
    scf.for %i = %c0 to %wt step %c1 {
      %v = tle.acquire %p[%i : index] -> memref<64xf32, 3>
      tle.commit %p[%i : index]
    }
    tle.warp_return
  }
  return
}
// STRICT: error: the protocol check cannot prove that reader 'r' of pipe 'p' waits for as many iterations as the writer commits

// -----

// More than three conditions the check cannot compute: they are tried
// all 0 and all 1, not in the 16 combinations, and the check says so.
func.func @many_conditions(%n: index, %x: f32, %y: f32, %z: f32, %w: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  // expected-warning @+1 {{the protocol check tried the 4 conditions it cannot compute before tle.warp_specialize (the arith.cmpf at line 601 and others) all 0 and all 1, not in every combination; deadlock freedom is not proven for the others}}
  %cx = arith.cmpf ogt, %x, %zero : f32
  %cy = arith.cmpf ogt, %y, %zero : f32
  %cz = arith.cmpf ogt, %z, %zero : f32
  %cw = arith.cmpf ogt, %w, %zero : f32
  %xy = arith.andi %cx, %cy : i1
  %xyz = arith.andi %xy, %cz : i1
  %all = arith.andi %xyz, %cw : i1
  %end = arith.select %all, %n, %c1 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "p" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    scf.for %i = %c0 to %end step %c1 {
      %v = tle.wait %p[%i : index] reader "r" -> memref<64xf32, 3>
      tle.release %p[%i : index] reader "r"
    }
    tle.warp_yield
  }
  partition "w" warps(1) {
    scf.for %i = %c0 to %end step %c1 {
      %v = tle.acquire %p[%i : index] -> memref<64xf32, 3>
      tle.commit %p[%i : index]
    }
    tle.warp_return
  }
  return
}
// STRICT: error: the protocol check tried the 4 conditions
