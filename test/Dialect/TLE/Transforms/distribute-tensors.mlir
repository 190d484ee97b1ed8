// RUN: tle-opt %s --tle-distribute-tensors -split-input-file -verify-diagnostics | FileCheck %s --enable-var-scope

// Each function exercises one lowering of --tle-distribute-tensors: a tensor
// with a TLE layout becomes the vector of the elements one thread holds, in
// register order, and each tile op becomes the code one thread runs.
// Function arguments and results stay out of it (the pass converts bodies
// only), so values come from constants or loop-carried arguments, which
// also keeps the conversion from folding them away.

// A 128 x 256 f32 tensor over two warp groups is 128 registers per thread;
// element-wise arith and math ops keep their op on that vector, and truncf
// keeps the count while changing the element type.
// CHECK-LABEL: func.func @elementwise_mma
// CHECK: scf.for {{.*}} iter_args(%[[X:.*]] = %{{.*}}) -> (vector<128xf32>)
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[X]], %[[X]] : vector<128xf32>
// CHECK-NEXT: %[[E:.*]] = math.exp2 %[[M]] : vector<128xf32>
// CHECK-NEXT: %[[S:.*]] = arith.maximumf %[[E]], %[[X]] : vector<128xf32>
// CHECK-NEXT: %[[T:.*]] = arith.truncf %[[S]] : vector<128xf32> to vector<128xbf16>
// CHECK-NEXT: %[[U:.*]] = arith.extf %[[T]] : vector<128xbf16> to vector<128xf32>
// CHECK-NEXT: scf.yield %[[U]] : vector<128xf32>
// CHECK-NOT: tensor<
#acc = #tle.mma<warp_groups = [2, 1]>
func.func @elementwise_mma(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = arith.constant dense<1.0> : tensor<128x256xf32, #acc>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %init) -> tensor<128x256xf32, #acc> {
    %m = arith.mulf %x, %x : tensor<128x256xf32, #acc>
    %e = math.exp2 %m : tensor<128x256xf32, #acc>
    %s = arith.maximumf %e, %x : tensor<128x256xf32, #acc>
    %t = arith.truncf %s : tensor<128x256xf32, #acc> to tensor<128x256xbf16, #acc>
    %u = arith.extf %t : tensor<128x256xbf16, #acc> to tensor<128x256xf32, #acc>
    scf.yield %u : tensor<128x256xf32, #acc>
  }
  return
}

// -----

// A splat constant becomes a splat vector of the per-thread count: 32 rows
// x 4 column blocks of 8 bf16 for the blocked tile, the two rows a thread
// holds for a row slice of #tle.mma, 8 elements for a 64 x 16 operand.
// CHECK-LABEL: func.func @splat_constants
// CHECK-NEXT: arith.constant dense<0.000000e+00> : vector<256xbf16>
// CHECK-NEXT: arith.constant dense<0xFF800000> : vector<2xf32>
// CHECK-NEXT: arith.constant dense<1.000000e+00> : vector<8xf16>
// CHECK-NEXT: return
func.func @splat_constants() {
  %0 = arith.constant dense<0.0> : tensor<64x512xbf16, #tle.blocked<per_thread = [1, 8], threads = [2, 16], warps = [4, 1]>>
  %1 = arith.constant dense<0xFF800000> : tensor<64xf32, #tle.slice<dim = 1, parent = #tle.mma<warp_groups = [1, 1]>>>
  %2 = arith.constant dense<1.0> : tensor<64x16xf16, #tle.mma_operand<warp_groups = [1, 1]>>
  return
}

// -----

// tle.splat of a scalar becomes a vector.broadcast to the thread's count
// (8 registers of a 64 x 16 #tle.mma tile).
// CHECK-LABEL: func.func @splat
// CHECK-SAME: (%[[X:.*]]: f32,
// CHECK: scf.for {{.*}} iter_args(%[[A:.*]] = %{{.*}}) -> (vector<8xf32>)
// CHECK-NEXT: %[[S:.*]] = vector.broadcast %[[X]] : f32 to vector<8xf32>
// CHECK-NEXT: arith.mulf %[[A]], %[[S]] : vector<8xf32>
#acc = #tle.mma<warp_groups = [1, 1]>
func.func @splat(%x: f32, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = arith.constant dense<1.0> : tensor<64x16xf32, #acc>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %init) -> tensor<64x16xf32, #acc> {
    %s = tle.splat %x : f32 -> tensor<64x16xf32, #acc>
    %b = arith.mulf %a, %s : tensor<64x16xf32, #acc>
    scf.yield %b : tensor<64x16xf32, #acc>
  }
  return
}

// -----

// Loop-carried tensors become loop-carried vectors: the init, the block
// argument, the yield and the result all change type together.
// CHECK-LABEL: func.func @loop_iter_args
// CHECK: %[[INIT:.*]] = arith.constant dense<0.000000e+00> : vector<8xf32>
// CHECK: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : vector<8xf32>
// CHECK: %[[R:.*]]:2 = scf.for {{.*}} iter_args(%[[A:.*]] = %[[INIT]], %[[K:.*]] = %{{.*}}) -> (vector<8xf32>, index) {
// CHECK-NEXT: %[[B:.*]] = arith.addf %[[A]], %[[ONE]] : vector<8xf32>
// CHECK-NEXT: scf.yield %[[B]], %[[K]] : vector<8xf32>, index
// CHECK: arith.negf %[[R]]#0 : vector<8xf32>
#acc = #tle.mma<warp_groups = [1, 1]>
func.func @loop_iter_args(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant dense<0.0> : tensor<64x16xf32, #acc>
  %one = arith.constant dense<1.0> : tensor<64x16xf32, #acc>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %z, %k = %c0) -> (tensor<64x16xf32, #acc>, index) {
    %b = arith.addf %a, %one : tensor<64x16xf32, #acc>
    scf.yield %b, %k : tensor<64x16xf32, #acc>, index
  }
  %neg = arith.negf %r#0 : tensor<64x16xf32, #acc>
  return
}

// -----

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

// wgmma_wait ties every register of every input through the asm, so no
// read of an accumulator can move above the wait: 4 + 2 outputs, inputs
// tied to them in order.
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

