// RUN: tle-opt %s --tle-test-slot-views -split-input-file -verify-diagnostics -o /dev/null

// Views used inside their windows, one carried by the loop through its
// iter_arg and result.
func.func @inside(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  // expected-remark @+1 {{every slot is touched through its views, inside its window}}
  tle.warp_specialize
  default "r" warps(4) {
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
    tle.warp_yield
  }
  partition "w" warps(1) {
    %f = arith.constant 1.0 : f32
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.acquire %p[%i : index] -> memref<64xf32, 3>
      memref.store %f, %v[%c0] : memref<64xf32, 3>
      tle.commit %p[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// A view used after its release.
func.func @after_release() {
  %c0 = arith.constant 0 : index
  %a = tle.shared_alloc : memref<1x64xf32, 3>
  %p = tle.pipe "kv" capacity 1 fields(a = %a : memref<1x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %v = tle.wait %p[%c0 : index] reader "r" -> memref<64xf32, 3>
    // expected-note @+1 {{the slot is given up here}}
    tle.release %p[%c0 : index] reader "r"
    // expected-error @+1 {{uses the slot of field 'a' of pipe 'kv' after the reader 'r' released it}}
    %x = memref.load %v[%c0] : memref<64xf32, 3>
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

// A subview that reaches past the end of its slot (an offset that became
// a constant, as a replica index does).
func.func @out_of_slot() {
  %c0 = arith.constant 0 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %v = tle.wait %p[%c0 : index] reader "r" -> memref<64xf32, 3>
    tle.release %p[%c0 : index] reader "r"
    tle.warp_yield
  }
  partition "w" warps(1) {
    %v = tle.acquire %p[%c0 : index] -> memref<64xf32, 3>
    %c48 = arith.constant 48 : index
    // expected-error @+1 {{this view covers bytes 192..319 of the slot of field 'a' of pipe 'kv' that the writer holds in partition 'w', which has 256 bytes: it reaches into another slot, which its writer refills meanwhile; every view of a slot lies inside it}}
    %tail = memref.subview %v[%c48] [32] [1] : memref<64xf32, 3> to memref<32xf32, strided<[1], offset: ?>, 3>
    tle.commit %p[%c0 : index]
    tle.warp_return
  }
  return
}

// -----

// A reader that reads the buffer instead of its slot view.
func.func @direct() {
  %c0 = arith.constant 0 : index
  %a = tle.shared_alloc : memref<1x64xf32, 3>
  %p = tle.pipe "kv" capacity 1 fields(a = %a : memref<1x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %v = tle.wait %p[%c0 : index] reader "r" -> memref<64xf32, 3>
    // expected-error @+1 {{partition 'r' accesses the buffer of field 'a' of pipe 'kv' directly; a pipe's buffers are accessed only through the slot views that tle.acquire and tle.wait return, until the matching tle.commit or tle.release; a dead pipe's storage becomes scratch through tle.reclaim}}
    %x = memref.load %a[%c0, %c0] : memref<1x64xf32, 3>
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
