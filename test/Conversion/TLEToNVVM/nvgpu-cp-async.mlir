// RUN: tle-opt %s --convert-tle-to-nvvm | FileCheck %s

// cp.async copies lower with the rest of the kernel; the async token they
// return becomes an i32 that the group ops no longer need.

// CHECK-LABEL: llvm.func @cp_async
// CHECK: %[[DST:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f32
// CHECK: %[[SRC:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK: %[[SRC1:.*]] = llvm.addrspacecast %[[SRC]] : !llvm.ptr to !llvm.ptr<1>
// CHECK: nvvm.cp.async.shared.global %[[DST]], %[[SRC1]], 16, cache = ca : !llvm.ptr<3>, !llvm.ptr<1>
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NOT: nvgpu.
func.func @cp_async(%src: memref<128xf32>,
                    %dst: memref<128xf32, #gpu.address_space<workgroup>>,
                    %i: index) {
  %t = nvgpu.device_async_copy %src[%i], %dst[%i], 4
      : memref<128xf32> to memref<128xf32, #gpu.address_space<workgroup>>
  %g = nvgpu.device_async_create_group %t
  nvgpu.device_async_wait %g {numGroups = 0 : i32}
  return
}
