// RUN: tle-opt %s | tle-opt | FileCheck %s --enable-var-scope
// RUN: tle-opt %s --mlir-print-op-generic | tle-opt | FileCheck %s --enable-var-scope

#smem = #gpu.address_space<workgroup>

// CHECK-LABEL: func.func @shared_alloc
func.func @shared_alloc() {
  // CHECK: tle.shared_alloc : memref<2x64x576xbf16, #gpu.address_space<workgroup>>
  %0 = tle.shared_alloc : memref<2x64x576xbf16, #smem>
  // CHECK: tle.shared_alloc : memref<4xi64, 3>
  %1 = tle.shared_alloc : memref<4xi64, 3>
  return
}

// CHECK-LABEL: func.func @pipe_forms
func.func @pipe_forms() {
  %a = tle.shared_alloc : memref<2x64x256xbf16, #smem>
  %b = tle.shared_alloc : memref<2x64x256xbf16, #smem>
  %m = tle.shared_alloc : memref<2x64xi1, #smem>
  %q = tle.shared_alloc : memref<1x64x576xbf16, #smem>
  // CHECK: %[[A:.*]] = tle.shared_alloc
  // CHECK: %[[B:.*]] = tle.shared_alloc
  // CHECK: %[[M:.*]] = tle.shared_alloc
  // CHECK: %[[Q:.*]] = tle.shared_alloc
  // CHECK: %kv = tle.pipe "kv" capacity 2
  // CHECK-SAME: fields(kv_l = %[[A]] : memref<2x64x256xbf16, #gpu.address_space<workgroup>>, kv_r = %[[B]] : memref<2x64x256xbf16, #gpu.address_space<workgroup>>, mask = %[[M]] : memref<2x64xi1, #gpu.address_space<workgroup>>)
  // CHECK-SAME: readers(left = [kv_l, mask], right = [kv_r])
  %kv = tle.pipe "kv" capacity 2
      fields(kv_l = %a : memref<2x64x256xbf16, #smem>,
             kv_r = %b : memref<2x64x256xbf16, #smem>,
             mask = %m : memref<2x64xi1, #smem>)
      readers(left = [kv_l, mask], right = [kv_r])
  // A one_shot pipe; readers without a list read every field.
  // CHECK: %q = tle.pipe "q" capacity 1 one_shot fields(q = %[[Q]] : {{.*}}) readers(left, right)
  %qp = tle.pipe "q" capacity 1 one_shot
      fields(q = %q : memref<1x64x576xbf16, #smem>) readers(left, right)
  // A second pipe may bind a buffer that another pipe binds (aliasing).
  // CHECK: %alias = tle.pipe "alias" capacity 2 fields(scores = %[[B]] : {{.*}}) readers(right) {note = "aliases kv_r"}
  %alias = tle.pipe "alias" capacity 2
      fields(scores = %b : memref<2x64x256xbf16, #smem>) readers(right)
      {note = "aliases kv_r"}
  return
}

// CHECK-LABEL: func.func @lifecycle
func.func @lifecycle(%n: index, %j: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tle.shared_alloc : memref<3x64x64xbf16, #smem>
  %m = tle.shared_alloc : memref<3x64xf32, #smem>
  %q = tle.shared_alloc : memref<1x64x64xbf16, #smem>
  %kv = tle.pipe "kv" capacity 3
      fields(k = %a : memref<3x64x64xbf16, #smem>,
             m = %m : memref<3x64xf32, #smem>)
      readers(mma = [k], stats = [m])
  %qp = tle.pipe "q" capacity 1 one_shot
      fields(q = %q : memref<1x64x64xbf16, #smem>) readers(mma)
  tle.warp_specialize
  default "mma" warps(4) registers(232) {
    // CHECK: tle.wait %q reader "mma" -> memref<64x64xbf16, #gpu.address_space<workgroup>>
    %qv = tle.wait %qp reader "mma" -> memref<64x64xbf16, #smem>
    scf.for %i = %c0 to %n step %c1 {
      // CHECK: tle.wait %kv[%{{.*}} : index] reader "mma" -> memref<64x64xbf16, #gpu.address_space<workgroup>>
      %k = tle.wait %kv[%i : index] reader "mma" -> memref<64x64xbf16, #smem>
      // CHECK-NEXT: tle.release %kv[%{{.*}} : index] reader "mma"
      tle.release %kv[%i : index] reader "mma"
    }
    tle.warp_yield
  }
  partition "stats" warps(1) {
    // CHECK: tle.wait %kv[%{{.*}} : i32] reader "stats" -> memref<64xf32, #gpu.address_space<workgroup>>
    %s = tle.wait %kv[%j : i32] reader "stats" -> memref<64xf32, #smem>
    // CHECK-NEXT: tle.release %kv[%{{.*}} : i32] reader "stats"
    tle.release %kv[%j : i32] reader "stats"
    tle.warp_return
  }
  partition "load" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      // CHECK: %{{.*}}:2 = tle.acquire %kv[%{{.*}} : index] -> memref<64x64xbf16, #gpu.address_space<workgroup>>, memref<64xf32, #gpu.address_space<workgroup>>
      %k, %s = tle.acquire %kv[%i : index]
          -> memref<64x64xbf16, #smem>, memref<64xf32, #smem>
      // CHECK-NEXT: tle.commit %kv[%{{.*}} : index]
      tle.commit %kv[%i : index]
    }
    // CHECK: tle.commit %q{{$}}
    tle.commit %qp
    tle.warp_return
  }
  return
}

// CHECK-LABEL: func.func @warp_specialize_forms
func.func @warp_specialize_forms(%x: f32) -> f32 {
  // CHECK: tle.warp_specialize{{$}}
  // CHECK-NEXT: default warps(4) {
  // CHECK: tle.warp_yield
  // CHECK-NEXT: }
  tle.warp_specialize
  default warps(4) {
    tle.warp_yield
  }
  // CHECK: %[[R:.*]]:2 = tle.warp_specialize -> (f32, index) attributes {tag}
  // CHECK-NEXT: default "consumer" warps(8) registers(240) {
  // CHECK: tle.warp_yield %{{.*}}, %{{.*}} : f32, index
  // CHECK-NEXT: }
  // CHECK-NEXT: partition "producer" warps(1) registers(24) {
  // CHECK: tle.warp_return
  // CHECK-NEXT: }
  // CHECK-NEXT: partition warps(2) {
  // CHECK: tle.warp_return
  %r:2 = tle.warp_specialize -> (f32, index) attributes {tag}
  default "consumer" warps(8) registers(240) {
    %c = arith.constant 1 : index
    tle.warp_yield %x, %c : f32, index
  }
  partition "producer" warps(1) registers(24) {
    tle.warp_return
  }
  partition warps(2) {
    tle.warp_return
  }
  // CHECK: return %[[R]]#0 : f32
  return %r#0 : f32
}

//===----------------------------------------------------------------------===//
// Compute subset: layouts, tensor maps, tile ops
//===----------------------------------------------------------------------===//

#sw128 = #tle.shared<swizzle = 128>
#acc = #tle.mma<warp_groups = [2, 1]>
#opnd = #tle.mma_operand<warp_groups = [2, 1]>
#row = #tle.slice<dim = 1, parent = #tle.mma<warp_groups = [2, 1]>>
#blk = #tle.blocked<per_thread = [1, 8], threads = [2, 16], warps = [4, 1]>

// Every swizzle width of #tle.shared survives the roundtrip.
// CHECK-LABEL: func.func @shared_space
func.func @shared_space() {
  // CHECK: tle.shared_alloc : memref<64x16xbf16, #tle.shared<swizzle = 32>>
  %0 = tle.shared_alloc : memref<64x16xbf16, #tle.shared<swizzle = 32>>
  // CHECK: tle.shared_alloc : memref<64x32xbf16, #tle.shared<swizzle = 64>>
  %1 = tle.shared_alloc : memref<64x32xbf16, #tle.shared<swizzle = 64>>
  // CHECK: tle.shared_alloc : memref<4x128x64xbf16, #tle.shared<swizzle = 128>>
  %2 = tle.shared_alloc : memref<4x128x64xbf16, #sw128>
  return
}

// The four tensor layouts, each parameter printed back as written; a slice
// may have a #tle.mma or a 2-D #tle.blocked parent.
// CHECK-LABEL: func.func @layouts
// CHECK-SAME: tensor<128x256xf32, #tle.mma<warp_groups = [2, 1]>>
// CHECK-SAME: tensor<64x64xbf16, #tle.mma_operand<warp_groups = [1, 1]>>
// CHECK-SAME: tensor<128xf32, #tle.slice<dim = 1, parent = #tle.mma<warp_groups = [2, 1]>>>
// CHECK-SAME: tensor<512xbf16, #tle.slice<dim = 0, parent = #tle.blocked<per_thread = [1, 8], threads = [2, 16], warps = [8, 1]>>>
// CHECK-SAME: tensor<512xf32, #tle.blocked<per_thread = [4], threads = [32], warps = [4]>>
func.func @layouts(
    %acc: tensor<128x256xf32, #acc>,
    %a: tensor<64x64xbf16, #tle.mma_operand<warp_groups = [1, 1]>>,
    %rowmax: tensor<128xf32, #row>,
    %col: tensor<512xbf16, #tle.slice<dim = 0, parent = #tle.blocked<per_thread = [1, 8], threads = [2, 16], warps = [8, 1]>>>,
    %flat: tensor<512xf32, #tle.blocked<per_thread = [4], threads = [32], warps = [4]>>) {
  return
}

// Tensor maps of rank 1 to 3; swizzle 0 is allowed for maps (not for
// #tle.shared).
// CHECK-LABEL: func.func @tensor_maps
// CHECK-SAME: !tle.tensor_map<128x64xbf16, swizzle = 128>
// CHECK-SAME: !tle.tensor_map<256xf32, swizzle = 0>
// CHECK-SAME: !tle.tensor_map<1x64x32xf16, swizzle = 64>
func.func @tensor_maps(%a: !tle.tensor_map<128x64xbf16, swizzle = 128>,
                       %b: !tle.tensor_map<256xf32, swizzle = 0>,
                       %c: !tle.tensor_map<1x64x32xf16, swizzle = 64>) {
  return
}

// CHECK-LABEL: func.func @tma_load
// CHECK-SAME: (%[[MAP:.*]]: !tle.tensor_map<128x64xbf16, swizzle = 128>, %[[M:.*]]: index, %[[K:.*]]: index, %[[SLOT:.*]]: index)
func.func @tma_load(%map: !tle.tensor_map<128x64xbf16, swizzle = 128>,
                    %m: index, %k: index, %slot: index) {
  // CHECK: %[[TILE:.*]] = tle.shared_alloc
  // CHECK: %[[BARS:.*]] = tle.shared_alloc
  %tile = tle.shared_alloc : memref<128x128xbf16, #sw128>
  %bars = tle.shared_alloc : memref<2xi64, 3>
  // Inside a pipe the barrier is implicit (the slot's full barrier).
  // CHECK: tle.tma_load %[[MAP]][%[[M]], %[[K]]] into %[[TILE]] : !tle.tensor_map<128x64xbf16, swizzle = 128>, memref<128x128xbf16, #tle.shared<swizzle = 128>>
  tle.tma_load %map[%m, %k] into %tile
      : !tle.tensor_map<128x64xbf16, swizzle = 128>, memref<128x128xbf16, #sw128>
  // After --tle-lower-pipes it names the mbarrier array and the slot.
  // CHECK: tle.tma_load %[[MAP]][%[[M]], %[[K]]] into %[[TILE]] barrier %[[BARS]][%[[SLOT]]] : memref<2xi64, 3> : !tle.tensor_map<128x64xbf16, swizzle = 128>, memref<128x128xbf16, #tle.shared<swizzle = 128>>
  tle.tma_load %map[%m, %k] into %tile barrier %bars[%slot] : memref<2xi64, 3>
      : !tle.tensor_map<128x64xbf16, swizzle = 128>, memref<128x128xbf16, #sw128>
  return
}

// A from shared memory or from registers; B [K, N] or, with transpose_b,
// [N, K]; the in-flight results may feed another wgmma's accumulator and a
// wgmma_wait, which returns several tensors at once.
// CHECK-LABEL: func.func @wgmma
// CHECK-SAME: (%[[ACC:.*]]: tensor<128x256xf32, #tle.mma<warp_groups = [2, 1]>>, %[[AR:.*]]: tensor<128x64xbf16, #tle.mma_operand<warp_groups = [2, 1]>>)
func.func @wgmma(%acc: tensor<128x256xf32, #acc>,
                 %areg: tensor<128x64xbf16, #opnd>)
    -> (tensor<128x256xf32, #acc>, tensor<128x256xf32, #acc>) {
  // CHECK: %[[A:.*]] = tle.shared_alloc
  // CHECK: %[[B:.*]] = tle.shared_alloc
  // CHECK: %[[BT:.*]] = tle.shared_alloc
  %a = tle.shared_alloc : memref<128x64xbf16, #sw128>
  %b = tle.shared_alloc : memref<64x256xbf16, #sw128>
  %bt = tle.shared_alloc : memref<256x64xbf16, #sw128>
  // CHECK: %[[D0:.*]] = tle.wgmma %[[A]], %[[B]], %[[ACC]] : memref<128x64xbf16, #tle.shared<swizzle = 128>>, memref<64x256xbf16, #tle.shared<swizzle = 128>>, tensor<128x256xf32, #tle.mma<warp_groups = [2, 1]>>
  %d0 = tle.wgmma %a, %b, %acc
      : memref<128x64xbf16, #sw128>, memref<64x256xbf16, #sw128>,
        tensor<128x256xf32, #acc>
  // CHECK: %[[D1:.*]] = tle.wgmma %[[A]], %[[BT]], %[[D0]] transpose_b : memref<128x64xbf16, #tle.shared<swizzle = 128>>, memref<256x64xbf16, #tle.shared<swizzle = 128>>, tensor<128x256xf32, #tle.mma<warp_groups = [2, 1]>>
  %d1 = tle.wgmma %a, %bt, %d0 transpose_b
      : memref<128x64xbf16, #sw128>, memref<256x64xbf16, #sw128>,
        tensor<128x256xf32, #acc>
  // CHECK: %[[D2:.*]] = tle.wgmma %[[AR]], %[[B]], %[[ACC]] : tensor<128x64xbf16, #tle.mma_operand<warp_groups = [2, 1]>>, memref<64x256xbf16, #tle.shared<swizzle = 128>>, tensor<128x256xf32, #tle.mma<warp_groups = [2, 1]>>
  %d2 = tle.wgmma %areg, %b, %acc
      : tensor<128x64xbf16, #opnd>, memref<64x256xbf16, #sw128>,
        tensor<128x256xf32, #acc>
  // pending(1) retires %d1, which %d2 follows, but not %d2: its result
  // stays in flight until pending(0).
  // CHECK: %[[W:.*]]:2 = tle.wgmma_wait %[[D1]], %[[D2]] pending(1) : tensor<128x256xf32, #tle.mma<warp_groups = [2, 1]>>, tensor<128x256xf32, #tle.mma<warp_groups = [2, 1]>>
  %w:2 = tle.wgmma_wait %d1, %d2 pending(1)
      : tensor<128x256xf32, #acc>, tensor<128x256xf32, #acc>
  // CHECK: %[[L:.*]] = tle.wgmma_wait %[[W]]#1 pending(0)
  %last = tle.wgmma_wait %w#1 pending(0) : tensor<128x256xf32, #acc>
  // CHECK: return %[[W]]#0, %[[L]]
  return %w#0, %last : tensor<128x256xf32, #acc>, tensor<128x256xf32, #acc>
}

// Row statistics and back: reduce to the slice layout, broadcast to the
// parent, and the data-preserving mma -> mma_operand conversion.
// CHECK-LABEL: func.func @reduce_broadcast_convert
// CHECK-SAME: (%[[S:.*]]: tensor<128x64xf32, #tle.mma<warp_groups = [2, 1]>>, %[[P:.*]]: tensor<128x64xbf16, #tle.mma<warp_groups = [2, 1]>>)
func.func @reduce_broadcast_convert(%s: tensor<128x64xf32, #acc>,
                                    %p: tensor<128x64xbf16, #acc>)
    -> tensor<128x64xbf16, #opnd> {
  // CHECK: %[[MAX:.*]] = tle.reduce max %[[S]] dim 1 : tensor<128x64xf32, #tle.mma<warp_groups = [2, 1]>> -> tensor<128xf32, #tle.slice<dim = 1, parent = #tle.mma<warp_groups = [2, 1]>>>
  %max = tle.reduce max %s dim 1 : tensor<128x64xf32, #acc> -> tensor<128xf32, #row>
  // CHECK: tle.reduce sum %[[S]] dim 1
  %sum = tle.reduce sum %s dim 1 : tensor<128x64xf32, #acc> -> tensor<128xf32, #row>
  // CHECK: tle.reduce sum %[[S]] dim 1 : tensor<128x64xf32, #tle.mma<warp_groups = [2, 1]>> -> tensor<128x8xf32, #tle.mma<warp_groups = [2, 1]>>
  %partial = tle.reduce sum %s dim 1 : tensor<128x64xf32, #acc> -> tensor<128x8xf32, #acc>
  // CHECK: tle.broadcast %[[MAX]] dim 1 : tensor<128xf32, #tle.slice<dim = 1, parent = #tle.mma<warp_groups = [2, 1]>>> -> tensor<128x64xf32, #tle.mma<warp_groups = [2, 1]>>
  %b = tle.broadcast %max dim 1 : tensor<128xf32, #row> -> tensor<128x64xf32, #acc>
  // CHECK: tle.scale %[[S]] by %[[MAX]] dim 1 : tensor<128x64xf32, #tle.mma<warp_groups = [2, 1]>>, tensor<128xf32, #tle.slice<dim = 1, parent = #tle.mma<warp_groups = [2, 1]>>>
  %scaled = tle.scale %s by %max dim 1 : tensor<128x64xf32, #acc>, tensor<128xf32, #row>
  // CHECK: %[[A:.*]] = tle.convert_layout %[[P]] : tensor<128x64xbf16, #tle.mma<warp_groups = [2, 1]>> -> tensor<128x64xbf16, #tle.mma_operand<warp_groups = [2, 1]>>
  %a = tle.convert_layout %p : tensor<128x64xbf16, #acc> -> tensor<128x64xbf16, #opnd>
  // CHECK: return %[[A]]
  return %a : tensor<128x64xbf16, #opnd>
}

// A conversion through the author's shared-memory buffer.
// CHECK-LABEL: func.func @convert_through_scratch
#mma1 = #tle.mma<warp_groups = [1, 1]>
#rows = #tle.blocked<per_thread = [1, 8], threads = [1, 32], warps = [4, 1]>
func.func @convert_through_scratch(%o: tensor<64x256xbf16, #mma1>,
                                   %buf: memref<64x256xbf16, #tle.shared<swizzle = 128>>)
    -> tensor<64x256xbf16, #rows> {
  // CHECK: tle.convert_layout %{{.*}} scratch %{{.*}} : tensor<64x256xbf16, #tle.mma<warp_groups = [1, 1]>> -> tensor<64x256xbf16, #tle.blocked<per_thread = [1, 8], threads = [1, 32], warps = [4, 1]>>, memref<64x256xbf16, #tle.shared<swizzle = 128>>
  %r = tle.convert_layout %o scratch %buf
      : tensor<64x256xbf16, #mma1> -> tensor<64x256xbf16, #rows>, memref<64x256xbf16, #tle.shared<swizzle = 128>>
  return %r : tensor<64x256xbf16, #rows>
}

// Shared-memory tiles, swizzled or row-major, and global tiles.
// CHECK-LABEL: func.func @memory
// CHECK-SAME: (%[[G:.*]]: memref<?x512xbf16>, %[[I:.*]]: index, %[[J:.*]]: index)
func.func @memory(%g: memref<?x512xbf16>, %i: index, %j: index) {
  // CHECK: %[[SW:.*]] = tle.shared_alloc
  // CHECK: %[[RM:.*]] = tle.shared_alloc
  %sw = tle.shared_alloc : memref<64x512xbf16, #sw128>
  %rm = tle.shared_alloc : memref<64x512xbf16, 3>
  // CHECK: %[[T:.*]] = tle.load %[[G]][%[[I]], %[[J]]] : memref<?x512xbf16> -> tensor<64x512xbf16, #tle.blocked<per_thread = [1, 8], threads = [2, 16], warps = [4, 1]>>
  %t = tle.load %g[%i, %j] : memref<?x512xbf16> -> tensor<64x512xbf16, #blk>
  // CHECK: tle.local_store %[[T]], %[[SW]] : tensor<64x512xbf16, #tle.blocked<{{.*}}>>, memref<64x512xbf16, #tle.shared<swizzle = 128>>
  tle.local_store %t, %sw : tensor<64x512xbf16, #blk>, memref<64x512xbf16, #sw128>
  // CHECK: tle.local_store %[[T]], %[[RM]] : tensor<64x512xbf16, #tle.blocked<{{.*}}>>, memref<64x512xbf16, 3>
  tle.local_store %t, %rm : tensor<64x512xbf16, #blk>, memref<64x512xbf16, 3>
  // CHECK: %[[U:.*]] = tle.local_load %[[SW]] : memref<64x512xbf16, #tle.shared<swizzle = 128>> -> tensor<64x512xbf16, #tle.blocked<{{.*}}>>
  %u = tle.local_load %sw : memref<64x512xbf16, #sw128> -> tensor<64x512xbf16, #blk>
  // CHECK: tle.store %[[U]], %[[G]][%[[I]], %[[J]]] : tensor<64x512xbf16, #tle.blocked<{{.*}}>>, memref<?x512xbf16>
  tle.store %u, %g[%i, %j] : tensor<64x512xbf16, #blk>, memref<?x512xbf16>
  return
}

// CHECK-LABEL: func.func @splat_iota_gather
// CHECK: tle.splat %{{.*}} : f32 -> tensor<64x64xf32, #tle.mma<warp_groups = [1, 2]>>
// CHECK: %[[IDS:.*]] = tle.iota dim 0 : tensor<64xi32, #tle.blocked<per_thread = [1], threads = [32], warps = [1]>>
// CHECK: tle.gather_rows %{{.*}} rows(%[[IDS]] : tensor<64xi32, #tle.blocked<per_thread = [1], threads = [32], warps = [1]>>) into %{{.*}} : memref<?x576xbf16>, memref<64x576xbf16, #tle.shared<swizzle = 128>>
// CHECK: tle.gather_rows %{{.*}} from %{{.*}} into %{{.*}} : memref<?x576xbf16>, memref<64x576xbf16, #tle.shared<swizzle = 128>>
// CHECK: tle.gather_rows %{{.*}} from %{{.*}} into %{{.*}} l2_prefetch = 256 evict = evict_last : memref<?x576xbf16>, memref<64x576xbf16, #tle.shared<swizzle = 128>>
// CHECK: tle.gather_rows %{{.*}} from %{{.*}} into %{{.*}} evict = evict_first : memref<?x576xbf16>, memref<64x576xbf16, #tle.shared<swizzle = 128>>
func.func @splat_iota_gather(%x: f32, %src: memref<?x576xbf16>, %first: index) {
  %s = tle.splat %x : f32 -> tensor<64x64xf32, #tle.mma<warp_groups = [1, 2]>>
  %ids = tle.iota dim 0 : tensor<64xi32, #tle.blocked<per_thread = [1], threads = [32], warps = [1]>>
  %dst = tle.shared_alloc : memref<64x576xbf16, #tle.shared<swizzle = 128>>
  tle.gather_rows %src rows(%ids : tensor<64xi32, #tle.blocked<per_thread = [1], threads = [32], warps = [1]>>) into %dst : memref<?x576xbf16>, memref<64x576xbf16, #tle.shared<swizzle = 128>>
  tle.gather_rows %src from %first into %dst : memref<?x576xbf16>, memref<64x576xbf16, #tle.shared<swizzle = 128>>
  tle.gather_rows %src from %first into %dst l2_prefetch = 256 evict = evict_last : memref<?x576xbf16>, memref<64x576xbf16, #tle.shared<swizzle = 128>>
  tle.gather_rows %src from %first into %dst evict = evict_first : memref<?x576xbf16>, memref<64x576xbf16, #tle.shared<swizzle = 128>>
  return
}

// CHECK-LABEL: func.func @gather_rows_fp8
// CHECK: tle.gather_rows_fp8 %{{.*}} rows(%{{.*}} : tensor<64xi32, #tle.blocked<per_thread = [1], threads = [32], warps = [1]>>) into %{{.*}} format = v32 columns = 256 : memref<?x64x656xi8, strided<[?, 656, 1]>>, memref<64x256xbf16, #tle.shared<swizzle = 128>>
// CHECK: tle.gather_rows_fp8 %{{.*}} rows(%{{.*}} : tensor<64xi32, #tle.blocked<per_thread = [1], threads = [32], warps = [1]>>) into %{{.*}} format = v32 columns = 512 l2_prefetch = 256 evict = evict_last : memref<?x64x656xi8, strided<[?, 656, 1]>>, memref<64x64xbf16, #tle.shared<swizzle = 128>>
func.func @gather_rows_fp8(%cache: memref<?x64x656xi8, strided<[?, 656, 1]>>) {
  %ids = tle.iota dim 0 : tensor<64xi32, #tle.blocked<per_thread = [1], threads = [32], warps = [1]>>
  %half = tle.shared_alloc : memref<64x256xbf16, #tle.shared<swizzle = 128>>
  %tail = tle.shared_alloc : memref<64x64xbf16, #tle.shared<swizzle = 128>>
  tle.gather_rows_fp8 %cache rows(%ids : tensor<64xi32, #tle.blocked<per_thread = [1], threads = [32], warps = [1]>>) into %half format = v32 columns = 256 : memref<?x64x656xi8, strided<[?, 656, 1]>>, memref<64x256xbf16, #tle.shared<swizzle = 128>>
  tle.gather_rows_fp8 %cache rows(%ids : tensor<64xi32, #tle.blocked<per_thread = [1], threads = [32], warps = [1]>>) into %tail format = v32 columns = 512 l2_prefetch = 256 evict = evict_last : memref<?x64x656xi8, strided<[?, 656, 1]>>, memref<64x64xbf16, #tle.shared<swizzle = 128>>
  return
}

// CHECK-LABEL: func.func @token_forms
func.func @token_forms() {
  // CHECK: %turn01 = tle.token "turn01" from "wg0" to "wg1"
  // CHECK: %turn10 = tle.token "turn10" from "wg1" to "wg0"
  %t01 = tle.token "turn01" from "wg0" to "wg1"
  %t10 = tle.token "turn10" from "wg1" to "wg0"
  tle.warp_specialize
    default "wg0" warps(4) {
      // CHECK: tle.signal %turn01
      // CHECK: tle.await %turn10
      tle.signal %t01
      tle.await %t10
      tle.warp_yield
    }
    partition "wg1" warps(4) {
      // CHECK: tle.await %turn01
      // CHECK: tle.signal %turn10
      tle.await %t01
      tle.signal %t10
      tle.warp_return
    }
  return
}

// Tokens between replicas: a ring over the replicas of one partition, and
// pairs between two partitions of as many replicas; an unused token names
// partitions that exist.
// CHECK-LABEL: func.func @replica_token_forms
func.func @replica_token_forms() {
  // CHECK: %turn = tle.token "turn" from "mma" to "mma"
  // CHECK: %pair = tle.token "pair" from "mma" to "epi"
  // CHECK: %spare = tle.token "spare" from "epi" to "mma"
  %turn = tle.token "turn" from "mma" to "mma"
  %pair = tle.token "pair" from "mma" to "epi"
  %spare = tle.token "spare" from "epi" to "mma"
  tle.warp_specialize
    default "tma" warps(1) {
      tle.warp_yield
    }
    partition "mma" warps(4) replicas(2) (%r: index) {
      // CHECK: tle.await %turn
      // CHECK: tle.signal %turn
      // CHECK: tle.signal %pair
      tle.await %turn
      tle.signal %turn
      tle.signal %pair
      tle.warp_return
    }
    partition "epi" warps(4) replicas(2) (%r: index) {
      // CHECK: tle.await %pair
      tle.await %pair
      tle.warp_return
    }
  return
}

// A replicated partition takes its replica index as a block argument; the
// pipe names its reader once, by the name the ops use.
// CHECK-LABEL: func.func @replica_forms
func.func @replica_forms(%n: index) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %buf = tle.shared_alloc : memref<2x128xf32, #smem>
  // CHECK: tle.pipe "rows" capacity 2 fields({{.*}}) readers(mma)
  // CHECK: tle.pipe "done" capacity 2 fields({{.*}}) readers("mma#0", "mma#1")
  %p = tle.pipe "rows" capacity 2 fields(v = %buf : memref<2x128xf32, #smem>)
      readers(mma)
  %q = tle.pipe "done" capacity 2 fields(v = %buf : memref<2x128xf32, #smem>)
      readers("mma#0", "mma#1")
  tle.warp_specialize
    // CHECK: default "tma" warps(1) {
    default "tma" warps(1) {
      tle.warp_yield
    }
    // CHECK: partition "mma" warps(4) registers(232) replicas(2) (%[[R:.*]]: index) {
    // CHECK-NEXT: arith.muli %[[R]], %{{.*}} : index
    partition "mma" warps(4) registers(232) replicas(2) (%r: index) {
      %row = arith.muli %r, %c64 : index
      tle.warp_return
    }
    // CHECK: partition "one" warps(4) replicas(1) (%{{.*}}: index) {
    partition "one" warps(4) replicas(1) (%s: index) {
      tle.warp_return
    }
  return
}
