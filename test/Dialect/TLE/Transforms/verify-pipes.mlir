// RUN: tle-opt %s --tle-verify-pipes -split-input-file -verify-diagnostics | FileCheck %s

// A valid kernel passes unchanged: two readers with different fields,
// nested loops, balanced branches, a one_shot pipe.

// CHECK-LABEL: func.func @valid
// CHECK: tle.warp_specialize
func.func @valid(%n: index, %c: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = tle.shared_alloc : memref<3x64xf32, 3>
  %b = tle.shared_alloc : memref<3x64xf32, 3>
  %q = tle.shared_alloc : memref<1x64xf32, 3>
  %kv = tle.pipe "kv" capacity 3 fields(a = %a : memref<3x64xf32, 3>, b = %b : memref<3x64xf32, 3>) readers(left = [a], right = [b])
  %qp = tle.pipe "q" capacity 1 one_shot fields(q = %q : memref<1x64xf32, 3>) readers(left, right)
  tle.warp_specialize
  default "left" warps(4) {
    %qv = tle.wait %qp reader "left" -> memref<64xf32, 3>
    scf.for %o = %c0 to %n step %c1 {
      %base = arith.muli %o, %c4 : index
      scf.for %i = %c0 to %c4 step %c1 {
        %it = arith.addi %base, %i : index
        %v = tle.wait %kv[%it : index] reader "left" -> memref<64xf32, 3>
        scf.if %c {
          tle.release %kv[%it : index] reader "left"
        } else {
          tle.release %kv[%it : index] reader "left"
        }
      }
    }
    tle.warp_yield
  }
  partition "right" warps(4) {
    %qv = tle.wait %qp reader "right" -> memref<64xf32, 3>
    %total = arith.muli %n, %c4 : index
    scf.for %i = %c0 to %total step %c1 {
      %v = tle.wait %kv[%i : index] reader "right" -> memref<64xf32, 3>
      tle.release %kv[%i : index] reader "right"
    }
    tle.warp_return
  }
  partition "producer" warps(1) {
    tle.commit %qp
    %total = arith.muli %n, %c4 : index
    scf.for %i = %c0 to %total step %c1 {
      %va, %vb = tle.acquire %kv[%i : index] -> memref<64xf32, 3>, memref<64xf32, 3>
      tle.commit %kv[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

func.func @outside_partition(%i: index) {
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  // expected-error @+1 {{writer of pipe 'kv' is used outside every partition; pipe operations belong inside a tle.warp_specialize region}}
  tle.commit %p[%i : index]
  return
}

// -----

func.func @two_writers(%i: index) {
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %v = tle.wait %p[%i : index] reader "r" -> memref<64xf32, 3>
    tle.release %p[%i : index] reader "r"
    tle.warp_yield
  }
  partition "w1" warps(1) {
    %v = tle.acquire %p[%i : index] -> memref<64xf32, 3>
    tle.commit %p[%i : index]
    tle.warp_return
  }
  partition "w2" warps(1) {
    // expected-error @+1 {{pipe 'kv' is written by partitions 'w1' and 'w2'; a pipe has exactly one writer partition}}
    %v = tle.acquire %p[%i : index] -> memref<64xf32, 3>
    tle.commit %p[%i : index]
    tle.warp_return
  }
  return
}

// -----

func.func @reader_in_two_partitions(%i: index) {
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "c1" warps(4) {
    %v = tle.wait %p[%i : index] reader "r" -> memref<64xf32, 3>
    tle.release %p[%i : index] reader "r"
    tle.warp_yield
  }
  partition "c2" warps(4) {
    // expected-error @+1 {{reader 'r' of pipe 'kv' is used by partitions 'c1' and 'c2'; each reader is one partition}}
    %v = tle.wait %p[%i : index] reader "r" -> memref<64xf32, 3>
    tle.release %p[%i : index] reader "r"
    tle.warp_return
  }
  partition "w" warps(1) {
    %v = tle.acquire %p[%i : index] -> memref<64xf32, 3>
    tle.commit %p[%i : index]
    tle.warp_return
  }
  return
}

// -----

func.func @writer_reads_itself(%i: index) {
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  // expected-error @+1 {{partition 'self' both writes pipe 'kv' and reads it as 'r'; a pipe connects two different partitions}}
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "self" warps(4) {
    %w = tle.acquire %p[%i : index] -> memref<64xf32, 3>
    tle.commit %p[%i : index]
    %v = tle.wait %p[%i : index] reader "r" -> memref<64xf32, 3>
    tle.release %p[%i : index] reader "r"
    tle.warp_yield
  }
  return
}

// -----

func.func @reader_never_waits(%i: index) {
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  // expected-error @+1 {{reader 'idle' of pipe 'kv' never waits on it; the writer would block on its releases once the ring wraps}}
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r, idle)
  tle.warp_specialize
  default "r" warps(4) {
    %v = tle.wait %p[%i : index] reader "r" -> memref<64xf32, 3>
    tle.release %p[%i : index] reader "r"
    tle.warp_yield
  }
  partition "w" warps(1) {
    %v = tle.acquire %p[%i : index] -> memref<64xf32, 3>
    tle.commit %p[%i : index]
    tle.warp_return
  }
  return
}

// -----

func.func @never_committed(%i: index) {
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  // expected-error @+1 {{pipe 'kv' is never committed; its readers would wait forever}}
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %v = tle.wait %p[%i : index] reader "r" -> memref<64xf32, 3>
    tle.release %p[%i : index] reader "r"
    tle.warp_yield
  }
  return
}

// -----

func.func @one_shot_twice() {
  %q = tle.shared_alloc : memref<1x64xf32, 3>
  %p = tle.pipe "q" capacity 1 one_shot fields(q = %q : memref<1x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %v = tle.wait %p reader "r" -> memref<64xf32, 3>
    tle.warp_yield
  }
  partition "w" warps(1) {
    tle.commit %p
    // expected-error @+1 {{commits one_shot pipe 'q' a second time; it is committed once}}
    tle.commit %p
    tle.warp_return
  }
  return
}

// -----

func.func @one_shot_in_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %q = tle.shared_alloc : memref<1x64xf32, 3>
  %p = tle.pipe "q" capacity 1 one_shot fields(q = %q : memref<1x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %v = tle.wait %p reader "r" -> memref<64xf32, 3>
    tle.warp_yield
  }
  partition "w" warps(1) {
    // expected-error @+1 {{commits one_shot pipe 'q' inside this loop; a one_shot pipe is committed once}}
    scf.for %i = %c0 to %n step %c1 {
      tle.commit %p
    }
    tle.warp_return
  }
  return
}

