// RUN: tle-opt %s --tle-allocate-shared-memory -split-input-file -verify-diagnostics | FileCheck %s --enable-var-scope
// RUN: tle-opt %s --tle-allocate-shared-memory --tle-allocate-shared-memory -split-input-file -verify-diagnostics | FileCheck %s --enable-var-scope

// Plain buffers start on 128-byte lines; sizes are elements times whole
// bytes per element (an i1 takes a byte). A stale offset is recomputed.

// CHECK-LABEL: func.func @default_alignment()
// CHECK-SAME: attributes {tle.shared_memory_size = 387 : i64}
// CHECK-NEXT: tle.shared_alloc {offset = 0 : i64} : memref<3xf32, 3>
// CHECK-NEXT: tle.shared_alloc {offset = 128 : i64} : memref<5xi8, 3>
// CHECK-NEXT: tle.shared_alloc {offset = 256 : i64} : memref<2x3xf16, 3>
// CHECK-NEXT: tle.shared_alloc {offset = 384 : i64} : memref<3xi1, #gpu.address_space<workgroup>>
func.func @default_alignment() {
  %a = tle.shared_alloc : memref<3xf32, 3>
  %b = tle.shared_alloc {offset = 4096 : i64} : memref<5xi8, 3>
  %c = tle.shared_alloc : memref<2x3xf16, 3>
  %d = tle.shared_alloc : memref<3xi1, #gpu.address_space<workgroup>>
  return
}

// -----

// An explicit alignment raises the derived one, never lowers it.

// CHECK-LABEL: func.func @explicit_alignment()
// CHECK-SAME: attributes {tle.shared_memory_size = 1160 : i64}
// CHECK-NEXT: tle.shared_alloc {offset = 0 : i64} : memref<4xf32, 3>
// CHECK-NEXT: tle.shared_alloc {alignment = 1024 : i64, name = "q", offset = 1024 : i64} : memref<8xf32, 3>
// CHECK-NEXT: tle.shared_alloc {alignment = 16 : i64, offset = 1152 : i64} : memref<2xf32, 3>
func.func @explicit_alignment() {
  %a = tle.shared_alloc : memref<4xf32, 3>
  %q = tle.shared_alloc {name = "q", alignment = 1024} : memref<8xf32, 3>
  %c = tle.shared_alloc {alignment = 16} : memref<2xf32, 3>
  return
}

// -----

// A buffer bound by two pipes is one buffer. TMA writes it through an
// acquire view of one pipe, so it starts on a 1024-byte boundary; the buffer
// after it only needs 128.

// CHECK-LABEL: func.func @shared_by_two_pipes
// CHECK-SAME: attributes {tle.shared_memory_size = 17424 : i64}
// CHECK-NEXT: arith.constant
// CHECK-NEXT: tle.shared_alloc {offset = 0 : i64} : memref<2xf32, 3>
// CHECK-NEXT: tle.shared_alloc {offset = 1024 : i64} : memref<2x64x64xbf16, 3>
// CHECK-NEXT: tle.shared_alloc {offset = 17408 : i64} : memref<4xf32, 3>
// CHECK-NOT: tle.shared_alloc
func.func @shared_by_two_pipes(%map: !tle.tensor_map<64x64xbf16, swizzle = 0>, %n: index) {
  %c0 = arith.constant 0 : index
  %flag = tle.shared_alloc : memref<2xf32, 3>
  %k = tle.shared_alloc : memref<2x64x64xbf16, 3>
  %tail = tle.shared_alloc : memref<4xf32, 3>
  %a = tle.pipe "a" capacity 2 fields(k = %k : memref<2x64x64xbf16, 3>) readers(mma)
  %b = tle.pipe "b" capacity 2 fields(k = %k : memref<2x64x64xbf16, 3>) readers(mma)
  tle.warp_specialize
  default "mma" warps(4) {
    %kb = tle.wait %b[%n : index] reader "mma" -> memref<64x64xbf16, 3>
    tle.release %b[%n : index] reader "mma"
    tle.warp_yield
  }
  partition "tma" warps(1) {
    %ka = tle.acquire %a[%n : index] -> memref<64x64xbf16, 3>
    tle.tma_load %map[%c0, %c0] into %ka : !tle.tensor_map<64x64xbf16, swizzle = 0>, memref<64x64xbf16, 3>
    tle.commit %a[%n : index]
    tle.warp_return
  }
  return
}

// -----

// The tensor cores read field `p` through a wait view of a reader that
// declared only that field: `p` gets 1024, the other field (read by a
// reader that only loads it) 128.

// CHECK-LABEL: func.func @descriptor_through_wait
// CHECK-SAME: attributes {tle.shared_memory_size = 17408 : i64}
// CHECK-NEXT: tle.shared_alloc {offset = 0 : i64} : memref<3xf32, 3>
// CHECK-NEXT: tle.shared_alloc {offset = 128 : i64} : memref<2x64xf32, 3>
// CHECK-NEXT: tle.shared_alloc {offset = 1024 : i64} : memref<2x64x64xbf16, 3>
func.func @descriptor_through_wait(%n: index, %d: !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>) {
  %pad = tle.shared_alloc : memref<3xf32, 3>
  %rows = tle.shared_alloc : memref<2x64xf32, 3>
  %pbuf = tle.shared_alloc : memref<2x64x64xbf16, 3>
  %s = tle.pipe "scores" capacity 2 fields(rows = %rows : memref<2x64xf32, 3>, p = %pbuf : memref<2x64x64xbf16, 3>) readers(c = [p], other = [rows])
  tle.warp_specialize
  default "consumer" warps(4) {
    %p = tle.wait %s[%n : index] reader "c" -> memref<64x64xbf16, 3>
    %desc = nvgpu.warpgroup.generate.descriptor %p, %d : memref<64x64xbf16, 3>, !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none> -> !nvgpu.warpgroup.descriptor<tensor = memref<64x64xbf16, 3>>
    tle.release %s[%n : index] reader "c"
    tle.warp_yield
  }
  partition "other" warps(4) {
    %r = tle.wait %s[%n : index] reader "other" -> memref<64xf32, 3>
    tle.release %s[%n : index] reader "other"
    tle.warp_return
  }
  return
}

