// The check used to grow with the capacity (2^28 slots took 19 GB) and to
// miss cycles hidden behind arithmetic: each run has a time limit.
// RUN: timeout 60 tle-opt %s --tle-verify-pipes -split-input-file -verify-diagnostics | FileCheck %s

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

// A pipe defined inside a partition: the partitions that would read it
// cannot name it.
func.func @pipe_inside_partition(%i: index) {
  tle.warp_specialize
  default "w" warps(1) {
    %a = tle.shared_alloc : memref<2x64xf32, 3>
    // expected-error @+1 {{pipe 'kv' is defined inside partition 'w', where no other partition can use it; a pipe connects partitions: define it, and its buffers, in the kernel's body before the tle.warp_specialize}}
    %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
    %v = tle.acquire %p[%i : index] -> memref<64xf32, 3>
    tle.commit %p[%i : index]
    tle.warp_yield
  }
  partition "r" warps(4) {
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
    // expected-note @+1 {{which may differ between threads: it comes from the gpu.thread_id at line}}
    %t = gpu.thread_id x
    %first = arith.cmpi eq, %t, %c0 : index
    // expected-note @+1 {{this scf.if depends on the arith.cmpi at line}}
    scf.if %first {
      // expected-error @+1 {{writer of pipe 'kv' sits under control flow that may differ between the threads of partition 'w'; every thread of the partition must reach it}}
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
    // expected-error @+1 {{writer of pipe 'kv' acquires iteration <argument 0 of @acquire_never_committed> but partition 'w' never commits it}}
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
    // expected-error-re @+1 {{reader 'right' of pipe 'kv' holds iteration <the loop variable of the scf.for at line {{[0-9]+}}> at the end of an iteration of this loop but not at its start; each iteration must close what it opens}}
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
      // expected-error-re @+1 {{reader 'left' of pipe 'kv' holds iteration <the loop variable of the scf.for at line {{[0-9]+}}> on one path of this scf.if but not on the other}}
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
    // expected-error @+1 {{writer of pipe 'kv' commits iteration <argument 1 of @commit_without_acquire> without having acquired it on this path}}
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
    // expected-error @+1 {{writer of pipe 'kv' opens iteration <argument 0 of @acquire_twice> again before committing it}}
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
  // expected-error @+1 {{the writer of pipe 'kv' commits 2 x trips(argument 0 of @symbolic_counts_differ) iterations but reader 'r' waits for trips(argument 0 of @symbolic_counts_differ)}}
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
      // expected-error @+1 {{deadlock when argument 0 of @wait_for_each_other = 1: partitions wait on each other in a cycle 'a' -> 'b' -> 'a'; partition 'a' waits as reader 'a' for iteration 0 of pipe 'pong', which partition 'b' has not committed}}
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
    // expected-error @+1 {{deadlock when argument 0 of @ordering_across_pipes = 3: partitions wait on each other in a cycle 'consumer' -> 'producer' -> 'consumer'; partition 'consumer' waits as reader 'c' for pipe 'y', which partition 'producer' has not committed}}
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

// -----

// The trip count is ceil(S / 128), whatever S is: the check chooses S so
// that the loops run long enough to fill both rings (2 + 2 slots) and wrap
// them, and finds the cycle.
func.func @ping_pong_ceil_div(%s: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c127 = arith.constant 127 : index
  %c128 = arith.constant 128 : index
  %s_up = arith.addi %s, %c127 : index
  %tiles = arith.divui %s_up, %c128 : index
  %a = tle.shared_alloc : memref<2x1xi32, 3>
  %b = tle.shared_alloc : memref<2x1xi32, 3>
  %turn = tle.pipe "turn" capacity 2 fields(t = %a : memref<2x1xi32, 3>) readers(c2)
  %back = tle.pipe "back" capacity 2 fields(t = %b : memref<2x1xi32, 3>) readers(c1)
  tle.warp_specialize
  default "c1" warps(4) {
    // c1 hands out every turn before it takes one back.
    scf.for %i = %c0 to %tiles step %c1 {
      // expected-error @+1 {{deadlock when argument 0 of @ping_pong_ceil_div = 1152: partitions wait on each other in a cycle 'c1' -> 'c2' -> 'c1'; partition 'c1' waits to acquire iteration 5 of pipe 'turn' (slot 1), which needs iteration 3 released by reader 'c2'}}
      %v = tle.acquire %turn[%i : index] -> memref<1xi32, 3>
      tle.commit %turn[%i : index]
    }
    scf.for %i = %c0 to %tiles step %c1 {
      %v = tle.wait %back[%i : index] reader "c1" -> memref<1xi32, 3>
      tle.release %back[%i : index] reader "c1"
    }
    tle.warp_yield
  }
  partition "c2" warps(4) {
    scf.for %i = %c0 to %tiles step %c1 {
      %v = tle.wait %turn[%i : index] reader "c2" -> memref<1xi32, 3>
      tle.release %turn[%i : index] reader "c2"
      // expected-note @+1 {{partition 'c2' waits to acquire iteration 2 of pipe 'back' (slot 0), which needs iteration 0 released by reader 'c1'}}
      %w = tle.acquire %back[%i : index] -> memref<1xi32, 3>
      tle.commit %back[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// The release is written after the multiply that reads the slot, so it
// takes effect at the next iteration's wgmma_wait, which comes after the
// next tle.wait: with one slot, the writer can never refill it.
#sw = #tle.shared<swizzle = 128>
#acc = #tle.mma<warp_groups = [1, 1]>
func.func @deferred_release(%a: !tle.tensor_map<64x64xbf16, swizzle = 128>,
                            %c: memref<?x?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %abuf = tle.shared_alloc : memref<1x64x64xbf16, #sw>
  %bbuf = tle.shared_alloc : memref<64x64xbf16, #sw>
  %s = tle.pipe "s" capacity 1 fields(a = %abuf : memref<1x64x64xbf16, #sw>) readers(mma)
  tle.warp_specialize
  default "mma" warps(4) {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    %sum = scf.for %i = %c0 to %n step %c1
        iter_args(%acc = %zero) -> tensor<64x64xf32, #acc> {
      // expected-error @+1 {{deadlock when argument 2 of @deferred_release = 2: partitions wait on each other in a cycle 'mma' -> 'tma' -> 'mma'; partition 'mma' waits as reader 'mma' for iteration 1 of pipe 's', which partition 'tma' has not committed}}
      %at = tle.wait %s[%i : index] reader "mma" -> memref<64x64xbf16, #sw>
      %done = tle.wgmma_wait %acc pending(0) : tensor<64x64xf32, #acc>
      %d = tle.wgmma %at, %bbuf, %done
          : memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>
      tle.release %s[%i : index] reader "mma"
      scf.yield %d : tensor<64x64xf32, #acc>
    }
    %final = tle.wgmma_wait %sum pending(0) : tensor<64x64xf32, #acc>
    tle.store %final, %c[%c0, %c0] : tensor<64x64xf32, #acc>, memref<?x?xf32>
    tle.warp_yield
  }
  partition "tma" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      // expected-note @+1 {{partition 'tma' waits to acquire iteration 1 of pipe 's' (slot 0), which needs iteration 0 released by reader 'mma', whose release takes effect only after the tle.wgmma_wait at line}}
      %at = tle.acquire %s[%i : index] -> memref<64x64xbf16, #sw>
      tle.tma_load %a[%c0, %c0] into %at
          : !tle.tensor_map<64x64xbf16, swizzle = 128>, memref<64x64xbf16, #sw>
      tle.commit %s[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// A release whose slot a multiply still reads, with no wait that retires
// the multiply: the lowering could not place it, so the check rejects it.
#sw = #tle.shared<swizzle = 128>
#acc = #tle.mma<warp_groups = [1, 1]>
func.func @release_never_retired(%i: index, %acc: tensor<64x64xf32, #acc>) {
  %abuf = tle.shared_alloc : memref<2x64x64xbf16, #sw>
  %bbuf = tle.shared_alloc : memref<64x64xbf16, #sw>
  %s = tle.pipe "s" capacity 2 fields(a = %abuf : memref<2x64x64xbf16, #sw>) readers(mma)
  tle.warp_specialize
  default "mma" warps(4) {
    %at = tle.wait %s[%i : index] reader "mma" -> memref<64x64xbf16, #sw>
    %d = tle.wgmma %at, %bbuf, %acc
        : memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>
    // expected-error @+1 {{'tle.release' op of pipe 's': reader 'mma' releases a slot that a tle.wgmma is still reading, and no tle.wgmma_wait retires that multiply later}}
    tle.release %s[%i : index] reader "mma"
    %r = tle.wgmma_wait %d pending(1) : tensor<64x64xf32, #acc>
    tle.warp_yield
  }
  partition "w" warps(1) {
    %at = tle.acquire %s[%i : index] -> memref<64x64xbf16, #sw>
    tle.commit %s[%i : index]
    tle.warp_return
  }
  return
}

// -----

// Anything not provably uniform counts as varying: here a global id.
func.func @global_id_bound(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
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
    // expected-note @+1 {{which may differ between threads: it comes from the gpu.global_id at line}}
    %g = gpu.global_id x
    %m = arith.minui %g, %n : index
    // expected-note @+1 {{this scf.for depends on the arith.minui at line}}
    scf.for %i = %c0 to %m step %c1 {
      // expected-error @+1 {{writer of pipe 'kv' sits under control flow that may differ between the threads of partition 'w'; every thread of the partition must reach it}}
      %v = tle.acquire %p[%i : index] -> memref<64xf32, 3>
      tle.commit %p[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// A clock read differs between threads, through a loop-carried value too.
func.func @clock_condition(%i: index) {
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %v = tle.wait %p[%i : index] reader "r" -> memref<64xf32, 3>
    tle.release %p[%i : index] reader "r"
    tle.warp_yield
  }
  partition "w" warps(1) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %zero = arith.constant 0 : i32
    // expected-note @+1 {{which may differ between threads: it comes from the nvvm.read.ptx.sreg.clock at line}}
    %t = nvvm.read.ptx.sreg.clock : i32
    %last = scf.for %k = %c0 to %c4 step %c1 iter_args(%x = %zero) -> i32 {
      %y = arith.addi %x, %t : i32
      scf.yield %y : i32
    }
    %odd = arith.trunci %last : i32 to i1
    // expected-note @+1 {{this scf.if depends on the arith.trunci at line}}
    scf.if %odd {
      // expected-error @+1 {{writer of pipe 'kv' sits under control flow that may differ between the threads of partition 'w'}}
      %v = tle.acquire %p[%i : index] -> memref<64xf32, 3>
      tle.commit %p[%i : index]
    } else {
      %v = tle.acquire %p[%i : index] -> memref<64xf32, 3>
      tle.commit %p[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// A per-thread value round-tripped through memory the kernel writes.
func.func @round_trip(%n: index, %buf: memref<?xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = gpu.thread_id x
  memref.store %t, %buf[%t] : memref<?xindex>
  // expected-note @+1 {{which may differ between threads: it comes from the memref.load at line}}
  %m = memref.load %buf[%c0] : memref<?xindex>
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    // expected-note @+1 {{this scf.for depends on the memref.load at line}}
    scf.for %i = %c0 to %m step %c1 {
      // expected-error @+1 {{reader 'r' of pipe 'kv' sits under control flow that may differ between the threads of partition 'r'}}
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

// Every thread must work on the same iteration.
func.func @lane_iteration() {
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %c0 = arith.constant 0 : index
    %v = tle.wait %p[%c0 : index] reader "r" -> memref<64xf32, 3>
    tle.release %p[%c0 : index] reader "r"
    tle.warp_yield
  }
  partition "w" warps(1) {
    // expected-note @+1 {{the iteration comes from the gpu.lane_id at line}}
    %l = gpu.lane_id
    // expected-error @+1 {{writer of pipe 'kv' works on an iteration that may differ between the threads of partition 'w'; every thread must use the same}}
    %v = tle.acquire %p[%l : index] -> memref<64xf32, 3>
    tle.commit %p[%l : index]
    tle.warp_return
  }
  return
}

// -----

// i - 1 at i = 0 is slot c - 1 of the lap before: its phase has completed
// already, so the wait would pass before anything is written.
func.func @negative_iteration(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %j = arith.subi %i, %c1 : index
      // expected-error @+1 {{reader 'r' of pipe 'kv' works on iteration -1 when argument 0 of @negative_iteration = 1; iterations must not be negative}}
      %v = tle.wait %p[%j : index] reader "r" -> memref<64xf32, 3>
      tle.release %p[%j : index] reader "r"
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

// A reader that loops n - 1 times drops the last tile: the counts are not
// the same polynomial, and for n = 1 they differ.
func.func @reader_drops_last(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  // expected-error @+1 {{the writer of pipe 'kv' commits 1 iteration but reader 'r' waits for 0 iterations when argument 0 of @reader_drops_last = 1; the iterations it skips are never read}}
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %m = arith.subi %n, %c1 : index
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

// -----

// A reader that reads the buffer before it waits races with the writer.
func.func @read_before_wait(%n: index, %j: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      // expected-error @+1 {{partition 'r' accesses the buffer of field 'a' of pipe 'kv' directly; a pipe's buffers are accessed only through the slot views that tle.acquire and tle.wait return, until the matching tle.commit or tle.release}}
      %x = memref.load %a[%c0, %j] : memref<2x64xf32, 3>
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

// A writer that stores to a hard-coded slot writes one it may not hold.
func.func @hard_coded_slot(%n: index, %x: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
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
      %slot = memref.subview %a[1, 0] [1, 64] [1, 1]
          : memref<2x64xf32, 3> to memref<64xf32, strided<[1], offset: 64>, 3>
      // expected-error @+1 {{partition 'w' accesses the buffer of field 'a' of pipe 'kv' directly}}
      memref.store %x, %slot[%c0] : memref<64xf32, strided<[1], offset: 64>, 3>
      tle.commit %p[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// A dead field reused as scratch (the output staged through Q's storage
// once its reader is done) is a direct access too: the check cannot prove
// that every reader finished.
func.func @field_as_scratch(%x: f32) {
  %c0 = arith.constant 0 : index
  %q = tle.shared_alloc : memref<1x64xf32, 3>
  %p = tle.pipe "q" capacity 1 one_shot fields(q = %q : memref<1x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %v = tle.wait %p reader "r" -> memref<64xf32, 3>
    %y = memref.load %v[%c0] : memref<64xf32, 3>
    // expected-error @+1 {{partition 'r' accesses the buffer of field 'q' of pipe 'q' directly; a pipe's buffers are accessed only through the slot views that tle.acquire and tle.wait return, until the matching tle.commit or tle.release (a one_shot pipe's writer writes its buffers before the tle.commit)}}
    memref.store %x, %q[%c0, %c0] : memref<1x64xf32, 3>
    tle.warp_yield
  }
  partition "w" warps(1) {
    memref.store %x, %q[%c0, %c0] : memref<1x64xf32, 3>
    tle.commit %p
    tle.warp_return
  }
  return
}

// -----

// Two readers read the same slot at once: neither may write it.
func.func @reader_writes_shared_field(%n: index, %x: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r1, r2)
  tle.warp_specialize
  default "r1" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.wait %p[%i : index] reader "r1" -> memref<64xf32, 3>
      // expected-error @+1 {{reader 'r1' of pipe 'kv' writes the slot of field 'a' in partition 'r1', which reader 'r2' reads at the same time; a slot that several readers read is read-only}}
      memref.store %x, %v[%c0] : memref<64xf32, 3>
      tle.release %p[%i : index] reader "r1"
    }
    tle.warp_yield
  }
  partition "r2" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.wait %p[%i : index] reader "r2" -> memref<64xf32, 3>
      %y = memref.load %v[%c0] : memref<64xf32, 3>
      tle.release %p[%i : index] reader "r2"
    }
    tle.warp_return
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

// A sole reader may write its slot (an output staged in it), but not while
// its own multiply may still read the field: the store would race with the
// tensor cores' reads.
#sw = #tle.shared<swizzle = 128>
#acc = #tle.mma<warp_groups = [1, 1]>
func.func @reader_writes_under_its_multiply(%n: index, %x: bf16) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tle.shared_alloc : memref<2x64x64xbf16, #sw>
  %b = tle.shared_alloc : memref<64x64xbf16, #sw>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64x64xbf16, #sw>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.wait %p[%i : index] reader "r" -> memref<64x64xbf16, #sw>
      // expected-note @+1 {{the multiply}}
      %d = tle.wgmma %v, %b, %zero
          : memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>
      %s = tle.wgmma_wait %d pending(1) : tensor<64x64xf32, #acc>
      // expected-error @+1 {{reader 'r' of pipe 'kv' writes its slot of field 'a' while a tle.wgmma it issued may still read it; retire the multiply with a tle.wgmma_wait pending(0) first}}
      memref.store %x, %v[%c0, %c0] : memref<64x64xbf16, #sw>
      %t = tle.wgmma_wait %s pending(0) : tensor<64x64xf32, #acc>
      tle.release %p[%i : index] reader "r"
    }
    tle.warp_yield
  }
  partition "w" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.acquire %p[%i : index] -> memref<64x64xbf16, #sw>
      tle.commit %p[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// Nor may its multiplies read what it wrote: nothing fences a reader's
// stores for the async proxy inside its window.
#sw = #tle.shared<swizzle = 128>
#acc = #tle.mma<warp_groups = [1, 1]>
func.func @reader_write_read_by_tensor_cores(%n: index, %x: bf16) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tle.shared_alloc : memref<2x64x64xbf16, #sw>
  %b = tle.shared_alloc : memref<64x64xbf16, #sw>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64x64xbf16, #sw>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.wait %p[%i : index] reader "r" -> memref<64x64xbf16, #sw>
      // expected-note @+1 {{the store}}
      memref.store %x, %v[%c0, %c0] : memref<64x64xbf16, #sw>
      // expected-error @+1 {{this tle.wgmma reads field 'a' of pipe 'kv', which reader 'r' wrote with ordinary stores in the same window; nothing fences those stores for the tensor cores: hand the data over through a pipe of its own}}
      %d = tle.wgmma %v, %b, %zero
          : memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>
      %s = tle.wgmma_wait %d pending(0) : tensor<64x64xf32, #acc>
      tle.release %p[%i : index] reader "r"
    }
    tle.warp_yield
  }
  partition "w" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.acquire %p[%i : index] -> memref<64x64xbf16, #sw>
      tle.commit %p[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// Accepted: the stores follow every multiply that reads the field, each
// retired by a wait in the same block or by the loop that issued it
// ending each iteration with pending(0).
#sw = #tle.shared<swizzle = 128>
#acc = #tle.mma<warp_groups = [1, 1]>
// CHECK-LABEL: func.func @reader_writes_after_its_multiplies
func.func @reader_writes_after_its_multiplies(%n: index, %x: bf16) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %a = tle.shared_alloc : memref<2x64x64xbf16, #sw>
  %b = tle.shared_alloc : memref<64x64xbf16, #sw>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64x64xbf16, #sw>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.wait %p[%i : index] reader "r" -> memref<64x64xbf16, #sw>
      %d = tle.wgmma %v, %b, %zero
          : memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>
      %s = tle.wgmma_wait %d pending(0) : tensor<64x64xf32, #acc>
      %acc = scf.for %k = %c0 to %c2 step %c1 iter_args(%c = %s) -> tensor<64x64xf32, #acc> {
        %e = tle.wgmma %v, %b, %c
            : memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>
        %f = tle.wgmma_wait %e pending(0) : tensor<64x64xf32, #acc>
        scf.yield %f : tensor<64x64xf32, #acc>
      }
      memref.store %x, %v[%c0, %c0] : memref<64x64xbf16, #sw>
      memref.store %x, %v[%c0, %c1] : memref<64x64xbf16, #sw>
      tle.release %p[%i : index] reader "r"
    }
    tle.warp_yield
  }
  partition "w" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.acquire %p[%i : index] -> memref<64x64xbf16, #sw>
      tle.commit %p[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// A view that leaves its window through a yield.
func.func @view_yielded(%n: index, %c: i1) {
  %c0 = arith.constant 0 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %scratch = tle.shared_alloc : memref<64xf32, 3>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %v = tle.wait %p[%c0 : index] reader "r" -> memref<64xf32, 3>
    %w = scf.if %c -> memref<64xf32, 3> {
      // expected-error @+1 {{the slot view of field 'a' of pipe 'kv' leaves the block of the reader 'r''s window; use a slot's view only between its tle.wait and tle.release}}
      scf.yield %v : memref<64xf32, 3>
    } else {
      scf.yield %scratch : memref<64xf32, 3>
    }
    tle.release %p[%c0 : index] reader "r"
    tle.warp_yield
  }
  partition "w" warps(1) {
    %v = tle.acquire %p[%c0 : index] -> memref<64xf32, 3>
    tle.commit %p[%c0 : index]
    tle.warp_return
  }
  return
}

// -----

// Shared memory is checked before the simulation, whose work would
// otherwise follow the capacity (2^28 slots took 19 GB).
func.func @huge_capacity(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tle.shared_alloc : memref<268435456x1xi8, 3>
  // expected-note @+1 {{pipe 'kv' has 268435456 slots}}
  %p = tle.pipe "kv" capacity 268435456 fields(a = %a : memref<268435456x1xi8, 3>) readers(r)
  // expected-error @+1 {{'tle.warp_specialize' op needs at least 4563402752 bytes of shared memory (268435456 of buffers, 4294967296 of mbarriers for the pipes' slots), over the 232448 a CTA may use}}
  tle.warp_specialize
  default "r" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.wait %p[%i : index] reader "r" -> memref<1xi8, 3>
      tle.release %p[%i : index] reader "r"
    }
    tle.warp_yield
  }
  partition "w" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.acquire %p[%i : index] -> memref<1xi8, 3>
      tle.commit %p[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// The lowering splits a kernel's warps once: not in a loop...
func.func @in_a_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @+1 {{'tle.warp_specialize' op must sit directly in the body of a func.func kernel, not in the scf.for at line}}
    tle.warp_specialize
    default warps(4) {
      tle.warp_yield
    }
  }
  return
}

// -----

// ...and not twice.
func.func @twice() {
  // expected-note @+1 {{the first is here}}
  tle.warp_specialize
  default warps(4) {
    tle.warp_yield
  }
  // expected-error @+1 {{'tle.warp_specialize' op is one of several in '@twice'; a kernel has one tle.warp_specialize}}
  tle.warp_specialize
  default warps(4) {
    tle.warp_yield
  }
  return
}

// -----

// A loop that carries a tensor starting from a kernel argument: the
// simulation gives non-integer values no value (it crashed on the
// argument's type).
// CHECK-LABEL: func.func @carried_tensor_argument
#lanes = #tle.blocked<per_thread = [1], threads = [32], warps = [4]>
func.func @carried_tensor_argument(%n: index, %x: tensor<128xf32, #lanes>, %f: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> tensor<128xf32, #lanes> {
      %v = tle.wait %p[%i : index] reader "r" -> memref<64xf32, 3>
      %y = memref.load %v[%c0] : memref<64xf32, 3>
      %ys = tle.splat %y : f32 -> tensor<128xf32, #lanes>
      %z = arith.addf %acc, %ys : tensor<128xf32, #lanes>
      tle.release %p[%i : index] reader "r"
      scf.yield %z : tensor<128xf32, #lanes>
    }
    tle.warp_yield
  }
  partition "w" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.acquire %p[%i : index] -> memref<64xf32, 3>
      memref.store %f, %v[%c0] : memref<64xf32, 3>
      tle.commit %p[%i : index]
    }
    tle.warp_return
  }
  return
}
