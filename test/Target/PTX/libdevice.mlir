// Math that NVPTX has no instruction for arrives as calls of libdevice's
// __nv_* functions; tle-translate links the ones used, so the PTX has no
// unresolved extern and ptxas assembles it.
// REQUIRES: libdevice, ptxas
// RUN: tle-translate --tle-to-ptx %s -o %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin
// RUN: env TLE_LIBDEVICE=%t.missing.bc not tle-translate --tle-to-ptx %s 2>&1 | FileCheck %s --check-prefix=MISSING

// CHECK: .entry expk
// CHECK-NOT: .extern .func{{.*}}__nv_expf
// CHECK: ex2.approx

// MISSING: error: the kernel calls __nv_expf, which comes from CUDA's libdevice, but '{{.*}}.missing.bc' cannot be read

llvm.func @__nv_expf(f32) -> f32
llvm.func @expk(%x: !llvm.ptr<1>) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %p = llvm.getelementptr %x[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  %v = llvm.load %p : !llvm.ptr<1> -> f32
  %e = llvm.call @__nv_expf(%v) : (f32) -> f32
  llvm.store %e, %p : f32, !llvm.ptr<1>
  llvm.return
}
