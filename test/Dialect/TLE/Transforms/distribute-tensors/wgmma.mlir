// RUN: tle-opt %s --tle-distribute-tensors -split-input-file -verify-diagnostics | FileCheck %s --enable-var-scope

// --tle-distribute-tensors on tle.wgmma and tle.wgmma_wait (Wgmma.cpp): one
// wgmma.mma_async per K step and N chunk, with shared-memory descriptors.
// Function arguments and results stay out of it (the pass converts bodies
// only), so values come from constants or loop-carried arguments, which
// also keeps the conversion from folding them away.

// wgmma from shared memory, both operands in the 128-byte swizzle: A
// [64, 64] K-major, B [64, 256] N-major. Descriptors (PTX ISA, matrix
// descriptor): start address >> 4 in bits 0..13, LBO >> 4 in 16..29,
// SBO >> 4 in 32..45, swizzle mode in 62..63 (1 = 128 B).
//   A: LBO 16 B (unused for swizzled K-major) -> 1, SBO 8 rows x 128 B =
//      1024 B -> 64: (1 << 62) | (64 << 32) | (1 << 16) = 4611686293305360384.
//   B: LBO = one 64-column chunk of all 64 K rows = 8192 B -> 512 (the step
//      between 128-byte column chunks), SBO 1024 B -> 64:
//      (1 << 62) | (64 << 32) | (512 << 16) = 4611686293338849280.
// Each K step of 16 moves A by 32 B (+2) and B by 16 rows x 128 B = 2048 B
// (+128). One m64n256k16 per step with 128 accumulator registers tied
// through it; operands $256/$257 are the base descriptors, $258 scale-d,
// and the step's offsets (in 16-byte units) are added inside the asm into
// `da`/`db`; imm-trans-a 0 (K-major A), imm-trans-b 1 (N-major B).
// CHECK-LABEL: func.func @wgmma_shared_a
// CHECK: scf.for
// B: this warp group's column block starts 0 chunks on (one warp group).
// CHECK: %[[BADDR:.*]] = arith.addi %{{.*}}, %{{.*}} : i64
// CHECK: %[[B4:.*]] = arith.shrui %[[BADDR]], %{{.*}} : i64
// CHECK: %[[BSTART:.*]] = arith.andi %[[B4]], %c16383_i64{{.*}} : i64
// CHECK: %[[BFIX:.*]] = arith.constant 4611686293338849280 : i64
// CHECK: %[[BDESC:.*]] = arith.ori %[[BSTART]], %[[BFIX]] : i64
// A: row block * 64 rows x 128 B.
// CHECK: arith.constant 8192 : index
// CHECK: %[[AFIX:.*]] = arith.constant 4611686293305360384 : i64
// CHECK: %[[ADESC:.*]] = arith.ori %{{.*}}, %[[AFIX]] : i64
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NEXT: %[[SCALE0:.*]] = arith.constant 1 : i32
// CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att
// CHECK-SAME: "{\0A.reg .pred p;\0A.reg .b64 da, db;\0Asetp.ne.b32 p, $258, 0;\0Aadd.s64 da, $256, 0;\0Aadd.s64 db, $257, 0;\0Awgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {$0, $1, $2,
// CHECK-SAME: $126, $127}, da, db, p, 1, 1, 0, 1;\0A}\0A"
// CHECK-SAME: "{{(=f,){128}0}},1,2,
// CHECK-SAME: ,126,127,l,l,r"
// CHECK-SAME: %[[ADESC]], %[[BDESC]], %[[SCALE0]] :
// CHECK-SAME: -> !llvm.struct<(f32,
// CHECK-NEXT: llvm.extractvalue
// CHECK: %[[SCALE1:.*]] = arith.constant 1 : i32
// CHECK-NEXT: llvm.inline_asm {{.*}}add.s64 da, $256, 2;\0Aadd.s64 db, $257, 128;\0Awgmma.mma_async.sync.aligned.m64n256k16
// CHECK-SAME: %[[ADESC]], %[[BDESC]], %[[SCALE1]] :
// CHECK: llvm.inline_asm {{.*}}add.s64 da, $256, 4;\0Aadd.s64 db, $257, 256;\0Awgmma.mma_async.sync.aligned.m64n256k16
// CHECK-SAME: %[[ADESC]], %[[BDESC]], %{{.*}} :
// CHECK: llvm.inline_asm {{.*}}add.s64 da, $256, 6;\0Aadd.s64 db, $257, 384;\0Awgmma.mma_async.sync.aligned.m64n256k16
// CHECK-SAME: %[[ADESC]], %[[BDESC]], %{{.*}} :
// CHECK-NOT: wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: vector.from_elements {{.*}} : vector<128xf32>
#sw = #tle.shared<swizzle = 128>
#acc = #tle.mma<warp_groups = [1, 1]>
func.func @wgmma_shared_a(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tle.shared_alloc : memref<64x64xbf16, #sw>
  %b = tle.shared_alloc : memref<64x256xbf16, #sw>
  %init = arith.constant dense<1.0> : tensor<64x256xf32, #acc>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> tensor<64x256xf32, #acc> {
    %d = tle.wgmma %a, %b, %acc : memref<64x64xbf16, #sw>, memref<64x256xbf16, #sw>, tensor<64x256xf32, #acc>
    %w = tle.wgmma_wait %d pending(0) : tensor<64x256xf32, #acc>
    scf.yield %w : tensor<64x256xf32, #acc>
  }
  return
}

