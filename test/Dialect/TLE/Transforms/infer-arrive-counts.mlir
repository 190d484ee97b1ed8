// RUN: tle-opt %s --tle-infer-arrive-counts -split-input-file -verify-diagnostics | FileCheck %s --enable-var-scope
// RUN: tle-opt %s --tle-infer-arrive-counts=generic-arrive=elected -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=ELECTED

// Ordinary stores from a one-warp writer, capacity 1, 2 and 3; readers of
// 4 and 8 warps with different field subsets.

// CHECK-LABEL: func.func @ordinary_stores
// CHECK: tle.pipe "c1" capacity 1
// CHECK-SAME: tle.barriers = [
// CHECK-SAME: #tle.barrier<full, fields = ["x"], count = 32, txBytes = 0, arrive = per_thread, fence = no, arrivers = ["w"], waiters = ["narrow"]>,
// CHECK-SAME: #tle.barrier<free, fields = ["x"], count = 128, txBytes = 0, arrive = per_thread, fence = no, arrivers = ["narrow"], waiters = ["w"]>]
// CHECK: tle.pipe "c2" capacity 2
// CHECK-SAME: #tle.barrier<full, fields = ["lo", "hi"], count = 32, txBytes = 0, arrive = per_thread, fence = no, arrivers = ["w"], waiters = ["narrow", "wide"]>,
// CHECK-SAME: #tle.barrier<free, fields = ["lo"], count = 128, txBytes = 0, arrive = per_thread, fence = no, arrivers = ["narrow"], waiters = ["w"]>,
// CHECK-SAME: #tle.barrier<free, fields = ["hi"], count = 256, txBytes = 0, arrive = per_thread, fence = no, arrivers = ["wide"], waiters = ["w"]>]
// The tail is read by both readers: its free barrier counts both.
// CHECK: tle.pipe "c3" capacity 3
// CHECK-SAME: #tle.barrier<full, fields = ["lo", "hi", "tail"], count = 32, txBytes = 0, arrive = per_thread, fence = no, arrivers = ["w"], waiters = ["narrow", "wide"]>,
// CHECK-SAME: #tle.barrier<free, fields = ["lo"], count = 128, txBytes = 0, arrive = per_thread, fence = no, arrivers = ["narrow"], waiters = ["w"]>,
// CHECK-SAME: #tle.barrier<free, fields = ["hi"], count = 256, txBytes = 0, arrive = per_thread, fence = no, arrivers = ["wide"], waiters = ["w"]>,
// CHECK-SAME: #tle.barrier<free, fields = ["tail"], count = 384, txBytes = 0, arrive = per_thread, fence = no, arrivers = ["narrow", "wide"], waiters = ["w"]>]