// Row maximum of a 64 x 16 #tle.mma tile: a thread holds rows r and r + 8,
// columns {c, c+1, c+8, c+9}; registers 0, 1, 4, 5 are row r and 2, 3, 6, 7
// row r + 8. Each row folds in-thread, then over the quad of lanes that
// share it (xor 1, xor 2); no other lane bits take part.
// CHECK-LABEL: func.func @reduce_max_rows
// CHECK: %[[E0:.*]] = vector.extract %[[S:.*]][0] : f32 from vector<8xf32>
// CHECK-NEXT: %[[E1:.*]] = vector.extract %[[S]][1]
// CHECK-NEXT: %[[E2:.*]] = vector.extract %[[S]][2]
// CHECK-NEXT: %[[E3:.*]] = vector.extract %[[S]][3]
// CHECK-NEXT: %[[E4:.*]] = vector.extract %[[S]][4]
// CHECK-NEXT: %[[E5:.*]] = vector.extract %[[S]][5]
// CHECK-NEXT: %[[E6:.*]] = vector.extract %[[S]][6]
// CHECK-NEXT: %[[E7:.*]] = vector.extract %[[S]][7]
// CHECK-NEXT: %[[A01:.*]] = arith.maximumf %[[E0]], %[[E1]] : f32
// CHECK-NEXT: %[[B23:.*]] = arith.maximumf %[[E2]], %[[E3]] : f32
// CHECK-NEXT: %[[A4:.*]] = arith.maximumf %[[A01]], %[[E4]] : f32
// CHECK-NEXT: %[[A5:.*]] = arith.maximumf %[[A4]], %[[E5]] : f32
// CHECK-NEXT: %[[B6:.*]] = arith.maximumf %[[B23]], %[[E6]] : f32
// CHECK-NEXT: %[[B7:.*]] = arith.maximumf %[[B6]], %[[E7]] : f32
// CHECK-NEXT: %[[M1:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[W:.*]] = arith.constant 32 : i32
// CHECK-NEXT: %[[AX1:.*]], %{{.*}} = gpu.shuffle  xor %[[A5]], %[[M1]], %[[W]] : f32
// CHECK-NEXT: %[[A6:.*]] = arith.maximumf %[[A5]], %[[AX1]] : f32
// CHECK-NEXT: %[[M2:.*]] = arith.constant 2 : i32
// CHECK-NEXT: arith.constant 32 : i32
// CHECK-NEXT: %[[AX2:.*]], %{{.*}} = gpu.shuffle  xor %[[A6]], %[[M2]], %{{.*}} : f32
// CHECK-NEXT: %[[ROW:.*]] = arith.maximumf %[[A6]], %[[AX2]] : f32
// CHECK: gpu.shuffle  xor %[[B7]], %c1_i32{{.*}} : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32{{.*}} : f32
// CHECK-NEXT: %[[ROW8:.*]] = arith.maximumf
// CHECK-NOT: gpu.shuffle
// CHECK-NEXT: vector.from_elements %[[ROW]], %[[ROW8]] : vector<2xf32>
#acc = #tle.mma<warp_groups = [1, 1]>
#row = #tle.slice<dim = 1, parent = #tle.mma<warp_groups = [1, 1]>>
func.func @reduce_max_rows(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = arith.constant dense<1.0> : tensor<64x16xf32, #acc>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%s = %init) -> tensor<64x16xf32, #acc> {
    %m = tle.reduce max %s dim 1 : tensor<64x16xf32, #acc> -> tensor<64xf32, #row>
    scf.yield %s : tensor<64x16xf32, #acc>
  }
  return
}

// -----

// A sum folds with addf, same lanes.
// CHECK-LABEL: func.func @reduce_sum_rows
// CHECK-COUNT-6: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: %[[M1:.*]] = arith.constant 1 : i32
// CHECK-NEXT: arith.constant 32 : i32
// CHECK-NEXT: %[[X1:.*]], %{{.*}} = gpu.shuffle  xor %[[P:.*]], %[[M1]], %{{.*}} : f32
// CHECK-NEXT: arith.addf %[[P]], %[[X1]] : f32
// CHECK-NOT: arith.maximumf
// CHECK: vector.from_elements %{{.*}}, %{{.*}} : vector<2xf32>
#acc = #tle.mma<warp_groups = [1, 1]>
#row = #tle.slice<dim = 1, parent = #tle.mma<warp_groups = [1, 1]>>
func.func @reduce_sum_rows(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = arith.constant dense<1.0> : tensor<64x16xf32, #acc>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%s = %init) -> tensor<64x16xf32, #acc> {
    %m = tle.reduce sum %s dim 1 : tensor<64x16xf32, #acc> -> tensor<64xf32, #row>
    scf.yield %s : tensor<64x16xf32, #acc>
  }
  return
}

// -----

// A column reduction of #tle.mma combines the four warps of the warp group
// (16 rows each) through shared memory. In-thread, rows r and r + 8 fold
// (registers 0 and 2 for column c); in-warp, the lane bits of the row
// (xor 4, 8, 16). Then each warp writes its 4 partials to its own slot
// (warp = tid / 32 mod 4) of a [4, 16] f32 scratch buffer made at the start
// of the function, and after a barrier every thread reads the 4 slots of
// each of its columns and folds them in slot order. Outside any loop the
// buffer is never written again, so there is no trailing barrier.
// CHECK-LABEL: func.func @reduce_across_warps
// CHECK-NEXT: %[[SCRATCH:.*]] = tle.shared_alloc {name = "scratch"} : memref<4x16xf32, #gpu.address_space<workgroup>>
// CHECK: %[[E0:.*]] = vector.extract %{{.*}}[0] : f32 from vector<8xf32>
// CHECK-NEXT: %[[E1:.*]] = vector.extract
// CHECK-NEXT: %[[E2:.*]] = vector.extract
// CHECK: %[[C0:.*]] = arith.maximumf %[[E0]], %[[E2]] : f32
// CHECK: %[[M4:.*]] = arith.constant 4 : i32
// CHECK-NEXT: arith.constant 32 : i32
// CHECK-NEXT: %[[X4:.*]], %{{.*}} = gpu.shuffle  xor %[[C0]], %[[M4]], %{{.*}} : f32
// CHECK-NEXT: %[[P4:.*]] = arith.maximumf %[[C0]], %[[X4]] : f32
// CHECK-NEXT: %[[M8:.*]] = arith.constant 8 : i32
// CHECK-NEXT: arith.constant 32 : i32
// CHECK-NEXT: %[[X8:.*]], %{{.*}} = gpu.shuffle  xor %[[P4]], %[[M8]], %{{.*}} : f32
// CHECK-NEXT: %[[P8:.*]] = arith.maximumf %[[P4]], %[[X8]] : f32
// CHECK-NEXT: %[[M16:.*]] = arith.constant 16 : i32
// CHECK-NEXT: arith.constant 32 : i32
// CHECK-NEXT: %[[X16:.*]], %{{.*}} = gpu.shuffle  xor %[[P8]], %[[M16]], %{{.*}} : f32
// CHECK-NEXT: %[[PART:.*]] = arith.maximumf %[[P8]], %[[X16]] : f32
// CHECK: memref.extract_strided_metadata %[[SCRATCH]]
// CHECK: %[[TID:.*]] = gpu.thread_id  x
// CHECK: %[[WARP:.*]] = arith.divui %[[TID]], %c32{{.*}} : index
// CHECK: arith.remui %[[WARP]], %c4{{.*}} : index
// CHECK: %[[SROW:.*]] = arith.muli %{{.*}}, %c16{{.*}} : index
// CHECK-NEXT: %[[SIDX:.*]] = arith.addi %[[SROW]], %[[COL:.*]] : index
// CHECK-NEXT: %[[SEB:.*]] = arith.constant 4 : index
// CHECK-NEXT: arith.muli %[[SIDX]], %[[SEB]] : index
// CHECK: llvm.store %[[PART]], %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK-COUNT-3: llvm.store %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: %[[S0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[W0:.*]] = arith.constant 16 : index
// CHECK-NEXT: %[[R0:.*]] = arith.muli %[[S0]], %[[W0]] : index
// CHECK-NEXT: arith.addi %[[R0]], %[[COL]] : index
// CHECK: %[[L0:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK-NEXT: %[[S1:.*]] = arith.constant 1 : index
// CHECK: %[[L1:.*]] = llvm.load
// CHECK-NEXT: %[[F01:.*]] = arith.maximumf %[[L0]], %[[L1]] : f32
// CHECK-NEXT: arith.constant 2 : index
// CHECK: %[[L2:.*]] = llvm.load
// CHECK-NEXT: %[[F012:.*]] = arith.maximumf %[[F01]], %[[L2]] : f32
// CHECK-NEXT: arith.constant 3 : index
// CHECK: %[[L3:.*]] = llvm.load
// CHECK-NEXT: %[[COLMAX:.*]] = arith.maximumf %[[F012]], %[[L3]] : f32
// CHECK-NOT: gpu.barrier
// CHECK: vector.from_elements %[[COLMAX]], %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK-NOT: gpu.barrier
// CHECK: return
#acc = #tle.mma<warp_groups = [1, 1]>
func.func @reduce_across_warps() {
  %s = arith.constant dense<1.0> : tensor<64x16xf32, #acc>
  %m = tle.reduce max %s dim 0 : tensor<64x16xf32, #acc> -> tensor<16xf32, #tle.slice<dim = 0, parent = #acc>>
  return
}