// -----

// After --tle-lower-pipes: TMA writes a view derived from a tle.slot of the
// buffer. mbarrier arrays (rank-1 i64) go after every other buffer, in
// declaration order, on 8-byte boundaries; a rank-2 i64 buffer is data.

// CHECK-LABEL: func.func @lowered
// CHECK-SAME: attributes {tle.shared_memory_size = 33856 : i64}
// CHECK: tle.shared_alloc {name = "kv.full", offset = 33824 : i64} : memref<2xi64, 3>
// CHECK-NEXT: tle.shared_alloc {offset = 0 : i64} : memref<3xf32, 3>
// CHECK-NEXT: tle.shared_alloc {offset = 1024 : i64} : memref<2x2x64x64xbf16, 3>
// CHECK-NEXT: tle.shared_alloc {name = "kv.free", offset = 33840 : i64} : memref<2xi64, 3>
// CHECK-NEXT: tle.shared_alloc {offset = 33792 : i64} : memref<2x2xi64, 3>
func.func @lowered(%map: !tle.tensor_map<64x64xbf16, swizzle = 0>, %s: index) {
  %c0 = arith.constant 0 : index
  %full = tle.shared_alloc {name = "kv.full"} : memref<2xi64, 3>
  %a = tle.shared_alloc : memref<3xf32, 3>
  %v = tle.shared_alloc : memref<2x2x64x64xbf16, 3>
  %free = tle.shared_alloc {name = "kv.free"} : memref<2xi64, 3>
  %data = tle.shared_alloc : memref<2x2xi64, 3>
  %slot = tle.slot %v[%s] : memref<2x2x64x64xbf16, 3> -> memref<2x64x64xbf16, 3>
  %half = memref.subview %slot[%c0, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xbf16, 3> to memref<64x64xbf16, strided<[64, 1], offset: ?>, 3>
  tle.tma_load %map[%c0, %c0] into %half : !tle.tensor_map<64x64xbf16, swizzle = 0>, memref<64x64xbf16, strided<[64, 1], offset: ?>, 3>
  tle.mbarrier_init %full[%c0] count 1 : memref<2xi64, 3>
  return
}

// -----

// A function without buffers gets no size, and loses a stale one.

// CHECK-LABEL: func.func @no_buffers() {
// CHECK-LABEL: func.func @stale() {
func.func @no_buffers() {
  return
}
func.func @stale() attributes {tle.shared_memory_size = 99 : i64} {
  return
}

// -----

// Each kernel has its own shared memory.

// CHECK-LABEL: func.func @first()
// CHECK-SAME: attributes {tle.shared_memory_size = 1200 : i64}
// CHECK-NEXT: tle.shared_alloc {offset = 0 : i64} : memref<300xf32, 3>
// CHECK-LABEL: func.func @second()
// CHECK-SAME: attributes {tle.shared_memory_size = 140 : i64}
// CHECK-NEXT: tle.shared_alloc {offset = 0 : i64} : memref<2xf32, 3>
// CHECK-NEXT: tle.shared_alloc {offset = 128 : i64} : memref<3xf32, 3>
func.func @first() {
  %a = tle.shared_alloc : memref<300xf32, 3>
  return
}
func.func @second() {
  %a = tle.shared_alloc : memref<2xf32, 3>
  %b = tle.shared_alloc : memref<3xf32, 3>
  return
}

// -----

// Over 227 KiB: every buffer is listed, named by its `name`, else by the
// pipe fields binding it, else by its position.

// expected-error @+1 {{kernel '@too_big' needs 237584 bytes of shared memory, over the 232448 (227 KiB) an sm_90 CTA can use:}}
func.func @too_big() {
  // expected-note @+1 {{'q': 73728 bytes at offset 0 (alignment 128)}}
  %q = tle.shared_alloc {name = "q"} : memref<64x576xbf16, 3>
  // expected-note @+1 {{'kv.l, kv2.r': 147456 bytes at offset 73728 (alignment 128)}}
  %kv = tle.shared_alloc : memref<2x64x576xbf16, 3>
  // expected-note @+1 {{'buffer #2': 16384 bytes at offset 221184 (alignment 128)}}
  %extra = tle.shared_alloc : memref<4096xf32, 3>
  // expected-note @+1 {{'buffer #3': 16 bytes at offset 237568 (alignment 8)}}
  %bar = tle.shared_alloc : memref<2xi64, 3>
  %p = tle.pipe "kv" capacity 2 fields(l = %kv : memref<2x64x576xbf16, 3>) readers(r)
  %p2 = tle.pipe "kv2" capacity 2 fields(r = %kv : memref<2x64x576xbf16, 3>) readers(r)
  return
}
