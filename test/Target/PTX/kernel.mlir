// A hand-written kernel in the shape `tle-opt --tle-to-llvm` produces:
// launch bounds, an mbarrier in dynamic shared memory, and a register
// budget split between a producer and a consumer warp group.
//
// RUN: tle-translate --tle-to-ptx %s --tle-metadata=%t.json | FileCheck %s
// RUN: FileCheck --check-prefix=META --input-file=%t.json %s

// CHECK:       .version 8.6
// CHECK:       .target sm_90a
// CHECK:       .extern .shared .align 1024 .b8 tle_dynamic_smem[];
// CHECK:       .entry k(
// CHECK-NEXT:    .param .u64 {{.*}}k_param_0,
// CHECK-NEXT:    .param .u32 k_param_1
// CHECK-NEXT:  )
// CHECK-NEXT:  .maxntid 128, 1, 1
// CHECK-NEXT:  .minnctapersm 1
// CHECK:       mov.u32 {{.*}}, %tid.x;
// CHECK:       mbarrier.init.shared.b64 [tle_dynamic_smem]
// CHECK:       bar.sync 0;
// CHECK-DAG:   setmaxnreg.dec.sync.aligned.u32 40;
// CHECK-DAG:   setmaxnreg.inc.sync.aligned.u32 232;
// CHECK:       st.global.b32

// META:        "chip": "sm_90a",
// META-NEXT:   "kernels": [
// META-NEXT:     {
// META-NEXT:       "args": [
// META-NEXT:         {
// META-NEXT:           "element_type": "f32",
// META-NEXT:           "kind": "memref",
// META-NEXT:           "layout": "identity",
// META-NEXT:           "sizes": [
// META-NEXT:             -1
// META-NEXT:           ],
// META-NEXT:           "type": "memref<?xf32>"
// META-NEXT:         },
// META-NEXT:         {
// META-NEXT:           "kind": "i32",
// META-NEXT:           "type": "i32"
// META-NEXT:         }
// META-NEXT:       ],
// META-NEXT:       "block": [
// META-NEXT:         128,
// META-NEXT:         1,
// META-NEXT:         1
// META-NEXT:       ],
// META-NEXT:       "dynamic_shared_memory": 1024,
// META-NEXT:       "grid": "n / 128",
// META-NEXT:       "name": "k",
// META-NEXT:       "params": [
// META-NEXT:         "ptr",
// META-NEXT:         "i32"
// META-NEXT:       ]
// META-NEXT:     }
// META-NEXT:   ],
// META-NEXT:   "ptx_version": "8.6"

module {
  llvm.mlir.global external @tle_dynamic_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>

  llvm.func @k(%arg0: !llvm.ptr<1>, %arg1: i32) attributes {
      nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>, nvvm.minctasm = 1 : i32,
      tle.shared_memory_size = 1024 : i64,
      tle.kernel_signature = ["memref<?xf32>", "i32"], tle.grid = "n / 128"} {
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
    // Warp group 0 produces and gives registers away; the other computes.
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