// -----

// A row maximum over #tle.mma<warp_groups = [1, 2]> in an 8-warp
// partition: each warp group holds 32 of the 64 columns, so after the
// quad shuffles (xor 1, 2) the two warp groups exchange through a [2, 64]
// f32 scratch buffer: element slot x 64 + row for its rows r and r + 8,
// slot = tid / 128 mod 2. After the barrier each row folds slot 0, then 1.
// CHECK-LABEL: func.func @reduce_across_warp_groups
// CHECK-NEXT: %[[SCRATCH:.*]] = tle.shared_alloc {name = "scratch"} : memref<2x64xf32, #gpu.address_space<workgroup>>
// CHECK: default warps(8)
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32
// CHECK-NEXT: %[[ROWPART:.*]] = arith.maximumf
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32
// CHECK-NEXT: %[[ROW8PART:.*]] = arith.maximumf
// CHECK-NOT: gpu.shuffle
// CHECK: memref.extract_strided_metadata %[[SCRATCH]]
// CHECK: %[[TID:.*]] = gpu.thread_id  x
// CHECK: %[[WG:.*]] = arith.divui %[[TID]], %c128{{.*}} : index
// CHECK: arith.remui %[[WG]], %c2{{.*}} : index
// CHECK: %[[R:.*]] = arith.addi %{{.*}}, %c0{{.*}} : index
// CHECK-NEXT: %[[C8:.*]] = arith.constant 8 : index
// CHECK-NEXT: %[[R8:.*]] = arith.addi %{{.*}}, %[[C8]] : index
// CHECK-NEXT: %[[W:.*]] = arith.constant 64 : index
// CHECK-NEXT: %[[SROW:.*]] = arith.muli %{{.*}}, %[[W]] : index
// CHECK-NEXT: arith.addi %[[SROW]], %[[R]] : index
// CHECK: llvm.store %[[ROWPART]], %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK: llvm.store %[[ROW8PART]], %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: %[[S0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[W0:.*]] = arith.constant 64 : index
// CHECK-NEXT: %[[O0:.*]] = arith.muli %[[S0]], %[[W0]] : index
// CHECK-NEXT: arith.addi %[[O0]], %[[R]] : index
// CHECK: %[[L0:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK-NEXT: %[[S1:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[W1:.*]] = arith.constant 64 : index
// CHECK-NEXT: %[[O1:.*]] = arith.muli %[[S1]], %[[W1]] : index
// CHECK-NEXT: arith.addi %[[O1]], %[[R]] : index
// CHECK: %[[L1:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK-NEXT: %[[MAXR:.*]] = arith.maximumf %[[L0]], %[[L1]] : f32
// CHECK: arith.addi %{{.*}}, %[[R8]] : index
// CHECK: arith.addi %{{.*}}, %[[R8]] : index
// CHECK: %[[MAXR8:.*]] = arith.maximumf
// CHECK-NEXT: %[[V:.*]] = vector.from_elements %[[MAXR]], %[[MAXR8]] : vector<2xf32>
// CHECK-NEXT: arith.negf %[[V]] : vector<2xf32>
// CHECK-NOT: gpu.barrier
// CHECK: tle.warp_yield
#acc = #tle.mma<warp_groups = [1, 2]>
#row = #tle.slice<dim = 1, parent = #acc>
func.func @reduce_across_warp_groups() {
  tle.warp_specialize
  default warps(8) {
    %s = arith.constant dense<1.0> : tensor<64x64xf32, #acc>
    %m = tle.reduce max %s dim 1 : tensor<64x64xf32, #acc> -> tensor<64xf32, #row>
    %n = arith.negf %m : tensor<64xf32, #row>
    tle.warp_yield
  }
  return
}

// -----

// The trailing barrier: an exchange in a loop must keep the next
// iteration's writes to its scratch buffer behind every thread's reads.
// Two exchanges in one loop body guard each other (each one's barrier
// lies between the other's reads and next writes), so each keeps only the
// barrier between its writes and reads. (One exchange alone in a loop is
// in distribute-tensors-trailing-barrier.mlir.)
// CHECK-LABEL: func.func @two_exchanges_in_loop
// CHECK: scf.for
// CHECK-NOT: gpu.barrier
// CHECK: llvm.store
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK-NOT: gpu.barrier
// CHECK: gpu.shuffle  xor
// CHECK-NOT: gpu.barrier
// CHECK: llvm.store
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-NOT: gpu.barrier
// CHECK: scf.yield
#acc = #tle.mma<warp_groups = [1, 1]>
#col = #tle.slice<dim = 0, parent = #acc>
func.func @two_exchanges_in_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = arith.constant dense<1.0> : tensor<64x8xf32, #acc>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%s = %init) -> tensor<64x8xf32, #acc> {
    %m = tle.reduce max %s dim 0 : tensor<64x8xf32, #acc> -> tensor<8xf32, #col>
    %t = tle.reduce sum %s dim 0 : tensor<64x8xf32, #acc> -> tensor<8xf32, #col>
    scf.yield %s : tensor<64x8xf32, #acc>
  }
  return
}

// -----

// Broadcasting a row vector back: register i of the 64 x 16 tile takes the
// value of its row (0, 0, 8, 8 per column group), i.e. slice element 0 or 1.
// CHECK-LABEL: func.func @broadcast_rows
// CHECK: scf.for {{.*}} iter_args(%[[V:.*]] = %{{.*}}) -> (vector<2xf32>)
// CHECK-NEXT: %[[B:.*]] = vector.shuffle %[[V]], %[[V]] [0, 0, 1, 1, 0, 0, 1, 1] : vector<2xf32>, vector<2xf32>
// CHECK-NEXT: arith.negf %[[B]] : vector<8xf32>
#acc = #tle.mma<warp_groups = [1, 1]>
#row = #tle.slice<dim = 1, parent = #tle.mma<warp_groups = [1, 1]>>
func.func @broadcast_rows(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = arith.constant dense<1.0> : tensor<64xf32, #row>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%v = %init) -> tensor<64xf32, #row> {
    %b = tle.broadcast %v dim 1 : tensor<64xf32, #row> -> tensor<64x16xf32, #acc>
    %neg = arith.negf %b : tensor<64x16xf32, #acc>
    scf.yield %v : tensor<64xf32, #row>
  }
  return
}

// -----

// #tle.mma -> #tle.mma_operand with one warp group per row block moves no
// data: the vector passes through unchanged.
// CHECK-LABEL: func.func @convert_layout
// CHECK: scf.for {{.*}} iter_args(%[[P:.*]] = %{{.*}}) -> (vector<8xbf16>)
// CHECK-NEXT: arith.negf %[[P]] : vector<8xbf16>
// CHECK-NOT: tle.convert_layout
#acc = #tle.mma<warp_groups = [1, 1]>
#opnd = #tle.mma_operand<warp_groups = [1, 1]>
func.func @convert_layout(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = arith.constant dense<1.0> : tensor<64x16xbf16, #acc>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%p = %init) -> tensor<64x16xbf16, #acc> {
    %a = tle.convert_layout %p : tensor<64x16xbf16, #acc> -> tensor<64x16xbf16, #opnd>
    %neg = arith.negf %a : tensor<64x16xbf16, #opnd>
    scf.yield %p : tensor<64x16xbf16, #acc>
  }
  return
}

// -----

