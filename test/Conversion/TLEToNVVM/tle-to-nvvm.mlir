// RUN: tle-opt %s --convert-tle-to-nvvm -split-input-file -verify-diagnostics | FileCheck %s --enable-var-scope

// Every shared buffer is an offset into one external shared array, declared
// once per module however many buffers there are.

// CHECK: llvm.mlir.global external @tle_dynamic_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK-NOT: llvm.mlir.global
// CHECK-LABEL: llvm.func @shared_alloc
// CHECK: %[[BASE:.*]] = llvm.mlir.addressof @tle_dynamic_smem : !llvm.ptr<3>
// CHECK: %[[PTR:.*]] = llvm.getelementptr %[[BASE]][1024] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: %[[D0:.*]] = llvm.insertvalue %[[PTR]], %{{.*}}[0] : !llvm.struct<(ptr<3>, ptr<3>, i64, array<2 x i64>, array<2 x i64>)>
// CHECK: %[[D1:.*]] = llvm.insertvalue %[[PTR]], %[[D0]][1]
// CHECK: %[[ZERO:.*]] = llvm.mlir.constant(0 : index) : i64
// CHECK: llvm.insertvalue %[[ZERO]], %[[D1]][2]
// CHECK: llvm.mlir.addressof @tle_dynamic_smem : !llvm.ptr<3>
// CHECK: llvm.getelementptr %{{.*}}[2048] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: llvm.return
func.func @shared_alloc() -> memref<2x128xf32, #gpu.address_space<workgroup>> {
  %a = tle.shared_alloc {offset = 1024 : i64} : memref<2x128xf32, #gpu.address_space<workgroup>>
  %b = tle.shared_alloc {name = "full", offset = 2048 : i64} : memref<2xi64, 3>
  return %a : memref<2x128xf32, #gpu.address_space<workgroup>>
}

// CHECK-LABEL: llvm.func @second_kernel
// CHECK: llvm.mlir.addressof @tle_dynamic_smem : !llvm.ptr<3>
// CHECK: llvm.getelementptr %{{.*}}[0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
func.func @second_kernel() -> memref<4xf32, 3> {
  %a = tle.shared_alloc {offset = 0 : i64} : memref<4xf32, 3>
  return %a : memref<4xf32, 3>
}

// -----

// Slot s of a 2x64x32 buffer starts s * 2048 elements in.

// CHECK-LABEL: llvm.func @slot
// CHECK-SAME: %[[S:arg9]]: i64
// CHECK: %[[ALIGNED:.*]] = llvm.extractvalue %{{.*}}[1] : !llvm.struct<(ptr<3>, ptr<3>, i64, array<3 x i64>, array<3 x i64>)>
// CHECK: %[[ELEMS:.*]] = llvm.mlir.constant(2048 : index) : i64
// CHECK: %[[START:.*]] = llvm.mul %[[S]], %[[ELEMS]] : i64
// CHECK: %[[VIEW:.*]] = llvm.getelementptr %[[ALIGNED]][%[[START]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, bf16
// CHECK: %[[V0:.*]] = llvm.insertvalue %[[VIEW]], %{{.*}}[0] : !llvm.struct<(ptr<3>, ptr<3>, i64, array<2 x i64>, array<2 x i64>)>
// CHECK: llvm.insertvalue %[[VIEW]], %[[V0]][1]
func.func @slot(%buf: memref<2x64x32xbf16, 3>, %s: index) -> memref<64x32xbf16, 3> {
  %v = tle.slot %buf[%s] : memref<2x64x32xbf16, 3> -> memref<64x32xbf16, 3>
  return %v : memref<64x32xbf16, 3>
}

// -----

// CHECK-LABEL: llvm.func @mbarrier_init
// CHECK-SAME: %[[I:arg5]]: i64
// CHECK: %[[BASE:.*]] = llvm.extractvalue %{{.*}}[1]
// CHECK: %[[BAR:.*]] = llvm.getelementptr %[[BASE]][%[[I]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i64
// CHECK: %[[COUNT:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK: nvvm.mbarrier.init %[[BAR]], %[[COUNT]] : !llvm.ptr<3>, i32
func.func @mbarrier_init(%bars: memref<2xi64, 3>, %i: index) {
  tle.mbarrier_init %bars[%i] count 32 : memref<2xi64, 3>
  return
}

// CHECK-LABEL: llvm.func @mbarrier_wait
// CHECK-SAME: %[[I:arg5]]: i64, %[[P:arg6]]: i1
// CHECK: %[[BAR:.*]] = llvm.getelementptr %{{.*}}[%[[I]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i64
// CHECK: %[[P32:.*]] = llvm.zext %[[P]] : i1 to i32
// CHECK: %[[TICKS:.*]] = llvm.mlir.constant(10000000 : i32) : i32
// CHECK: nvvm.mbarrier.try_wait.parity %[[BAR]], %[[P32]], %[[TICKS]] : !llvm.ptr<3>, i32, i32
func.func @mbarrier_wait(%bars: memref<2xi64, 3>, %i: index, %p: i1) {
  tle.mbarrier_wait %bars[%i], %p : memref<2xi64, 3>
  return
}