// -----

// transpose_b: B is [N, K], K-major, so imm-trans-b is 0 and B's
// descriptor is built like A's (LBO 16 B, SBO 1024 B). K = 128 spans two
// 64-element column chunks of the 128-byte swizzle: steps 0..3 move both
// descriptors by 32 B (+2) within the first chunk, step 4 jumps to the
// second chunk, 64 rows x 128 B = 8192 B further (+512).
// CHECK-LABEL: func.func @wgmma_transpose_b
// CHECK: %[[BFIX:.*]] = arith.constant 4611686293305360384 : i64
// CHECK: %[[BDESC:.*]] = arith.ori %{{.*}}, %[[BFIX]] : i64
// CHECK: %[[AFIX:.*]] = arith.constant 4611686293305360384 : i64
// CHECK: %[[ADESC:.*]] = arith.ori %{{.*}}, %[[AFIX]] : i64
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: llvm.inline_asm {{.*}}add.s64 da, $64, 0;\0Aadd.s64 db, $65, 0;\0Awgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, da, db, p, 1, 1, 0, 0;
// CHECK-SAME: %[[ADESC]], %[[BDESC]], %{{.*}} :
// CHECK: add.s64 da, $64, 2;\0Aadd.s64 db, $65, 2;
// CHECK: add.s64 da, $64, 4;\0Aadd.s64 db, $65, 4;
// CHECK: add.s64 da, $64, 6;\0Aadd.s64 db, $65, 6;
// CHECK: add.s64 da, $64, 512;\0Aadd.s64 db, $65, 512;
// CHECK: add.s64 da, $64, 514;\0Aadd.s64 db, $65, 514;
// CHECK: add.s64 da, $64, 516;\0Aadd.s64 db, $65, 516;
// CHECK: add.s64 da, $64, 518;\0Aadd.s64 db, $65, 518;
// CHECK-SAME: %[[ADESC]], %[[BDESC]], %{{.*}} :
// CHECK-NOT: wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
#sw = #tle.shared<swizzle = 128>
#acc = #tle.mma<warp_groups = [1, 1]>
func.func @wgmma_transpose_b(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tle.shared_alloc : memref<64x128xbf16, #sw>
  %b = tle.shared_alloc : memref<64x128xbf16, #sw>
  %init = arith.constant dense<1.0> : tensor<64x64xf32, #acc>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> tensor<64x64xf32, #acc> {
    %d = tle.wgmma %a, %b, %acc transpose_b : memref<64x128xbf16, #sw>, memref<64x128xbf16, #sw>, tensor<64x64xf32, #acc>
    %w = tle.wgmma_wait %d pending(0) : tensor<64x64xf32, #acc>
    scf.yield %w : tensor<64x64xf32, #acc>
  }
  return
}

