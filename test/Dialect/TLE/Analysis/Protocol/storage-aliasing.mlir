// RUN: tle-opt %s --tle-test-storage-aliasing -split-input-file -verify-diagnostics -o /dev/null

// The seesaw's P-in-rope in miniature: pipe p lies in field rope of pipe k,
// and every window on p lies inside a window on k of the same partition
// that declares the rope (docs/SyncDerivation.md, the nesting rule).
func.func @nested_ok(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %f = arith.constant 1.0 : f32
  %kmem = tle.shared_alloc {name = "k"} : memref<64xi8, 3>
  %main = memref.view %kmem[%c0][] : memref<64xi8, 3> to memref<2x4xf32, 3>
  %rope = memref.view %kmem[%c32][] : memref<64xi8, 3> to memref<2x4xf32, 3>
  %pbuf = memref.view %kmem[%c32][] : memref<64xi8, 3> to memref<2x4xf32, 3>
  // expected-remark @+1 {{holds pipe 'p'}}
  %k = tle.pipe "k" capacity 2 fields(main = %main : memref<2x4xf32, 3>, rope = %rope : memref<2x4xf32, 3>) readers(wg0, wg1)
  %p = tle.pipe "p" capacity 2 fields(p = %pbuf : memref<2x4xf32, 3>) readers(wg1)
  // expected-remark @+1 {{every pipe that shares bytes keeps the nesting rule}}
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

// wg1 releases k before it waits for p: k's writer may refill the rope,
// and so p's slot, while wg1 still reads it.
func.func @outside_window(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %f = arith.constant 1.0 : f32
  %kmem = tle.shared_alloc {name = "k"} : memref<64xi8, 3>
  %main = memref.view %kmem[%c0][] : memref<64xi8, 3> to memref<2x4xf32, 3>
  %rope = memref.view %kmem[%c32][] : memref<64xi8, 3> to memref<2x4xf32, 3>
  %pbuf = memref.view %kmem[%c32][] : memref<64xi8, 3> to memref<2x4xf32, 3>
  // expected-remark @+1 {{holds pipe 'p'}}
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
      tle.release %k[%i : index] reader "wg1"
      // expected-error @+1 {{reader 'wg1' of pipe 'p' in partition 'wg1' lies outside the window of reader 'wg1' on pipe 'k' for the same iteration; the storage of pipe 'p' lies inside field 'rope' of pipe 'k', so each window on it must lie between a tle.wait and the tle.release of 'k' in the same block}}
      %pv = tle.wait %p[%i : index] reader "wg1" -> memref<4xf32, 3>
      %y = memref.load %pv[%c0] : memref<4xf32, 3>
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
