// RUN: tle-opt %s --tle-test-storage-footprint -split-input-file -verify-diagnostics -o /dev/null

// Views with constant offsets are followed to the bytes of their
// allocation: a byte shift, a subview (one run per row when the rows are
// not contiguous), a cast; a dynamic shift is not.
func.func @views(%shift: index) {
  %c64 = arith.constant 64 : index
  // expected-remark @+1 {{bytes 0..1023 of buffer 'k'}}
  %k = tle.shared_alloc {name = "k"} : memref<1024xi8, 3>
  // expected-remark @+1 {{bytes 64..575 of buffer 'k'}}
  %m = memref.view %k[%c64][] : memref<1024xi8, 3> to memref<8x16xf32, 3>
  // expected-remark @+1 {{bytes 96..127, 160..191 of buffer 'k'}}
  %s = memref.subview %m[0, 8] [2, 8] [1, 1] : memref<8x16xf32, 3> to memref<2x8xf32, strided<[16, 1], offset: 8>, 3>
  // expected-remark @+1 {{bytes 96..127, 160..191 of buffer 'k'}}
  %c = memref.cast %s : memref<2x8xf32, strided<[16, 1], offset: 8>, 3> to memref<2x8xf32, strided<[16, 1], offset: ?>, 3>
  // expected-remark @+1 {{unknown (the memref.view at line 17, whose byte shift is not a constant)}}
  %d = memref.view %k[%shift][] : memref<1024xi8, 3> to memref<4xf32, 3>
  return
}

// -----

// The slots of a pipe's fields, and a view of a slot within it.
func.func @slots(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  // expected-remark @+1 {{bytes 0..767 of buffer 'kv'}}
  %kv = tle.shared_alloc {name = "kv"} : memref<768xi8, 3>
  // expected-remark @+1 {{bytes 0..255 of buffer 'kv'}}
  %a = memref.view %kv[%c0][] : memref<768xi8, 3> to memref<2x32xf32, 3>
  // expected-remark @+1 {{bytes 256..767 of buffer 'kv'}}
  %b = memref.view %kv[%c256][] : memref<768xi8, 3> to memref<2x64xf32, 3>
  // expected-remark @+1 {{a[0]: bytes 0..127; a[1]: bytes 128..255; b[0]: bytes 256..511; b[1]: bytes 512..767}}
  %p = tle.pipe "p" capacity 2 fields(a = %a : memref<2x32xf32, 3>, b = %b : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %va, %vb = tle.wait %p[%i : index] reader "r" -> memref<32xf32, 3>, memref<64xf32, 3>
      // expected-remark @+1 {{within its slot: bytes 128..255}}
      %half = memref.subview %vb[32] [32] [1] : memref<64xf32, 3> to memref<32xf32, strided<[1], offset: 32>, 3>
      tle.release %p[%i : index] reader "r"
    }
    tle.warp_yield
  }
  partition "w" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %va, %vb = tle.acquire %p[%i : index] -> memref<32xf32, 3>, memref<64xf32, 3>
      tle.commit %p[%i : index]
    }
    tle.warp_return
  }
  return
}
