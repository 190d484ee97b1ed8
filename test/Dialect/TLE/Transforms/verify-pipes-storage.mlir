// RUN: tle-opt %s --tle-verify-pipes -split-input-file -verify-diagnostics | FileCheck %s
//
// Pipes that share shared-memory bytes (docs/SyncDerivation.md, "Shared
// storage"): a pipe nested in a field of another, checked by the nesting
// rule, and storage reused after tle.reclaim. The kernels are the seesaw's
// shape in miniature: wg0 reads k (main and rope) and hands p, which lives
// in k's rope, to wg1; the producer fills k.

// CHECK-LABEL: func.func @nested_ok
func.func @nested_ok(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %f = arith.constant 1.0 : f32
  %kmem = tle.shared_alloc {name = "k"} : memref<64xi8, 3>
  %main = memref.view %kmem[%c0][] : memref<64xi8, 3> to memref<2x4xf32, 3>
  %rope = memref.view %kmem[%c32][] : memref<64xi8, 3> to memref<2x4xf32, 3>
  %pbuf = memref.view %kmem[%c32][] : memref<64xi8, 3> to memref<2x4xf32, 3>
  %k = tle.pipe "k" capacity 2 fields(main = %main : memref<2x4xf32, 3>, rope = %rope : memref<2x4xf32, 3>) readers(wg0, wg1)
  %p = tle.pipe "p" capacity 2 fields(p = %pbuf : memref<2x4xf32, 3>) readers(wg1)
  tle.warp_specialize
  default "wg0" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %m, %r = tle.wait %k[%i : index] reader "wg0" -> memref<4xf32, 3>, memref<4xf32, 3>
      %x = memref.load %r[%c0] : memref<4xf32, 3>
      %pv = tle.acquire %p[%i : index] -> memref<4xf32, 3>
      memref.store %x, %pv[%c0] : memref<4xf32, 3>
      tle.commit %p[%i : index]
      tle.release %k[%i : index] reader "wg0"
    }
    tle.warp_yield
  }
  partition "wg1" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %m, %r = tle.wait %k[%i : index] reader "wg1" -> memref<4xf32, 3>, memref<4xf32, 3>
      %pv = tle.wait %p[%i : index] reader "wg1" -> memref<4xf32, 3>
      %y = memref.load %pv[%c0] : memref<4xf32, 3>
      tle.release %p[%i : index] reader "wg1"
      tle.release %k[%i : index] reader "wg1"
    }
    tle.warp_return
  }
  partition "prod" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %m, %r = tle.acquire %k[%i : index] -> memref<4xf32, 3>, memref<4xf32, 3>
      memref.store %f, %m[%c0] : memref<4xf32, 3>
      memref.store %f, %r[%c0] : memref<4xf32, 3>
      tle.commit %k[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// An overlap of two pipes where neither lies inside the other.
func.func @partial_overlap(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %f = arith.constant 1.0 : f32
  %kmem = tle.shared_alloc {name = "k"} : memref<64xi8, 3>
  %main = memref.view %kmem[%c0][] : memref<64xi8, 3> to memref<2x4xf32, 3>
  %rope = memref.view %kmem[%c32][] : memref<64xi8, 3> to memref<2x4xf32, 3>
  %c28 = arith.constant 28 : index
  %pbuf = memref.view %kmem[%c28][] : memref<64xi8, 3> to memref<2x4xf32, 3>
  %k = tle.pipe "k" capacity 2 fields(main = %main : memref<2x4xf32, 3>, rope = %rope : memref<2x4xf32, 3>) readers(wg0, wg1)
  // expected-error @+1 {{field 'p' of pipe 'p' and field 'main' of pipe 'k' share bytes 28..31 of buffer 'k', but neither lies inside the other; pipes share storage only when one lies inside a field of the other (or after a tle.reclaim)}}
  %p = tle.pipe "p" capacity 2 fields(p = %pbuf : memref<2x4xf32, 3>) readers(wg1)
  tle.warp_specialize
  default "wg0" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %m, %r = tle.wait %k[%i : index] reader "wg0" -> memref<4xf32, 3>, memref<4xf32, 3>
      %x = memref.load %r[%c0] : memref<4xf32, 3>
      %pv = tle.acquire %p[%i : index] -> memref<4xf32, 3>
      memref.store %x, %pv[%c0] : memref<4xf32, 3>
      tle.commit %p[%i : index]
      tle.release %k[%i : index] reader "wg0"
    }
    tle.warp_yield
  }
  partition "wg1" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %m, %r = tle.wait %k[%i : index] reader "wg1" -> memref<4xf32, 3>, memref<4xf32, 3>
      %pv = tle.wait %p[%i : index] reader "wg1" -> memref<4xf32, 3>
      %y = memref.load %pv[%c0] : memref<4xf32, 3>
      tle.release %p[%i : index] reader "wg1"
      tle.release %k[%i : index] reader "wg1"
    }
    tle.warp_return
  }
  partition "prod" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %m, %r = tle.acquire %k[%i : index] -> memref<4xf32, 3>, memref<4xf32, 3>
      memref.store %f, %m[%c0] : memref<4xf32, 3>
      memref.store %f, %r[%c0] : memref<4xf32, 3>
      tle.commit %k[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// Two fields of one pipe that share bytes.
func.func @fields_overlap(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %f = arith.constant 1.0 : f32
  %kmem = tle.shared_alloc {name = "k"} : memref<64xi8, 3>
  %main = memref.view %kmem[%c0][] : memref<64xi8, 3> to memref<2x4xf32, 3>
  %rope = memref.view %kmem[%c0][] : memref<64xi8, 3> to memref<2x4xf32, 3>
  %pbuf = memref.view %kmem[%c32][] : memref<64xi8, 3> to memref<2x4xf32, 3>
  // expected-error @+1 {{field 'main' of pipe 'k' and field 'rope' share bytes 0..31 of buffer 'k'; the fields of one pipe are disjoint}}
  %k = tle.pipe "k" capacity 2 fields(main = %main : memref<2x4xf32, 3>, rope = %rope : memref<2x4xf32, 3>) readers(wg0, wg1)
  %p = tle.pipe "p" capacity 2 fields(p = %pbuf : memref<2x4xf32, 3>) readers(wg1)
  tle.warp_specialize
  default "wg0" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %m, %r = tle.wait %k[%i : index] reader "wg0" -> memref<4xf32, 3>, memref<4xf32, 3>
      %x = memref.load %r[%c0] : memref<4xf32, 3>
      %pv = tle.acquire %p[%i : index] -> memref<4xf32, 3>
      memref.store %x, %pv[%c0] : memref<4xf32, 3>
      tle.commit %p[%i : index]
      tle.release %k[%i : index] reader "wg0"
    }
    tle.warp_yield
  }
  partition "wg1" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %m, %r = tle.wait %k[%i : index] reader "wg1" -> memref<4xf32, 3>, memref<4xf32, 3>
      %pv = tle.wait %p[%i : index] reader "wg1" -> memref<4xf32, 3>
      %y = memref.load %pv[%c0] : memref<4xf32, 3>
      tle.release %p[%i : index] reader "wg1"
      tle.release %k[%i : index] reader "wg1"
    }
    tle.warp_return
  }
  partition "prod" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %m, %r = tle.acquire %k[%i : index] -> memref<4xf32, 3>, memref<4xf32, 3>
      memref.store %f, %m[%c0] : memref<4xf32, 3>
      memref.store %f, %r[%c0] : memref<4xf32, 3>
      tle.commit %k[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// Storage at an offset the check cannot know: reported, not assumed disjoint.
func.func @unresolved(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %f = arith.constant 1.0 : f32
  %kmem = tle.shared_alloc {name = "k"} : memref<64xi8, 3>
  %main = memref.view %kmem[%c0][] : memref<64xi8, 3> to memref<2x4xf32, 3>
  %rope = memref.view %kmem[%c32][] : memref<64xi8, 3> to memref<2x4xf32, 3>
  %pbuf = memref.view %kmem[%n][] : memref<64xi8, 3> to memref<2x4xf32, 3>
  %k = tle.pipe "k" capacity 2 fields(main = %main : memref<2x4xf32, 3>, rope = %rope : memref<2x4xf32, 3>) readers(wg0, wg1)
  // expected-warning @+1 {{the protocol check cannot tell which bytes of shared memory field 'p' of pipe 'p' binds: it comes from the memref.view}}
  %p = tle.pipe "p" capacity 2 fields(p = %pbuf : memref<2x4xf32, 3>) readers(wg1)
  tle.warp_specialize
  default "wg0" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %m, %r = tle.wait %k[%i : index] reader "wg0" -> memref<4xf32, 3>, memref<4xf32, 3>
      %x = memref.load %r[%c0] : memref<4xf32, 3>
      %pv = tle.acquire %p[%i : index] -> memref<4xf32, 3>
      memref.store %x, %pv[%c0] : memref<4xf32, 3>
      tle.commit %p[%i : index]
      tle.release %k[%i : index] reader "wg0"
    }
    tle.warp_yield
  }
  partition "wg1" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %m, %r = tle.wait %k[%i : index] reader "wg1" -> memref<4xf32, 3>, memref<4xf32, 3>
      %pv = tle.wait %p[%i : index] reader "wg1" -> memref<4xf32, 3>
      %y = memref.load %pv[%c0] : memref<4xf32, 3>
      tle.release %p[%i : index] reader "wg1"
      tle.release %k[%i : index] reader "wg1"
    }
    tle.warp_return
  }
  partition "prod" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %m, %r = tle.acquire %k[%i : index] -> memref<4xf32, 3>, memref<4xf32, 3>
      memref.store %f, %m[%c0] : memref<4xf32, 3>
      memref.store %f, %r[%c0] : memref<4xf32, 3>
      tle.commit %k[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// A nested pipe whose slots cannot correspond to the outer pipe's.
func.func @capacity(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %f = arith.constant 1.0 : f32
  %kmem = tle.shared_alloc {name = "k"} : memref<64xi8, 3>
  %p1 = memref.view %kmem[%c32][] : memref<64xi8, 3> to memref<1x4xf32, 3>
  %main = memref.view %kmem[%c0][] : memref<64xi8, 3> to memref<2x4xf32, 3>
  %rope = memref.view %kmem[%c32][] : memref<64xi8, 3> to memref<2x4xf32, 3>
  %pbuf = memref.view %kmem[%c32][] : memref<64xi8, 3> to memref<2x4xf32, 3>
  %k = tle.pipe "k" capacity 2 fields(main = %main : memref<2x4xf32, 3>, rope = %rope : memref<2x4xf32, 3>) readers(wg0, wg1)
  // expected-error @+1 {{the storage of pipe 'p' lies inside field 'rope' of pipe 'k', but 'p' has 1 slots and 'k' 2; nested pipes need equal capacities so that slot k of one lies in slot k of the other}}
  %p = tle.pipe "p" capacity 1 fields(p = %p1 : memref<1x4xf32, 3>) readers(wg1)
  tle.warp_specialize
  default "wg0" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %m, %r = tle.wait %k[%i : index] reader "wg0" -> memref<4xf32, 3>, memref<4xf32, 3>
      %x = memref.load %r[%c0] : memref<4xf32, 3>
      %pv = tle.acquire %p[%i : index] -> memref<4xf32, 3>
      memref.store %x, %pv[%c0] : memref<4xf32, 3>
      tle.commit %p[%i : index]
      tle.release %k[%i : index] reader "wg0"
    }
    tle.warp_yield
  }
  partition "wg1" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %m, %r = tle.wait %k[%i : index] reader "wg1" -> memref<4xf32, 3>, memref<4xf32, 3>
      %pv = tle.wait %p[%i : index] reader "wg1" -> memref<4xf32, 3>
      %y = memref.load %pv[%c0] : memref<4xf32, 3>
      tle.release %p[%i : index] reader "wg1"
      tle.release %k[%i : index] reader "wg1"
    }
    tle.warp_return
  }
  partition "prod" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %m, %r = tle.acquire %k[%i : index] -> memref<4xf32, 3>, memref<4xf32, 3>
      memref.store %f, %m[%c0] : memref<4xf32, 3>
      memref.store %f, %r[%c0] : memref<4xf32, 3>
      tle.commit %k[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// Wg1 reads p but does not hold the rope field of k, so the producer may refill the rope while wg1 still reads p.
func.func @undeclared(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %f = arith.constant 1.0 : f32
  %kmem = tle.shared_alloc {name = "k"} : memref<64xi8, 3>
  %main = memref.view %kmem[%c0][] : memref<64xi8, 3> to memref<2x4xf32, 3>
  %rope = memref.view %kmem[%c32][] : memref<64xi8, 3> to memref<2x4xf32, 3>
  %pbuf = memref.view %kmem[%c32][] : memref<64xi8, 3> to memref<2x4xf32, 3>
  %k = tle.pipe "k" capacity 2 fields(main = %main : memref<2x4xf32, 3>, rope = %rope : memref<2x4xf32, 3>) readers(wg0, wg1 = [main])
  %p = tle.pipe "p" capacity 2 fields(p = %pbuf : memref<2x4xf32, 3>) readers(wg1)
  tle.warp_specialize
  default "wg0" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %m, %r = tle.wait %k[%i : index] reader "wg0" -> memref<4xf32, 3>, memref<4xf32, 3>
      %x = memref.load %r[%c0] : memref<4xf32, 3>
      %pv = tle.acquire %p[%i : index] -> memref<4xf32, 3>
      memref.store %x, %pv[%c0] : memref<4xf32, 3>
      tle.commit %p[%i : index]
      tle.release %k[%i : index] reader "wg0"
    }
    tle.warp_yield
  }
  partition "wg1" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %m = tle.wait %k[%i : index] reader "wg1" -> memref<4xf32, 3>
      // expected-error @+1 {{reader 'wg1' of pipe 'p' runs in partition 'wg1', which does not declare field 'rope' of pipe 'k'; the storage of pipe 'p' lies inside field 'rope' of pipe 'k', which its writer refills once the readers of that field released it, so every partition that uses 'p' reads that field of 'k'}}
      %pv = tle.wait %p[%i : index] reader "wg1" -> memref<4xf32, 3>
      %y = memref.load %pv[%c0] : memref<4xf32, 3>
      tle.release %p[%i : index] reader "wg1"
      tle.release %k[%i : index] reader "wg1"
    }
    tle.warp_return
  }
  partition "prod" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %m, %r = tle.acquire %k[%i : index] -> memref<4xf32, 3>, memref<4xf32, 3>
      memref.store %f, %m[%c0] : memref<4xf32, 3>
      memref.store %f, %r[%c0] : memref<4xf32, 3>
      tle.commit %k[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// Wg1 releases k before it releases p: the rope may be refilled under p.
func.func @outside_window(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %f = arith.constant 1.0 : f32
  %kmem = tle.shared_alloc {name = "k"} : memref<64xi8, 3>
  %main = memref.view %kmem[%c0][] : memref<64xi8, 3> to memref<2x4xf32, 3>
  %rope = memref.view %kmem[%c32][] : memref<64xi8, 3> to memref<2x4xf32, 3>
  %pbuf = memref.view %kmem[%c32][] : memref<64xi8, 3> to memref<2x4xf32, 3>
  %k = tle.pipe "k" capacity 2 fields(main = %main : memref<2x4xf32, 3>, rope = %rope : memref<2x4xf32, 3>) readers(wg0, wg1)
  %p = tle.pipe "p" capacity 2 fields(p = %pbuf : memref<2x4xf32, 3>) readers(wg1)
  tle.warp_specialize
  default "wg0" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %m, %r = tle.wait %k[%i : index] reader "wg0" -> memref<4xf32, 3>, memref<4xf32, 3>
      %x = memref.load %r[%c0] : memref<4xf32, 3>
      %pv = tle.acquire %p[%i : index] -> memref<4xf32, 3>
      memref.store %x, %pv[%c0] : memref<4xf32, 3>
      tle.commit %p[%i : index]
      tle.release %k[%i : index] reader "wg0"
    }
    tle.warp_yield
  }
  partition "wg1" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %m, %r = tle.wait %k[%i : index] reader "wg1" -> memref<4xf32, 3>, memref<4xf32, 3>
      %pv = tle.wait %p[%i : index] reader "wg1" -> memref<4xf32, 3>
      %y = memref.load %pv[%c0] : memref<4xf32, 3>
      tle.release %k[%i : index] reader "wg1"
      // expected-error @+1 {{reader 'wg1' of pipe 'p' in partition 'wg1' lies outside the window of reader 'wg1' on pipe 'k' for the same iteration; the storage of pipe 'p' lies inside field 'rope' of pipe 'k', so each window on it must lie between a tle.wait and the tle.release of 'k' in the same block}}
      tle.release %p[%i : index] reader "wg1"
    }
    tle.warp_return
  }
  partition "prod" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %m, %r = tle.acquire %k[%i : index] -> memref<4xf32, 3>, memref<4xf32, 3>
      memref.store %f, %m[%c0] : memref<4xf32, 3>
      memref.store %f, %r[%c0] : memref<4xf32, 3>
      tle.commit %k[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// Wg0 reads the rope after acquiring p, which overwrites it.
func.func @read_after_acquire(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %f = arith.constant 1.0 : f32
  %kmem = tle.shared_alloc {name = "k"} : memref<64xi8, 3>
  %main = memref.view %kmem[%c0][] : memref<64xi8, 3> to memref<2x4xf32, 3>
  %rope = memref.view %kmem[%c32][] : memref<64xi8, 3> to memref<2x4xf32, 3>
  %pbuf = memref.view %kmem[%c32][] : memref<64xi8, 3> to memref<2x4xf32, 3>
  %k = tle.pipe "k" capacity 2 fields(main = %main : memref<2x4xf32, 3>, rope = %rope : memref<2x4xf32, 3>) readers(wg0, wg1)
  %p = tle.pipe "p" capacity 2 fields(p = %pbuf : memref<2x4xf32, 3>) readers(wg1)
  tle.warp_specialize
  default "wg0" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %m, %r = tle.wait %k[%i : index] reader "wg0" -> memref<4xf32, 3>, memref<4xf32, 3>
      %x = memref.load %r[%c0] : memref<4xf32, 3>
      // expected-note @+1 {{the acquire}}
      %pv = tle.acquire %p[%i : index] -> memref<4xf32, 3>
      // expected-error @+1 {{reads field 'rope' of pipe 'k' after the tle.acquire of pipe 'p', which overwrites those bytes; read the field before acquiring 'p'}}
      %x2 = memref.load %r[%c1] : memref<4xf32, 3>
      memref.store %x2, %pv[%c0] : memref<4xf32, 3>
      tle.commit %p[%i : index]
      tle.release %k[%i : index] reader "wg0"
    }
    tle.warp_yield
  }
  partition "wg1" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %m, %r = tle.wait %k[%i : index] reader "wg1" -> memref<4xf32, 3>, memref<4xf32, 3>
      %pv = tle.wait %p[%i : index] reader "wg1" -> memref<4xf32, 3>
      %y = memref.load %pv[%c0] : memref<4xf32, 3>
      tle.release %p[%i : index] reader "wg1"
      tle.release %k[%i : index] reader "wg1"
    }
    tle.warp_return
  }
  partition "prod" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %m, %r = tle.acquire %k[%i : index] -> memref<4xf32, 3>, memref<4xf32, 3>
      memref.store %f, %m[%c0] : memref<4xf32, 3>
      memref.store %f, %r[%c0] : memref<4xf32, 3>
      tle.commit %k[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// Wg1 reads the rope of k, which wg0 overwrites with p at any time.
func.func @other_reader(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %f = arith.constant 1.0 : f32
  %kmem = tle.shared_alloc {name = "k"} : memref<64xi8, 3>
  %main = memref.view %kmem[%c0][] : memref<64xi8, 3> to memref<2x4xf32, 3>
  %rope = memref.view %kmem[%c32][] : memref<64xi8, 3> to memref<2x4xf32, 3>
  %pbuf = memref.view %kmem[%c32][] : memref<64xi8, 3> to memref<2x4xf32, 3>
  %k = tle.pipe "k" capacity 2 fields(main = %main : memref<2x4xf32, 3>, rope = %rope : memref<2x4xf32, 3>) readers(wg0, wg1)
  %p = tle.pipe "p" capacity 2 fields(p = %pbuf : memref<2x4xf32, 3>) readers(wg1)
  tle.warp_specialize
  default "wg0" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %m, %r = tle.wait %k[%i : index] reader "wg0" -> memref<4xf32, 3>, memref<4xf32, 3>
      %x = memref.load %r[%c0] : memref<4xf32, 3>
      %pv = tle.acquire %p[%i : index] -> memref<4xf32, 3>
      memref.store %x, %pv[%c0] : memref<4xf32, 3>
      tle.commit %p[%i : index]
      tle.release %k[%i : index] reader "wg0"
    }
    tle.warp_yield
  }
  partition "wg1" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %m, %r = tle.wait %k[%i : index] reader "wg1" -> memref<4xf32, 3>, memref<4xf32, 3>
      %pv = tle.wait %p[%i : index] reader "wg1" -> memref<4xf32, 3>
      %y = memref.load %pv[%c0] : memref<4xf32, 3>
      // expected-error @+1 {{reader 'wg1' of pipe 'k' accesses field 'rope' of pipe 'k' in partition 'wg1', but pipe 'p' reuses those bytes; only the partition that writes 'p' reads that field, before its tle.acquire}}
      %z = memref.load %r[%c0] : memref<4xf32, 3>
      tle.release %p[%i : index] reader "wg1"
      tle.release %k[%i : index] reader "wg1"
    }
    tle.warp_return
  }
  partition "prod" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %m, %r = tle.acquire %k[%i : index] -> memref<4xf32, 3>, memref<4xf32, 3>
      memref.store %f, %m[%c0] : memref<4xf32, 3>
      memref.store %f, %r[%c0] : memref<4xf32, 3>
      tle.commit %k[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// The rope reused as scratch without a reclaim.
func.func @direct_scratch(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %f = arith.constant 1.0 : f32
  %kmem = tle.shared_alloc {name = "k"} : memref<64xi8, 3>
  %main = memref.view %kmem[%c0][] : memref<64xi8, 3> to memref<2x4xf32, 3>
  %rope = memref.view %kmem[%c32][] : memref<64xi8, 3> to memref<2x4xf32, 3>
  %pbuf = memref.view %kmem[%c32][] : memref<64xi8, 3> to memref<2x4xf32, 3>
  %k = tle.pipe "k" capacity 2 fields(main = %main : memref<2x4xf32, 3>, rope = %rope : memref<2x4xf32, 3>) readers(wg0, wg1)
  %p = tle.pipe "p" capacity 2 fields(p = %pbuf : memref<2x4xf32, 3>) readers(wg1)
  tle.warp_specialize
  default "wg0" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %m, %r = tle.wait %k[%i : index] reader "wg0" -> memref<4xf32, 3>, memref<4xf32, 3>
      %x = memref.load %r[%c0] : memref<4xf32, 3>
      %pv = tle.acquire %p[%i : index] -> memref<4xf32, 3>
      memref.store %x, %pv[%c0] : memref<4xf32, 3>
      tle.commit %p[%i : index]
      tle.release %k[%i : index] reader "wg0"
    }
    %rv = memref.view %kmem[%c32][] : memref<64xi8, 3> to memref<8xf32, 3>
    // expected-error @+1 {{partition 'wg0' accesses the buffer of field 'rope' of pipe 'k' directly; a pipe's buffers are accessed only through the slot views that tle.acquire and tle.wait return, until the matching tle.commit or tle.release; a dead pipe's storage becomes scratch through tle.reclaim}}
    memref.store %f, %rv[%c0] : memref<8xf32, 3>
    tle.warp_yield
  }
  partition "wg1" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %m, %r = tle.wait %k[%i : index] reader "wg1" -> memref<4xf32, 3>, memref<4xf32, 3>
      %pv = tle.wait %p[%i : index] reader "wg1" -> memref<4xf32, 3>
      %y = memref.load %pv[%c0] : memref<4xf32, 3>
      tle.release %p[%i : index] reader "wg1"
      tle.release %k[%i : index] reader "wg1"
    }
    tle.warp_return
  }
  partition "prod" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %m, %r = tle.acquire %k[%i : index] -> memref<4xf32, 3>, memref<4xf32, 3>
      memref.store %f, %m[%c0] : memref<4xf32, 3>
      memref.store %f, %r[%c0] : memref<4xf32, 3>
      tle.commit %k[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// A multiply reading the rope is retired before p is acquired; wg1's release of k takes effect after the multiply reading p (see --tle-lower-pipes).
#sw = #tle.shared<swizzle = 128>
#acc = #tle.mma<warp_groups = [1, 1]>
func.func @nested_retired(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8192 = arith.constant 8192 : index
  %kmem = tle.shared_alloc : memref<16384xi8, #sw>
  %main = memref.view %kmem[%c0][] : memref<16384xi8, #sw> to memref<1x64x64xbf16, #sw>
  %rope = memref.view %kmem[%c8192][] : memref<16384xi8, #sw> to memref<1x64x64xbf16, #sw>
  %pbuf = memref.view %kmem[%c8192][] : memref<16384xi8, #sw> to memref<1x64x64xbf16, #sw>
  %bbuf = tle.shared_alloc : memref<64x64xbf16, #sw>
  %k = tle.pipe "k" capacity 1 fields(main = %main : memref<1x64x64xbf16, #sw>, rope = %rope : memref<1x64x64xbf16, #sw>) readers(wg0, wg1 = [rope])
  %p = tle.pipe "p" capacity 1 fields(p = %pbuf : memref<1x64x64xbf16, #sw>) readers(wg1)
  tle.warp_specialize
  default "wg0" warps(4) {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    %out = scf.for %i = %c0 to %n step %c1 iter_args(%a = %zero) -> tensor<64x64xf32, #acc> {
      %m, %r = tle.wait %k[%i : index] reader "wg0" -> memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>
      %d = tle.wgmma %r, %bbuf, %a
          : memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>
      %s = tle.wgmma_wait %d pending(0) : tensor<64x64xf32, #acc>
      %pv = tle.acquire %p[%i : index] -> memref<64x64xbf16, #sw>
      tle.commit %p[%i : index]
      tle.release %k[%i : index] reader "wg0"
      scf.yield %s : tensor<64x64xf32, #acc>
    }
    tle.warp_yield
  }
  partition "wg1" warps(4) {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    %out = scf.for %i = %c0 to %n step %c1 iter_args(%a = %zero) -> tensor<64x64xf32, #acc> {
      %r = tle.wait %k[%i : index] reader "wg1" -> memref<64x64xbf16, #sw>
      %pv = tle.wait %p[%i : index] reader "wg1" -> memref<64x64xbf16, #sw>
      %d = tle.wgmma %pv, %bbuf, %a
          : memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>
      tle.release %p[%i : index] reader "wg1"
      tle.release %k[%i : index] reader "wg1"
      %s = tle.wgmma_wait %d pending(0) : tensor<64x64xf32, #acc>
      scf.yield %s : tensor<64x64xf32, #acc>
    }
    tle.warp_return
  }
  partition "prod" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %m, %r = tle.acquire %k[%i : index] -> memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>
      tle.commit %k[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// A multiply still reading the rope when p is acquired.
#sw = #tle.shared<swizzle = 128>
#acc = #tle.mma<warp_groups = [1, 1]>
func.func @nested_in_flight(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8192 = arith.constant 8192 : index
  %kmem = tle.shared_alloc : memref<16384xi8, #sw>
  %main = memref.view %kmem[%c0][] : memref<16384xi8, #sw> to memref<1x64x64xbf16, #sw>
  %rope = memref.view %kmem[%c8192][] : memref<16384xi8, #sw> to memref<1x64x64xbf16, #sw>
  %pbuf = memref.view %kmem[%c8192][] : memref<16384xi8, #sw> to memref<1x64x64xbf16, #sw>
  %bbuf = tle.shared_alloc : memref<64x64xbf16, #sw>
  %k = tle.pipe "k" capacity 1 fields(main = %main : memref<1x64x64xbf16, #sw>, rope = %rope : memref<1x64x64xbf16, #sw>) readers(wg0, wg1 = [rope])
  %p = tle.pipe "p" capacity 1 fields(p = %pbuf : memref<1x64x64xbf16, #sw>) readers(wg1)
  tle.warp_specialize
  default "wg0" warps(4) {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    %out = scf.for %i = %c0 to %n step %c1 iter_args(%a = %zero) -> tensor<64x64xf32, #acc> {
      %m, %r = tle.wait %k[%i : index] reader "wg0" -> memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>
      // expected-error @+1 {{this tle.wgmma still reads field 'rope' of pipe 'k' at the tle.acquire of pipe 'p', which overwrites those bytes; retire it with a tle.wgmma_wait before the acquire}}
      %d = tle.wgmma %r, %bbuf, %a
          : memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>
      // expected-note @+1 {{the acquire}}
      %pv = tle.acquire %p[%i : index] -> memref<64x64xbf16, #sw>
      %s = tle.wgmma_wait %d pending(0) : tensor<64x64xf32, #acc>
      tle.commit %p[%i : index]
      tle.release %k[%i : index] reader "wg0"
      scf.yield %s : tensor<64x64xf32, #acc>
    }
    tle.warp_yield
  }
  partition "wg1" warps(4) {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    %out = scf.for %i = %c0 to %n step %c1 iter_args(%a = %zero) -> tensor<64x64xf32, #acc> {
      %r = tle.wait %k[%i : index] reader "wg1" -> memref<64x64xbf16, #sw>
      %pv = tle.wait %p[%i : index] reader "wg1" -> memref<64x64xbf16, #sw>
      %d = tle.wgmma %pv, %bbuf, %a
          : memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>
      tle.release %p[%i : index] reader "wg1"
      tle.release %k[%i : index] reader "wg1"
      %s = tle.wgmma_wait %d pending(0) : tensor<64x64xf32, #acc>
      scf.yield %s : tensor<64x64xf32, #acc>
    }
    tle.warp_return
  }
  partition "prod" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %m, %r = tle.acquire %k[%i : index] -> memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>
      tle.commit %k[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// The rope refilled by TMA: ordering it after the writes to p would need a proxy fence.
#sw = #tle.shared<swizzle = 128>
#acc = #tle.mma<warp_groups = [1, 1]>
func.func @tma_refill(%tm: !tle.tensor_map<64x64xbf16, swizzle = 128>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8192 = arith.constant 8192 : index
  %kmem = tle.shared_alloc : memref<16384xi8, #sw>
  %main = memref.view %kmem[%c0][] : memref<16384xi8, #sw> to memref<1x64x64xbf16, #sw>
  %rope = memref.view %kmem[%c8192][] : memref<16384xi8, #sw> to memref<1x64x64xbf16, #sw>
  %pbuf = memref.view %kmem[%c8192][] : memref<16384xi8, #sw> to memref<1x64x64xbf16, #sw>
  %bbuf = tle.shared_alloc : memref<64x64xbf16, #sw>
  %k = tle.pipe "k" capacity 1 fields(main = %main : memref<1x64x64xbf16, #sw>, rope = %rope : memref<1x64x64xbf16, #sw>) readers(wg0, wg1 = [rope])
  %p = tle.pipe "p" capacity 1 fields(p = %pbuf : memref<1x64x64xbf16, #sw>) readers(wg1)
  tle.warp_specialize
  default "wg0" warps(4) {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    %out = scf.for %i = %c0 to %n step %c1 iter_args(%a = %zero) -> tensor<64x64xf32, #acc> {
      %m, %r = tle.wait %k[%i : index] reader "wg0" -> memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>
      %d = tle.wgmma %r, %bbuf, %a
          : memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>
      %s = tle.wgmma_wait %d pending(0) : tensor<64x64xf32, #acc>
      %pv = tle.acquire %p[%i : index] -> memref<64x64xbf16, #sw>
      tle.commit %p[%i : index]
      tle.release %k[%i : index] reader "wg0"
      scf.yield %s : tensor<64x64xf32, #acc>
    }
    tle.warp_yield
  }
  partition "wg1" warps(4) {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    %out = scf.for %i = %c0 to %n step %c1 iter_args(%a = %zero) -> tensor<64x64xf32, #acc> {
      %r = tle.wait %k[%i : index] reader "wg1" -> memref<64x64xbf16, #sw>
      %pv = tle.wait %p[%i : index] reader "wg1" -> memref<64x64xbf16, #sw>
      %d = tle.wgmma %pv, %bbuf, %a
          : memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>
      tle.release %p[%i : index] reader "wg1"
      tle.release %k[%i : index] reader "wg1"
      %s = tle.wgmma_wait %d pending(0) : tensor<64x64xf32, #acc>
      scf.yield %s : tensor<64x64xf32, #acc>
    }
    tle.warp_return
  }
  partition "prod" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %m, %r = tle.acquire %k[%i : index] -> memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>
      tle.tma_load %tm[%c0, %c0] into %m
          : !tle.tensor_map<64x64xbf16, swizzle = 128>, memref<64x64xbf16, #sw>
      // expected-error @+1 {{the writer of pipe 'k' refills field 'rope' of pipe 'k' by TMA, but pipe 'p' reuses those bytes; a TMA refill after its writes needs a proxy fence that the lowering does not place (refill the field with cp.async or ordinary stores)}}
      tle.tma_load %tm[%c0, %c0] into %r
          : !tle.tensor_map<64x64xbf16, swizzle = 128>, memref<64x64xbf16, #sw>
      tle.commit %k[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// A pipe nested in another cannot be reclaimed: the outer pipe refills it.
func.func @reclaim_nested(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %f = arith.constant 1.0 : f32
  %kmem = tle.shared_alloc {name = "k"} : memref<64xi8, 3>
  %main = memref.view %kmem[%c0][] : memref<64xi8, 3> to memref<2x4xf32, 3>
  %rope = memref.view %kmem[%c32][] : memref<64xi8, 3> to memref<2x4xf32, 3>
  %pbuf = memref.view %kmem[%c32][] : memref<64xi8, 3> to memref<2x4xf32, 3>
  %k = tle.pipe "k" capacity 2 fields(main = %main : memref<2x4xf32, 3>, rope = %rope : memref<2x4xf32, 3>) readers(wg0, wg1)
  %p = tle.pipe "p" capacity 2 fields(p = %pbuf : memref<2x4xf32, 3>) readers(wg1)
  tle.warp_specialize
  default "wg0" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %m, %r = tle.wait %k[%i : index] reader "wg0" -> memref<4xf32, 3>, memref<4xf32, 3>
      %x = memref.load %r[%c0] : memref<4xf32, 3>
      %pv = tle.acquire %p[%i : index] -> memref<4xf32, 3>
      memref.store %x, %pv[%c0] : memref<4xf32, 3>
      tle.commit %p[%i : index]
      tle.release %k[%i : index] reader "wg0"
    }
    tle.warp_yield
  }
  partition "wg1" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %m, %r = tle.wait %k[%i : index] reader "wg1" -> memref<4xf32, 3>, memref<4xf32, 3>
      %pv = tle.wait %p[%i : index] reader "wg1" -> memref<4xf32, 3>
      %y = memref.load %pv[%c0] : memref<4xf32, 3>
      tle.release %p[%i : index] reader "wg1"
      tle.release %k[%i : index] reader "wg1"
    }
    // expected-error @+1 {{pipe 'p' shares storage with pipe 'k', which does not lie inside it; only storage that the reclaimed pipe owns can become scratch}}
    tle.reclaim %p reader "wg1"
    tle.warp_return
  }
  partition "prod" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %m, %r = tle.acquire %k[%i : index] -> memref<4xf32, 3>, memref<4xf32, 3>
      memref.store %f, %m[%c0] : memref<4xf32, 3>
      memref.store %f, %r[%c0] : memref<4xf32, 3>
      tle.commit %k[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// CHECK-LABEL: func.func @reclaim_ok
func.func @reclaim_ok(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  %qbuf = tle.shared_alloc {name = "q"} : memref<1x8xf32, 3>
  %left = memref.subview %qbuf[0, 0] [1, 4] [1, 1] : memref<1x8xf32, 3> to memref<1x4xf32, strided<[8, 1]>, 3>
  %right = memref.subview %qbuf[0, 4] [1, 4] [1, 1] : memref<1x8xf32, 3> to memref<1x4xf32, strided<[8, 1], offset: 4>, 3>
  %q = tle.pipe "q" capacity 1 one_shot fields(q = %qbuf : memref<1x8xf32, 3>) readers(wg0, wg1)
  tle.warp_specialize
  default "wg0" warps(4) {
    %qv = tle.wait %q reader "wg0" -> memref<8xf32, 3>
    %x = memref.load %qv[%c0] : memref<8xf32, 3>
    %s = tle.reclaim %q reader "wg0" scratch %left : memref<1x4xf32, strided<[8, 1]>, 3>
    memref.store %x, %s[%c0, %c0] : memref<1x4xf32, strided<[8, 1]>, 3>
    tle.warp_yield
  }
  partition "wg1" warps(4) {
    %qv = tle.wait %q reader "wg1" -> memref<8xf32, 3>
    %x = memref.load %qv[%c1] : memref<8xf32, 3>
    %s = tle.reclaim %q reader "wg1" scratch %right : memref<1x4xf32, strided<[8, 1], offset: 4>, 3>
    memref.store %x, %s[%c0, %c0] : memref<1x4xf32, strided<[8, 1], offset: 4>, 3>
    tle.warp_return
  }
  partition "prod" warps(1) {
    memref.store %f, %qbuf[%c0, %c0] : memref<1x8xf32, 3>
    tle.commit %q
    tle.warp_return
  }
  return
}

// -----

// One reader never reclaims: the other would wait forever.
func.func @missing_reader(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  %qbuf = tle.shared_alloc {name = "q"} : memref<1x8xf32, 3>
  %left = memref.subview %qbuf[0, 0] [1, 4] [1, 1] : memref<1x8xf32, 3> to memref<1x4xf32, strided<[8, 1]>, 3>
  %right = memref.subview %qbuf[0, 4] [1, 4] [1, 1] : memref<1x8xf32, 3> to memref<1x4xf32, strided<[8, 1], offset: 4>, 3>
  // expected-error @+1 {{reader 'wg1' of pipe 'q' never reclaims it, but reader 'wg0' does; the reclaim is a barrier among all the pipe's readers, which the others would wait at forever}}
  %q = tle.pipe "q" capacity 1 one_shot fields(q = %qbuf : memref<1x8xf32, 3>) readers(wg0, wg1)
  tle.warp_specialize
  default "wg0" warps(4) {
    %qv = tle.wait %q reader "wg0" -> memref<8xf32, 3>
    %x = memref.load %qv[%c0] : memref<8xf32, 3>
    // expected-note @+1 {{reclaimed here}}
    %s = tle.reclaim %q reader "wg0" scratch %left : memref<1x4xf32, strided<[8, 1]>, 3>
    memref.store %x, %s[%c0, %c0] : memref<1x4xf32, strided<[8, 1]>, 3>
    tle.warp_yield
  }
  partition "wg1" warps(4) {
    %qv = tle.wait %q reader "wg1" -> memref<8xf32, 3>
    %x = memref.load %qv[%c1] : memref<8xf32, 3>
    tle.warp_return
  }
  partition "prod" warps(1) {
    memref.store %f, %qbuf[%c0, %c0] : memref<1x8xf32, 3>
    tle.commit %q
    tle.warp_return
  }
  return
}

// -----

// A reclaim inside a loop.
func.func @in_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  %qbuf = tle.shared_alloc {name = "q"} : memref<1x8xf32, 3>
  %left = memref.subview %qbuf[0, 0] [1, 4] [1, 1] : memref<1x8xf32, 3> to memref<1x4xf32, strided<[8, 1]>, 3>
  %right = memref.subview %qbuf[0, 4] [1, 4] [1, 1] : memref<1x8xf32, 3> to memref<1x4xf32, strided<[8, 1], offset: 4>, 3>
  %q = tle.pipe "q" capacity 1 one_shot fields(q = %qbuf : memref<1x8xf32, 3>) readers(wg0, wg1)
  tle.warp_specialize
  default "wg0" warps(4) {
    %qv = tle.wait %q reader "wg0" -> memref<8xf32, 3>
    %x = memref.load %qv[%c0] : memref<8xf32, 3>
    %s = tle.reclaim %q reader "wg0" scratch %left : memref<1x4xf32, strided<[8, 1]>, 3>
    memref.store %x, %s[%c0, %c0] : memref<1x4xf32, strided<[8, 1]>, 3>
    tle.warp_yield
  }
  partition "wg1" warps(4) {
    %qv = tle.wait %q reader "wg1" -> memref<8xf32, 3>
    %x = memref.load %qv[%c1] : memref<8xf32, 3>
    scf.for %i = %c0 to %n step %c1 {
      // expected-error @+1 {{reader 'wg1' reclaims pipe 'q' inside the scf.for}}
      tle.reclaim %q reader "wg1"
    }
    tle.warp_return
  }
  partition "prod" warps(1) {
    memref.store %f, %qbuf[%c0, %c0] : memref<1x8xf32, 3>
    tle.commit %q
    tle.warp_return
  }
  return
}

// -----

// The pipe used after its storage was reclaimed.
func.func @wait_after(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  %qbuf = tle.shared_alloc {name = "q"} : memref<1x8xf32, 3>
  %left = memref.subview %qbuf[0, 0] [1, 4] [1, 1] : memref<1x8xf32, 3> to memref<1x4xf32, strided<[8, 1]>, 3>
  %right = memref.subview %qbuf[0, 4] [1, 4] [1, 1] : memref<1x8xf32, 3> to memref<1x4xf32, strided<[8, 1], offset: 4>, 3>
  %q = tle.pipe "q" capacity 1 one_shot fields(q = %qbuf : memref<1x8xf32, 3>) readers(wg0, wg1)
  tle.warp_specialize
  default "wg0" warps(4) {
    %qv = tle.wait %q reader "wg0" -> memref<8xf32, 3>
    %x = memref.load %qv[%c0] : memref<8xf32, 3>
    // expected-note @+1 {{reclaimed here}}
    %s = tle.reclaim %q reader "wg0" scratch %left : memref<1x4xf32, strided<[8, 1]>, 3>
    memref.store %x, %s[%c0, %c0] : memref<1x4xf32, strided<[8, 1]>, 3>
    // expected-error @+1 {{reader 'wg0' uses pipe 'q' after reader 'wg0' reclaimed pipe 'q' in partition 'wg0'; a reclaim waits for the other readers, so it follows every pipe operation of the partition}}
    %again = tle.wait %q reader "wg0" -> memref<8xf32, 3>
    tle.warp_yield
  }
  partition "wg1" warps(4) {
    %qv = tle.wait %q reader "wg1" -> memref<8xf32, 3>
    %x = memref.load %qv[%c1] : memref<8xf32, 3>
    %s = tle.reclaim %q reader "wg1" scratch %right : memref<1x4xf32, strided<[8, 1], offset: 4>, 3>
    memref.store %x, %s[%c0, %c0] : memref<1x4xf32, strided<[8, 1], offset: 4>, 3>
    tle.warp_return
  }
  partition "prod" warps(1) {
    memref.store %f, %qbuf[%c0, %c0] : memref<1x8xf32, 3>
    tle.commit %q
    tle.warp_return
  }
  return
}

// -----

// A pipe operation after the reclaim: the reclaim waits for the other readers, and the simulation does not run it, so it comes last.
func.func @other_after(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  %qbuf = tle.shared_alloc {name = "q"} : memref<1x8xf32, 3>
  %left = memref.subview %qbuf[0, 0] [1, 4] [1, 1] : memref<1x8xf32, 3> to memref<1x4xf32, strided<[8, 1]>, 3>
  %right = memref.subview %qbuf[0, 4] [1, 4] [1, 1] : memref<1x8xf32, 3> to memref<1x4xf32, strided<[8, 1], offset: 4>, 3>
  %q = tle.pipe "q" capacity 1 one_shot fields(q = %qbuf : memref<1x8xf32, 3>) readers(wg0, wg1)
  %rbuf = tle.shared_alloc : memref<1x4xf32, 3>
  %r = tle.pipe "r" capacity 1 one_shot fields(r = %rbuf : memref<1x4xf32, 3>) readers(wg0)
  tle.warp_specialize
  default "wg0" warps(4) {
    %qv = tle.wait %q reader "wg0" -> memref<8xf32, 3>
    %x = memref.load %qv[%c0] : memref<8xf32, 3>
    // expected-note @+1 {{reclaimed here}}
    %s = tle.reclaim %q reader "wg0" scratch %left : memref<1x4xf32, strided<[8, 1]>, 3>
    memref.store %x, %s[%c0, %c0] : memref<1x4xf32, strided<[8, 1]>, 3>
    // expected-error @+1 {{reader 'wg0' uses pipe 'r' after reader 'wg0' reclaimed pipe 'q' in partition 'wg0'; a reclaim waits for the other readers, so it follows every pipe operation of the partition}}
    %rv = tle.wait %r reader "wg0" -> memref<4xf32, 3>
    tle.warp_yield
  }
  partition "wg1" warps(4) {
    %qv = tle.wait %q reader "wg1" -> memref<8xf32, 3>
    %x = memref.load %qv[%c1] : memref<8xf32, 3>
    %s = tle.reclaim %q reader "wg1" scratch %right : memref<1x4xf32, strided<[8, 1], offset: 4>, 3>
    memref.store %x, %s[%c0, %c0] : memref<1x4xf32, strided<[8, 1], offset: 4>, 3>
    tle.warp_return
  }
  partition "prod" warps(1) {
    memref.store %f, %qbuf[%c0, %c0] : memref<1x8xf32, 3>
    tle.commit %q
    memref.store %f, %rbuf[%c0, %c0] : memref<1x4xf32, 3>
    tle.commit %r
    tle.warp_return
  }
  return
}

// -----

// Two readers reclaim overlapping parts.
func.func @parts_overlap(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  %qbuf = tle.shared_alloc {name = "q"} : memref<1x8xf32, 3>
  %left = memref.subview %qbuf[0, 0] [1, 4] [1, 1] : memref<1x8xf32, 3> to memref<1x4xf32, strided<[8, 1]>, 3>
  %right = memref.subview %qbuf[0, 4] [1, 4] [1, 1] : memref<1x8xf32, 3> to memref<1x4xf32, strided<[8, 1], offset: 4>, 3>
  %q = tle.pipe "q" capacity 1 one_shot fields(q = %qbuf : memref<1x8xf32, 3>) readers(wg0, wg1)
  tle.warp_specialize
  default "wg0" warps(4) {
    %qv = tle.wait %q reader "wg0" -> memref<8xf32, 3>
    %x = memref.load %qv[%c0] : memref<8xf32, 3>
    // expected-note @+1 {{the other part}}
    %s = tle.reclaim %q reader "wg0" scratch %left : memref<1x4xf32, strided<[8, 1]>, 3>
    memref.store %x, %s[%c0, %c0] : memref<1x4xf32, strided<[8, 1]>, 3>
    tle.warp_yield
  }
  partition "wg1" warps(4) {
    %qv = tle.wait %q reader "wg1" -> memref<8xf32, 3>
    %x = memref.load %qv[%c1] : memref<8xf32, 3>
    // expected-error @+1 {{the scratch parts of readers 'wg0' and 'wg1' of pipe 'q' share bytes 0..15 of buffer 'q'; each reader reclaims a disjoint part}}
    %s = tle.reclaim %q reader "wg1" scratch %left : memref<1x4xf32, strided<[8, 1]>, 3>
    memref.store %x, %s[%c0, %c0] : memref<1x4xf32, strided<[8, 1]>, 3>
    tle.warp_return
  }
  partition "prod" warps(1) {
    memref.store %f, %qbuf[%c0, %c0] : memref<1x8xf32, 3>
    tle.commit %q
    tle.warp_return
  }
  return
}

// -----

// A part outside the reclaimed pipe.
func.func @part_outside(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  %qbuf = tle.shared_alloc {name = "q"} : memref<1x8xf32, 3>
  %left = memref.subview %qbuf[0, 0] [1, 4] [1, 1] : memref<1x8xf32, 3> to memref<1x4xf32, strided<[8, 1]>, 3>
  %right = memref.subview %qbuf[0, 4] [1, 4] [1, 1] : memref<1x8xf32, 3> to memref<1x4xf32, strided<[8, 1], offset: 4>, 3>
  %other = tle.shared_alloc : memref<1x4xf32, 3>
  %q = tle.pipe "q" capacity 1 one_shot fields(q = %qbuf : memref<1x8xf32, 3>) readers(wg0, wg1)
  tle.warp_specialize
  default "wg0" warps(4) {
    %qv = tle.wait %q reader "wg0" -> memref<8xf32, 3>
    %x = memref.load %qv[%c0] : memref<8xf32, 3>
    %s = tle.reclaim %q reader "wg0" scratch %left : memref<1x4xf32, strided<[8, 1]>, 3>
    memref.store %x, %s[%c0, %c0] : memref<1x4xf32, strided<[8, 1]>, 3>
    tle.warp_yield
  }
  partition "wg1" warps(4) {
    %qv = tle.wait %q reader "wg1" -> memref<8xf32, 3>
    %x = memref.load %qv[%c1] : memref<8xf32, 3>
    // expected-error @+1 {{the scratch part of reader 'wg1' does not lie inside a field of pipe 'q'}}
    %s = tle.reclaim %q reader "wg1" scratch %other : memref<1x4xf32, 3>
    tle.warp_return
  }
  partition "prod" warps(1) {
    memref.store %f, %qbuf[%c0, %c0] : memref<1x8xf32, 3>
    tle.commit %q
    tle.warp_return
  }
  return
}

// -----

// A reclaim in a partition that is not the reader's.
func.func @wrong_partition(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  %qbuf = tle.shared_alloc {name = "q"} : memref<1x8xf32, 3>
  %left = memref.subview %qbuf[0, 0] [1, 4] [1, 1] : memref<1x8xf32, 3> to memref<1x4xf32, strided<[8, 1]>, 3>
  %right = memref.subview %qbuf[0, 4] [1, 4] [1, 1] : memref<1x8xf32, 3> to memref<1x4xf32, strided<[8, 1], offset: 4>, 3>
  %q = tle.pipe "q" capacity 1 one_shot fields(q = %qbuf : memref<1x8xf32, 3>) readers(wg0, wg1)
  tle.warp_specialize
  default "wg0" warps(4) {
    %qv = tle.wait %q reader "wg0" -> memref<8xf32, 3>
    %x = memref.load %qv[%c0] : memref<8xf32, 3>
    %s = tle.reclaim %q reader "wg0" scratch %left : memref<1x4xf32, strided<[8, 1]>, 3>
    memref.store %x, %s[%c0, %c0] : memref<1x4xf32, strided<[8, 1]>, 3>
    tle.warp_yield
  }
  partition "wg1" warps(4) {
    %qv = tle.wait %q reader "wg1" -> memref<8xf32, 3>
    %x = memref.load %qv[%c1] : memref<8xf32, 3>
    // expected-error @+1 {{reader 'wg0' of pipe 'q' reclaims it in partition 'wg1', not in the partition where it reads the pipe}}
    %s = tle.reclaim %q reader "wg0" scratch %right : memref<1x4xf32, strided<[8, 1], offset: 4>, 3>
    memref.store %x, %s[%c0, %c0] : memref<1x4xf32, strided<[8, 1], offset: 4>, 3>
    tle.warp_return
  }
  partition "prod" warps(1) {
    memref.store %f, %qbuf[%c0, %c0] : memref<1x8xf32, 3>
    tle.commit %q
    tle.warp_return
  }
  return
}

// -----

// Scratch written through the part instead of the reclaim's result.
func.func @through_part(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  %qbuf = tle.shared_alloc {name = "q"} : memref<1x8xf32, 3>
  %left = memref.subview %qbuf[0, 0] [1, 4] [1, 1] : memref<1x8xf32, 3> to memref<1x4xf32, strided<[8, 1]>, 3>
  %right = memref.subview %qbuf[0, 4] [1, 4] [1, 1] : memref<1x8xf32, 3> to memref<1x4xf32, strided<[8, 1], offset: 4>, 3>
  %q = tle.pipe "q" capacity 1 one_shot fields(q = %qbuf : memref<1x8xf32, 3>) readers(wg0, wg1)
  tle.warp_specialize
  default "wg0" warps(4) {
    %qv = tle.wait %q reader "wg0" -> memref<8xf32, 3>
    %x = memref.load %qv[%c0] : memref<8xf32, 3>
    %s = tle.reclaim %q reader "wg0" scratch %left : memref<1x4xf32, strided<[8, 1]>, 3>
    // expected-error @+1 {{partition 'wg0' accesses the buffer of field 'q' of pipe 'q' directly; a pipe's buffers are accessed only through the slot views that tle.acquire and tle.wait return, until the matching tle.commit or tle.release (a one_shot pipe's writer writes its buffers before the tle.commit); a dead pipe's storage becomes scratch through tle.reclaim}}
    memref.store %x, %left[%c0, %c0] : memref<1x4xf32, strided<[8, 1]>, 3>
    tle.warp_yield
  }
  partition "wg1" warps(4) {
    %qv = tle.wait %q reader "wg1" -> memref<8xf32, 3>
    %x = memref.load %qv[%c1] : memref<8xf32, 3>
    %s = tle.reclaim %q reader "wg1" scratch %right : memref<1x4xf32, strided<[8, 1], offset: 4>, 3>
    memref.store %x, %s[%c0, %c0] : memref<1x4xf32, strided<[8, 1], offset: 4>, 3>
    tle.warp_return
  }
  partition "prod" warps(1) {
    memref.store %f, %qbuf[%c0, %c0] : memref<1x8xf32, 3>
    tle.commit %q
    tle.warp_return
  }
  return
}

// -----

// CHECK-LABEL: func.func @reclaim_retired
#sw = #tle.shared<swizzle = 128>
#acc = #tle.mma<warp_groups = [1, 1]>
func.func @reclaim_retired(%acc: tensor<64x64xf32, #acc>) {
  %c0 = arith.constant 0 : index
  %qbuf = tle.shared_alloc : memref<1x64x64xbf16, #sw>
  %bbuf = tle.shared_alloc : memref<64x64xbf16, #sw>
  %q = tle.pipe "q" capacity 1 one_shot fields(q = %qbuf : memref<1x64x64xbf16, #sw>) readers(mma, other)
  tle.warp_specialize
  default "mma" warps(4) {
    %qv = tle.wait %q reader "mma" -> memref<64x64xbf16, #sw>
    %d = tle.wgmma %qv, %bbuf, %acc
        : memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>
    %r = tle.wgmma_wait %d pending(0) : tensor<64x64xf32, #acc>
    tle.reclaim %q reader "mma"
    %r2 = tle.wgmma_wait %r pending(0) : tensor<64x64xf32, #acc>
    tle.warp_yield
  }
  partition "other" warps(4) {
    %qv = tle.wait %q reader "other" -> memref<64x64xbf16, #sw>
    tle.reclaim %q reader "other"
    tle.warp_return
  }
  partition "w" warps(1) {
    tle.commit %q
    tle.warp_return
  }
  return
}

// -----

// A multiply may still read q at its reclaim.
#sw = #tle.shared<swizzle = 128>
#acc = #tle.mma<warp_groups = [1, 1]>
func.func @reclaim_in_flight(%acc: tensor<64x64xf32, #acc>) {
  %c0 = arith.constant 0 : index
  %qbuf = tle.shared_alloc : memref<1x64x64xbf16, #sw>
  %bbuf = tle.shared_alloc : memref<64x64xbf16, #sw>
  %q = tle.pipe "q" capacity 1 one_shot fields(q = %qbuf : memref<1x64x64xbf16, #sw>) readers(mma, other)
  tle.warp_specialize
  default "mma" warps(4) {
    %qv = tle.wait %q reader "mma" -> memref<64x64xbf16, #sw>
    // expected-note @+1 {{the multiply}}
    %d = tle.wgmma %qv, %bbuf, %acc
        : memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>
    %r = tle.wgmma_wait %d pending(1) : tensor<64x64xf32, #acc>
    // expected-error @+1 {{reader 'mma' reclaims pipe 'q' while a tle.wgmma may still read it; retire it with tle.wgmma_wait pending(0) before the tle.reclaim}}
    tle.reclaim %q reader "mma"
    %r2 = tle.wgmma_wait %r pending(0) : tensor<64x64xf32, #acc>
    tle.warp_yield
  }
  partition "other" warps(4) {
    %qv = tle.wait %q reader "other" -> memref<64x64xbf16, #sw>
    tle.reclaim %q reader "other"
    tle.warp_return
  }
  partition "w" warps(1) {
    tle.commit %q
    tle.warp_return
  }
  return
}

// -----

// A one_shot view read after the reclaim: no release ends it, the reclaim
// does, and wg1 may already be writing its scratch there.
func.func @view_after_reclaim(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  %qbuf = tle.shared_alloc {name = "q"} : memref<1x8xf32, 3>
  %left = memref.subview %qbuf[0, 0] [1, 4] [1, 1] : memref<1x8xf32, 3> to memref<1x4xf32, strided<[8, 1]>, 3>
  %right = memref.subview %qbuf[0, 4] [1, 4] [1, 1] : memref<1x8xf32, 3> to memref<1x4xf32, strided<[8, 1], offset: 4>, 3>
  %q = tle.pipe "q" capacity 1 one_shot fields(q = %qbuf : memref<1x8xf32, 3>) readers(wg0, wg1)
  tle.warp_specialize
  default "wg0" warps(4) {
    %qv = tle.wait %q reader "wg0" -> memref<8xf32, 3>
    // expected-note @+1 {{reclaimed here}}
    %s = tle.reclaim %q reader "wg0" scratch %left : memref<1x4xf32, strided<[8, 1]>, 3>
    // expected-error @+1 {{reader 'wg0' uses its view of field 'q' of pipe 'q' after it reclaimed the pipe in partition 'wg0'; the reclaim ends every view of the pipe's storage, which another reader may now own as scratch: finish with the view before the tle.reclaim}}
    %x = memref.load %qv[%c1] : memref<8xf32, 3>
    memref.store %x, %s[%c0, %c0] : memref<1x4xf32, strided<[8, 1]>, 3>
    tle.warp_yield
  }
  partition "wg1" warps(4) {
    %qv = tle.wait %q reader "wg1" -> memref<8xf32, 3>
    %x = memref.load %qv[%c1] : memref<8xf32, 3>
    %s = tle.reclaim %q reader "wg1" scratch %right : memref<1x4xf32, strided<[8, 1], offset: 4>, 3>
    memref.store %x, %s[%c0, %c0] : memref<1x4xf32, strided<[8, 1], offset: 4>, 3>
    tle.warp_return
  }
  partition "prod" warps(1) {
    memref.store %f, %qbuf[%c0, %c0] : memref<1x8xf32, 3>
    tle.commit %q
    tle.warp_return
  }
  return
}
