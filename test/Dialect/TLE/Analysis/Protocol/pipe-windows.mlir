// RUN: tle-opt %s --tle-test-pipe-windows -split-input-file -verify-diagnostics -o /dev/null

// A reader that holds tile i while it waits for tile i + 1: the loop
// carries the window from iteration 0 (where it starts) as the loop
// variable's, and the reader holds iteration n - 1 after it.
func.func @carried(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %first = tle.wait %p[%c0 : index] reader "r" -> memref<64xf32, 3>
    %last = arith.subi %n, %c1 : index
    // expected-remark @+1 {{carries the window of reader 'r' of pipe 'kv': iteration <0> where it starts, <the loop variable of the scf.for at line 16> in its body, <argument 0 of @carried - 1> after it}}
    %held = scf.for %i = %c0 to %last step %c1 iter_args(%cur = %first) -> memref<64xf32, 3> {
      %next = arith.addi %i, %c1 : index
      %v = tle.wait %p[%next : index] reader "r" -> memref<64xf32, 3>
      tle.release %p[%i : index] reader "r"
      scf.yield %v : memref<64xf32, 3>
    }
    tle.release %p[%last : index] reader "r"
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

// One branch commits what it acquired, the other does not.
func.func @unbalanced(%c: i1) {
  %c0 = arith.constant 0 : index
  %a = tle.shared_alloc : memref<1x64xf32, 3>
  %p = tle.pipe "kv" capacity 1 fields(a = %a : memref<1x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %v = tle.wait %p[%c0 : index] reader "r" -> memref<64xf32, 3>
    tle.release %p[%c0 : index] reader "r"
    tle.warp_yield
  }
  partition "w" warps(1) {
    // expected-note @+1 {{opened here}}
    %v = tle.acquire %p[%c0 : index] -> memref<64xf32, 3>
    // expected-error @+1 {{writer of pipe 'kv' holds iteration 0 on one path of this scf.if but not on the other}}
    scf.if %c {
      tle.commit %p[%c0 : index]
    }
    tle.warp_return
  }
  return
}

// -----

// Holding two slots of a pipe of capacity 1 deadlocks.
func.func @over_capacity(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tle.shared_alloc : memref<1x64xf32, 3>
  %p = tle.pipe "kv" capacity 1 fields(a = %a : memref<1x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %v = tle.wait %p[%c0 : index] reader "r" -> memref<64xf32, 3>
    // expected-error @+1 {{deadlock: reader 'r' of pipe 'kv' would hold 2 slots at once, more than the capacity 1; this slot cannot be filled until it gives one back}}
    %u = tle.wait %p[%c1 : index] reader "r" -> memref<64xf32, 3>
    tle.release %p[%c0 : index] reader "r"
    tle.release %p[%c1 : index] reader "r"
    tle.warp_yield
  }
  partition "w" warps(1) {
    tle.warp_return
  }
  return
}
