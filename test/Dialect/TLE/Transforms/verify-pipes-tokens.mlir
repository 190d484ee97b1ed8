// The protocol check on turn tokens: every await matched by a signal, and
// every signal but the first ordered after the await of the previous one,
// since a named barrier holds one signal.
// RUN: timeout 60 tle-opt %s --tle-verify-pipes -split-input-file -verify-diagnostics | FileCheck %s
// RUN: not tle-opt %s --tle-verify-pipes=strict=true -split-input-file -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=STRICT

// Ping-pong: wg0 takes the first turn; each side hands the turn over after
// its work and waits for it back before the next. wg0's second signal is
// ordered after wg1's first await through turn10.
// CHECK-LABEL: func.func @ping_pong
func.func @ping_pong(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t01 = tle.token "turn01" from "wg0" to "wg1"
  %t10 = tle.token "turn10" from "wg1" to "wg0"
  tle.warp_specialize
  default "wg0" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %later = arith.cmpi ne, %i, %c0 : index
      scf.if %later {
        tle.await %t10
      }
      tle.signal %t01
    }
    tle.warp_yield
  }
  partition "wg1" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      tle.await %t01
      %next = arith.addi %i, %c1 : index
      %more = arith.cmpi ult, %next, %n : index
      scf.if %more {
        tle.signal %t10
      }
    }
    tle.warp_return
  }
  return
}

// -----

// The order may also come from a pipe: wg1 commits an acknowledgement
// after each await, and wg0 waits for it before signaling again.
// CHECK-LABEL: func.func @ordered_by_pipe
func.func @ordered_by_pipe(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = tle.shared_alloc : memref<1x1xi32, 3>
  %ack = tle.pipe "ack" capacity 1 fields(a = %buf : memref<1x1xi32, 3>) readers(wg0)
  %t = tle.token "go" from "wg0" to "wg1"
  tle.warp_specialize
  default "wg0" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      tle.signal %t
      %v = tle.wait %ack[%i : index] reader "wg0" -> memref<1xi32, 3>
      tle.release %ack[%i : index] reader "wg0"
    }
    tle.warp_yield
  }
  partition "wg1" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      tle.await %t
      %v = tle.acquire %ack[%i : index] -> memref<1xi32, 3>
      tle.commit %ack[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// Two signals with nothing in between: the second can arrive before wg1
// syncs, and the barrier would complete without it.
func.func @overrun() {
  %t = tle.token "turn" from "wg0" to "wg1"
  tle.warp_specialize
  default "wg0" warps(4) {
    // expected-note @+1 {{the previous signal}}
    tle.signal %t
    // expected-error @+1 {{token 'turn' may be signaled again before its previous signal is awaited: nothing orders this tle.signal in partition 'wg0' after partition 'wg1' awaits the previous one, and a named barrier holds one signal, so the second arrival could complete it without the waiter (a race); order each signal after the previous await, e.g. by awaiting a token from 'wg1' to 'wg0' in between}}
    tle.signal %t
    tle.warp_yield
  }
  partition "wg1" warps(4) {
    // expected-note @+1 {{the await of partition 'wg1' that the previous signal is for}}
    tle.await %t
    tle.await %t
    tle.warp_return
  }
  return
}

// -----

// The same race in a loop whose trip count is ceil(S / 128): inputs 0 and 1
// run it at most once, so the check grows S until the loop runs at least
// twice, and finds the second signal.
func.func @overrun_ceil_div(%s: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c127 = arith.constant 127 : index
  %c128 = arith.constant 128 : index
  %s_up = arith.addi %s, %c127 : index
  %tiles = arith.divui %s_up, %c128 : index
  %t = tle.token "turn" from "wg0" to "wg1"
  tle.warp_specialize
  default "wg0" warps(4) {
    scf.for %i = %c0 to %tiles step %c1 {
      // expected-error @+2 {{token 'turn' may be signaled again before its previous signal is awaited when argument 0 of @overrun_ceil_div = 256: nothing orders}}
      // expected-note @+1 {{the previous signal}}
      tle.signal %t
    }
    tle.warp_yield
  }
  partition "wg1" warps(4) {
    scf.for %i = %c0 to %tiles step %c1 {
      // expected-note @+1 {{the await of partition 'wg1' that the previous signal is for}}
      tle.await %t
    }
    tle.warp_return
  }
  return
}

// -----

// The correct ping-pong over ceil(S / 128) tiles passes for every S the
// check tries, including S that make the loops wrap.
// CHECK-LABEL: func.func @ping_pong_ceil_div
func.func @ping_pong_ceil_div(%s: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c127 = arith.constant 127 : index
  %c128 = arith.constant 128 : index
  %s_up = arith.addi %s, %c127 : index
  %tiles = arith.divui %s_up, %c128 : index
  %t01 = tle.token "turn01" from "wg0" to "wg1"
  %t10 = tle.token "turn10" from "wg1" to "wg0"
  tle.warp_specialize
  default "wg0" warps(4) {
    scf.for %i = %c0 to %tiles step %c1 {
      %later = arith.cmpi ne, %i, %c0 : index
      scf.if %later {
        tle.await %t10
      }
      tle.signal %t01
    }
    tle.warp_yield
  }
  partition "wg1" warps(4) {
    scf.for %i = %c0 to %tiles step %c1 {
      tle.await %t01
      %next = arith.addi %i, %c1 : index
      %more = arith.cmpi ult, %next, %tiles : index
      scf.if %more {
        tle.signal %t10
      }
    }
    tle.warp_return
  }
  return
}

// -----

// Each side waits for the other's turn first: neither signal is ever made.
func.func @missing_first_signal(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t01 = tle.token "turn01" from "wg0" to "wg1"
  %t10 = tle.token "turn10" from "wg1" to "wg0"
  tle.warp_specialize
  default "wg0" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      // expected-error @+1 {{deadlock when argument 0 of @missing_first_signal = 1: partitions wait on each other in a cycle 'wg0' -> 'wg1' -> 'wg0'; partition 'wg0' awaits signal 1 of token 'turn10', which partition 'wg1' has not made}}
      tle.await %t10
      tle.signal %t01
    }
    tle.warp_yield
  }
  partition "wg1" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      // expected-note @+1 {{partition 'wg1' awaits signal 1 of token 'turn01', which partition 'wg0' has not made}}
      tle.await %t01
      tle.signal %t10
    }
    tle.warp_return
  }
  return
}

