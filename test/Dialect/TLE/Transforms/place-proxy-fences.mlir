// RUN: tle-opt %s -split-input-file --tle-infer-arrive-counts --tle-place-proxy-fences=form=bidirectional | FileCheck %s --enable-var-scope
// RUN: tle-opt %s -split-input-file --tle-infer-arrive-counts --tle-place-proxy-fences | FileCheck %s --check-prefix=ACQUIRE
// RUN: not tle-opt %s -split-input-file --tle-place-proxy-fences=form=writer 2>&1 | FileCheck %s --check-prefix=FORM

// A reader of cp.async data fences once between its waits and the async
// proxy's first read: two waits back to back share the fence, which goes
// right after the second.

// CHECK-LABEL: func.func @back_to_back
// CHECK: default "mma"
// CHECK: tle.wait %{{.*}} reader "mma"
// CHECK-NEXT: tle.wait %{{.*}} reader "mma"
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: nvgpu.warpgroup.generate.descriptor
// CHECK-NEXT: nvgpu.warpgroup.generate.descriptor
// CHECK-NOT: nvvm.fence.proxy
// CHECK: partition "gather"
// CHECK-NOT: nvvm.fence.proxy
// CHECK: return

// The one-directional acquire form of PTX 8.6 (the default), at the same
// place.
// ACQUIRE-LABEL: func.func @back_to_back
// ACQUIRE: tle.wait %{{.*}} reader "mma"
// ACQUIRE-NEXT: tle.wait %{{.*}} reader "mma"
// ACQUIRE-NEXT: nvvm.fence.proxy.sync_restrict {order = #nvvm.mem_order<acquire>}
// ACQUIRE-NEXT: nvgpu.warpgroup.generate.descriptor

