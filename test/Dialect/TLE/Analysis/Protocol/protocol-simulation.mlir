// RUN: tle-opt %s --tle-test-protocol-simulation -split-input-file -o /dev/null 2>&1 | FileCheck %s

// The inputs the check chooses: every input 0, then 1, then grown until
// each loop runs S + 1 = 3 and 2S + 1 = 5 times (S the total capacity).
// CHECK-LABEL: run 0: when argument 0 of @grown = 0
// CHECK-NEXT: run 1: when argument 0 of @grown = 1
// CHECK-NEXT: run 2: when argument 0 of @grown = 3
// CHECK-NEXT: run 3: when argument 0 of @grown = 5
// CHECK-NEXT: protocol-simulation.mlir:[[#@LINE+6]]:3: remark: no deadlock or race in 4 runs
func.func @grown(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.wait %p[%i : index] reader "r" -> memref<64xf32, 3>
      tle.release %p[%i : index] reader "r"
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

// -----

// A condition the check cannot compute (a comparison of floats) is tried
// at 0 and at 1 with the long loops; the ceiling of a block size by 64
// grows with the block size until the loop runs 3 and then 5 times.
// CHECK: run 0: when the arith.cmpf at line [[#@LINE+17]] = 0
// CHECK-NEXT: run 1: when the arith.cmpf at line [[#@LINE+16]] = 1, the gpu.block_dim at line [[#@LINE+13]] = 1
// CHECK: run {{[0-9]+}}: when the arith.cmpf at line [[#@LINE+15]] = 1, the gpu.block_dim at line [[#@LINE+12]] = 192
// CHECK: run {{[0-9]+}}: when the arith.cmpf at line [[#@LINE+14]] = 0
// CHECK: run {{[0-9]+}}: when the arith.cmpf at line [[#@LINE+13]] = 1, the gpu.block_dim at line [[#@LINE+10]] = 320
// CHECK-NEXT: protocol-simulation.mlir:[[#@LINE+13]]:3: remark: no deadlock or race in {{[0-9]+}} runs
func.func @conditions(%x: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  %bd = gpu.block_dim x
  %up = arith.addi %bd, %c63 : index
  %n = arith.divui %up, %c64 : index
  %pos = arith.cmpf ogt, %x, %zero : f32
  tle.warp_specialize
  default "r" warps(4) {
    scf.if %pos {
      scf.for %i = %c0 to %n step %c1 {
        %v = tle.wait %p[%i : index] reader "r" -> memref<64xf32, 3>
        tle.release %p[%i : index] reader "r"
      }
    }
    tle.warp_yield
  }
  partition "w" warps(1) {
    scf.if %pos {
      scf.for %i = %c0 to %n step %c1 {
        %v = tle.acquire %p[%i : index] -> memref<64xf32, 3>
        tle.commit %p[%i : index]
      }
    }
    tle.warp_return
  }
  return
}

// -----

// Without inputs one run is the kernel's only behaviour.
// CHECK-LABEL: run 0: without inputs
// CHECK-NEXT: remark: no deadlock or race in 1 run
func.func @fixed() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    scf.for %i = %c0 to %c4 step %c1 {
      %v = tle.wait %p[%i : index] reader "r" -> memref<64xf32, 3>
      tle.release %p[%i : index] reader "r"
    }
    tle.warp_yield
  }
  partition "w" warps(1) {
    scf.for %i = %c0 to %c4 step %c1 {
      %v = tle.acquire %p[%i : index] -> memref<64xf32, 3>
      tle.commit %p[%i : index]
    }
    tle.warp_return
  }
  return
}
