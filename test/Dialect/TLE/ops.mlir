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