// CHECK-LABEL: llvm.func @mbarrier_arrive
// CHECK-SAME: %[[I:arg5]]: i64
// CHECK: %[[PLAIN:.*]] = llvm.getelementptr %{{.*}}[%[[I]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i64
// CHECK: nvvm.mbarrier.arrive %[[PLAIN]] : !llvm.ptr<3>
// CHECK: %[[CP:.*]] = llvm.getelementptr %{{.*}}[%[[I]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i64
// CHECK: nvvm.cp.async.mbarrier.arrive %[[CP]] {noinc = true} : !llvm.ptr<3>
// CHECK: %[[TX:.*]] = llvm.getelementptr %{{.*}}[%[[I]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i64
// CHECK: %[[BYTES:.*]] = llvm.mlir.constant(32768 : i32) : i32
// CHECK: nvvm.mbarrier.arrive.expect_tx %[[TX]], %[[BYTES]] : !llvm.ptr<3>, i32
func.func @mbarrier_arrive(%bars: memref<2xi64, 3>, %i: index) {
  tle.mbarrier_arrive %bars[%i] plain : memref<2xi64, 3>
  tle.mbarrier_arrive %bars[%i] cp_async : memref<2xi64, 3>
  tle.mbarrier_arrive %bars[%i] expect_tx 32768 : memref<2xi64, 3>
  return
}

// -----

// Barriers in #gpu.address_space<workgroup> land in address space 3 too.

// CHECK-LABEL: llvm.func @gpu_workgroup_barriers
// CHECK-SAME: !llvm.ptr<3>
// CHECK: nvvm.mbarrier.init %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32
func.func @gpu_workgroup_barriers(%bars: memref<1xi64, #gpu.address_space<workgroup>>) {
  %c0 = arith.constant 0 : index
  tle.mbarrier_init %bars[%c0] count 1 : memref<1xi64, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @alloc_without_offset() {
  // expected-error @below {{'tle.shared_alloc' op has no offset; run --tle-allocate-shared-memory first}}
  %a = tle.shared_alloc : memref<2x128xf32, 3>
  return
}

// -----

func.func @tma_load_without_barrier(%map: !tle.tensor_map<64x64xbf16, swizzle = 0>, %x: index, %y: index) {
  %dst = tle.shared_alloc {offset = 0 : i64} : memref<64x64xbf16, 3>
  // expected-error @below {{'tle.tma_load' op has no barrier; it must write a pipe slot (between tle.acquire and tle.commit, or a one_shot pipe's buffer before its tle.commit) and run through --tle-lower-pipes first}}
  tle.tma_load %map[%x, %y] into %dst : !tle.tensor_map<64x64xbf16, swizzle = 0>, memref<64x64xbf16, 3>
  return
}

// -----

func.func @tma_store_unexpanded(%map: !tle.tensor_map<64x64xbf16, swizzle = 0>, %x: index, %y: index) {
  %src = tle.shared_alloc {offset = 0 : i64} : memref<64x64xbf16, 3>
  // expected-error @below {{'tle.tma_store' op must be expanded for its partition first; run --tle-distribute-tensors}}
  tle.tma_store %map[%x, %y] from %src : !tle.tensor_map<64x64xbf16, swizzle = 0>, memref<64x64xbf16, 3>
  return
}

// -----

func.func @swizzled_memref_load(%i: index) -> bf16 {
  %a = tle.shared_alloc {offset = 0 : i64} : memref<64x64xbf16, #tle.shared<swizzle = 128>>
  // expected-error @below {{'memref.load' op accesses a swizzled #tle.shared buffer as if it were row-major; use tle.local_load or tle.local_store}}
  %v = memref.load %a[%i, %i] : memref<64x64xbf16, #tle.shared<swizzle = 128>>
  return %v : bf16
}

// -----

func.func @scf_left(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{'scf.for' op must be lowered first; run --convert-scf-to-cf before --convert-tle-to-nvvm}}
  scf.for %i = %c0 to %n step %c1 {
  }
  return
}

// -----

// Outside a function no pass places a buffer (found by the fuzz target).
// expected-error @below {{'tle.shared_alloc' op is outside every kernel function; shared memory belongs to a kernel}}
%outside = tle.shared_alloc : memref<2x128xf32, 3>

// -----

// A parameter the kernel ABI has no place for is named, rather than the
// whole function failing to legalize (found by the fuzz target).
// expected-error @below {{'func.func' op argument 0 of @descriptor_argument has type '!nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>', which a kernel cannot take as a parameter}}
func.func @descriptor_argument(%d: !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>) {
  return
}