// -----

// A in registers (#tle.mma_operand): the 16 bf16 a thread holds of a
// 64 x 32 A are 8 b32 registers, four per K step in fragment order
// (a0a1, a2a3, a4a5, a6a7). The asm takes them as `{$64, $65, $66, $67}`
// after the 32 outputs and 32 tied inputs, has no A descriptor (no `da`
// operand) and no imm-trans-a, and keeps imm-trans-b 1 for the N-major B.
// B [32, 64]: LBO 32 rows x 128 B = 4096 B -> 256, SBO 1024 B -> 64:
// (1 << 62) | (64 << 32) | (256 << 16) = 4611686293322072064; the second K
// step adds 16 rows x 128 B = 2048 B (+128) to it in the asm.
// CHECK-LABEL: func.func @wgmma_register_a
// CHECK: %[[BDESC:.*]] = arith.ori %{{.*}}, %c4611686293322072064_i64 : i64
// CHECK: %[[PAIRS:.*]] = vector.bitcast %{{.*}} : vector<16xbf16> to vector<8xi32>
// CHECK-NEXT: %[[R0:.*]] = vector.extract %[[PAIRS]][0] : i32 from vector<8xi32>
// CHECK-NEXT: %[[R1:.*]] = vector.extract %[[PAIRS]][1] : i32 from vector<8xi32>
// CHECK-NEXT: %[[R2:.*]] = vector.extract %[[PAIRS]][2] : i32 from vector<8xi32>
// CHECK-NEXT: %[[R3:.*]] = vector.extract %[[PAIRS]][3] : i32 from vector<8xi32>
// CHECK-NEXT: %[[R4:.*]] = vector.extract %[[PAIRS]][4] : i32 from vector<8xi32>
// CHECK-NEXT: %[[R5:.*]] = vector.extract %[[PAIRS]][5] : i32 from vector<8xi32>
// CHECK-NEXT: %[[R6:.*]] = vector.extract %[[PAIRS]][6] : i32 from vector<8xi32>
// CHECK-NEXT: %[[R7:.*]] = vector.extract %[[PAIRS]][7] : i32 from vector<8xi32>
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: llvm.inline_asm
// CHECK-SAME: setp.ne.b32 p, $69, 0;\0Aadd.s64 db, $68, 0;\0Awgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {$0,
// CHECK-SAME: $31}, {$64, $65, $66, $67}, db, p, 1, 1, 1;
// CHECK-SAME: ,31,r,r,r,r,l,r" {{.*}}, %[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[BDESC]], %{{.*}} :
// CHECK-SAME: (f32, {{.*}}, f32, i32, i32, i32, i32, i64, i32)
// CHECK: llvm.inline_asm
// CHECK-SAME: add.s64 db, $68, 128;
// CHECK-SAME: ,31,r,r,r,r,l,r" {{.*}}, %[[R4]], %[[R5]], %[[R6]], %[[R7]], %[[BDESC]], %{{.*}} :
// CHECK-NOT: wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
#sw = #tle.shared<swizzle = 128>
#acc = #tle.mma<warp_groups = [1, 1]>
#opnd = #tle.mma_operand<warp_groups = [1, 1]>
func.func @wgmma_register_a(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tle.shared_alloc : memref<32x64xbf16, #sw>
  %a = arith.constant dense<1.0> : tensor<64x32xbf16, #opnd>
  %init = arith.constant dense<1.0> : tensor<64x64xf32, #acc>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> tensor<64x64xf32, #acc> {
    %d = tle.wgmma %a, %b, %acc : tensor<64x32xbf16, #opnd>, memref<32x64xbf16, #sw>, tensor<64x64xf32, #acc>
    %w = tle.wgmma_wait %d pending(0) : tensor<64x64xf32, #acc>
    scf.yield %w : tensor<64x64xf32, #acc>
  }
  return
}

// -----

