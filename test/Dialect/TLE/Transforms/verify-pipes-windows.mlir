// Reader windows that a loop carries into its next iteration: the body
// waits for e(iv + step) while it still holds e(iv), and hands the view
// on through iter_args (docs/SyncDerivation.md, carried windows).
// RUN: timeout 60 tle-opt %s --tle-verify-pipes -split-input-file -verify-diagnostics | FileCheck %s

// A reader that holds tile i while it waits for tile i + 1: the first wait
// before the loop, the last release after it, all under n > 0 so that
// every wait is for an iteration the writer commits. The counts are
// proven equal (1 + trips(n - 1) = trips(n) where n > 0): no warning.

// CHECK-LABEL: func.func @carried
// CHECK: scf.for {{.*}} iter_args(

func.func @carried(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %pos = arith.cmpi sgt, %n, %c0 : index
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

// The same guard written as an unsigned test, `n >u 0`, of a count that is
// never negative (an unsigned division by a constant): for such a value it
// says n > 0, and the counts are proven as above. `0 != n` says the same.
// CHECK-LABEL: func.func @carried_ugt
func.func @carried_ugt(%arg: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %n = arith.divui %arg, %c64 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
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

// CHECK-LABEL: func.func @carried_ne
func.func @carried_ne(%arg: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %n = arith.divui %arg, %c64 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %pos = arith.cmpi ne, %c0, %n : index
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

// Carrying a view through iter_args is not a write: a field that two
// readers read stays read-only, and the loop that carries it does not
// count as writing it.
// CHECK-LABEL: func.func @carried_shared
func.func @carried_shared(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r, s)
  tle.warp_specialize
  default "r" warps(4) {
    %pos = arith.cmpi sgt, %n, %c0 : index
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
  partition "s" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.wait %p[%i : index] reader "s" -> memref<64xf32, 3>
      %x = memref.load %v[%c0] : memref<64xf32, 3>
      tle.release %p[%i : index] reader "s"
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

// With one slot the reader cannot hold tile i and wait for tile i + 1:
// the writer cannot fill the slot it holds.
func.func @cap1(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tle.shared_alloc : memref<1x64xf32, 3>
  %p = tle.pipe "kv" capacity 1 fields(a = %a : memref<1x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %nonempty = arith.cmpi sgt, %n, %c0 : index
    scf.if %nonempty {
      %first = tle.wait %p[%c0 : index] reader "r" -> memref<64xf32, 3>
      %last = arith.subi %n, %c1 : index
      %held = scf.for %i = %c0 to %last step %c1 iter_args(%cur = %first) -> memref<64xf32, 3> {
        %next = arith.addi %i, %c1 : index
        // expected-error @+1 {{deadlock: reader 'r' of pipe 'kv' would hold 2 slots at once, more than the capacity 1; this slot cannot be filled until it gives one back}}
        %v = tle.wait %p[%next : index] reader "r" -> memref<64xf32, 3>
        %x = memref.load %cur[%c0] : memref<64xf32, 3>
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
      tle.commit %p[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// Without the n > 0 guard, n = 0 releases iteration -1 (and waits for
// iteration 0, which is never committed).
func.func @unguarded(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %first = tle.wait %p[%c0 : index] reader "r" -> memref<64xf32, 3>
    %last = arith.subi %n, %c1 : index
    %held = scf.for %i = %c0 to %last step %c1 iter_args(%cur = %first) -> memref<64xf32, 3> {
      %next = arith.addi %i, %c1 : index
      %v = tle.wait %p[%next : index] reader "r" -> memref<64xf32, 3>
      tle.release %p[%i : index] reader "r"
      scf.yield %v : memref<64xf32, 3>
    }
    // expected-error @+1 {{reader 'r' of pipe 'kv' works on iteration -1 when argument 0 of @unguarded = 0; iterations must not be negative}}
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

// A window crosses only into the next iteration: waiting for i + 2 skips
// one.
func.func @skip(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %nonempty = arith.cmpi sgt, %n, %c0 : index
    scf.if %nonempty {
      // expected-note @+1 {{opened here}}
      %first = tle.wait %p[%c0 : index] reader "r" -> memref<64xf32, 3>
      %last = arith.subi %n, %c1 : index
      // expected-error-re @+1 {{reader 'r' of pipe 'kv' releases iteration <the loop variable of the scf.for at line {{[0-9]+}}> in this loop, which it held when the loop started, but an iteration does not end holding the next one (iteration <the loop variable of the scf.for at line {{[0-9]+}} + 1>); a window crosses a loop iteration only into the next}}
      scf.for %i = %c0 to %last step %c1 {
        %next = arith.addi %i, %c2 : index
        %v = tle.wait %p[%next : index] reader "r" -> memref<64xf32, 3>
        tle.release %p[%i : index] reader "r"
      }
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

// Inside the loop that carries the window, the view of the first tile is
// stale: the loop's iter_arg holds the current one.
func.func @stale_view(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %nonempty = arith.cmpi sgt, %n, %c0 : index
    scf.if %nonempty {
      %first = tle.wait %p[%c0 : index] reader "r" -> memref<64xf32, 3>
      %last = arith.subi %n, %c1 : index
      // expected-note @+1 {{the loop that carries it}}
      scf.for %i = %c0 to %last step %c1 {
        %next = arith.addi %i, %c1 : index
        %v = tle.wait %p[%next : index] reader "r" -> memref<64xf32, 3>
        // expected-error @+1 {{uses the slot of field 'a' of pipe 'kv' inside or after the scf.for that carries the reader 'r''s window to its next iterations; use the loop's iter_arg inside it and its result after it}}
        %x = memref.load %first[%c0] : memref<64xf32, 3>
        tle.release %p[%i : index] reader "r"
      }
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

// A loop to n - 2 peels two iterations but the code around it only one:
// for n = 1 the last release is of iteration -1.
func.func @short(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %nonempty = arith.cmpi sgt, %n, %c0 : index
    scf.if %nonempty {
      %first = tle.wait %p[%c0 : index] reader "r" -> memref<64xf32, 3>
      %last = arith.subi %n, %c2 : index
      scf.for %i = %c0 to %last step %c1 {
        %next = arith.addi %i, %c1 : index
        %v = tle.wait %p[%next : index] reader "r" -> memref<64xf32, 3>
        tle.release %p[%i : index] reader "r"
      }
      // expected-error @+1 {{reader 'r' of pipe 'kv' works on iteration -1 when argument 0 of @short = 1; iterations must not be negative}}
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

// A writer's window does not cross iterations: commit does not block, so
// there is nothing to gain.
func.func @writer_carry(%n: index) {
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
    %v0 = tle.acquire %p[%c0 : index] -> memref<64xf32, 3>
    %last = arith.subi %n, %c1 : index
    scf.for %i = %c0 to %last step %c1 {
      %next = arith.addi %i, %c1 : index
      %v = tle.acquire %p[%next : index] -> memref<64xf32, 3>
      // expected-error-re @+1 {{writer of pipe 'kv' commits iteration <the loop variable of the scf.for at line {{[0-9]+}}> in a later iteration of its loop than it acquired it; a writer's window cannot cross a loop iteration}}
      tle.commit %p[%i : index]
    }
    tle.commit %p[%last : index]
    tle.warp_return
  }
  return
}

// -----

// P . V of tile i left in flight into the next iteration defers the
// release of tile i past the wait for tile i + 2, which needs tile i's
// slot: with two slots, a deadlock the simulation finds.
#sw = #tle.shared<swizzle = 128>
#acc = #tle.mma<warp_groups = [1, 1]>
func.func @pv_in_flight(%a: !tle.tensor_map<64x64xbf16, swizzle = 128>,
                        %c: memref<?x?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %abuf = tle.shared_alloc : memref<2x64x64xbf16, #sw>
  %bbuf = tle.shared_alloc : memref<64x64xbf16, #sw>
  %s = tle.pipe "s" capacity 2 fields(a = %abuf : memref<2x64x64xbf16, #sw>) readers(mma)
  tle.warp_specialize
  default "mma" warps(4) {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    %nonempty = arith.cmpi sgt, %n, %c0 : index
    scf.if %nonempty {
      %first = tle.wait %s[%c0 : index] reader "mma" -> memref<64x64xbf16, #sw>
      %last = arith.subi %n, %c1 : index
      %cur_last, %sum = scf.for %i = %c0 to %last step %c1
          iter_args(%cur = %first, %acc = %zero) -> (memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>) {
        %next = arith.addi %i, %c1 : index
        // expected-error @+1 {{deadlock when argument 2 of @pv_in_flight = 3: partitions wait on each other in a cycle 'mma' -> 'tma' -> 'mma'; partition 'mma' waits as reader 'mma' for iteration 2 of pipe 's', which partition 'tma' has not committed}}
        %nv = tle.wait %s[%next : index] reader "mma" -> memref<64x64xbf16, #sw>
        %done = tle.wgmma_wait %acc pending(0) : tensor<64x64xf32, #acc>
        %d = tle.wgmma %cur, %bbuf, %done
            : memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>
        tle.release %s[%i : index] reader "mma"
        scf.yield %nv, %d : memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>
      }
      %done = tle.wgmma_wait %sum pending(0) : tensor<64x64xf32, #acc>
      %d = tle.wgmma %cur_last, %bbuf, %done
          : memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>
      %final = tle.wgmma_wait %d pending(0) : tensor<64x64xf32, #acc>
      tle.release %s[%last : index] reader "mma"
      tle.store %final, %c[%c0, %c0] : tensor<64x64xf32, #acc>, memref<?x?xf32>
    }
    tle.warp_yield
  }
  partition "tma" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      // expected-note @+1 {{partition 'tma' waits to acquire iteration 2 of pipe 's' (slot 0), which needs iteration 0 released by reader 'mma', whose release takes effect only after the tle.wgmma_wait at line}}
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

// The multiply that reads the carried slot was issued in the previous
// iteration (or before the loop); nothing in this iteration retires it
// before or after the release.
#sw = #tle.shared<swizzle = 128>
#acc = #tle.mma<warp_groups = [1, 1]>
func.func @carried_unretired(%a: !tle.tensor_map<64x64xbf16, swizzle = 128>,
                             %c: memref<?x?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %abuf = tle.shared_alloc : memref<2x64x64xbf16, #sw>
  %bbuf = tle.shared_alloc : memref<64x64xbf16, #sw>
  %s = tle.pipe "s" capacity 2 fields(a = %abuf : memref<2x64x64xbf16, #sw>) readers(mma)
  tle.warp_specialize
  default "mma" warps(4) {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    %nonempty = arith.cmpi sgt, %n, %c0 : index
    scf.if %nonempty {
      %first = tle.wait %s[%c0 : index] reader "mma" -> memref<64x64xbf16, #sw>
      %d0 = tle.wgmma %first, %bbuf, %zero
          : memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>
      %last = arith.subi %n, %c1 : index
      %cur_last, %sum = scf.for %i = %c0 to %last step %c1
          iter_args(%cur = %first, %acc = %d0) -> (memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>) {
        // expected-error @+1 {{'tle.release' op of pipe 's': reader 'mma' releases a slot its loop carries from the previous iteration, which a tle.wgmma issued there or before the loop may still be reading, and no tle.wgmma_wait in this iteration retires it}}
        tle.release %s[%i : index] reader "mma"
        %next = arith.addi %i, %c1 : index
        %nv = tle.wait %s[%next : index] reader "mma" -> memref<64x64xbf16, #sw>
        %d = tle.wgmma %nv, %bbuf, %acc
            : memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>
        scf.yield %nv, %d : memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>
      }
      %final = tle.wgmma_wait %sum pending(0) : tensor<64x64xf32, #acc>
      tle.release %s[%last : index] reader "mma"
      tle.store %final, %c[%c0, %c0] : tensor<64x64xf32, #acc>, memref<?x?xf32>
    }
    tle.warp_yield
  }
  partition "tma" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
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

// The shape of the SparseMLA left consumer: the multiply of tile i + 1 is
// issued before tile i's result is retired (pending(1) lets it run on),
// and retired with the multiply that reads tile i's carried slot before
// that slot is released. Accepted, the release right where it is written.

// CHECK-LABEL: func.func @scores_ahead
#sw = #tle.shared<swizzle = 128>
#acc = #tle.mma<warp_groups = [1, 1]>
func.func @scores_ahead(%a: !tle.tensor_map<64x64xbf16, swizzle = 128>,
                        %c: memref<?x?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %abuf = tle.shared_alloc : memref<2x64x64xbf16, #sw>
  %bbuf = tle.shared_alloc : memref<64x64xbf16, #sw>
  %s = tle.pipe "s" capacity 2 fields(a = %abuf : memref<2x64x64xbf16, #sw>) readers(mma)
  tle.warp_specialize
  default "mma" warps(4) {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    %nonempty = arith.cmpi sgt, %n, %c0 : index
    scf.if %nonempty {
      %first = tle.wait %s[%c0 : index] reader "mma" -> memref<64x64xbf16, #sw>
      %s0 = tle.wgmma %first, %bbuf, %zero
          : memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>
      %last = arith.subi %n, %c1 : index
      %cur_last, %s_last, %o_last = scf.for %i = %c0 to %last step %c1
          iter_args(%cur = %first, %s_cur = %s0, %o = %zero)
          -> (memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>, tensor<64x64xf32, #acc>) {
        %next = arith.addi %i, %c1 : index
        %nv = tle.wait %s[%next : index] reader "mma" -> memref<64x64xbf16, #sw>
        %s_next = tle.wgmma %nv, %bbuf, %zero
            : memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>
        %scores = tle.wgmma_wait %s_cur pending(1) : tensor<64x64xf32, #acc>
        %o_sum = arith.addf %o, %scores : tensor<64x64xf32, #acc>
        %o_issued = tle.wgmma %cur, %bbuf, %o_sum
            : memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>
        %o_new, %s_ready = tle.wgmma_wait %o_issued, %s_next pending(0)
            : tensor<64x64xf32, #acc>, tensor<64x64xf32, #acc>
        tle.release %s[%i : index] reader "mma"
        scf.yield %nv, %s_ready, %o_new
            : memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>, tensor<64x64xf32, #acc>
      }
      %scores = tle.wgmma_wait %s_last pending(0) : tensor<64x64xf32, #acc>
      %o_sum = arith.addf %o_last, %scores : tensor<64x64xf32, #acc>
      %o_issued = tle.wgmma %cur_last, %bbuf, %o_sum
          : memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>
      %final = tle.wgmma_wait %o_issued pending(0) : tensor<64x64xf32, #acc>
      tle.release %s[%last : index] reader "mma"
      tle.store %final, %c[%c0, %c0] : tensor<64x64xf32, #acc>, memref<?x?xf32>
    }
    tle.warp_yield
  }
  partition "tma" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
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

// Guarded by n > 1 instead of n > 0, the reader skips the single tile of
// n = 1: its count is [n > 1] x trips(n), which is not the writer's, and a
// run shows it.
func.func @guard_too_strong(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  // expected-error @+1 {{the writer of pipe 'kv' commits 1 iteration but reader 'r' waits for 0 iterations when argument 0 of @guard_too_strong = 1}}
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %several = arith.cmpi sgt, %n, %c1 : index
    scf.if %several {
      %first = tle.wait %p[%c0 : index] reader "r" -> memref<64xf32, 3>
      %last = arith.subi %n, %c1 : index
      %held = scf.for %i = %c0 to %last step %c1 iter_args(%cur = %first) -> memref<64xf32, 3> {
        %next = arith.addi %i, %c1 : index
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
      tle.commit %p[%i : index]
    }
    tle.warp_return
  }
  return
}