// -----

// An await with no signal left: wg0 has finished.
func.func @await_never_signaled() {
  %t = tle.token "turn" from "wg0" to "wg1"
  tle.warp_specialize
  default "wg0" warps(4) {
    tle.signal %t
    tle.warp_yield
  }
  partition "wg1" warps(4) {
    tle.await %t
    // expected-error @+1 {{deadlock: partition 'wg1' awaits signal 2 of token 'turn', which partition 'wg0' has not made and never will (it has finished after 1 signal)}}
    tle.await %t
    tle.warp_return
  }
  return
}

// -----

// A signal nobody awaits.
func.func @signal_never_awaited(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{partition 'wg0' signals token 'turn' 1 time but partition 'wg1' awaits it 0 times when argument 0 of @signal_never_awaited = 0; every signal must be awaited, or its arrivals stay on the named barrier}}
  %t = tle.token "turn" from "wg0" to "wg1"
  tle.warp_specialize
  default "wg0" warps(4) {
    tle.signal %t
    tle.warp_yield
  }
  partition "wg1" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      tle.await %t
    }
    tle.warp_return
  }
  return
}

// -----

// Every thread of the partition must arrive.
func.func @divergent_signal() {
  %c0 = arith.constant 0 : index
  %t = tle.token "turn" from "wg0" to "wg1"
  tle.warp_specialize
  default "wg0" warps(4) {
    // expected-note @+1 {{which may differ between threads: it comes from the gpu.thread_id}}
    %tid = gpu.thread_id x
    %lead = arith.cmpi eq, %tid, %c0 : index
    // expected-note @+1 {{this scf.if depends on}}
    scf.if %lead {
      // expected-error @+1 {{tle.signal of token 'turn' sits under control flow that may differ between the threads of partition 'wg0'; every thread of the partition must reach it}}
      tle.signal %t
    }
    tle.warp_yield
  }
  partition "wg1" warps(4) {
    tle.await %t
    tle.warp_return
  }
  return
}

// -----

// Signals and awaits are counted as polynomials too: an await for one
// input the simulation does not try (n = 1000) would hang there. The
// counts differ by [n == 1000], which is never negative: an error.
func.func @extra_await_for_one_input(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1000 = arith.constant 1000 : index
  // expected-error @+1 {{partition 'wg0' signals token 't' trips(argument 0 of @extra_await_for_one_input) times but partition 'wg1' awaits it trips(argument 0 of @extra_await_for_one_input) + [cmpi.eq(argument 0 of @extra_await_for_one_input, 1000)] times}}
  %t = tle.token "t" from "wg0" to "wg1"
  %a = tle.token "ack" from "wg1" to "wg0"
  tle.warp_specialize
  default "wg0" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      tle.signal %t
      tle.await %a
    }
    tle.warp_yield
  }
  partition "wg1" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      tle.await %t
      tle.signal %a
    }
    %late = arith.cmpi eq, %n, %c1000 : index
    scf.if %late {
      tle.await %t
    }
    tle.warp_return
  }
  return
}

// -----

// The same number of turns, counted by arithmetic the check does not
// follow (a minimum on one side): the simulation finds no mismatch, the
// proof is missing, and the check says so.
func.func @counts_not_comparable(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = arith.minsi %n, %n : index
  // STRICT: error: the protocol check cannot prove that token 't' is awaited as many times as it is signaled
  // expected-warning @+1 {{the protocol check cannot prove that token 't' is awaited as many times as it is signaled: it is signaled trips(argument 0 of @counts_not_comparable) times and awaited trips(minsi(argument 0 of @counts_not_comparable, argument 0 of @counts_not_comparable)) times}}
  %t = tle.token "t" from "wg0" to "wg1"
  // expected-warning @+1 {{the protocol check cannot prove that token 'ack' is awaited as many times as it is signaled}}
  %a = tle.token "ack" from "wg1" to "wg0"
  tle.warp_specialize
  default "wg0" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      tle.signal %t
      tle.await %a
    }
    tle.warp_yield
  }
  partition "wg1" warps(4) {
    scf.for %i = %c0 to %m step %c1 {
      tle.await %t
      tle.signal %a
    }
    tle.warp_return
  }
  return
}
