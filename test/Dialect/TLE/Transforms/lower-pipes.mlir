// RUN: tle-opt %s -split-input-file --tle-derive-sync --tle-lower-pipes | FileCheck %s --enable-var-scope
// RUN: tle-opt %s -split-input-file --tle-verify-pipes --tle-infer-arrive-counts=generic-arrive=elected --tle-assign-pipe-phases --tle-lower-pipes | FileCheck %s --check-prefix=ELECTED
// RUN: not tle-opt %s -split-input-file --tle-lower-pipes 2>&1 | FileCheck %s --check-prefix=NOPHASES
// RUN: not tle-opt %s -split-input-file --tle-assign-pipe-phases --tle-lower-pipes 2>&1 | FileCheck %s --check-prefix=NOPLAN

// NOPHASES: error: 'tle.wait' op has no slot and parity yet; run --tle-assign-pipe-phases first
// NOPLAN: error: pipe 'rows' has no derived barriers; run --tle-infer-arrive-counts first

#smem = #gpu.address_space<workgroup>

// Ordinary stores read by plain loads: per-thread arrives, no fence; the
// free barrier of each field group is waited for just before its first store.
// CHECK-LABEL: func.func @split_free
// CHECK: %[[LO:.*]] = tle.shared_alloc : memref<2x64xf32
// CHECK: %[[HI:.*]] = tle.shared_alloc : memref<2x64xf32
// CHECK: %[[FULL:.*]] = tle.shared_alloc {name = "rows.full"} : memref<2xi64
// CHECK: %[[FREE_LO:.*]] = tle.shared_alloc {name = "rows.free.lo"} : memref<2xi64
// CHECK: %[[FREE_HI:.*]] = tle.shared_alloc {name = "rows.free.hi"} : memref<2xi64
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[TID]]
// CHECK: scf.if %[[FIRST]] {
// CHECK: tle.mbarrier_init %[[FULL]][%[[S0:.*]]] count 32
// CHECK: tle.mbarrier_init %[[FULL]][%[[S1:.*]]] count 32
// CHECK: tle.mbarrier_init %[[FREE_LO]][%[[S0]]] count 128
// CHECK: tle.mbarrier_init %[[FREE_LO]][%[[S1]]] count 128
// CHECK: tle.mbarrier_init %[[FREE_HI]][%[[S0]]] count 128
// CHECK: tle.mbarrier_init %[[FREE_HI]][%[[S1]]] count 128
// CHECK: }
// CHECK-NEXT: nvvm.fence.mbarrier.init
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: tle.warp_specialize
// CHECK: default "left"
// CHECK: scf.for {{.*}} iter_args(%[[SLOT:.*]] = %{{.*}}, %[[LAP:.*]] = %{{.*}})
// CHECK-NEXT: tle.mbarrier_wait %[[FULL]][%[[SLOT]]], %[[LAP]]
// CHECK-NEXT: %[[V:.*]] = tle.slot %[[LO]][%[[SLOT]]] : memref<2x64xf32, {{.*}}> -> memref<64xf32
// CHECK-NEXT: memref.load %[[V]]
// CHECK-NEXT: tle.mbarrier_arrive %[[FREE_LO]][%[[SLOT]]] plain
// CHECK: partition "right"
// CHECK: tle.mbarrier_wait %[[FULL]]
// CHECK: tle.mbarrier_arrive %[[FREE_HI]][%{{.*}}] plain
// The producer waits for each half just before it writes that half.
// CHECK: partition "producer"
// CHECK: scf.for {{.*}} iter_args(%[[PSLOT:.*]] = %{{.*}}, %[[PLAP:.*]] = %{{.*}})
// CHECK-NEXT: %[[FREEPAR:.*]] = arith.xori %[[PLAP]], %true
// CHECK-NEXT: %[[L:.*]] = tle.slot %[[LO]][%[[PSLOT]]]
// CHECK-NEXT: %[[H:.*]] = tle.slot %[[HI]][%[[PSLOT]]]
// CHECK-NEXT: tle.mbarrier_wait %[[FREE_LO]][%[[PSLOT]]], %[[FREEPAR]]
// CHECK-NEXT: vector.store %{{.*}}, %[[L]]
// CHECK-NEXT: tle.mbarrier_wait %[[FREE_HI]][%[[PSLOT]]], %[[FREEPAR]]
// CHECK-NEXT: vector.store %{{.*}}, %[[H]]
// CHECK-NEXT: tle.mbarrier_arrive %[[FULL]][%[[PSLOT]]] plain
// CHECK-NOT: tle.pipe
// CHECK-NOT: tle.acquire
// CHECK-NOT: nvvm.fence.proxy
// CHECK: return
func.func @split_free(%n: index, %x: vector<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %lo = tle.shared_alloc : memref<2x64xf32, #smem>
  %hi = tle.shared_alloc : memref<2x64xf32, #smem>
  %rows = tle.pipe "rows" capacity 2 fields(lo = %lo : memref<2x64xf32, #smem>, hi = %hi : memref<2x64xf32, #smem>) readers(left = [lo], right = [hi])
  tle.warp_specialize
  default "left" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.wait %rows[%i : index] reader "left" -> memref<64xf32, #smem>
      %a = memref.load %v[%c0] : memref<64xf32, #smem>
      tle.release %rows[%i : index] reader "left"
    }
    tle.warp_yield
  }
  partition "right" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.wait %rows[%i : index] reader "right" -> memref<64xf32, #smem>
      %a = memref.load %v[%c0] : memref<64xf32, #smem>
      tle.release %rows[%i : index] reader "right"
    }
    tle.warp_return
  }
  partition "producer" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %l, %h = tle.acquire %rows[%i : index] -> memref<64xf32, #smem>, memref<64xf32, #smem>
      vector.store %x, %l[%c0] : memref<64xf32, #smem>, vector<4xf32>
      vector.store %x, %h[%c0] : memref<64xf32, #smem>, vector<4xf32>
      tle.commit %rows[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// Ordinary stores read by the tensor cores: the writer fences before its
// arrive. Elected arrives (second RUN) use the partition barrier.
// CHECK-LABEL: func.func @fence_for_tensor_cores
// CHECK: %[[P:.*]] = tle.shared_alloc : memref<2x64x64xbf16, 3>
// CHECK: %[[FULL:.*]] = tle.shared_alloc {name = "scores.full"}
// CHECK: %[[FREE:.*]] = tle.shared_alloc {name = "scores.free"}
// CHECK: tle.mbarrier_init %[[FULL]][%{{.*}}] count 128
// CHECK: default "mma"
// CHECK: tle.mbarrier_wait %[[FULL]]
// CHECK-NEXT: tle.slot
// CHECK-NEXT: nvgpu.warpgroup.generate.descriptor
// CHECK-NEXT: tle.mbarrier_arrive %[[FREE]]
// CHECK: partition "softmax"
// CHECK: tle.mbarrier_wait %[[FREE]]
// CHECK-NEXT: vector.store
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: tle.mbarrier_arrive %[[FULL]][%{{.*}}] plain

// ELECTED-LABEL: func.func @fence_for_tensor_cores
// ELECTED: tle.mbarrier_init %[[FULL:.*]][%{{.*}}] count 1
// ELECTED: partition "softmax"
// ELECTED: vector.store
// ELECTED-NEXT: nvvm.fence.proxy
// ELECTED-NEXT: gpu.barrier
// ELECTED-NEXT: %[[T:.*]] = gpu.thread_id x
// ELECTED-NEXT: %[[Z:.*]] = arith.constant 0 : index
// ELECTED-NEXT: %[[IS0:.*]] = arith.cmpi eq, %[[T]], %[[Z]]
// ELECTED-NEXT: scf.if %[[IS0]] {
// ELECTED-NEXT: tle.mbarrier_arrive %[[FULL]][%{{.*}}] plain
func.func @fence_for_tensor_cores(%n: index, %x: vector<8xbf16>, %d: !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %p = tle.shared_alloc : memref<2x64x64xbf16, 3>
  %scores = tle.pipe "scores" capacity 2 fields(p = %p : memref<2x64x64xbf16, 3>) readers(mma)
  tle.warp_specialize
  default "mma" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.wait %scores[%i : index] reader "mma" -> memref<64x64xbf16, 3>
      %desc = nvgpu.warpgroup.generate.descriptor %v, %d : memref<64x64xbf16, 3>, !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none> -> !nvgpu.warpgroup.descriptor<tensor = memref<64x64xbf16, 3>>
      tle.release %scores[%i : index] reader "mma"
    }
    tle.warp_yield
  }
  partition "softmax" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.acquire %scores[%i : index] -> memref<64x64xbf16, 3>
      vector.store %x, %v[%c0, %c0] : memref<64x64xbf16, 3>, vector<8xbf16>
      tle.commit %scores[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// cp.async data read by the tensor cores: one .noinc arrive per writer
// thread, and the reader's fence after its wait (placed by
// tle-place-proxy-fences, the last pass of tle-derive-sync) stays there.
// CHECK-LABEL: func.func @cp_async
// CHECK: %[[FULL:.*]] = tle.shared_alloc {name = "kv.full"} : memref<3xi64, #gpu.address_space<workgroup>>
// CHECK: %[[FREE:.*]] = tle.shared_alloc {name = "kv.free"} : memref<3xi64, #gpu.address_space<workgroup>>
// CHECK: default "mma"
// CHECK: tle.mbarrier_wait %[[FULL]]
// CHECK-NEXT: tle.slot
// CHECK-NEXT: nvvm.fence.proxy.sync_restrict {order = #nvvm.mem_order<acquire>}
// CHECK: partition "gather"
// CHECK: tle.mbarrier_wait %[[FREE]]
// CHECK-NEXT: nvgpu.device_async_copy
// CHECK-NEXT: tle.mbarrier_arrive %[[FULL]][%{{.*}}] cp_async
func.func @cp_async(%src: memref<?x64xbf16>, %n: index, %d: !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %k = tle.shared_alloc : memref<3x64x64xbf16, 3>
  %kv = tle.pipe "kv" capacity 3 fields(k = %k : memref<3x64x64xbf16, 3>) readers(mma)
  tle.warp_specialize
  default "mma" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.wait %kv[%i : index] reader "mma" -> memref<64x64xbf16, 3>
      %desc = nvgpu.warpgroup.generate.descriptor %v, %d : memref<64x64xbf16, 3>, !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none> -> !nvgpu.warpgroup.descriptor<tensor = memref<64x64xbf16, 3>>
      tle.release %kv[%i : index] reader "mma"
    }
    tle.warp_yield
  }
  partition "gather" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.acquire %kv[%i : index] -> memref<64x64xbf16, 3>
      %t = nvgpu.device_async_copy %src[%i, %c0], %v[%c0, %c0], 8 : memref<?x64xbf16> to memref<64x64xbf16, 3>
      tle.commit %kv[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// cp.async rows read by the tensor cores beside a bias written by ordinary
// stores and read by loads: the reader fences after its wait, the writer
// arrives both ways with no fence (nothing it stored reaches the async
// proxy).
// CHECK-LABEL: func.func @cp_async_and_bias
// CHECK: %[[FULL:.*]] = tle.shared_alloc {name = "kv.full"}
// CHECK: default "mma"
// CHECK: tle.mbarrier_wait %[[FULL]]
// CHECK-NEXT: tle.slot
// CHECK-NEXT: tle.slot
// CHECK-NEXT: nvvm.fence.proxy.sync_restrict {order = #nvvm.mem_order<acquire>}
// CHECK: partition "gather"
// CHECK: nvgpu.device_async_copy
// CHECK-NEXT: memref.store
// CHECK-NEXT: tle.mbarrier_arrive %[[FULL]][%{{.*}}] cp_async
// CHECK-NEXT: tle.mbarrier_arrive %[[FULL]][%{{.*}}] plain
// CHECK-NOT: nvvm.fence.proxy
// CHECK: tle.warp_return
func.func @cp_async_and_bias(%src: memref<?x64xbf16>, %n: index, %x: f32, %d: !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %k = tle.shared_alloc : memref<2x64x64xbf16, 3>
  %b = tle.shared_alloc : memref<2x64xf32, 3>
  %kv = tle.pipe "kv" capacity 2 fields(k = %k : memref<2x64x64xbf16, 3>, bias = %b : memref<2x64xf32, 3>) readers(mma)
  tle.warp_specialize
  default "mma" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %v, %bias = tle.wait %kv[%i : index] reader "mma" -> memref<64x64xbf16, 3>, memref<64xf32, 3>
      %desc = nvgpu.warpgroup.generate.descriptor %v, %d : memref<64x64xbf16, 3>, !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none> -> !nvgpu.warpgroup.descriptor<tensor = memref<64x64xbf16, 3>>
      %y = memref.load %bias[%c0] : memref<64xf32, 3>
      tle.release %kv[%i : index] reader "mma"
    }
    tle.warp_yield
  }
  partition "gather" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %v, %bias = tle.acquire %kv[%i : index] -> memref<64x64xbf16, 3>, memref<64xf32, 3>
      %t = nvgpu.device_async_copy %src[%i, %c0], %v[%c0, %c0], 8 : memref<?x64xbf16> to memref<64x64xbf16, 3>
      memref.store %x, %bias[%c0] : memref<64xf32, 3>
      tle.commit %kv[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// TMA: the writer waits for the slot, then thread 0 arrives with the bytes;
// the copy completes the phase, so the commit emits nothing.
// CHECK-LABEL: func.func @tma
// CHECK: %[[FULL:.*]] = tle.shared_alloc {name = "kv.full"}
// CHECK: %[[FREE:.*]] = tle.shared_alloc {name = "kv.free"}
// CHECK: tle.mbarrier_init %[[FULL]][%{{.*}}] count 1
// CHECK: partition "tma"
// CHECK: %[[V:.*]] = tle.slot
// CHECK-NEXT: tle.mbarrier_wait %[[FREE]]
// CHECK-NEXT: %[[T:.*]] = gpu.thread_id x
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[IS0:.*]] = arith.cmpi eq, %[[T]], %[[Z]]
// CHECK-NEXT: scf.if %[[IS0]] {
// CHECK-NEXT: tle.mbarrier_arrive %[[FULL]][%[[S:.*]]] expect_tx 8192
// CHECK-NEXT: }
// CHECK-NEXT: %[[T1:.*]] = gpu.thread_id x
// CHECK-NEXT: %[[Z1:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[ONE:.*]] = arith.cmpi eq, %[[T1]], %[[Z1]]
// CHECK-NEXT: scf.if %[[ONE]] {
// CHECK-NEXT: tle.tma_load %{{.*}} into %[[V]] barrier %[[FULL]][%[[S]]]
// CHECK-NEXT: }
// CHECK-NOT: tle.mbarrier_arrive %[[FULL]]
// CHECK: tle.warp_return
func.func @tma(%map: !tle.tensor_map<64x64xbf16, swizzle = 0>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %k = tle.shared_alloc : memref<2x64x64xbf16, 3>
  %kv = tle.pipe "kv" capacity 2 fields(k = %k : memref<2x64x64xbf16, 3>) readers(mma)
  tle.warp_specialize
  default "mma" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.wait %kv[%i : index] reader "mma" -> memref<64x64xbf16, 3>
      tle.release %kv[%i : index] reader "mma"
    }
    tle.warp_yield
  }
  partition "tma" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.acquire %kv[%i : index] -> memref<64x64xbf16, 3>
      tle.tma_load %map[%c0, %c0] into %v : !tle.tensor_map<64x64xbf16, swizzle = 0>, memref<64x64xbf16, 3>
      tle.commit %kv[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// one_shot: a full barrier only, slot 0, parity 0.
// CHECK-LABEL: func.func @one_shot
// CHECK-DAG: %[[FALSE:.*]] = arith.constant false
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[FULL:.*]] = tle.shared_alloc {name = "q.full"} : memref<1xi64, #gpu.address_space<workgroup>>
// CHECK-NOT: q.free
// CHECK: tle.mbarrier_init %[[FULL]][%{{.*}}] count 128
// CHECK: default "left"
// CHECK-NEXT: tle.mbarrier_wait %[[FULL]][%[[C0]]], %[[FALSE]]
// CHECK: partition "load"
// CHECK-NEXT: memref.store
// CHECK-NEXT: tle.mbarrier_arrive %[[FULL]][%[[C0]]] plain
func.func @one_shot(%x: f32) {
  %c0 = arith.constant 0 : index
  %q = tle.shared_alloc : memref<1x64xf32, 3>
  %qp = tle.pipe "q" capacity 1 one_shot fields(q = %q : memref<1x64xf32, 3>) readers(left, right)
  tle.warp_specialize
  default "left" warps(4) {
    %v = tle.wait %qp reader "left" -> memref<64xf32, 3>
    tle.warp_yield
  }
  partition "right" warps(4) {
    %v = tle.wait %qp reader "right" -> memref<64xf32, 3>
    tle.warp_return
  }
  partition "load" warps(4) {
    memref.store %x, %q[%c0, %c0] : memref<1x64xf32, 3>
    tle.commit %qp
    tle.warp_return
  }
  return
}