// #tle.mma -> #tle.mma_operand with two warp groups along N moves data:
// warp group g holds accumulator columns [32g, 32g + 32) but A's full 64
// columns. The tile goes through a row-major [64, 72] bf16 scratch buffer
// (rows padded by 16 bytes): each thread stores its 8 (col, col + 1) pairs
// as 4-byte vectors, column base + 32 x (tid / 128 mod 2); after a barrier
// it loads the 16 pairs of the operand layout. Not in a loop: no trailing
// barrier.
// CHECK-LABEL: func.func @convert_through_scratch
// CHECK-NEXT: %[[SCRATCH:.*]] = tle.shared_alloc {name = "scratch"} : memref<64x72xbf16, #gpu.address_space<workgroup>>
// CHECK: %[[WG:.*]] = arith.divui %{{.*}}, %c128{{.*}} : index
// CHECK-NEXT: %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[G:.*]] = arith.remui %[[WG]], %[[TWO]] : index
// CHECK-NEXT: %[[C32:.*]] = arith.constant 32 : index
// CHECK-NEXT: %[[GCOL:.*]] = arith.muli %[[G]], %[[C32]] : index
// CHECK: memref.extract_strided_metadata %[[SCRATCH]]
// CHECK: %[[PITCH:.*]] = arith.constant 72 : index
// CHECK-NEXT: arith.muli %{{.*}}, %[[PITCH]] : index
// CHECK: llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<3>
// CHECK-NOT: arith.xori
// CHECK: llvm.store %{{.*}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<3>
// CHECK-COUNT-7: llvm.store %{{.*}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<3>
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: llvm.store
// CHECK-COUNT-16: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> vector<2xbf16>
// CHECK-NOT: llvm.load
// CHECK: %[[A:.*]] = vector.from_elements {{.*}} : vector<32xbf16>
// CHECK-NEXT: arith.negf %[[A]] : vector<32xbf16>
// CHECK-NOT: gpu.barrier
// CHECK: tle.warp_yield
func.func @convert_through_scratch() {
  tle.warp_specialize
  default warps(8) {
    %p = arith.constant dense<1.0> : tensor<64x64xbf16, #tle.mma<warp_groups = [1, 2]>>
    %a = tle.convert_layout %p : tensor<64x64xbf16, #tle.mma<warp_groups = [1, 2]>> -> tensor<64x64xbf16, #tle.mma_operand<warp_groups = [1, 2]>>
    %n = arith.negf %a : tensor<64x64xbf16, #tle.mma_operand<warp_groups = [1, 2]>>
    tle.warp_yield
  }
  return
}

// -----

// One warp group's accumulator, replicated over an 8-warp partition, is
// already the operand layout of both warp groups: no data moves, so no
// scratch buffer and no barrier.
// CHECK-LABEL: func.func @convert_replicated
// CHECK-NOT: tle.shared_alloc
// CHECK: %[[P:.*]] = arith.constant dense<1.000000e+00> : vector<8xbf16>
// CHECK-NEXT: arith.negf %[[P]] : vector<8xbf16>
// CHECK-NOT: gpu.barrier
// CHECK: tle.warp_yield
func.func @convert_replicated() {
  tle.warp_specialize
  default warps(8) {
    %p = arith.constant dense<1.0> : tensor<64x16xbf16, #tle.mma<warp_groups = [1, 1]>>
    %a = tle.convert_layout %p : tensor<64x16xbf16, #tle.mma<warp_groups = [1, 1]>> -> tensor<64x16xbf16, #tle.mma_operand<warp_groups = [1, 2]>>
    %n = arith.negf %a : tensor<64x16xbf16, #tle.mma_operand<warp_groups = [1, 2]>>
    tle.warp_yield
  }
  return
}

// -----

// Storing a #tle.mma bf16 tile into the 128-byte swizzle: each thread
// writes its (col, col+1) pairs as 4-byte vectors, 16 of them. The byte
// offset of (row, col) is chunk (col / 64) x 64 rows x 128 B + row x 128 B
// + (col mod 64) x 2 B; the swizzle then XORs address bits 7..9 (the row
// within the 1024-byte pattern) into bits 4..6 (the 16-byte unit).
// CHECK-LABEL: func.func @local_store_mma_swizzled
// CHECK: scf.for {{.*}} iter_args(%[[X:.*]] = %{{.*}}) -> (vector<32xbf16>)
// CHECK: %[[ROW0:.*]] = arith.addi %[[ROWBASE:.*]], %c0{{.*}} : index
// CHECK-NEXT: arith.constant 0 : index
// CHECK-NEXT: %[[COL0:.*]] = arith.addi %[[COLBASE:.*]], %c0{{.*}} : index
// CHECK-NEXT: %[[W:.*]] = arith.constant 64 : index
// CHECK-NEXT: %[[CHUNK:.*]] = arith.divui %[[COL0]], %[[W]] : index
// CHECK-NEXT: %[[W2:.*]] = arith.constant 64 : index
// CHECK-NEXT: %[[IN:.*]] = arith.remui %[[COL0]], %[[W2]] : index
// CHECK-NEXT: %[[CB:.*]] = arith.constant 8192 : index
// CHECK-NEXT: %[[CHUNKBYTES:.*]] = arith.muli %[[CHUNK]], %[[CB]] : index
// CHECK-NEXT: %[[RB:.*]] = arith.constant 128 : index
// CHECK-NEXT: %[[ROWBYTES:.*]] = arith.muli %[[ROW0]], %[[RB]] : index
// CHECK-NEXT: %[[EB:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[COLBYTES:.*]] = arith.muli %[[IN]], %[[EB]] : index
// CHECK-NEXT: %[[S1:.*]] = arith.addi %[[CHUNKBYTES]], %[[ROWBYTES]] : index
// CHECK-NEXT: %[[OFF:.*]] = arith.addi %[[S1]], %[[COLBYTES]] : index
// CHECK-NEXT: %[[OFF64:.*]] = arith.index_cast %[[OFF]] : index to i64
// CHECK-NEXT: %[[ADDR:.*]] = arith.addi %[[BASE:.*]], %[[OFF64]] : i64
// CHECK-NEXT: %[[C7:.*]] = arith.constant 7 : i64
// CHECK-NEXT: %[[SH:.*]] = arith.shrui %[[ADDR]], %[[C7]] : i64
// CHECK-NEXT: %[[MASK:.*]] = arith.constant 7 : i64
// CHECK-NEXT: %[[R8:.*]] = arith.andi %[[SH]], %[[MASK]] : i64
// CHECK-NEXT: %[[C4:.*]] = arith.constant 4 : i64
// CHECK-NEXT: %[[FLIP:.*]] = arith.shli %[[R8]], %[[C4]] : i64
// CHECK-NEXT: %[[SWZ:.*]] = arith.xori %[[ADDR]], %[[FLIP]] : i64
// CHECK-NEXT: %[[P0:.*]] = llvm.inttoptr %[[SWZ]] : i64 to !llvm.ptr<3>
// Register 2 is row + 8 of the same columns.
// CHECK-NEXT: %[[C8:.*]] = arith.constant 8 : index
// CHECK-NEXT: arith.addi %[[ROWBASE]], %[[C8]] : index
// CHECK: %[[V0:.*]] = vector.shuffle %[[X]], %[[X]] [0, 1] : vector<32xbf16>, vector<32xbf16>
// CHECK-NEXT: llvm.store %[[V0]], %[[P0]] {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<3>
// CHECK-NEXT: vector.shuffle %[[X]], %[[X]] [2, 3]
// CHECK-COUNT-15: llvm.store %{{.*}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<3>
// CHECK-NOT: llvm.store
// CHECK: scf.yield %[[X]]
#acc = #tle.mma<warp_groups = [1, 1]>
#sw = #tle.shared<swizzle = 128>
func.func @local_store_mma_swizzled(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = tle.shared_alloc : memref<64x64xbf16, #sw>
  %init = arith.constant dense<1.0> : tensor<64x64xbf16, #acc>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %init) -> tensor<64x64xbf16, #acc> {
    tle.local_store %x, %buf : tensor<64x64xbf16, #acc>, memref<64x64xbf16, #sw>
    scf.yield %x : tensor<64x64xbf16, #acc>
  }
  return
}

