// RUN: tle-opt %s --tle-test-pipe-usage -split-input-file -verify-diagnostics -o /dev/null

// Who writes each pipe and how, where each reader runs, and which fields
// share a free barrier (the same readers read them).
func.func @transports(%src: memref<?x64xf32>, %x: vector<4xf32>,
                      %map: !tle.tensor_map<64x64xbf16, swizzle = 0>,
                      %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %b = tle.shared_alloc : memref<2x64xf32, 3>
  %t = tle.shared_alloc : memref<2x64x64xbf16, 3>
  // expected-remark @+1 {{writer 'w' (a: cp.async, b: ordinary stores and cp.async); reader 'lo' on 'left', reader 'hi' on 'right'; free barriers: [a] by lo [b] by lo hi}}
  %p = tle.pipe "p" capacity 2 fields(a = %a : memref<2x64xf32, 3>, b = %b : memref<2x64xf32, 3>) readers(lo, hi = [b])
  // expected-remark @+1 {{writer 'w' (t: TMA); reader 'r' on 'right'; free barriers: [t] by r}}
  %q = tle.pipe "q" capacity 2 fields(t = %t : memref<2x64x64xbf16, 3>) readers(r)
  tle.warp_specialize
  default "left" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %va, %vb = tle.wait %p[%i : index] reader "lo" -> memref<64xf32, 3>, memref<64xf32, 3>
      tle.release %p[%i : index] reader "lo"
    }
    tle.warp_yield
  }
  partition "right" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %vb = tle.wait %p[%i : index] reader "hi" -> memref<64xf32, 3>
      tle.release %p[%i : index] reader "hi"
      %vt = tle.wait %q[%i : index] reader "r" -> memref<64x64xbf16, 3>
      tle.release %q[%i : index] reader "r"
    }
    tle.warp_return
  }
  partition "w" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %sa, %sb = tle.acquire %p[%i : index] -> memref<64xf32, 3>, memref<64xf32, 3>
      %ta = nvgpu.device_async_copy %src[%i, %c0], %sa[%c0], 4 : memref<?x64xf32> to memref<64xf32, 3>
      %tb = nvgpu.device_async_copy %src[%i, %c0], %sb[%c0], 4 : memref<?x64xf32> to memref<64xf32, 3>
      vector.store %x, %sb[%c0] : memref<64xf32, 3>, vector<4xf32>
      tle.commit %p[%i : index]
      %st = tle.acquire %q[%i : index] -> memref<64x64xbf16, 3>
      tle.tma_load %map[%c0, %c0] into %st : !tle.tensor_map<64x64xbf16, swizzle = 0>, memref<64x64xbf16, 3>
      tle.commit %q[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// A wait whose view feeds a tensor-core descriptor hands the slot to the
// async proxy; cp.async data there needs the reader's fence, data of
// ordinary stores the writer's.
!desc = !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
func.func @async_proxy(%src: memref<?x64xbf16>, %d: !desc, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %k = tle.shared_alloc : memref<2x64x64xbf16, 3>
  %g = tle.shared_alloc : memref<2x64x64xbf16, 3>
  // expected-remark @+1 {{writer 'w' (k: cp.async, g: ordinary stores); reader 'mma' on 'mma', reader 'gen' on 'gen'; free barriers: [k] by mma [g] by gen}}
  %p = tle.pipe "kv" capacity 2 fields(k = %k : memref<2x64x64xbf16, 3>, g = %g : memref<2x64x64xbf16, 3>) readers(mma = [k], gen = [g])
  tle.warp_specialize
  default "mma" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      // expected-remark @+1 {{the async proxy reads 'k' (cp.async data)}}
      %vk = tle.wait %p[%i : index] reader "mma" -> memref<64x64xbf16, 3>
      %dk = nvgpu.warpgroup.generate.descriptor %vk, %d : memref<64x64xbf16, 3>, !desc -> !nvgpu.warpgroup.descriptor<tensor = memref<64x64xbf16, 3>>
      tle.release %p[%i : index] reader "mma"
    }
    tle.warp_yield
  }
  partition "gen" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      // expected-remark @+1 {{the async proxy reads 'g'}}
      %vg = tle.wait %p[%i : index] reader "gen" -> memref<64x64xbf16, 3>
      %dg = nvgpu.warpgroup.generate.descriptor %vg, %d : memref<64x64xbf16, 3>, !desc -> !nvgpu.warpgroup.descriptor<tensor = memref<64x64xbf16, 3>>
      tle.release %p[%i : index] reader "gen"
    }
    tle.warp_return
  }
  partition "w" warps(1) {
    %f = arith.constant 1.0 : bf16
    scf.for %i = %c0 to %n step %c1 {
      %sk, %sg = tle.acquire %p[%i : index] -> memref<64x64xbf16, 3>, memref<64x64xbf16, 3>
      %t = nvgpu.device_async_copy %src[%i, %c0], %sk[%c0, %c0], 8 : memref<?x64xbf16> to memref<64x64xbf16, 3>
      memref.store %f, %sg[%c0, %c0] : memref<64x64xbf16, 3>
      tle.commit %p[%i : index]
    }
    tle.warp_return
  }
  return
}