// FORM: error: form must be 'bidirectional' or 'acquire', got 'writer'
!td = !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!wd = !nvgpu.warpgroup.descriptor<tensor = memref<64x64xbf16, 3>>
func.func @back_to_back(%src: memref<?x64xbf16>, %n: index, %d: !td) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ka = tle.shared_alloc : memref<2x64x64xbf16, 3>
  %kb = tle.shared_alloc : memref<2x64x64xbf16, 3>
  %a = tle.pipe "a" capacity 2 fields(k = %ka : memref<2x64x64xbf16, 3>) readers(mma)
  %b = tle.pipe "b" capacity 2 fields(k = %kb : memref<2x64x64xbf16, 3>) readers(mma)
  tle.warp_specialize
  default "mma" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %va = tle.wait %a[%i : index] reader "mma" -> memref<64x64xbf16, 3>
      %vb = tle.wait %b[%i : index] reader "mma" -> memref<64x64xbf16, 3>
      %da = nvgpu.warpgroup.generate.descriptor %va, %d : memref<64x64xbf16, 3>, !td -> !wd
      %db = nvgpu.warpgroup.generate.descriptor %vb, %d : memref<64x64xbf16, 3>, !td -> !wd
      tle.release %a[%i : index] reader "mma"
      tle.release %b[%i : index] reader "mma"
    }
    tle.warp_yield
  }
  partition "gather" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %va = tle.acquire %a[%i : index] -> memref<64x64xbf16, 3>
      %t0 = nvgpu.device_async_copy %src[%i, %c0], %va[%c0, %c0], 8 : memref<?x64xbf16> to memref<64x64xbf16, 3>
      tle.commit %a[%i : index]
      %vb = tle.acquire %b[%i : index] -> memref<64x64xbf16, 3>
      %t1 = nvgpu.device_async_copy %src[%i, %c0], %vb[%c0, %c0], 8 : memref<?x64xbf16> to memref<64x64xbf16, 3>
      tle.commit %b[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// Q's wait before the loop needs no fence of its own: the first tile's
// fence after its wait orders Q too. The loop may run no iteration, so a
// read of Q after it is fenced after the loop.

// CHECK-LABEL: func.func @outer_wait
// CHECK: default "mma"
// CHECK: tle.wait %{{.*}} reader "mma"
// CHECK-NEXT: scf.for
// CHECK-NEXT: tle.wait %{{.*}} reader "mma"
// CHECK-NEXT: nvvm.fence.proxy
// CHECK-NEXT: nvgpu.warpgroup.generate.descriptor
// CHECK-NEXT: nvgpu.warpgroup.generate.descriptor
// CHECK: }
// CHECK-NEXT: nvvm.fence.proxy
// CHECK-NEXT: nvgpu.warpgroup.generate.descriptor
// CHECK-NOT: nvvm.fence.proxy
// CHECK: partition "gather"
!td = !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!wd = !nvgpu.warpgroup.descriptor<tensor = memref<64x64xbf16, 3>>
func.func @outer_wait(%src: memref<?x64xbf16>, %n: index, %d: !td) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %qb = tle.shared_alloc : memref<1x64x64xbf16, 3>
  %kb = tle.shared_alloc : memref<2x64x64xbf16, 3>
  %q = tle.pipe "q" capacity 1 one_shot fields(q = %qb : memref<1x64x64xbf16, 3>) readers(mma)
  %kv = tle.pipe "kv" capacity 2 fields(k = %kb : memref<2x64x64xbf16, 3>) readers(mma)
  tle.warp_specialize
  default "mma" warps(4) {
    %vq = tle.wait %q reader "mma" -> memref<64x64xbf16, 3>
    scf.for %i = %c0 to %n step %c1 {
      %vk = tle.wait %kv[%i : index] reader "mma" -> memref<64x64xbf16, 3>
      %dq = nvgpu.warpgroup.generate.descriptor %vq, %d : memref<64x64xbf16, 3>, !td -> !wd
      %dk = nvgpu.warpgroup.generate.descriptor %vk, %d : memref<64x64xbf16, 3>, !td -> !wd
      tle.release %kv[%i : index] reader "mma"
    }
    %dq = nvgpu.warpgroup.generate.descriptor %vq, %d : memref<64x64xbf16, 3>, !td -> !wd
    tle.warp_yield
  }
  partition "gather" warps(4) {
    %tq = nvgpu.device_async_copy %src[%c0, %c0], %qb[%c0, %c0, %c0], 8 : memref<?x64xbf16> to memref<1x64x64xbf16, 3>
    tle.commit %q
    scf.for %i = %c0 to %n step %c1 {
      %vk = tle.acquire %kv[%i : index] -> memref<64x64xbf16, 3>
      %tk = nvgpu.device_async_copy %src[%i, %c0], %vk[%c0, %c0], 8 : memref<?x64xbf16> to memref<64x64xbf16, 3>
      tle.commit %kv[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// A loop that only reads what was waited for before it: one fence before
// the loop, not one an iteration. Both branches of an scf.if need it: one
// fence before the branch. Only one branch needs it: the fence stays there.

// CHECK-LABEL: func.func @hoisted
// CHECK: default "mma"
// CHECK: tle.wait %{{.*}} reader "mma"
// CHECK-NEXT: nvvm.fence.proxy
// CHECK-NEXT: scf.for
// CHECK-NEXT: nvgpu.warpgroup.generate.descriptor
// CHECK-NEXT: }
// CHECK-NEXT: tle.release
// CHECK-NEXT: tle.wait %{{.*}} reader "mma"
// CHECK-NEXT: nvvm.fence.proxy
// CHECK-NEXT: scf.if
// CHECK-NEXT: nvgpu.warpgroup.generate.descriptor
// CHECK-NEXT: } else {
// CHECK-NEXT: nvgpu.warpgroup.generate.descriptor
// CHECK-NEXT: }
// CHECK-NEXT: tle.release
// CHECK-NEXT: tle.wait %{{.*}} reader "mma"
// CHECK-NEXT: scf.if
// CHECK-NEXT: nvvm.fence.proxy
// CHECK-NEXT: nvgpu.warpgroup.generate.descriptor
// CHECK-NEXT: }
// CHECK-NEXT: tle.release
// CHECK-NOT: nvvm.fence.proxy
// CHECK: partition "gather"
!td = !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!wd = !nvgpu.warpgroup.descriptor<tensor = memref<64x64xbf16, 3>>
func.func @hoisted(%src: memref<?x64xbf16>, %n: index, %c: i1, %d: !td) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %kb = tle.shared_alloc : memref<2x64x64xbf16, 3>
  %kv = tle.pipe "kv" capacity 2 fields(k = %kb : memref<2x64x64xbf16, 3>) readers(mma)
  tle.warp_specialize
  default "mma" warps(4) {
    %v0 = tle.wait %kv[%c0 : index] reader "mma" -> memref<64x64xbf16, 3>
    scf.for %j = %c0 to %n step %c1 {
      %d0 = nvgpu.warpgroup.generate.descriptor %v0, %d : memref<64x64xbf16, 3>, !td -> !wd
    }
    tle.release %kv[%c0 : index] reader "mma"
    %v1 = tle.wait %kv[%c1 : index] reader "mma" -> memref<64x64xbf16, 3>
    scf.if %c {
      %d1 = nvgpu.warpgroup.generate.descriptor %v1, %d : memref<64x64xbf16, 3>, !td -> !wd
    } else {
      %d1 = nvgpu.warpgroup.generate.descriptor %v1, %d : memref<64x64xbf16, 3>, !td -> !wd
    }
    tle.release %kv[%c1 : index] reader "mma"
    %v2 = tle.wait %kv[%c2 : index] reader "mma" -> memref<64x64xbf16, 3>
    scf.if %c {
      %d2 = nvgpu.warpgroup.generate.descriptor %v2, %d : memref<64x64xbf16, 3>, !td -> !wd
    }
    tle.release %kv[%c2 : index] reader "mma"
    tle.warp_yield
  }
  partition "gather" warps(4) {
    scf.for %i = %c0 to %c2 step %c1 {
      %vk = tle.acquire %kv[%i : index] -> memref<64x64xbf16, 3>
      %tk = nvgpu.device_async_copy %src[%i, %c0], %vk[%c0, %c0], 8 : memref<?x64xbf16> to memref<64x64xbf16, 3>
      tle.commit %kv[%i : index]
    }
    %vk = tle.acquire %kv[%c2 : index] -> memref<64x64xbf16, 3>
    %tk = nvgpu.device_async_copy %src[%c2, %c0], %vk[%c0, %c0], 8 : memref<?x64xbf16> to memref<64x64xbf16, 3>
    tle.commit %kv[%c2 : index]
    tle.warp_return
  }
  return
}

// -----

// A carried window: each iteration waits for the next tile, which the
// next iteration reads. The fence goes after that wait, at the end of the
// iteration, so the loop exits fenced and the last tile needs no fence.

// CHECK-LABEL: func.func @carried
// CHECK: default "mma"
// CHECK: tle.wait %{{.*}} reader "mma"
// CHECK-NEXT: nvvm.fence.proxy
// CHECK-NEXT: nvgpu.warpgroup.generate.descriptor
// CHECK-NEXT: arith.subi
// CHECK-NEXT: scf.for
// CHECK-NEXT: nvgpu.warpgroup.generate.descriptor
// CHECK-NEXT: arith.addi
// CHECK-NEXT: tle.wait %{{.*}} reader "mma"
// CHECK-NEXT: nvvm.fence.proxy
// CHECK-NEXT: tle.release
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: nvgpu.warpgroup.generate.descriptor
// CHECK-NOT: nvvm.fence.proxy
// CHECK: partition "gather"
!td = !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!wd = !nvgpu.warpgroup.descriptor<tensor = memref<64x64xbf16, 3>>
func.func @carried(%src: memref<?x64xbf16>, %n: index, %d: !td) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %kb = tle.shared_alloc : memref<2x64x64xbf16, 3>
  %kv = tle.pipe "kv" capacity 2 fields(k = %kb : memref<2x64x64xbf16, 3>) readers(mma)
  tle.warp_specialize
  default "mma" warps(4) {
    %first = tle.wait %kv[%c0 : index] reader "mma" -> memref<64x64xbf16, 3>
    %d0 = nvgpu.warpgroup.generate.descriptor %first, %d : memref<64x64xbf16, 3>, !td -> !wd
    %last = arith.subi %n, %c1 : index
    %held = scf.for %i = %c0 to %last step %c1 iter_args(%cur = %first) -> (memref<64x64xbf16, 3>) {
      %dc = nvgpu.warpgroup.generate.descriptor %cur, %d : memref<64x64xbf16, 3>, !td -> !wd
      %next = arith.addi %i, %c1 : index
      %v = tle.wait %kv[%next : index] reader "mma" -> memref<64x64xbf16, 3>
      tle.release %kv[%i : index] reader "mma"
      scf.yield %v : memref<64x64xbf16, 3>
    }
    %dl = nvgpu.warpgroup.generate.descriptor %held, %d : memref<64x64xbf16, 3>, !td -> !wd
    tle.release %kv[%last : index] reader "mma"
    tle.warp_yield
  }
  partition "gather" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %vk = tle.acquire %kv[%i : index] -> memref<64x64xbf16, 3>
      %tk = nvgpu.device_async_copy %src[%i, %c0], %vk[%c0, %c0], 8 : memref<?x64xbf16> to memref<64x64xbf16, 3>
      tle.commit %kv[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// Fences that are already there order the data: the writer's fence before
// its commit of ordinary stores that the tensor cores read (the partition
// that waited for kv writes p next), and the one tle.tma_store issues for
// itself before it reads the tile.

// CHECK-LABEL: func.func @already_fenced
// CHECK: default "mma"
// CHECK: tle.wait %{{.*}} reader "mma"
// CHECK-NEXT: tle.acquire
// CHECK-NEXT: vector.store
// CHECK-NEXT: tle.commit
// CHECK-NEXT: nvgpu.warpgroup.generate.descriptor
// CHECK: tle.wait %{{.*}} reader "mma"
// CHECK-NEXT: tle.tma_store
// CHECK-NEXT: nvgpu.warpgroup.generate.descriptor
// CHECK-NOT: nvvm.fence.proxy
// CHECK: return
!td = !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!wd = !nvgpu.warpgroup.descriptor<tensor = memref<64x64xbf16, 3>>
func.func @already_fenced(%src: memref<?x64xbf16>, %n: index, %x: vector<8xbf16>, %d: !td, %map: !tle.tensor_map<64x64xbf16, swizzle = 0>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %kb = tle.shared_alloc : memref<2x64x64xbf16, 3>
  %ob = tle.shared_alloc : memref<2x64x64xbf16, 3>
  %pb = tle.shared_alloc : memref<2x64x64xbf16, 3>
  %kv = tle.pipe "kv" capacity 2 fields(k = %kb : memref<2x64x64xbf16, 3>) readers(mma)
  %out = tle.pipe "out" capacity 2 fields(o = %ob : memref<2x64x64xbf16, 3>) readers(mma)
  %p = tle.pipe "p" capacity 2 fields(p = %pb : memref<2x64x64xbf16, 3>) readers(other)
  tle.warp_specialize
  default "mma" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %vk = tle.wait %kv[%i : index] reader "mma" -> memref<64x64xbf16, 3>
      %vp = tle.acquire %p[%i : index] -> memref<64x64xbf16, 3>
      vector.store %x, %vp[%c0, %c0] : memref<64x64xbf16, 3>, vector<8xbf16>
      tle.commit %p[%i : index]
      %dk = nvgpu.warpgroup.generate.descriptor %vk, %d : memref<64x64xbf16, 3>, !td -> !wd
      tle.release %kv[%i : index] reader "mma"
      %vo = tle.wait %out[%i : index] reader "mma" -> memref<64x64xbf16, 3>
      tle.tma_store %map[%c0, %c0] from %vo : !tle.tensor_map<64x64xbf16, swizzle = 0>, memref<64x64xbf16, 3>
      %do = nvgpu.warpgroup.generate.descriptor %vo, %d : memref<64x64xbf16, 3>, !td -> !wd
      tle.release %out[%i : index] reader "mma"
    }
    tle.warp_yield
  }
  partition "other" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %vp = tle.wait %p[%i : index] reader "other" -> memref<64x64xbf16, 3>
      %dp = nvgpu.warpgroup.generate.descriptor %vp, %d : memref<64x64xbf16, 3>, !td -> !wd
      tle.release %p[%i : index] reader "other"
    }
    tle.warp_return
  }
  partition "gather" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %vk = tle.acquire %kv[%i : index] -> memref<64x64xbf16, 3>
      %tk = nvgpu.device_async_copy %src[%i, %c0], %vk[%c0, %c0], 8 : memref<?x64xbf16> to memref<64x64xbf16, 3>
      tle.commit %kv[%i : index]
      %vo = tle.acquire %out[%i : index] -> memref<64x64xbf16, 3>
      %to = nvgpu.device_async_copy %src[%i, %c0], %vo[%c0, %c0], 8 : memref<?x64xbf16> to memref<64x64xbf16, 3>
      tle.commit %out[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// No fence where none is needed: cp.async rows that only loads read, and
// data the writer stored (and fences itself before its commit).

// CHECK-LABEL: func.func @not_needed
// CHECK-NOT: nvvm.fence.proxy
// CHECK: return
!td = !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!wd = !nvgpu.warpgroup.descriptor<tensor = memref<64x64xbf16, 3>>
func.func @not_needed(%src: memref<?x64xf32>, %n: index, %x: vector<8xbf16>, %d: !td) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rb = tle.shared_alloc : memref<2x64xf32, 3>
  %sb = tle.shared_alloc : memref<2x64x64xbf16, 3>
  %rows = tle.pipe "rows" capacity 2 fields(r = %rb : memref<2x64xf32, 3>) readers(mma)
  %scores = tle.pipe "scores" capacity 2 fields(p = %sb : memref<2x64x64xbf16, 3>) readers(mma)
  tle.warp_specialize
  default "mma" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %vr = tle.wait %rows[%i : index] reader "mma" -> memref<64xf32, 3>
      %r = memref.load %vr[%c0] : memref<64xf32, 3>
      tle.release %rows[%i : index] reader "mma"
      %vs = tle.wait %scores[%i : index] reader "mma" -> memref<64x64xbf16, 3>
      %ds = nvgpu.warpgroup.generate.descriptor %vs, %d : memref<64x64xbf16, 3>, !td -> !wd
      tle.release %scores[%i : index] reader "mma"
    }
    tle.warp_yield
  }
  partition "gather" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %vr = tle.acquire %rows[%i : index] -> memref<64xf32, 3>
      %tr = nvgpu.device_async_copy %src[%i, %c0], %vr[%c0], 4 : memref<?x64xf32> to memref<64xf32, 3>
      tle.commit %rows[%i : index]
    }
    tle.warp_return
  }
  partition "softmax" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %vs = tle.acquire %scores[%i : index] -> memref<64x64xbf16, 3>
      vector.store %x, %vs[%c0, %c0] : memref<64x64xbf16, 3>, vector<8xbf16>
      tle.commit %scores[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// Nor in a kernel that says tle.cp_async_fence = "none".

// CHECK-LABEL: func.func @unfenced
// CHECK-NOT: nvvm.fence.proxy
// CHECK: return
!td = !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!wd = !nvgpu.warpgroup.descriptor<tensor = memref<64x64xbf16, 3>>
func.func @unfenced(%src: memref<?x64xbf16>, %n: index, %d: !td) attributes {tle.cp_async_fence = "none"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %kb = tle.shared_alloc : memref<2x64x64xbf16, 3>
  %kv = tle.pipe "kv" capacity 2 fields(k = %kb : memref<2x64x64xbf16, 3>) readers(mma)
  tle.warp_specialize
  default "mma" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %vk = tle.wait %kv[%i : index] reader "mma" -> memref<64x64xbf16, 3>
      %dk = nvgpu.warpgroup.generate.descriptor %vk, %d : memref<64x64xbf16, 3>, !td -> !wd
      tle.release %kv[%i : index] reader "mma"
    }
    tle.warp_yield
  }
  partition "gather" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %vk = tle.acquire %kv[%i : index] -> memref<64x64xbf16, 3>
      %tk = nvgpu.device_async_copy %src[%i, %c0], %vk[%c0, %c0], 8 : memref<?x64xbf16> to memref<64x64xbf16, 3>
      tle.commit %kv[%i : index]
    }
    tle.warp_return
  }
  return
}