// ELECTED-LABEL: func.func @ordinary_stores
// ELECTED: tle.pipe "c3"
// ELECTED-SAME: #tle.barrier<full, fields = ["lo", "hi", "tail"], count = 1, txBytes = 0, arrive = elected,
// ELECTED-SAME: #tle.barrier<free, fields = ["lo"], count = 1, txBytes = 0, arrive = elected,
// ELECTED-SAME: #tle.barrier<free, fields = ["tail"], count = 2, txBytes = 0, arrive = elected,
func.func @ordinary_stores(%n: index, %x: vector<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b1 = tle.shared_alloc : memref<1x64xf32, 3>
  %lo2 = tle.shared_alloc : memref<2x64xf32, 3>
  %hi2 = tle.shared_alloc : memref<2x64xf32, 3>
  %lo3 = tle.shared_alloc : memref<3x64xf32, 3>
  %hi3 = tle.shared_alloc : memref<3x64xf32, 3>
  %tail3 = tle.shared_alloc : memref<3x16xf32, 3>
  %p1 = tle.pipe "c1" capacity 1 fields(x = %b1 : memref<1x64xf32, 3>) readers(n)
  %p2 = tle.pipe "c2" capacity 2 fields(lo = %lo2 : memref<2x64xf32, 3>, hi = %hi2 : memref<2x64xf32, 3>) readers(n = [lo], w = [hi])
  %p3 = tle.pipe "c3" capacity 3 fields(lo = %lo3 : memref<3x64xf32, 3>, hi = %hi3 : memref<3x64xf32, 3>, tail = %tail3 : memref<3x16xf32, 3>) readers(n = [lo, tail], w = [hi, tail])
  tle.warp_specialize
  default "narrow" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %v1 = tle.wait %p1[%i : index] reader "n" -> memref<64xf32, 3>
      tle.release %p1[%i : index] reader "n"
      %v2 = tle.wait %p2[%i : index] reader "n" -> memref<64xf32, 3>
      tle.release %p2[%i : index] reader "n"
      %v3, %t3 = tle.wait %p3[%i : index] reader "n" -> memref<64xf32, 3>, memref<16xf32, 3>
      tle.release %p3[%i : index] reader "n"
    }
    tle.warp_yield
  }
  partition "wide" warps(8) {
    scf.for %i = %c0 to %n step %c1 {
      %v2 = tle.wait %p2[%i : index] reader "w" -> memref<64xf32, 3>
      tle.release %p2[%i : index] reader "w"
      %v3, %t3 = tle.wait %p3[%i : index] reader "w" -> memref<64xf32, 3>, memref<16xf32, 3>
      tle.release %p3[%i : index] reader "w"
    }
    tle.warp_return
  }
  partition "w" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %s1 = tle.acquire %p1[%i : index] -> memref<64xf32, 3>
      vector.store %x, %s1[%c0] : memref<64xf32, 3>, vector<4xf32>
      tle.commit %p1[%i : index]
      %l2, %h2 = tle.acquire %p2[%i : index] -> memref<64xf32, 3>, memref<64xf32, 3>
      vector.store %x, %l2[%c0] : memref<64xf32, 3>, vector<4xf32>
      vector.store %x, %h2[%c0] : memref<64xf32, 3>, vector<4xf32>
      tle.commit %p2[%i : index]
      %l3, %h3, %t3 = tle.acquire %p3[%i : index] -> memref<64xf32, 3>, memref<64xf32, 3>, memref<16xf32, 3>
      vector.store %x, %t3[%c0] : memref<16xf32, 3>, vector<4xf32>
      tle.commit %p3[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// one_shot: only a full barrier, counted from the direct buffer writes.

// CHECK-LABEL: func.func @one_shot
// CHECK: tle.pipe "q" capacity 1 one_shot
// CHECK-SAME: tle.barriers = [#tle.barrier<full, fields = ["q"], count = 128, txBytes = 0, arrive = per_thread, fence = no, arrivers = ["load"], waiters = ["mma"]>]}
func.func @one_shot(%x: f32) {
  %c0 = arith.constant 0 : index
  %q = tle.shared_alloc : memref<1x64xf32, 3>
  %qp = tle.pipe "q" capacity 1 one_shot fields(q = %q : memref<1x64xf32, 3>) readers(mma)
  tle.warp_specialize
  default "mma" warps(4) {
    %v = tle.wait %qp reader "mma" -> memref<64xf32, 3>
    tle.warp_yield
  }
  partition "load" warps(4) {
    memref.store %x, %q[%c0, %c0] : memref<1x64xf32, 3>
    tle.commit %qp
    tle.warp_return
  }
  return
}

// -----

// TMA: one expect_tx arrive; the bytes of every copy into the slot, a copy
// in a constant-trip loop counted per trip. TMA writes are async-proxy
// writes, so tensor-core readers need no fence.

// CHECK-LABEL: func.func @tma
// CHECK: tle.pipe "kv" capacity 2
// CHECK-SAME: #tle.barrier<full, fields = ["k", "v"], count = 1, txBytes = 24576, arrive = expect_tx, fence = no, arrivers = ["tma"], waiters = ["mma"]>,
// CHECK-SAME: #tle.barrier<free, fields = ["k", "v"], count = 128, txBytes = 0, arrive = per_thread, fence = no, arrivers = ["mma"], waiters = ["tma"]>]
func.func @tma(%map: !tle.tensor_map<64x64xbf16, swizzle = 0>, %n: index, %d: !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %k = tle.shared_alloc : memref<2x64x64xbf16, 3>
  %v = tle.shared_alloc : memref<2x2x64x64xbf16, 3>
  %kv = tle.pipe "kv" capacity 2 fields(k = %k : memref<2x64x64xbf16, 3>, v = %v : memref<2x2x64x64xbf16, 3>) readers(mma)
  tle.warp_specialize
  default "mma" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %ks, %vs = tle.wait %kv[%i : index] reader "mma" -> memref<64x64xbf16, 3>, memref<2x64x64xbf16, 3>
      %desc = nvgpu.warpgroup.generate.descriptor %ks, %d : memref<64x64xbf16, 3>, !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none> -> !nvgpu.warpgroup.descriptor<tensor = memref<64x64xbf16, 3>>
      tle.release %kv[%i : index] reader "mma"
    }
    tle.warp_yield
  }
  partition "tma" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %ks, %vs = tle.acquire %kv[%i : index] -> memref<64x64xbf16, 3>, memref<2x64x64xbf16, 3>
      tle.tma_load %map[%c0, %c0] into %ks : !tle.tensor_map<64x64xbf16, swizzle = 0>, memref<64x64xbf16, 3>
      scf.for %h = %c0 to %c2 step %c1 {
        %half = memref.subview %vs[%h, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xbf16, 3> to memref<64x64xbf16, strided<[64, 1], offset: ?>, 3>
        %flat = memref.collapse_shape %half [[0], [1]] : memref<64x64xbf16, strided<[64, 1], offset: ?>, 3> into memref<64x64xbf16, strided<[64, 1], offset: ?>, 3>
        tle.tma_load %map[%c0, %c0] into %flat : !tle.tensor_map<64x64xbf16, swizzle = 0>, memref<64x64xbf16, strided<[64, 1], offset: ?>, 3>
      }
      tle.commit %kv[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// cp.async alone: one .noinc arrive per writer thread. cp.async mixed with
// ordinary stores: both arrives per thread. A field read by the tensor
// cores needs a proxy fence: in the writer when ordinary stores wrote it,
// in the readers when cp.async did (biased: only the copied rows reach
// the tensor cores; mixed: both kinds do).

// CHECK-LABEL: func.func @cp_async
// CHECK: tle.pipe "gather" capacity 2
// CHECK-SAME: #tle.barrier<full, fields = ["rows"], count = 128, txBytes = 0, arrive = cp_async, fence = no, arrivers = ["producer"], waiters = ["consumer"]>
// CHECK: tle.pipe "masked" capacity 2
// CHECK-SAME: #tle.barrier<full, fields = ["rows", "mask"], count = 256, txBytes = 0, arrive = cp_async_and_per_thread, fence = no,
// CHECK: tle.pipe "scores" capacity 2
// CHECK-SAME: #tle.barrier<full, fields = ["p"], count = 128, txBytes = 0, arrive = per_thread, fence = writer, arrivers = ["producer"], waiters = ["consumer"]>
// CHECK: tle.pipe "biased" capacity 2
// CHECK-SAME: #tle.barrier<full, fields = ["k", "bias"], count = 256, txBytes = 0, arrive = cp_async_and_per_thread, fence = readers,
// CHECK: tle.pipe "mixed" capacity 2
// CHECK-SAME: #tle.barrier<full, fields = ["k", "p"], count = 256, txBytes = 0, arrive = cp_async_and_per_thread, fence = both,
func.func @cp_async(%src: memref<?x64xf32>, %src2: memref<?x64xbf16>, %n: index, %x: f32, %y: vector<8xbf16>, %d: !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = tle.shared_alloc : memref<2x64xf32, 3>
  %rows2 = tle.shared_alloc : memref<2x64xf32, 3>
  %mask = tle.shared_alloc : memref<2x64xf32, 3>
  %pbuf = tle.shared_alloc : memref<2x64x64xbf16, 3>
  %g = tle.pipe "gather" capacity 2 fields(rows = %rows : memref<2x64xf32, 3>) readers(c)
  %m = tle.pipe "masked" capacity 2 fields(rows = %rows2 : memref<2x64xf32, 3>, mask = %mask : memref<2x64xf32, 3>) readers(c)
  %s = tle.pipe "scores" capacity 2 fields(p = %pbuf : memref<2x64x64xbf16, 3>) readers(c)
  %kb = tle.shared_alloc : memref<2x64x64xbf16, 3>
  %bb = tle.shared_alloc : memref<2x64xf32, 3>
  %kx = tle.shared_alloc : memref<2x64x64xbf16, 3>
  %px = tle.shared_alloc : memref<2x64x64xbf16, 3>
  %bi = tle.pipe "biased" capacity 2 fields(k = %kb : memref<2x64x64xbf16, 3>, bias = %bb : memref<2x64xf32, 3>) readers(c)
  %mx = tle.pipe "mixed" capacity 2 fields(k = %kx : memref<2x64x64xbf16, 3>, p = %px : memref<2x64x64xbf16, 3>) readers(c)
  tle.warp_specialize
  default "consumer" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %a = tle.wait %g[%i : index] reader "c" -> memref<64xf32, 3>
      tle.release %g[%i : index] reader "c"
      %b, %bm = tle.wait %m[%i : index] reader "c" -> memref<64xf32, 3>, memref<64xf32, 3>
      tle.release %m[%i : index] reader "c"
      %p = tle.wait %s[%i : index] reader "c" -> memref<64x64xbf16, 3>
      %desc = nvgpu.warpgroup.generate.descriptor %p, %d : memref<64x64xbf16, 3>, !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none> -> !nvgpu.warpgroup.descriptor<tensor = memref<64x64xbf16, 3>>
      tle.release %s[%i : index] reader "c"
      %ck, %cb = tle.wait %bi[%i : index] reader "c" -> memref<64x64xbf16, 3>, memref<64xf32, 3>
      %dk = nvgpu.warpgroup.generate.descriptor %ck, %d : memref<64x64xbf16, 3>, !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none> -> !nvgpu.warpgroup.descriptor<tensor = memref<64x64xbf16, 3>>
      %cbv = memref.load %cb[%c0] : memref<64xf32, 3>
      tle.release %bi[%i : index] reader "c"
      %xk, %xp = tle.wait %mx[%i : index] reader "c" -> memref<64x64xbf16, 3>, memref<64x64xbf16, 3>
      %dxk = nvgpu.warpgroup.generate.descriptor %xk, %d : memref<64x64xbf16, 3>, !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none> -> !nvgpu.warpgroup.descriptor<tensor = memref<64x64xbf16, 3>>
      %dxp = nvgpu.warpgroup.generate.descriptor %xp, %d : memref<64x64xbf16, 3>, !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none> -> !nvgpu.warpgroup.descriptor<tensor = memref<64x64xbf16, 3>>
      tle.release %mx[%i : index] reader "c"
    }
    tle.warp_yield
  }
  partition "producer" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %a = tle.acquire %g[%i : index] -> memref<64xf32, 3>
      %t0 = nvgpu.device_async_copy %src[%i, %c0], %a[%c0], 4 : memref<?x64xf32> to memref<64xf32, 3>
      tle.commit %g[%i : index]
      %b, %bm = tle.acquire %m[%i : index] -> memref<64xf32, 3>, memref<64xf32, 3>
      %t1 = nvgpu.device_async_copy %src[%i, %c0], %b[%c0], 4 : memref<?x64xf32> to memref<64xf32, 3>
      memref.store %x, %bm[%c0] : memref<64xf32, 3>
      tle.commit %m[%i : index]
      %p = tle.acquire %s[%i : index] -> memref<64x64xbf16, 3>
      vector.store %y, %p[%c0, %c0] : memref<64x64xbf16, 3>, vector<8xbf16>
      tle.commit %s[%i : index]
      %wk, %wb = tle.acquire %bi[%i : index] -> memref<64x64xbf16, 3>, memref<64xf32, 3>
      %t2 = nvgpu.device_async_copy %src2[%i, %c0], %wk[%c0, %c0], 8 : memref<?x64xbf16> to memref<64x64xbf16, 3>
      memref.store %x, %wb[%c0] : memref<64xf32, 3>
      tle.commit %bi[%i : index]
      %vk, %vp = tle.acquire %mx[%i : index] -> memref<64x64xbf16, 3>, memref<64x64xbf16, 3>
      %t3 = nvgpu.device_async_copy %src2[%i, %c0], %vk[%c0, %c0], 8 : memref<?x64xbf16> to memref<64x64xbf16, 3>
      vector.store %y, %vp[%c0, %c0] : memref<64x64xbf16, 3>, vector<8xbf16>
      tle.commit %mx[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// tle.cp_async_fence = "none": the readers of cp.async data do not fence
// (biased: no fence at all; mixed: the writer still fences its stores).

// CHECK-LABEL: func.func @cp_async_unfenced
// CHECK: tle.pipe "biased" capacity 2
// CHECK-SAME: #tle.barrier<full, fields = ["k", "bias"], count = 256, txBytes = 0, arrive = cp_async_and_per_thread, fence = no,
// CHECK: tle.pipe "mixed" capacity 2
// CHECK-SAME: #tle.barrier<full, fields = ["k", "p"], count = 256, txBytes = 0, arrive = cp_async_and_per_thread, fence = writer,
func.func @cp_async_unfenced(%src2: memref<?x64xbf16>, %n: index, %x: f32, %y: vector<8xbf16>, %d: !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>) attributes {tle.cp_async_fence = "none"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %kb = tle.shared_alloc : memref<2x64x64xbf16, 3>
  %bb = tle.shared_alloc : memref<2x64xf32, 3>
  %kx = tle.shared_alloc : memref<2x64x64xbf16, 3>
  %px = tle.shared_alloc : memref<2x64x64xbf16, 3>
  %bi = tle.pipe "biased" capacity 2 fields(k = %kb : memref<2x64x64xbf16, 3>, bias = %bb : memref<2x64xf32, 3>) readers(c)
  %mx = tle.pipe "mixed" capacity 2 fields(k = %kx : memref<2x64x64xbf16, 3>, p = %px : memref<2x64x64xbf16, 3>) readers(c)
  tle.warp_specialize
  default "consumer" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %ck, %cb = tle.wait %bi[%i : index] reader "c" -> memref<64x64xbf16, 3>, memref<64xf32, 3>
      %dk = nvgpu.warpgroup.generate.descriptor %ck, %d : memref<64x64xbf16, 3>, !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none> -> !nvgpu.warpgroup.descriptor<tensor = memref<64x64xbf16, 3>>
      %cbv = memref.load %cb[%c0] : memref<64xf32, 3>
      tle.release %bi[%i : index] reader "c"
      %xk, %xp = tle.wait %mx[%i : index] reader "c" -> memref<64x64xbf16, 3>, memref<64x64xbf16, 3>
      %dxk = nvgpu.warpgroup.generate.descriptor %xk, %d : memref<64x64xbf16, 3>, !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none> -> !nvgpu.warpgroup.descriptor<tensor = memref<64x64xbf16, 3>>
      %dxp = nvgpu.warpgroup.generate.descriptor %xp, %d : memref<64x64xbf16, 3>, !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none> -> !nvgpu.warpgroup.descriptor<tensor = memref<64x64xbf16, 3>>
      tle.release %mx[%i : index] reader "c"
    }
    tle.warp_yield
  }
  partition "producer" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %wk, %wb = tle.acquire %bi[%i : index] -> memref<64x64xbf16, 3>, memref<64xf32, 3>
      %t2 = nvgpu.device_async_copy %src2[%i, %c0], %wk[%c0, %c0], 8 : memref<?x64xbf16> to memref<64x64xbf16, 3>
      memref.store %x, %wb[%c0] : memref<64xf32, 3>
      tle.commit %bi[%i : index]
      %vk, %vp = tle.acquire %mx[%i : index] -> memref<64x64xbf16, 3>, memref<64x64xbf16, 3>
      %t3 = nvgpu.device_async_copy %src2[%i, %c0], %vk[%c0, %c0], 8 : memref<?x64xbf16> to memref<64x64xbf16, 3>
      vector.store %y, %vp[%c0, %c0] : memref<64x64xbf16, 3>, vector<8xbf16>
      tle.commit %mx[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

func.func @tma_mixed(%map: !tle.tensor_map<64xf32, swizzle = 0>, %n: index, %x: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %k = tle.shared_alloc : memref<2x64xf32, 3>
  %m = tle.shared_alloc : memref<2x64xf32, 3>
  // expected-error @+1 {{pipe 'kv' is written by TMA and ordinary stores; no arrive rule mixes TMA with another transport in one pipe: split the TMA fields into a pipe of their own}}
  %kv = tle.pipe "kv" capacity 2 fields(k = %k : memref<2x64xf32, 3>, m = %m : memref<2x64xf32, 3>) readers(c)
  tle.warp_specialize
  default "c" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %a, %b = tle.wait %kv[%i : index] reader "c" -> memref<64xf32, 3>, memref<64xf32, 3>
      tle.release %kv[%i : index] reader "c"
    }
    tle.warp_yield
  }
  partition "w" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %a, %b = tle.acquire %kv[%i : index] -> memref<64xf32, 3>, memref<64xf32, 3>
      tle.tma_load %map[%c0] into %a : !tle.tensor_map<64xf32, swizzle = 0>, memref<64xf32, 3>
      memref.store %x, %b[%c0] : memref<64xf32, 3>
      tle.commit %kv[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

func.func @tma_bytes_differ(%map: !tle.tensor_map<64xf32, swizzle = 0>, %map1: !tle.tensor_map<32xf32, swizzle = 0>, %x: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %k = tle.shared_alloc : memref<2x64xf32, 3>
  %kv = tle.pipe "kv" capacity 2 fields(k = %k : memref<2x64xf32, 3>) readers(c)
  tle.warp_specialize
  default "c" warps(4) {
    %a = tle.wait %kv[%c0 : index] reader "c" -> memref<64xf32, 3>
    tle.release %kv[%c0 : index] reader "c"
    %b = tle.wait %kv[%c1 : index] reader "c" -> memref<64xf32, 3>
    tle.release %kv[%c1 : index] reader "c"
    tle.warp_yield
  }
  partition "w" warps(1) {
    %a = tle.acquire %kv[%c0 : index] -> memref<64xf32, 3>
    tle.tma_load %map[%c0] into %a : !tle.tensor_map<64xf32, swizzle = 0>, memref<64xf32, 3>
    tle.commit %kv[%c0 : index]
    // expected-error @+1 {{TMA copies 128 bytes into this slot of pipe 'kv' but 256 into another; every commit must expect the same bytes}}
    %b = tle.acquire %kv[%c1 : index] -> memref<64xf32, 3>
    %half = memref.subview %b[0] [32] [1] : memref<64xf32, 3> to memref<32xf32, strided<[1]>, 3>
    tle.tma_load %map1[%c0] into %half : !tle.tensor_map<32xf32, swizzle = 0>, memref<32xf32, strided<[1]>, 3>
    tle.commit %kv[%c1 : index]
    tle.warp_return
  }
  return
}

// -----

func.func @tma_unknown_trips(%map: !tle.tensor_map<64xf32, swizzle = 0>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %k = tle.shared_alloc : memref<2x64xf32, 3>
  %kv = tle.pipe "kv" capacity 2 fields(k = %k : memref<2x64xf32, 3>) readers(c)
  tle.warp_specialize
  default "c" warps(4) {
    %a = tle.wait %kv[%c0 : index] reader "c" -> memref<64xf32, 3>
    tle.release %kv[%c0 : index] reader "c"
    tle.warp_yield
  }
  partition "w" warps(1) {
    %a = tle.acquire %kv[%c0 : index] -> memref<64xf32, 3>
    scf.for %j = %c0 to %n step %c1 {
      // expected-error @+1 {{cannot count the bytes this TMA copy adds to a slot of pipe 'kv': it sits in 'scf.for', which does not run a constant number of times}}
      tle.tma_load %map[%c0] into %a : !tle.tensor_map<64xf32, swizzle = 0>, memref<64xf32, 3>
    }
    tle.commit %kv[%c0 : index]
    tle.warp_return
  }
  return
}