// -----

// Loading a #tle.blocked tile with 8 consecutive bf16 per thread from the
// 128-byte swizzle: one 16-byte vector load, 16-byte aligned (a 16-byte
// unit stays whole under the XOR). The 8 x 128 tile has two column chunks
// of 8 rows x 128 B = 1024 B.
// CHECK-LABEL: func.func @local_load_blocked_swizzled
// CHECK: arith.divui %{{.*}}, %c64{{.*}} : index
// CHECK-NEXT: arith.constant 64 : index
// CHECK-NEXT: arith.remui
// CHECK-NEXT: arith.constant 1024 : index
// CHECK: arith.shrui %{{.*}}, %c7_i64{{.*}} : i64
// CHECK-NEXT: arith.constant 7 : i64
// CHECK-NEXT: arith.andi
// CHECK-NEXT: arith.constant 4 : i64
// CHECK-NEXT: arith.shli
// CHECK-NEXT: %[[SWZ:.*]] = arith.xori
// CHECK-NEXT: %[[P:.*]] = llvm.inttoptr %[[SWZ]] : i64 to !llvm.ptr<3>
// CHECK-NEXT: %[[V:.*]] = llvm.load %[[P]] {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xbf16>
// CHECK-NOT: llvm.load
// CHECK: %[[T:.*]] = vector.from_elements {{.*}} : vector<8xbf16>
// CHECK-NEXT: arith.negf %[[T]] : vector<8xbf16>
#sw = #tle.shared<swizzle = 128>
#blk = #tle.blocked<per_thread = [1, 8], threads = [2, 16], warps = [4, 1]>
func.func @local_load_blocked_swizzled() {
  %buf = tle.shared_alloc : memref<8x128xbf16, #sw>
  %t = tle.local_load %buf : memref<8x128xbf16, #sw> -> tensor<8x128xbf16, #blk>
  %neg = arith.negf %t : tensor<8x128xbf16, #blk>
  return
}

// -----

// A row-major shared buffer: offset (row x 128 + col) x 2 B, no swizzle.
// CHECK-LABEL: func.func @local_row_major
// CHECK: %[[ROW:.*]] = arith.addi %{{.*}}, %c0{{.*}} : index
// CHECK-NEXT: arith.constant 0 : index
// CHECK-NEXT: %[[COL:.*]] = arith.addi %{{.*}}, %c0{{.*}} : index
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[D0:.*]] = arith.constant 8 : index
// CHECK-NEXT: %[[L0:.*]] = arith.muli %[[Z]], %[[D0]] : index
// CHECK-NEXT: %[[L1:.*]] = arith.addi %[[L0]], %[[ROW]] : index
// CHECK-NEXT: %[[D1:.*]] = arith.constant 128 : index
// CHECK-NEXT: %[[L2:.*]] = arith.muli %[[L1]], %[[D1]] : index
// CHECK-NEXT: %[[L3:.*]] = arith.addi %[[L2]], %[[COL]] : index
// CHECK-NEXT: %[[EB:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[OFF:.*]] = arith.muli %[[L3]], %[[EB]] : index
// CHECK-NEXT: %[[OFF64:.*]] = arith.index_cast %[[OFF]] : index to i64
// CHECK-NEXT: %[[ADDR:.*]] = arith.addi %{{.*}}, %[[OFF64]] : i64
// CHECK-NEXT: %[[P:.*]] = llvm.inttoptr %[[ADDR]] : i64 to !llvm.ptr<3>
// CHECK-NEXT: %[[V:.*]] = llvm.load %[[P]] {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xbf16>
// CHECK-NOT: arith.xori
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<3>
// CHECK-NOT: arith.xori
// CHECK: return
#blk = #tle.blocked<per_thread = [1, 8], threads = [2, 16], warps = [4, 1]>
func.func @local_row_major() {
  %buf = tle.shared_alloc : memref<8x128xbf16, 3>
  %t = tle.local_load %buf : memref<8x128xbf16, 3> -> tensor<8x128xbf16, #blk>
  tle.local_store %t, %buf : tensor<8x128xbf16, #blk>, memref<8x128xbf16, 3>
  return
}

// -----

// A global load: one 8 x bf16 vector per thread at (i + row, j + col)
// when the row and the vector's last column (col + 7) are in bounds; a
// vector that straddles the end of the row loads element by element, each
// under its own check. Out of bounds yields zeros and never loads.
// CHECK-LABEL: func.func @global_load
// CHECK-SAME: (%[[G:.*]]: memref<?x?xbf16>, %[[I:.*]]: index, %[[J:.*]]: index)
// CHECK: %{{.*}}, %{{.*}}, %[[SIZES:.*]]:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata %[[G]]
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT: %[[R:.*]] = arith.addi %[[I]], %{{.*}} : index
// CHECK-NEXT: %[[RIN:.*]] = arith.cmpi ult, %[[R]], %[[SIZES]]#0 : index
// CHECK-NEXT: %[[ROWIN:.*]] = arith.andi %[[TRUE]], %[[RIN]] : i1
// CHECK-NEXT: %[[RL:.*]] = arith.muli %[[R]], %[[STRIDES]]#0 : index
// CHECK-NEXT: %[[L0:.*]] = arith.addi %{{.*}}, %[[RL]] : index
// CHECK-NEXT: %[[C:.*]] = arith.addi %[[J]], %{{.*}} : index
// CHECK-NEXT: %[[CL:.*]] = arith.muli %[[C]], %[[STRIDES]]#1 : index
// CHECK-NEXT: %[[L1:.*]] = arith.addi %[[L0]], %[[CL]] : index
// CHECK-NEXT: %[[EB:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[OFF:.*]] = arith.muli %[[L1]], %[[EB]] : index
// CHECK-NEXT: %[[OFF64:.*]] = arith.index_cast %[[OFF]] : index to i64
// CHECK-NEXT: %[[ADDR:.*]] = arith.addi %{{.*}}, %[[OFF64]] : i64
// CHECK-NEXT: %[[P:.*]] = llvm.inttoptr %[[ADDR]] : i64 to !llvm.ptr<1>
// CHECK-NEXT: %[[SEVEN:.*]] = arith.constant 7 : index
// CHECK-NEXT: %[[LAST:.*]] = arith.addi %[[C]], %[[SEVEN]] : index
// CHECK-NEXT: %[[LASTIN:.*]] = arith.cmpi ult, %[[LAST]], %[[SIZES]]#1 : index
// CHECK-NEXT: %[[IN:.*]] = arith.andi %[[ROWIN]], %[[LASTIN]] : i1
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<8xbf16>
// CHECK-NEXT: %[[V:.*]] = scf.if %[[IN]] -> (vector<8xbf16>) {
// CHECK-NEXT: %[[LD:.*]] = llvm.load %[[P]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xbf16>
// CHECK-NEXT: scf.yield %[[LD]] : vector<8xbf16>
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[E0P:.*]] = llvm.getelementptr %[[P]][0] : (!llvm.ptr<1>) -> !llvm.ptr<1>, bf16
// CHECK-NEXT: %{{.*}} = arith.constant 0 : index
// CHECK-NEXT: %[[C0:.*]] = arith.addi %[[C]], %{{.*}} : index
// CHECK-NEXT: %[[C0IN:.*]] = arith.cmpi ult, %[[C0]], %[[SIZES]]#1 : index
// CHECK-NEXT: %[[E0IN:.*]] = arith.andi %[[ROWIN]], %[[C0IN]] : i1
// CHECK-NEXT: %[[F0:.*]] = vector.extract %[[ZERO]][0] : bf16 from vector<8xbf16>
// CHECK-NEXT: %[[E0:.*]] = scf.if %[[E0IN]] -> (bf16) {
// CHECK-NEXT: %[[S0:.*]] = llvm.load %[[E0P]] {alignment = 2 : i64} : !llvm.ptr<1> -> bf16
// CHECK-NEXT: scf.yield %[[S0]] : bf16
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %[[F0]] : bf16
// CHECK-NEXT: }
// CHECK-NEXT: vector.insert %[[E0]], %[[ZERO]] [0] : bf16 into vector<8xbf16>
// CHECK: llvm.getelementptr %[[P]][7] : (!llvm.ptr<1>) -> !llvm.ptr<1>, bf16
// CHECK: %[[T:.*]] = vector.from_elements {{.*}} : vector<8xbf16>
// CHECK-NEXT: arith.negf %[[T]] : vector<8xbf16>
#blk = #tle.blocked<per_thread = [1, 8], threads = [2, 16], warps = [4, 1]>
func.func @global_load(%g: memref<?x?xbf16>, %i: index, %j: index) {
  %t = tle.load %g[%i, %j] : memref<?x?xbf16> -> tensor<8x128xbf16, #blk>
  %neg = arith.negf %t : tensor<8x128xbf16, #blk>
  return
}

