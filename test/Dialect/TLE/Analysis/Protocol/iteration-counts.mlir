// RUN: tle-opt %s --tle-test-iteration-counts -split-input-file -verify-diagnostics -o /dev/null

// A reader that peels the first and the last tile off its loop (a carried
// window) under n > 0 waits for [n > 0] + trips(n) - [n > 0] iterations,
// the writer's trips(n): equal for every n.
func.func @carried(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  // expected-remark @+1 {{reader 'r': equal (trips(argument 0 of @carried) against trips(argument 0 of @carried))}}
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %pos = arith.cmpi sgt, %n, %c0 : index
    scf.if %pos {
      // expected-remark @+1 {{runs [cmpi.sgt(argument 0 of @carried, 0)] times}}
      %first = tle.wait %p[%c0 : index] reader "r" -> memref<64xf32, 3>
      %last = arith.subi %n, %c1 : index
      %held = scf.for %i = %c0 to %last step %c1 iter_args(%cur = %first) -> memref<64xf32, 3> {
        %next = arith.addi %i, %c1 : index
        // expected-remark @+1 {{runs trips(argument 0 of @carried) - [cmpi.sgt(argument 0 of @carried, 0)] times}}
        %v = tle.wait %p[%next : index] reader "r" -> memref<64xf32, 3>
        tle.release %p[%i : index] reader "r"
        scf.yield %v : memref<64xf32, 3>
      }
      tle.release %p[%last : index] reader "r"
    }
    tle.warp_yield
  }
  partition "w" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.acquire %p[%i : index] -> memref<64xf32, 3>
      // expected-remark @+1 {{runs trips(argument 0 of @carried) times}}
      tle.commit %p[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// A division by a constant is one unknown however it is written: a
// ceiling of a size by 64 as a division and as a shift; a step that the
// span's factor takes out: `0 to 4 x t` step 4 runs t times.
func.func @divisions(%m: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  %s = memref.dim %m, %c0 : memref<?xf32>
  %up = arith.addi %s, %c63 : index
  %t = arith.divui %up, %c64 : index
  %u = arith.shrui %up, %c6 : index
  %four = arith.muli %u, %c4 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  // expected-remark @+1 {{reader 'r': equal (trips(divui(the memref.dim at line 53 + 63, 64)) against trips(divui(the memref.dim at line 53 + 63, 64)))}}
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    scf.for %i = %c0 to %four step %c4 {
      // expected-remark @+1 {{runs trips(divui(the memref.dim at line 53 + 63, 64)) times}}
      %v = tle.wait %p[%i : index] reader "r" -> memref<64xf32, 3>
      tle.release %p[%i : index] reader "r"
    }
    tle.warp_yield
  }
  partition "w" warps(1) {
    scf.for %i = %c0 to %t step %c1 {
      %v = tle.acquire %p[%i : index] -> memref<64xf32, 3>
      // expected-remark @+1 {{runs trips(divui(the memref.dim at line 53 + 63, 64)) times}}
      tle.commit %p[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// Two waits an iteration against one commit: the counts differ whenever
// the loop runs. A token signaled under a condition and awaited always
// cannot be compared.
func.func @differ(%n: index, %c: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  // expected-remark @+1 {{reader 'r': differ (trips(argument 0 of @differ) against 2 x trips(argument 0 of @differ))}}
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  // expected-remark @+1 {{token 't': unknown ([argument 1 of @differ] against 1)}}
  %t = tle.token "t" from "w" to "r"
  tle.warp_specialize
  default "r" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %same = arith.muli %i, %c1 : index
      // expected-remark @+1 {{runs trips(argument 0 of @differ) times}}
      %v = tle.wait %p[%i : index] reader "r" -> memref<64xf32, 3>
      tle.release %p[%i : index] reader "r"
      // expected-remark @+1 {{runs trips(argument 0 of @differ) times}}
      %u = tle.wait %p[%same : index] reader "r" -> memref<64xf32, 3>
      tle.release %p[%same : index] reader "r"
    }
    // expected-remark @+1 {{runs 1 times}}
    tle.await %t
    tle.warp_yield
  }
  partition "w" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.acquire %p[%i : index] -> memref<64xf32, 3>
      // expected-remark @+1 {{runs trips(argument 0 of @differ) times}}
      tle.commit %p[%i : index]
    }
    scf.if %c {
      // expected-remark @+1 {{runs [argument 1 of @differ] times}}
      tle.signal %t
    }
    tle.warp_return
  }
  return
}