// -----

func.func @one_shot_one_branch(%c: i1) {
  %q = tle.shared_alloc : memref<1x64xf32, 3>
  %p = tle.pipe "q" capacity 1 one_shot fields(q = %q : memref<1x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %v = tle.wait %p reader "r" -> memref<64xf32, 3>
    tle.warp_yield
  }
  partition "w" warps(1) {
    // expected-error @+1 {{commits a one_shot pipe on one path of this scf.if but not on the other}}
    scf.if %c {
      tle.commit %p
    }
    tle.warp_return
  }
  return
}

// -----

func.func @thread_dependent(%i: index) {
  %c0 = arith.constant 0 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %v = tle.wait %p[%i : index] reader "r" -> memref<64xf32, 3>
    tle.release %p[%i : index] reader "r"
    tle.warp_yield
  }
  partition "w" warps(1) {
    %t = gpu.thread_id x
    %first = arith.cmpi eq, %t, %c0 : index
    // expected-note @+1 {{this op depends on the thread id}}
    scf.if %first {
      // expected-error @+1 {{writer of pipe 'kv' sits under control flow that depends on the thread id; every thread of partition 'w' must reach it}}
      %v = tle.acquire %p[%i : index] -> memref<64xf32, 3>
      tle.commit %p[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

func.func @acquire_never_committed(%i: index) {
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %v = tle.wait %p[%i : index] reader "r" -> memref<64xf32, 3>
    tle.release %p[%i : index] reader "r"
    tle.warp_yield
  }
  partition "w" warps(1) {
    // expected-error @+1 {{writer of pipe 'kv' acquires iteration %arg0 but partition 'w' never commits it}}
    %v = tle.acquire %p[%i : index] -> memref<64xf32, 3>
    tle.warp_return
  }
  return
}

// -----

func.func @wait_crosses_iterations(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(right)
  tle.warp_specialize
  default "right" warps(4) {
    // expected-error @+1 {{reader 'right' of pipe 'kv' holds iteration %arg1 at the end of an iteration of this loop but not at its start; each iteration must close what it opens}}
    scf.for %i = %c0 to %n step %c1 {
      // expected-note @+1 {{opened here}}
      %v = tle.wait %p[%i : index] reader "right" -> memref<64xf32, 3>
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

func.func @release_on_one_path(%n: index, %c: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(left)
  tle.warp_specialize
  default "left" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      // expected-note @+1 {{opened here}}
      %v = tle.wait %p[%i : index] reader "left" -> memref<64xf32, 3>
      // expected-error @+1 {{reader 'left' of pipe 'kv' holds iteration %arg2 on one path of this scf.if but not on the other}}
      scf.if %c {
        tle.release %p[%i : index] reader "left"
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

func.func @commit_without_acquire(%i: index, %j: index) {
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %v = tle.wait %p[%i : index] reader "r" -> memref<64xf32, 3>
    tle.release %p[%i : index] reader "r"
    tle.warp_yield
  }
  partition "w" warps(1) {
    %v = tle.acquire %p[%i : index] -> memref<64xf32, 3>
    // expected-error @+1 {{writer of pipe 'kv' commits iteration %arg1 without having acquired it on this path}}
    tle.commit %p[%j : index]
    tle.warp_return
  }
  return
}

// -----

func.func @acquire_twice(%i: index) {
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %v = tle.wait %p[%i : index] reader "r" -> memref<64xf32, 3>
    tle.release %p[%i : index] reader "r"
    tle.warp_yield
  }
  partition "w" warps(1) {
    %v = tle.acquire %p[%i : index] -> memref<64xf32, 3>
    // expected-error @+1 {{writer of pipe 'kv' opens iteration %arg0 again before committing it}}
    %w = tle.acquire %p[%i : index] -> memref<64xf32, 3>
    tle.commit %p[%i : index]
    tle.commit %p[%i : index]
    tle.warp_return
  }
  return
}

// -----

// Deadlock shape 1: a reader that must hold more slots than the capacity.
func.func @holds_more_than_capacity(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    scf.for %i = %c0 to %n step %c3 {
      %i1 = arith.addi %i, %c1 : index
      %i2 = arith.addi %i, %c2 : index
      %v0 = tle.wait %p[%i : index] reader "r" -> memref<64xf32, 3>
      %v1 = tle.wait %p[%i1 : index] reader "r" -> memref<64xf32, 3>
      // expected-error @+1 {{deadlock: reader 'r' of pipe 'kv' would hold 3 slots at once, more than the capacity 2; this slot cannot be filled until it gives one back}}
      %v2 = tle.wait %p[%i2 : index] reader "r" -> memref<64xf32, 3>
      tle.release %p[%i : index] reader "r"
      tle.release %p[%i1 : index] reader "r"
      tle.release %p[%i2 : index] reader "r"
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

func.func @view_after_release(%i: index, %j: index) {
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %v = tle.wait %p[%i : index] reader "r" -> memref<64xf32, 3>
    // expected-note @+1 {{the slot is given up here}}
    tle.release %p[%i : index] reader "r"
    // expected-error @+1 {{uses the slot of field 'a' of pipe 'kv' after the reader 'r' released it}}
    %x = memref.load %v[%j] : memref<64xf32, 3>
    tle.warp_yield
  }
  partition "w" warps(1) {
    %v = tle.acquire %p[%i : index] -> memref<64xf32, 3>
    tle.commit %p[%i : index]
    tle.warp_return
  }
  return
}

// -----

func.func @constant_counts_differ() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  // expected-error @+1 {{the writer of pipe 'kv' commits 8 iterations but reader 'r' waits for 7}}
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    scf.for %i = %c0 to %c7 step %c1 {
      %v = tle.wait %p[%i : index] reader "r" -> memref<64xf32, 3>
      tle.release %p[%i : index] reader "r"
    }
    tle.warp_yield
  }
  partition "w" warps(1) {
    scf.for %i = %c0 to %c8 step %c1 {
      %v = tle.acquire %p[%i : index] -> memref<64xf32, 3>
      tle.commit %p[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

func.func @symbolic_counts_differ(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  // expected-error @+1 {{the writer of pipe 'kv' commits 2 x trips(%c0 to %arg0 to %c1) iterations but reader 'r' waits for trips(%c0 to %arg0 to %c1)}}
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
      scf.for %k = %c0 to %c2 step %c1 {
        %it = arith.addi %i, %k : index
        %v = tle.acquire %p[%it : index] -> memref<64xf32, 3>
        tle.commit %p[%it : index]
      }
    }
    tle.warp_return
  }
  return
}

// -----

// Deadlock shape 2: two partitions each wait for the other's first commit.
func.func @wait_for_each_other(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %b = tle.shared_alloc : memref<2x64xf32, 3>
  %ping = tle.pipe "ping" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(b)
  %pong = tle.pipe "pong" capacity 2 fields(b = %b : memref<2x64xf32, 3>) readers(a)
  tle.warp_specialize
  default "a" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      // expected-error @+1 {{deadlock when %arg0 = 1: partitions wait on each other in a cycle 'a' -> 'b' -> 'a'; partition 'a' waits as reader 'a' for iteration 0 of pipe 'pong', which partition 'b' has not committed}}
      %v = tle.wait %pong[%i : index] reader "a" -> memref<64xf32, 3>
      tle.release %pong[%i : index] reader "a"
      %w = tle.acquire %ping[%i : index] -> memref<64xf32, 3>
      tle.commit %ping[%i : index]
    }
    tle.warp_yield
  }
  partition "b" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      // expected-note @+1 {{partition 'b' waits as reader 'b' for iteration 0 of pipe 'ping', which partition 'a' has not committed}}
      %v = tle.wait %ping[%i : index] reader "b" -> memref<64xf32, 3>
      tle.release %ping[%i : index] reader "b"
      %w = tle.acquire %pong[%i : index] -> memref<64xf32, 3>
      tle.commit %pong[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// Deadlock shape 3: a cycle through three partitions.
func.func @three_way_cycle() {
  %x = tle.shared_alloc : memref<1x64xf32, 3>
  %y = tle.shared_alloc : memref<1x64xf32, 3>
  %z = tle.shared_alloc : memref<1x64xf32, 3>
  %p = tle.pipe "p" capacity 1 one_shot fields(x = %x : memref<1x64xf32, 3>) readers(a)
  %q = tle.pipe "q" capacity 1 one_shot fields(y = %y : memref<1x64xf32, 3>) readers(b)
  %r = tle.pipe "r" capacity 1 one_shot fields(z = %z : memref<1x64xf32, 3>) readers(c)
  tle.warp_specialize
  default "A" warps(4) {
    // expected-error @+1 {{deadlock: partitions wait on each other in a cycle 'A' -> 'C' -> 'B' -> 'A'; partition 'A' waits as reader 'a' for pipe 'p', which partition 'C' has not committed}}
    %v = tle.wait %p reader "a" -> memref<64xf32, 3>
    tle.commit %q
    tle.warp_yield
  }
  partition "B" warps(4) {
    // expected-note @+1 {{partition 'B' waits as reader 'b' for pipe 'q', which partition 'A' has not committed}}
    %v = tle.wait %q reader "b" -> memref<64xf32, 3>
    tle.commit %r
    tle.warp_return
  }
  partition "C" warps(4) {
    // expected-note @+1 {{partition 'C' waits as reader 'c' for pipe 'r', which partition 'B' has not committed}}
    %v = tle.wait %r reader "c" -> memref<64xf32, 3>
    tle.commit %p
    tle.warp_return
  }
  return
}

// -----

// Deadlock shape 4: the producer fills pipe 'x' (capacity 1) for every
// iteration before it commits 'y', but the consumer needs 'y' before it
// releases anything of 'x'.
func.func @ordering_across_pipes(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tle.shared_alloc : memref<1x64xf32, 3>
  %b = tle.shared_alloc : memref<1x64xf32, 3>
  %x = tle.pipe "x" capacity 1 fields(a = %a : memref<1x64xf32, 3>) readers(c)
  %y = tle.pipe "y" capacity 1 one_shot fields(b = %b : memref<1x64xf32, 3>) readers(c)
  tle.warp_specialize
  default "consumer" warps(4) {
    // expected-error @+1 {{deadlock when %arg0 = 2: partitions wait on each other in a cycle 'consumer' -> 'producer' -> 'consumer'; partition 'consumer' waits as reader 'c' for pipe 'y', which partition 'producer' has not committed}}
    %vy = tle.wait %y reader "c" -> memref<64xf32, 3>
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.wait %x[%i : index] reader "c" -> memref<64xf32, 3>
      tle.release %x[%i : index] reader "c"
    }
    tle.warp_yield
  }
  partition "producer" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      // expected-note @+1 {{partition 'producer' waits to acquire iteration 1 of pipe 'x' (slot 0), which needs iteration 0 released by reader 'c'}}
      %v = tle.acquire %x[%i : index] -> memref<64xf32, 3>
      tle.commit %x[%i : index]
    }
    tle.commit %y
    tle.warp_return
  }
  return
}