// -----

// A global store of a #tle.mma bf16 tile: (col, col+1) pairs as 4-byte
// vectors when both columns are in bounds, else each element under its
// own check (an element past the row end is never written).
// CHECK-LABEL: func.func @global_store
// CHECK: scf.for {{.*}} iter_args(%[[X:.*]] = %{{.*}}) -> (vector<4xbf16>)
// CHECK: %[[ROW0:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK: arith.muli %[[COL0:[0-9a-z_]+]], %strides#1 : index
// CHECK: %[[P0:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<1>
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[LAST0:.*]] = arith.addi %[[COL0]], %[[ONE]] : index
// CHECK-NEXT: %[[LAST0IN:.*]] = arith.cmpi ult, %[[LAST0]], %{{.*}}#1 : index
// CHECK-NEXT: %[[IN0:.*]] = arith.andi %[[ROW0]], %[[LAST0IN]] : i1
// CHECK: %[[P1:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<1>
// CHECK: %[[IN1:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK-NEXT: %[[V0:.*]] = vector.shuffle %[[X]], %[[X]] [0, 1] : vector<4xbf16>, vector<4xbf16>
// CHECK-NEXT: scf.if %[[IN0]] {
// CHECK-NEXT: llvm.store %[[V0]], %[[P0]] {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<1>
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[E0P:.*]] = llvm.getelementptr %[[P0]][0] : (!llvm.ptr<1>) -> !llvm.ptr<1>, bf16
// CHECK: %[[E0IN:.*]] = arith.andi %[[ROW0]], %{{.*}} : i1
// CHECK-NEXT: %[[E0:.*]] = vector.extract %[[V0]][0] : bf16 from vector<2xbf16>
// CHECK-NEXT: scf.if %[[E0IN]] {
// CHECK-NEXT: llvm.store %[[E0]], %[[E0P]] {alignment = 2 : i64} : bf16, !llvm.ptr<1>
// CHECK-NEXT: }
// CHECK: llvm.getelementptr %[[P0]][1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, bf16
// CHECK: %[[V1:.*]] = vector.shuffle %[[X]], %[[X]] [2, 3] : vector<4xbf16>, vector<4xbf16>
// CHECK-NEXT: scf.if %[[IN1]] {
// CHECK-NEXT: llvm.store %[[V1]], %[[P1]] {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<1>
// CHECK-NEXT: } else {
// CHECK: scf.yield %[[X]]
#acc = #tle.mma<warp_groups = [1, 1]>
func.func @global_store(%g: memref<?x?xbf16>, %i: index, %j: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = arith.constant dense<1.0> : tensor<64x8xbf16, #acc>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%x = %init) -> tensor<64x8xbf16, #acc> {
    tle.store %x, %g[%i, %j] : tensor<64x8xbf16, #acc>, memref<?x?xbf16>
    scf.yield %x : tensor<64x8xbf16, #acc>
  }
  return
}

// -----

// #tle.blocked admits per_thread = [1, 6]: a thread's run is 6 bf16 =
// 12 bytes at byte offset 12 x t of its row, so its address is only 4-byte
// aligned. Accesses are powers of two no wider than the run's alignment:
// three 2-element (4-byte) loads at columns +0, +2, +4, each `alignment = 4`.
// CHECK-LABEL: func.func @blocked_run_not_power_of_two
// CHECK: %[[T:.*]] = arith.remui %{{.*}}, %c16{{.*}} : index
// CHECK-NEXT: %[[SIX:.*]] = arith.constant 6 : index
// CHECK-NEXT: %[[PIECEOFF:.*]] = arith.muli %[[T]], %[[SIX]] : index
// CHECK-NEXT: %[[COLBASE:.*]] = arith.addi %{{.*}}, %[[PIECEOFF]] : index
// CHECK: arith.addi %[[COLBASE]], %c0{{.*}} : index
// CHECK: arith.addi %[[COLBASE]], %c2{{.*}} : index
// CHECK: arith.addi %[[COLBASE]], %c4{{.*}} : index
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> vector<2xbf16>
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> vector<2xbf16>
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> vector<2xbf16>
// CHECK-NOT: llvm.load
// CHECK: vector.from_elements {{.*}} : vector<6xbf16>
#blk = #tle.blocked<per_thread = [1, 6], threads = [2, 16], warps = [1, 1]>
func.func @blocked_run_not_power_of_two() {
  %buf = tle.shared_alloc : memref<2x96xbf16, 3>
  %t = tle.local_load %buf : memref<2x96xbf16, 3> -> tensor<2x96xbf16, #blk>
  %neg = arith.negf %t : tensor<2x96xbf16, #blk>
  return
}

// -----