// -----

// A one_shot pipe filled by TMA: with no acquire, thread 0 of the writer
// expects the slot's bytes just before the first copy into the pipe's
// buffers, and each copy completes on the full barrier.
// CHECK-LABEL: func.func @one_shot_tma
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[FULL:.*]] = tle.shared_alloc {name = "q.full"}
// CHECK: tle.mbarrier_init %[[FULL]][%{{.*}}] count 1
// CHECK: partition "tma"
// CHECK: %[[VIEW:.*]] = memref.subview
// CHECK: scf.if
// CHECK-NEXT: tle.mbarrier_arrive %[[FULL]][%[[C0]]] expect_tx 8192
// CHECK: scf.if
// CHECK-NEXT: tle.tma_load %{{.*}} into %[[VIEW]] barrier %[[FULL]][%[[C0]]]
// CHECK-NOT: tle.mbarrier_arrive
// CHECK: tle.warp_return
func.func @one_shot_tma(%map: !tle.tensor_map<64x64xbf16, swizzle = 0>) {
  %c0 = arith.constant 0 : index
  %q = tle.shared_alloc : memref<1x64x64xbf16, 3>
  %qp = tle.pipe "q" capacity 1 one_shot fields(q = %q : memref<1x64x64xbf16, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %v = tle.wait %qp reader "r" -> memref<64x64xbf16, 3>
    tle.warp_yield
  }
  partition "tma" warps(1) {
    %slot = memref.subview %q[0, 0, 0] [1, 64, 64] [1, 1, 1] : memref<1x64x64xbf16, 3> to memref<64x64xbf16, 3>
    tle.tma_load %map[%c0, %c0] into %slot : !tle.tensor_map<64x64xbf16, swizzle = 0>, memref<64x64xbf16, 3>
    tle.commit %qp
    tle.warp_return
  }
  return
}

