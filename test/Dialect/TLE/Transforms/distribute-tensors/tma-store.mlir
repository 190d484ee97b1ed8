// RUN: tle-opt %s --tle-distribute-tensors | FileCheck %s --enable-var-scope

// tle.tma_store is expanded for the partition that runs it: every thread
// fences its writes for the async proxy and meets the others; thread 0
// issues the copies (the issued form) and waits for them to read the
// tile; the partition meets again before the tile may be reused. A view
// of a swizzled tile (here the column block [0, 128] of a 64 x 256 tile,
// chunk 2) is copied from where the layout puts it: 16 KiB (8192
// elements) in, where its strided start says 128 elements, so 8064 are
// added.

// CHECK-LABEL: func.func @tma_store_partition
// CHECK: nvvm.stmatrix
// CHECK: %{{.*}}, %[[OFF:.*]], %{{.*}}:2, %{{.*}}:2 = memref.extract_strided_metadata %{{.*}} : memref<64x128xbf16
// CHECK: %[[START:.*]] = arith.addi %[[OFF]], %c8064{{.*}} : index
// CHECK: %[[MOVED:.*]] = memref.reinterpret_cast %{{.*}} to offset: [%[[START]]]
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: %[[TID:.*]] = gpu.thread_id  x
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[TID]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK-NEXT: tle.tma_store %{{.*}}[%{{.*}}, %{{.*}}] from %[[MOVED]] issued
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: tle.warp_return
#sw = #tle.shared<swizzle = 128>
#acc = #tle.mma<warp_groups = [1, 1]>
func.func @tma_store_partition(%map: !tle.tensor_map<64x64xbf16, swizzle = 128>,
                               %m: index, %n: index) {
  %tile = tle.shared_alloc : memref<64x256xbf16, #sw>
  tle.warp_specialize
  default "store" warps(4) {
    tle.warp_yield
  }
  partition "epilogue" warps(4) {
    %zero = arith.constant dense<0.0> : tensor<64x256xbf16, #acc>
    tle.local_store %zero, %tile : tensor<64x256xbf16, #acc>, memref<64x256xbf16, #sw>
    %half = memref.subview %tile[0, 128] [64, 128] [1, 1]
        : memref<64x256xbf16, #sw> to memref<64x128xbf16, strided<[256, 1], offset: 128>, #sw>
    tle.tma_store %map[%m, %n] from %half
        : !tle.tensor_map<64x64xbf16, swizzle = 128>,
          memref<64x128xbf16, strided<[256, 1], offset: 128>, #sw>
    tle.warp_return
  }
  return
}