// tle.gather_rows with indices in global memory, into a 128-byte swizzled
// [64, 576] bf16 tile, in a 4-warp partition. Each warp loads the indices
// once, lane l holding rows l and l + 32 (clamped to the last row, 63);
// each round then takes its row's index from lane row mod 32 of register
// row / 32 by a shuffle. A row is 576 x 2 B = 72 pieces of 16 B; 64 rows
// are 4608 pieces, 36 rounds of 128 threads. An index outside [0, R)
// copies 0 bytes (cp.async zero-fills) from row 0's address.
// CHECK-LABEL: func.func @gather_rows_indexed
// CHECK-SAME: (%[[SRC:[^:]*]]: memref<?x576xbf16, {{.*}}>, %[[IDS:[^:]*]]: memref<64xi32, {{.*}}>)
// CHECK: partition "gather" warps(4) {
// CHECK-NEXT: %{{.*}}, %{{.*}}, %[[SIZES:.*]]:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata %[[SRC]]
// CHECK: %[[TID:.*]] = gpu.thread_id  x
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[WARP:.*]] = arith.constant 32 : index
// CHECK-NEXT: %[[LANE:.*]] = arith.remui %[[TID]], %[[WARP]] : index
// CHECK-DAG: %[[LAST0:.*]] = arith.constant 63 : index
// CHECK-DAG: %[[ADD0:.*]] = arith.constant 0 : index
// CHECK: %[[ROW0:.*]] = arith.addi %[[LANE]], %[[ADD0]] : index
// CHECK-NEXT: %[[CLAMP0:.*]] = arith.minui %[[ROW0]], %[[LAST0]] : index
// CHECK-NEXT: %[[ID0:.*]] = memref.load %[[IDS]][%[[CLAMP0]]]
// CHECK-DAG: %[[LAST1:.*]] = arith.constant 63 : index
// CHECK-DAG: %[[ADD1:.*]] = arith.constant 32 : index
// CHECK: %[[ROW1:.*]] = arith.addi %[[LANE]], %[[ADD1]] : index
// CHECK-NEXT: %[[CLAMP1:.*]] = arith.minui %[[ROW1]], %[[LAST1]] : index
// CHECK-NEXT: %[[ID1:.*]] = memref.load %[[IDS]][%[[CLAMP1]]]
// CHECK-NOT: memref.load
// CHECK: scf.for %[[I:.*]] = %[[ZERO]] to %c36{{(_[0-9]+)?}} step %{{.*}} {
// CHECK-NEXT: %[[THREADS:.*]] = arith.constant 128 : index
// CHECK-NEXT: %[[SKIP:.*]] = arith.muli %[[I]], %[[THREADS]] : index
// CHECK-NEXT: %[[PIECE:.*]] = arith.addi %[[TID]], %[[SKIP]] : index
// CHECK-NEXT: %[[PPR:.*]] = arith.constant 72 : index
// CHECK-NEXT: %[[ROW:.*]] = arith.divui %[[PIECE]], %[[PPR]] : index
// CHECK: %[[INROW:.*]] = arith.remui %[[PIECE]], %{{.*}} : index
// CHECK-NEXT: %[[COL:.*]] = arith.muli %[[INROW]], %{{.*}} : index
// CHECK-NEXT: arith.constant 32 : index
// CHECK-NEXT: %[[FROM:.*]] = arith.remui %[[ROW]], %{{.*}} : index
// CHECK-NEXT: %[[FROM32:.*]] = arith.index_cast %[[FROM]] : index to i32
// CHECK-NEXT: %[[WIDTH:.*]] = arith.constant 32 : i32
// CHECK-NEXT: arith.constant 32 : index
// CHECK-NEXT: %[[REG:.*]] = arith.divui %[[ROW]], %{{.*}} : index
// CHECK-NEXT: %[[X0:.*]], %{{.*}} = gpu.shuffle  idx %[[ID0]], %[[FROM32]], %[[WIDTH]] : i32
// CHECK-NEXT: %[[X1:.*]], %{{.*}} = gpu.shuffle  idx %[[ID1]], %[[FROM32]], %[[WIDTH]] : i32
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[IS1:.*]] = arith.cmpi eq, %[[REG]], %[[ONE]] : index
// CHECK-NEXT: %[[ID:.*]] = arith.select %[[IS1]], %[[X1]], %[[X0]] : i32
// CHECK-NEXT: %[[SROW:.*]] = arith.index_cast %[[ID]] : i32 to index
// CHECK-NEXT: %[[VALID:.*]] = arith.cmpi ult, %[[SROW]], %[[SIZES]]#0 : index
// CHECK-NEXT: %[[SAFE:.*]] = arith.select %[[VALID]], %[[SROW]], %[[ZERO]] : index
// CHECK: %[[SLIN:.*]] = arith.muli %[[SAFE]], %[[STRIDES]]#0 : index
// CHECK-NEXT: %[[SELEM:.*]] = arith.addi %[[SLIN]], %[[COL]] : index
// CHECK: arith.muli %[[SELEM]], %c2{{.*}} : index
// CHECK: %[[SPTR:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<1>
// Destination: chunk (col / 64) x 64 rows x 128 B + row x 128 B +
// (col mod 64) x 2 B, then the 128-byte swizzle.
// CHECK-NEXT: %[[W64:.*]] = arith.constant 64 : index
// CHECK-NEXT: %[[CHUNK:.*]] = arith.divui %[[COL]], %[[W64]] : index
// CHECK: %[[CB:.*]] = arith.constant 8192 : index
// CHECK-NEXT: arith.muli %[[CHUNK]], %[[CB]] : index
// CHECK-NEXT: %[[RB:.*]] = arith.constant 128 : index
// CHECK-NEXT: arith.muli %[[ROW]], %[[RB]] : index
// CHECK: %[[DADDR:.*]] = arith.addi %{{.*}}, %{{.*}} : i64
// CHECK-NEXT: %[[C7:.*]] = arith.constant 7 : i64
// CHECK-NEXT: %[[SH:.*]] = arith.shrui %[[DADDR]], %[[C7]] : i64
// CHECK-NEXT: %[[MASK:.*]] = arith.constant 7 : i64
// CHECK-NEXT: %[[R8:.*]] = arith.andi %[[SH]], %[[MASK]] : i64
// CHECK-NEXT: %[[C4:.*]] = arith.constant 4 : i64
// CHECK-NEXT: %[[FLIP:.*]] = arith.shli %[[R8]], %[[C4]] : i64
// CHECK-NEXT: %[[SWZ:.*]] = arith.xori %[[DADDR]], %[[FLIP]] : i64
// CHECK-NEXT: %[[DPTR:.*]] = llvm.inttoptr %[[SWZ]] : i64 to !llvm.ptr<3>
// CHECK-DAG: %[[NONE:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[FULL:.*]] = arith.constant 16 : i32
// CHECK: %[[BYTES:.*]] = arith.select %[[VALID]], %[[FULL]], %[[NONE]] : i32
// CHECK-NEXT: nvvm.cp.async.shared.global %[[DPTR]], %[[SPTR]], 16, cache =  cg, %[[BYTES]] : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK-NEXT: }
// CHECK-NEXT: tle.warp_return
#sw = #tle.shared<swizzle = 128>
func.func @gather_rows_indexed(%src: memref<?x576xbf16, strided<[576, 1], offset: ?>>,
                               %ids: memref<64xi32, strided<[1], offset: ?>>) {
  %dst = tle.shared_alloc : memref<64x576xbf16, #sw>
  tle.warp_specialize
  default warps(4) {
    tle.warp_yield
  }
  partition "gather" warps(4) {
    tle.gather_rows %src rows(%ids : memref<64xi32, strided<[1], offset: ?>>) into %dst
        : memref<?x576xbf16, strided<[576, 1], offset: ?>>, memref<64x576xbf16, #sw>
    tle.warp_return
  }
  return
}

// -----

// `from %first`: row i of the tile is source row first + i, with no index
// loads or shuffles; the same bounds check and zero-fill. The row-major
// destination has no swizzle: (row x 64 + col) x 2 B. 64 rows of 8 pieces
// are 4 rounds of 128 threads.
// CHECK-LABEL: func.func @gather_rows_from
// CHECK-SAME: %[[FIRST:[^:]*]]: index)
// CHECK-NOT: memref.load
// CHECK: scf.for %{{.*}} = %{{.*}} to %c4{{(_[0-9]+)?}} step
// CHECK: %[[ROW:.*]] = arith.divui %{{.*}}, %c8{{.*}} : index
// CHECK: %[[SROW:.*]] = arith.addi %[[FIRST]], %[[ROW]] : index
// CHECK-NEXT: %[[VALID:.*]] = arith.cmpi ult, %[[SROW]], %{{.*}}#0 : index
// CHECK-NEXT: arith.select %[[VALID]], %[[SROW]], %{{.*}} : index
// CHECK: %[[W:.*]] = arith.constant 64 : index
// CHECK-NEXT: arith.muli %[[ROW]], %[[W]] : index
// CHECK-NOT: arith.xori
// CHECK: arith.select %[[VALID]], %c16_i32, %c0_i32 : i32
// CHECK-NEXT: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg, %{{.*}} :
// CHECK-NOT: gpu.shuffle
// CHECK: tle.warp_return
func.func @gather_rows_from(%src: memref<?x64xbf16, strided<[64, 1], offset: ?>>, %first: index) {
  %dst = tle.shared_alloc : memref<64x64xbf16, 3>
  tle.warp_specialize
  default warps(4) {
    tle.warp_yield
  }
  partition warps(4) {
    tle.gather_rows %src from %first into %dst
        : memref<?x64xbf16, strided<[64, 1], offset: ?>>, memref<64x64xbf16, 3>
    tle.warp_return
  }
  return
}