// -----

// A release whose slot a tle.wgmma still reads takes effect when a
// tle.wgmma_wait retires that multiply: with pending(1) that is the wait of
// the next iteration, so the loop carries the slot to free and whether one
// is pending; the last one is freed after the wait that drains the loop.
// CHECK-LABEL: func.func @release_after_wgmma
// CHECK: %[[FREE:.*]] = tle.shared_alloc {name = "ab.free"}
// CHECK: default "mma"
// CHECK: %[[R:.*]]:5 = scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[SLOT:.*]] = %{{.*}}, %{{.*}} = %{{.*}}, %[[PREV:.*]] = %{{.*}}, %[[PENDING:.*]] = %false
// CHECK: %[[D:.*]] = tle.wgmma
// CHECK-NEXT: %[[W:.*]] = tle.wgmma_wait %[[D]] pending(1)
// CHECK-NEXT: scf.if %[[PENDING]] {
// CHECK-NEXT: tle.mbarrier_arrive %[[FREE]][%[[PREV]]] plain
// CHECK-NEXT: }
// CHECK: scf.yield %[[W]], %{{.*}}, %{{.*}}, %[[SLOT]], %true
// CHECK: tle.wgmma_wait %[[R]]#0 pending(0)
// CHECK-NEXT: scf.if %[[R]]#4 {
// CHECK-NEXT: tle.mbarrier_arrive %[[FREE]][%[[R]]#3] plain
#sw = #tle.shared<swizzle = 128>
#acc = #tle.mma<warp_groups = [1, 1]>
func.func @release_after_wgmma(%map: !tle.tensor_map<64x64xbf16, swizzle = 128>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = tle.shared_alloc : memref<2x64x64xbf16, #sw>
  %ab = tle.pipe "ab" capacity 2 fields(t = %buf : memref<2x64x64xbf16, #sw>) readers(mma)
  tle.warp_specialize
  default "mma" warps(4) {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> tensor<64x64xf32, #acc> {
      %t = tle.wait %ab[%i : index] reader "mma" -> memref<64x64xbf16, #sw>
      %d = tle.wgmma %t, %t, %acc transpose_b : memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>
      tle.release %ab[%i : index] reader "mma"
      %w = tle.wgmma_wait %d pending(1) : tensor<64x64xf32, #acc>
      scf.yield %w : tensor<64x64xf32, #acc>
    }
    %done = tle.wgmma_wait %sum pending(0) : tensor<64x64xf32, #acc>
    tle.warp_yield
  }
  partition "tma" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %t = tle.acquire %ab[%i : index] -> memref<64x64xbf16, #sw>
      tle.tma_load %map[%c0, %c0] into %t : !tle.tensor_map<64x64xbf16, swizzle = 128>, memref<64x64xbf16, #sw>
      tle.commit %ab[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// A loop whose body waits for every multiply (pending(0)) after its last
// one leaves none in flight: a release after it of a slot its multiplies
// read takes effect where it stands, not at the next tle.wgmma_wait (the
// persistent seesaw hands Q back to the gather this way while its warp
// groups finish the item). The multiply after the release does not read
// the slot.
// CHECK-LABEL: func.func @release_after_draining_loop
// CHECK: %[[FREE:.*]] = tle.shared_alloc {name = "q.free"}
// CHECK: default "mma"
// CHECK: scf.for
// CHECK: tle.wgmma_wait %{{.*}} pending(0)
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: tle.mbarrier_arrive %[[FREE]][%{{.*}}] plain
// CHECK-NEXT: tle.wgmma
// A loop that leaves its last multiply in flight still defers the release
// to the wait after it.
// CHECK-LABEL: func.func @release_after_loop_in_flight
// CHECK: %[[FREE2:.*]] = tle.shared_alloc {name = "q.free"}
// CHECK: scf.for
// CHECK: tle.wgmma_wait %{{.*}} pending(1)
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NOT: tle.mbarrier_arrive
// CHECK: tle.wgmma_wait %{{.*}} pending(0)
// CHECK-NEXT: tle.mbarrier_arrive %[[FREE2]][%{{.*}}] plain
#sw = #tle.shared<swizzle = 128>
#acc = #tle.mma<warp_groups = [1, 1]>
func.func @release_after_draining_loop(%map: !tle.tensor_map<64x64xbf16, swizzle = 128>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = tle.shared_alloc : memref<1x64x64xbf16, #sw>
  %other = tle.shared_alloc : memref<64x64xbf16, #sw>
  %qp = tle.pipe "q" capacity 1 fields(t = %buf : memref<1x64x64xbf16, #sw>) readers(mma)
  tle.warp_specialize
  default "mma" warps(4) {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    %t = tle.wait %qp[%c0 : index] reader "mma" -> memref<64x64xbf16, #sw>
    %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> tensor<64x64xf32, #acc> {
      %d = tle.wgmma %t, %t, %acc transpose_b : memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>
      %w = tle.wgmma_wait %d pending(0) : tensor<64x64xf32, #acc>
      scf.yield %w : tensor<64x64xf32, #acc>
    }
    tle.release %qp[%c0 : index] reader "mma"
    %e = tle.wgmma %other, %other, %sum transpose_b : memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>
    %done = tle.wgmma_wait %e pending(0) : tensor<64x64xf32, #acc>
    tle.warp_yield
  }
  partition "tma" warps(1) {
    %t = tle.acquire %qp[%c0 : index] -> memref<64x64xbf16, #sw>
    tle.tma_load %map[%c0, %c0] into %t : !tle.tensor_map<64x64xbf16, swizzle = 128>, memref<64x64xbf16, #sw>
    tle.commit %qp[%c0 : index]
    tle.warp_return
  }
  return
}

func.func @release_after_loop_in_flight(%map: !tle.tensor_map<64x64xbf16, swizzle = 128>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = tle.shared_alloc : memref<1x64x64xbf16, #sw>
  %qp = tle.pipe "q" capacity 1 fields(t = %buf : memref<1x64x64xbf16, #sw>) readers(mma)
  tle.warp_specialize
  default "mma" warps(4) {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    %t = tle.wait %qp[%c0 : index] reader "mma" -> memref<64x64xbf16, #sw>
    %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> tensor<64x64xf32, #acc> {
      %d = tle.wgmma %t, %t, %acc transpose_b : memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>
      %w = tle.wgmma_wait %d pending(1) : tensor<64x64xf32, #acc>
      scf.yield %w : tensor<64x64xf32, #acc>
    }
    tle.release %qp[%c0 : index] reader "mma"
    %done = tle.wgmma_wait %sum pending(0) : tensor<64x64xf32, #acc>
    tle.warp_yield
  }
  partition "tma" warps(1) {
    %t = tle.acquire %qp[%c0 : index] -> memref<64x64xbf16, #sw>
    tle.tma_load %map[%c0, %c0] into %t : !tle.tensor_map<64x64xbf16, swizzle = 128>, memref<64x64xbf16, #sw>
    tle.commit %qp[%c0 : index]
    tle.warp_return
  }
  return
}

// -----

// A window carried into the next iteration: the view of the slot waited for
// one iteration ahead becomes a tle.slot at the advanced slot and travels
// through the iter_arg, so the body reads the previous iteration's slot and
// the code after the loop the last one.
// CHECK-LABEL: func.func @carried_view
// CHECK: %[[BUF:.*]] = tle.shared_alloc : memref<2x64xf32, 3>
// CHECK: %[[FULL:.*]] = tle.shared_alloc {name = "kv.full"}
// CHECK: %[[FREE:.*]] = tle.shared_alloc {name = "kv.free"}
// CHECK: default "r"
// CHECK: tle.mbarrier_wait %[[FULL]][%[[C0:.*]]], %{{.*}}
// CHECK-NEXT: %[[FIRST:.*]] = tle.slot %[[BUF]][%[[C0]]]
// CHECK: %[[LOOP:.*]]:3 = scf.for {{.*}} iter_args(%[[CUR:.*]] = %[[FIRST]], %[[SLOT:.*]] = %{{.*}}, %[[LAP:.*]] = %{{.*}})
// CHECK: %[[SLOT1:.*]] = arith.select
// CHECK-NEXT: %[[LAP1:.*]] = arith.xori %[[LAP]]
// CHECK: tle.mbarrier_wait %[[FULL]][%[[SLOT1]]], %[[LAP1]]
// CHECK-NEXT: %[[NEXT:.*]] = tle.slot %[[BUF]][%[[SLOT1]]]
// CHECK-NEXT: memref.load %[[CUR]]
// CHECK-NEXT: tle.mbarrier_arrive %[[FREE]][%[[SLOT]]] plain
// CHECK: scf.yield %[[NEXT]],
// CHECK: memref.load %[[LOOP]]#0
// CHECK: tle.mbarrier_arrive %[[FREE]]
func.func @carried_view(%n: index) {
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