// A zero accumulator constant is not read: scale-d is 0 on the first K
// step (D = A.B) and 1 afterwards. The 64-byte swizzle is mode 2 in bits
// 62..63 and SBO 8 x 64 B = 512 B -> 32:
// (2 << 62) | (32 << 32) | (1 << 16) = -9223371899415756800 as an i64.
// CHECK-LABEL: func.func @wgmma_zero_accumulator
// CHECK: arith.constant -9223371899415756800 : i64
// CHECK: arith.constant -9223371899415756800 : i64
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: %[[FIRST:.*]] = arith.constant 0 : i32
// CHECK-NEXT: llvm.inline_asm {{.*}}setp.ne.b32 p, $10, 0;\0Aadd.s64 da, $8, 0;\0Aadd.s64 db, $9, 0;\0Awgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {$0, $1, $2, $3}, da, db, p, 1, 1, 0, 0;
// CHECK-SAME: %[[FIRST]] :
// CHECK: %[[NEXT:.*]] = arith.constant 1 : i32
// CHECK-NEXT: llvm.inline_asm {{.*}}add.s64 da, $8, 2;\0Aadd.s64 db, $9, 2;\0Awgmma.mma_async.sync.aligned.m64n8k16
// CHECK-SAME: %[[NEXT]] :
// CHECK-NOT: wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
#sw = #tle.shared<swizzle = 64>
#acc = #tle.mma<warp_groups = [1, 1]>
func.func @wgmma_zero_accumulator() {
  %a = tle.shared_alloc : memref<64x32xbf16, #sw>
  %b = tle.shared_alloc : memref<8x32xbf16, #sw>
  %zero = arith.constant dense<0.0> : tensor<64x8xf32, #acc>
  %d = tle.wgmma %a, %b, %zero transpose_b : memref<64x32xbf16, #sw>, memref<8x32xbf16, #sw>, tensor<64x8xf32, #acc>
  %w = tle.wgmma_wait %d pending(0) : tensor<64x8xf32, #acc>
  return
}

// -----

// 512 columns per warp group exceed wgmma's N of 256: each K step issues
// two m64n256k16, the first on accumulator registers 0..127, the second on
// 128..255 with B's descriptor 4 column chunks x 16 rows x 128 B = 8192 B
// (+512) further. A uses the 32-byte swizzle: mode 3, SBO 256 B.
// CHECK-LABEL: func.func @wgmma_split_n
// CHECK: %[[BFIX:.*]] = arith.constant 4611686293313683456 : i64
// CHECK: %[[BDESC:.*]] = arith.ori %{{.*}}, %[[BFIX]] : i64
// CHECK: arith.constant -4611685949707845632 : i64
// CHECK: %[[E0:.*]] = vector.extract %[[ACC:.*]][0] : f32 from vector<256xf32>
// CHECK: %[[E128:.*]] = vector.extract %[[ACC]][128] : f32 from vector<256xf32>
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: llvm.inline_asm {{.*}}add.s64 db, $257, 0;\0Awgmma.mma_async.sync.aligned.m64n256k16{{.*}}$127}, da, db, p, 1, 1, 0, 1;
// CHECK-SAME: l,l,r" %[[E0]], {{.*}}, %[[BDESC]], %{{.*}} :
// CHECK: llvm.inline_asm {{.*}}add.s64 db, $257, 512;\0Awgmma.mma_async.sync.aligned.m64n256k16{{.*}}$127}, da, db, p, 1, 1, 0, 1;
// CHECK-SAME: l,l,r" %[[E128]], {{.*}}, %[[BDESC]], %{{.*}} :
// CHECK-NOT: wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: vector.from_elements {{.*}} : vector<256xf32>
#acc = #tle.mma<warp_groups = [1, 1]>
func.func @wgmma_split_n(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tle.shared_alloc : memref<64x16xbf16, #tle.shared<swizzle = 32>>
  %b = tle.shared_alloc : memref<16x512xbf16, #tle.shared<swizzle = 128>>
  %init = arith.constant dense<1.0> : tensor<64x512xf32, #acc>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> tensor<64x512xf32, #acc> {
    %d = tle.wgmma %a, %b, %acc : memref<64x16xbf16, #tle.shared<swizzle = 32>>, memref<16x512xbf16, #tle.shared<swizzle = 128>>, tensor<64x512xf32, #acc>
    %w = tle.wgmma_wait %d pending(0) : tensor<64x512xf32, #acc>
    scf.yield %w : tensor<64x512xf32, #acc>
  }
  return
}

