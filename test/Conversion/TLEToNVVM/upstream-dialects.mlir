// RUN: tle-opt %s --convert-tle-to-nvvm | FileCheck %s

// The scalar dialects kernels use convert in the same conversion. Math ops
// that NVPTX cannot select become libdevice calls (so the module must be
// linked with libdevice); arith's ceildiv is expanded first.

// CHECK-LABEL: llvm.func @scalars
// CHECK-SAME: (%[[X:.*]]: f32, %[[I:.*]]: i32, %[[N:.*]]: i64)
// CHECK: %[[E:.*]] = llvm.call @__nv_expf(%[[X]]) : (f32) -> f32
// CHECK: llvm.intr.ctpop(%[[I]]) : (i32) -> i32
// CHECK: llvm.sdiv %[[I]], %{{.*}} : i32
// CHECK: llvm.select
// CHECK: llvm.add %[[N]], %{{.*}} : i64
// CHECK: llvm.fadd %[[E]], %[[X]] : f32
// CHECK-NOT: {{(arith|math|index)\.}}
func.func @scalars(%x: f32, %i: i32, %n: index) -> (f32, i32, index) {
  %e = math.exp %x : f32
  %c = math.ctpop %i : i32
  %q = arith.ceildivsi %i, %c : i32
  %one = index.constant 1
  %m = index.add %n, %one
  %s = arith.addf %e, %x : f32
  return %s, %q, %m : f32, i32, index
}
