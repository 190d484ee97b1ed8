// REQUIRES: ptxas
//
// The PTX assembles for sm_90a, and since the kernel states its launch
// bounds (nvvm.maxntid, nvvm.minctasm) ptxas knows the register count at
// entry and honours setmaxnreg instead of ignoring it (C7508).
//
// RUN: tle-translate --tle-to-ptx %s -o %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s
//
// The same through --tle-to-cubin, with ptxas's report kept in a file.
// RUN: tle-translate --tle-to-cubin %s -o %t.2.cubin --tle-ptxas-log=%t.log 2>&1 \
// RUN:   | FileCheck --check-prefix=DIAG --allow-empty %s
// RUN: FileCheck --input-file=%t.log %s
// RUN: llvm-readelf -h -s %t.2.cubin | FileCheck --check-prefix=ELF %s

// CHECK-NOT:   C7508
// CHECK:       Compiling entry function 'k' for 'sm_90a'
// CHECK:       Used {{[0-9]+}} registers
// CHECK-NOT:   C7508

// DIAG-NOT:    warning
// DIAG-NOT:    error

// ELF:         Machine: NVIDIA CUDA architecture
// ELF:         FUNC {{.*}} k{{$}}

module {
  llvm.mlir.global external @tle_dynamic_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>

  llvm.func @k(%arg0: !llvm.ptr<1>, %arg1: i32) attributes {
      nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>, nvvm.minctasm = 1 : i32} {
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %smem = llvm.mlir.addressof @tle_dynamic_smem : !llvm.ptr<3>
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %c64 = llvm.mlir.constant(64 : i32) : i32
    %c128 = llvm.mlir.constant(128 : i32) : i32
    %first = llvm.icmp "eq" %tid, %c0 : i32
    llvm.cond_br %first, ^init, ^sync
  ^init:
    nvvm.mbarrier.init %smem, %c128 : !llvm.ptr<3>, i32
    llvm.br ^sync
  ^sync:
    nvvm.barrier0
    %producer = llvm.icmp "ult" %tid, %c64 : i32
    llvm.cond_br %producer, ^produce, ^consume
  ^produce:
    nvvm.setmaxregister decrease 40
    llvm.br ^store
  ^consume:
    nvvm.setmaxregister increase 232
    llvm.br ^store
  ^store:
    %sum = llvm.add %tid, %arg1 : i32
    %value = llvm.sitofp %sum : i32 to f32
    %addr = llvm.getelementptr %arg0[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    llvm.store %value, %addr : f32, !llvm.ptr<1>
    llvm.return
  }
}
