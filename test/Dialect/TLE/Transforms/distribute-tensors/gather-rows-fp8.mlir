// RUN: tle-opt %s --tle-distribute-tensors -split-input-file | FileCheck %s --enable-var-scope

// --tle-distribute-tensors on tle.gather_rows_fp8 (GatherRowsFp8.cpp).
// A 256-column fp8 window into a 128-byte swizzled [64, 256] bf16 tile in
// a 4-warp partition: 16 threads split a row (a 16-column piece each, the
// same scale tile in every row), 8 rows at once, 8 rows per thread. Each
// row: the id through an opaque move and a shuffle, one unsigned compare
// with the token count (64 * blocks, capped at 2^31), the token's address
// (block * block stride + offset * token stride), a predicated 16-byte
// ld.global.nc of the fp8 bytes and a 4-byte one of the scale (the
// window's start, 256, in their immediates: 256 and 512 + 2 * 4), e4m3x2
// -> f16x2 -> f32 -> bf16x2, times the scale (f32 rounded to bf16, in
// both halves: one bf16x2 multiply per two values), and two 16-byte
// generic stores, one per swizzled destination unit, rows 8 apart 1024 B
// apart.
// CHECK-LABEL: func.func @gather_rows_fp8_half
// CHECK: %{{.*}}, %{{.*}}, %[[SIZES:.*]]:3, %[[STRIDES:.*]]:3 = memref.extract_strided_metadata
// CHECK: %[[TOKENS:.*]] = arith.muli %[[SIZES]]#0, %c64{{.*}} : index
// CHECK: %[[CAPPED:.*]] = arith.minui %[[TOKENS]], %{{.*}} : index
// CHECK: %[[LIMIT:.*]] = arith.index_castui %[[CAPPED]] : index to i32
// CHECK: createpolicy.fractional.L2::evict_last.b64
// CHECK: %[[TID:.*]] = gpu.thread_id  x
// CHECK: %[[COL:.*]] = arith.remui %[[TID]], %c16{{.*}} : index
// CHECK: %[[FIRST:.*]] = arith.divui %[[TID]], %c16{{.*}} : index
// CHECK: %[[HELD:.*]] = llvm.inline_asm has_side_effects "mov.b32 $0, $1;", "=r,r"
// CHECK: %[[ID:.*]], %{{.*}} = gpu.shuffle  idx %[[HELD]]
// CHECK-NEXT: %[[VALID:.*]] = arith.cmpi ult, %[[ID]], %[[LIMIT]] : i32
// CHECK: arith.select %[[VALID]], %[[ID]], %{{.*}} : i32
// CHECK: arith.muli %{{.*}}, %[[STRIDES]]#0 : index
// CHECK: arith.muli %{{.*}}, %[[STRIDES]]#1 : index
// CHECK: llvm.inline_asm "{ .reg .pred p; setp.ne.b32 p, $4, 0; mov.b32 $0, 0; mov.b32 $1, 0; mov.b32 $2, 0; mov.b32 $3, 0; @p ld.global.nc.L1::no_allocate.L2::cache_hint.L2::256B.v4.b32 {$0, $1, $2, $3}, [$5+256], $6; }", "=r,=r,=r,=r,r,l,l"
// CHECK: llvm.inline_asm "{ .reg .pred p; setp.ne.b32 p, $1, 0; mov.b32 $0, 0; @p ld.global.nc.L1::no_allocate.L2::cache_hint.L2::256B.b32 $0, [$2+520], $3; }", "=r,r,l,l"
// CHECK: %[[SCALE:.*]] = llvm.fptrunc %{{.*}} : f32 to bf16
// CHECK: %[[SPLAT0:.*]] = llvm.insertelement %[[SCALE]], %{{.*}} : vector<2xbf16>
// CHECK: %[[SPLAT:.*]] = llvm.insertelement %[[SCALE]], %[[SPLAT0]]{{.*}} : vector<2xbf16>
// CHECK: "{ .reg .b16 l, h; mov.b32 {l, h}, $2; cvt.rn.f16x2.e4m3x2 $0, l; cvt.rn.f16x2.e4m3x2 $1, h; }", "=r,=r,r"
// CHECK: llvm.fpext %{{.*}} : vector<2xf16> to vector<2xf32>
// CHECK-NEXT: %[[NARROW:.*]] = llvm.fptrunc %{{.*}} : vector<2xf32> to vector<2xbf16>
// CHECK-NEXT: llvm.fmul %[[NARROW]], %[[SPLAT]] : vector<2xbf16>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// CHECK: %[[NEXT:.*]] = llvm.getelementptr %{{.*}}[1024] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NEXT: llvm.store %{{.*}}, %[[NEXT]] {alignment = 16 : i64}
// The last row, 56 rows (7 x 1024 B) further, both units.
// CHECK-COUNT-2: llvm.getelementptr %{{.*}}[7168] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NOT: ptr<3>, i8
// CHECK: tle.warp_return
#lanes = #tle.blocked<per_thread = [1], threads = [32], warps = [1]>
#sw = #tle.shared<swizzle = 128>
func.func @gather_rows_fp8_half(%cache: memref<?x64x656xi8, strided<[?, 656, 1]>>) {
  %dst = tle.shared_alloc : memref<64x256xbf16, #sw>
  tle.warp_specialize
  default warps(4) {
    tle.warp_yield
  }
  partition "gather" warps(4) {
    %ids = tle.iota dim 0 : tensor<64xi32, #lanes>
    tle.gather_rows_fp8 %cache rows(%ids : tensor<64xi32, #lanes>) into %dst
        format = v32 columns = 256 l2_prefetch = 256 evict = evict_last
        : memref<?x64x656xi8, strided<[?, 656, 1]>>, memref<64x256xbf16, #sw>
    tle.warp_return
  }
  return
}

// -----

// The rope window: 8 bf16 columns a piece, copied as they are (no scale
// load, no conversion) from the bytes after the scales (528 + 2 * 0), one
// store a row; 8 threads a row, 16 rows at once, 4 rows per thread.
// CHECK-LABEL: func.func @gather_rows_fp8_rope
// CHECK: arith.remui %{{.*}}, %c8{{.*}} : index
// CHECK: ld.global.nc.L1::no_allocate.v4.b32 {$0, $1, $2, $3}, [$5+528]; }", "=r,=r,=r,=r,r,l"
// CHECK-NOT: cvt.rn.f16x2.e4m3x2
// CHECK-NOT: .b32 $0, [
// CHECK: llvm.store
// CHECK: llvm.getelementptr %{{.*}}[2048] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: llvm.getelementptr %{{.*}}[6144] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NEXT: llvm.store
// CHECK-NOT: llvm.store
// CHECK: tle.warp_return
#lanes = #tle.blocked<per_thread = [1], threads = [32], warps = [1]>
#sw = #tle.shared<swizzle = 128>
func.func @gather_rows_fp8_rope(%cache: memref<?x64x656xi8, strided<[?, 656, 1]>>) {
  %dst = tle.shared_alloc : memref<64x64xbf16, #sw>
  tle.warp_specialize
  default warps(4) {
    tle.warp_yield
  }
  partition "gather" warps(4) {
    %ids = tle.iota dim 0 : tensor<64xi32, #lanes>
    tle.gather_rows_fp8 %cache rows(%ids : tensor<64xi32, #lanes>) into %dst
        format = v32 columns = 512
        : memref<?x64x656xi8, strided<[?, 656, 1]>>, memref<64x64xbf16, #sw>
    tle.warp_return
  }
  return
}
