// RUN: tle-opt %s --tle-test-storage-reclaim -split-input-file -verify-diagnostics -o /dev/null

// Both readers of a one_shot Q reclaim it after their last read and use
// disjoint halves of it as scratch.
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
    // expected-remark @+1 {{reader 'wg0' may use pipe 'q' as scratch from here}}
    %s = tle.reclaim %q reader "wg0" scratch %left : memref<1x4xf32, strided<[8, 1]>, 3>
    memref.store %x, %s[%c0, %c0] : memref<1x4xf32, strided<[8, 1]>, 3>
    tle.warp_yield
  }
  partition "wg1" warps(4) {
    %qv = tle.wait %q reader "wg1" -> memref<8xf32, 3>
    %x = memref.load %qv[%c1] : memref<8xf32, 3>
    // expected-remark @+1 {{reader 'wg1' may use pipe 'q' as scratch from here}}
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