// -----

// wgmma_wait ties every register of every input that is read afterwards
// through the asm, so no read of an accumulator can move above the wait:
// 4 + 2 outputs, inputs tied to them in order.
// CHECK-LABEL: func.func @wgmma_wait
// CHECK: %[[X0:.*]] = vector.extract %[[X:.*]][0] : f32 from vector<4xf32>
// CHECK-NEXT: %[[X1:.*]] = vector.extract %[[X]][1]
// CHECK-NEXT: %[[X2:.*]] = vector.extract %[[X]][2]
// CHECK-NEXT: %[[X3:.*]] = vector.extract %[[X]][3]
// CHECK-NEXT: %[[Y0:.*]] = vector.extract %[[Y:.*]][0] : f32 from vector<2xf32>
// CHECK-NEXT: %[[Y1:.*]] = vector.extract %[[Y]][1]
// CHECK-NEXT: %[[W:.*]] = llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 1;", "=f,=f,=f,=f,=f,=f,0,1,2,3,4,5" %[[X0]], %[[X1]], %[[X2]], %[[X3]], %[[Y0]], %[[Y1]] : (f32, f32, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32, f32, f32)>
// CHECK-NEXT: %[[W0:.*]] = llvm.extractvalue %[[W]][0]
// CHECK-NEXT: %[[W1:.*]] = llvm.extractvalue %[[W]][1]
// CHECK-NEXT: %[[W2:.*]] = llvm.extractvalue %[[W]][2]
// CHECK-NEXT: %[[W3:.*]] = llvm.extractvalue %[[W]][3]
// CHECK-NEXT: %[[XW:.*]] = vector.from_elements %[[W0]], %[[W1]], %[[W2]], %[[W3]] : vector<4xf32>
// CHECK-NEXT: %[[W4:.*]] = llvm.extractvalue %[[W]][4]
// CHECK-NEXT: %[[W5:.*]] = llvm.extractvalue %[[W]][5]
// CHECK-NEXT: %[[YW:.*]] = vector.from_elements %[[W4]], %[[W5]] : vector<2xf32>
// CHECK-NEXT: scf.yield %[[XW]], %[[YW]]
#acc = #tle.mma<warp_groups = [1, 1]>
#row = #tle.slice<dim = 1, parent = #tle.mma<warp_groups = [1, 1]>>
func.func @wgmma_wait(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x0 = arith.constant dense<1.0> : tensor<64x8xf32, #acc>
  %y0 = arith.constant dense<1.0> : tensor<64xf32, #row>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%x = %x0, %y = %y0) -> (tensor<64x8xf32, #acc>, tensor<64xf32, #row>) {
    %w:2 = tle.wgmma_wait %x, %y pending(1) : tensor<64x8xf32, #acc>, tensor<64xf32, #row>
    scf.yield %w#0, %w#1 : tensor<64x8xf32, #acc>, tensor<64xf32, #row>
  }
  return
}

// -----

// An input whose result nobody reads is not tied: with two chained
// multiplies, a pending(1) wait on the first names registers the second
// still accumulates into, and tying them makes ptxas serialise every wgmma
// of the kernel (C7514). The wait is then a bare wait_group.
// CHECK-LABEL: func.func @wgmma_wait_unread
// CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 1;", "" : () -> ()
// CHECK-NOT: wgmma.wait_group.sync.aligned 1;
// CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;", "=f,=f,=f,=f,0,1,2,3"
#acc = #tle.mma<warp_groups = [1, 1]>
func.func @wgmma_wait_unread() {
  %x = arith.constant dense<1.0> : tensor<64x8xf32, #acc>
  %first = tle.wgmma_wait %x pending(1) : tensor<64x8xf32, #acc>
  %done = tle.wgmma_wait %x pending(0) : tensor<64x8xf32, #acc>
  %sum = arith.addf %done, %done : tensor<64x8xf32, #acc>
  return
}