// -----

// Indices already in registers, lane l holding rows l and l + 32: the two
// i32 elements of the thread's vector feed the shuffles; nothing reloads
// them.
// CHECK-LABEL: func.func @gather_rows_tensor_indices
// CHECK: %[[IDS:.*]] = vector.from_elements %{{.*}}, %{{.*}} : vector<2xi32>
// CHECK-NOT: memref.load
// CHECK: %[[ID0:.*]] = vector.extract %[[IDS]][0] : i32 from vector<2xi32>
// CHECK-NEXT: %[[ID1:.*]] = vector.extract %[[IDS]][1] : i32 from vector<2xi32>
// CHECK-NOT: memref.load
// CHECK: scf.for
// CHECK: gpu.shuffle  idx %[[ID0]], %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: gpu.shuffle  idx %[[ID1]], %{{.*}}, %{{.*}} : i32
// CHECK: nvvm.cp.async.shared.global
#sw = #tle.shared<swizzle = 128>
#lanes = #tle.blocked<per_thread = [1], threads = [32], warps = [1]>
func.func @gather_rows_tensor_indices(%src: memref<?x64xbf16, strided<[64, 1], offset: ?>>,
                                      %g: memref<?xi32>) {
  %dst = tle.shared_alloc : memref<64x64xbf16, #sw>
  tle.warp_specialize
  default warps(4) {
    tle.warp_yield
  }
  partition warps(4) {
    %c0 = arith.constant 0 : index
    %ids = tle.load %g[%c0] : memref<?xi32> -> tensor<64xi32, #lanes>
    tle.gather_rows %src rows(%ids : tensor<64xi32, #lanes>) into %dst
        : memref<?x64xbf16, strided<[64, 1], offset: ?>>, memref<64x64xbf16, #sw>
    tle.warp_return
  }
  return
}

// -----

// 8 rows of 8 pieces are 64 pieces for 128 threads: one round, in which
// threads 64.. have no piece. They still take part in the shuffle (all
// lanes must), and only then skip the copy under `piece < 64`. With 8
// indices, lanes 8.. reload index 7.
// CHECK-LABEL: func.func @gather_rows_partial_round
// CHECK-DAG: %[[LAST:.*]] = arith.constant 7 : index
// CHECK: arith.minui %{{.*}}, %[[LAST]] : index
// CHECK-NEXT: %[[ID:.*]] = memref.load
// CHECK-NOT: memref.load
// CHECK: scf.for %{{.*}} = %{{.*}} to %c1{{(_[0-9]+)?}} step
// CHECK: %[[PIECE:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK: %[[X:.*]], %{{.*}} = gpu.shuffle  idx %[[ID]], %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: %[[SROW:.*]] = arith.index_cast %[[X]] : i32 to index
// CHECK-NEXT: %[[PIECES:.*]] = arith.constant 64 : index
// CHECK-NEXT: %[[HAS:.*]] = arith.cmpi ult, %[[PIECE]], %[[PIECES]] : index
// CHECK-NEXT: scf.if %[[HAS]] {
// CHECK-NEXT: arith.cmpi ult, %[[SROW]], %{{.*}}#0 : index
// CHECK: nvvm.cp.async.shared.global
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: tle.warp_return
#sw = #tle.shared<swizzle = 128>
func.func @gather_rows_partial_round(%src: memref<?x64xbf16, strided<[64, 1], offset: ?>>,
                                     %ids: memref<8xi32>) {
  %dst = tle.shared_alloc : memref<8x64xbf16, #sw>
  tle.warp_specialize
  default warps(4) {
    tle.warp_yield
  }
  partition warps(4) {
    tle.gather_rows %src rows(%ids : memref<8xi32>) into %dst
        : memref<?x64xbf16, strided<[64, 1], offset: ?>>, memref<8x64xbf16, #sw>
    tle.warp_return
  }
  return
}

// -----

// tle.iota: each element is its own coordinate. A column vector of
// #tle.mma<[1, 1]> holds columns 2(l % 4) + {0, 1} + 8j: base (tid % 4) * 2,
// offsets 0, 1, 8, 9, ... cast to i32.
// CHECK-LABEL: func.func @iota_columns
// CHECK: %[[T:.*]] = gpu.thread_id x
// CHECK: %[[LANE4:.*]] = arith.remui %[[T]], %c4{{.*}} : index
// CHECK: %[[PAIR:.*]] = arith.muli %[[LANE4]], %c2{{.*}} : index
// CHECK: %[[BASE:.*]] = arith.addi %{{.*}}, %[[PAIR]] : index
// CHECK: %[[E0:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: %[[X1:.*]] = arith.addi %[[BASE]], %c1{{.*}} : index
// CHECK-NEXT: %[[E1:.*]] = arith.index_cast %[[X1]] : index to i32
// CHECK: %[[X8:.*]] = arith.addi %[[BASE]], %c8{{.*}} : index
// CHECK-NEXT: %[[E8:.*]] = arith.index_cast %[[X8]] : index to i32
// CHECK: %[[X9:.*]] = arith.addi %[[BASE]], %c9{{.*}} : index
// CHECK-NEXT: %[[E9:.*]] = arith.index_cast %[[X9]] : index to i32
// CHECK-NEXT: vector.from_elements %[[E0]], %[[E1]], %[[E8]], %[[E9]] : vector<4xi32>
func.func @iota_columns(%out: memref<16xi32>) {
  %c0 = arith.constant 0 : index
  %c = tle.iota dim 0 : tensor<16xi32, #tle.slice<dim = 0, parent = #tle.mma<warp_groups = [1, 1]>>>
  tle.store %c, %out[%c0] : tensor<16xi32, #tle.slice<dim = 0, parent = #tle.mma<warp_groups = [1, 1]>>>, memref<16xi32>
  return
}

// -----

// tle.load with padding: elements outside the memref read as the padding
// value (here -1, how a kernel marks index positions past a row's length).
// CHECK-LABEL: func.func @load_padding
// CHECK: %[[PAD:.*]] = arith.constant dense<-1> : vector<2xi32>
// CHECK: scf.if %{{.*}} -> (vector<2xi32>) {
// CHECK: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<1> -> vector<2xi32>
// CHECK: } else {
// CHECK: vector.extract %[[PAD]][0] : i32 from vector<2xi32>
func.func @load_padding(%ids: memref<?xi32>, %out: memref<64xi32>) {
  %c0 = arith.constant 0 : index
  %t = tle.load %ids[%c0] padding(-1 : i32) : memref<?xi32> -> tensor<64xi32, #tle.slice<dim = 0, parent = #tle.mma<warp_groups = [1, 1]>>>
  tle.store %t, %out[%c0] : tensor<64xi32, #tle.slice<dim = 0, parent = #tle.mma<warp_groups = [1, 1]>>>, memref<64xi32>
  return
}
