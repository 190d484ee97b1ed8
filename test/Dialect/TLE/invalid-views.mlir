// RUN: tle-opt %s -split-input-file -verify-diagnostics

// Views of #tle.shared tiles (lib/Dialect/TLE/IR/SwizzledViews.cpp): a
// memref.subview of a swizzled tile is addressed where the layout puts
// it, which the layout can express only for whole swizzle chunks of
// every row, or whole 8-row groups of a single chunk. Every op that takes
// such a view rejects the others at its use, naming the subview.

// 32 bf16 columns are half a 128-byte swizzle row.
#sw = #tle.shared<swizzle = 128>
#opnd = #tle.mma_operand<warp_groups = [1, 1]>
func.func @half_chunk() {
  %b = tle.shared_alloc : memref<64x128xbf16, #sw>
  %v = memref.subview %b[0, 32] [64, 64] [1, 1]
      : memref<64x128xbf16, #sw> to memref<64x64xbf16, strided<[128, 1], offset: 32>, #sw>
  // expected-error @+1 {{'tle.local_load' op the buffer is the memref.subview at line 14, which cuts rows [0, 64) and columns [32, 96) out of 'memref<64x128xbf16, #tle.shared<swizzle = 128>>'; a view of a swizzled tile takes whole 64-column swizzle chunks (the 128-byte rows of the layout)}}
  %x = tle.local_load %v : memref<64x64xbf16, strided<[128, 1], offset: 32>, #sw> -> tensor<64x64xbf16, #opnd>
  return
}

// -----

// Rows 8..15 of both chunks: the view's second chunk would lie 8 rows
// after its first, but lies 64 rows after it.
#sw = #tle.shared<swizzle = 128>
#acc = #tle.mma<warp_groups = [1, 1]>
#opnd = #tle.mma_operand<warp_groups = [1, 1]>
func.func @row_block_of_two_chunks(%a: tensor<64x16xbf16, #opnd>,
                                   %c: tensor<64x128xf32, #acc>) {
  %b = tle.shared_alloc : memref<64x128xbf16, #sw>
  %v = memref.subview %b[16, 0] [16, 128] [1, 1]
      : memref<64x128xbf16, #sw> to memref<16x128xbf16, strided<[128, 1], offset: 2048>, #sw>
  // expected-error @+1 {{'tle.wgmma' op B is the memref.subview at line 31, which cuts rows [16, 32) and columns [0, 128) out of 'memref<64x128xbf16, #tle.shared<swizzle = 128>>'; a view of a swizzled tile takes every row, or whole 8-row groups of a single 64-column swizzle chunk (the chunks of a tile are its rows apart)}}
  %d = tle.wgmma %a, %v, %c
      : tensor<64x16xbf16, #opnd>, memref<16x128xbf16, strided<[128, 1], offset: 2048>, #sw>,
        tensor<64x128xf32, #acc>
  return
}

// -----

// Rows 4..11 start in the middle of the 8-row swizzle pattern.
#sw = #tle.shared<swizzle = 128>
#rows = #tle.blocked<per_thread = [1, 8], threads = [8, 4], warps = [1, 1]>
func.func @half_pattern(%x: tensor<8x64xbf16, #rows>) {
  %b = tle.shared_alloc : memref<64x64xbf16, #sw>
  %v = memref.subview %b[4, 0] [8, 64] [1, 1]
      : memref<64x64xbf16, #sw> to memref<8x64xbf16, strided<[64, 1], offset: 256>, #sw>
  // expected-error @+1 {{takes every row, or whole 8-row groups of a single 64-column swizzle chunk}}
  tle.local_store %x, %v : tensor<8x64xbf16, #rows>, memref<8x64xbf16, strided<[64, 1], offset: 256>, #sw>
  return
}

// -----

// A column block chosen at run time.
#sw = #tle.shared<swizzle = 128>
#opnd = #tle.mma_operand<warp_groups = [1, 1]>
func.func @dynamic_columns(%j: index) {
  %b = tle.shared_alloc : memref<64x128xbf16, #sw>
  %v = memref.subview %b[0, %j] [64, 64] [1, 1]
      : memref<64x128xbf16, #sw> to memref<64x64xbf16, strided<[128, 1], offset: ?>, #sw>
  // expected-error @+1 {{a view of a swizzled tile cuts rows and columns known at compile time out of a source with static strides}}
  %x = tle.local_load %v : memref<64x64xbf16, strided<[128, 1], offset: ?>, #sw> -> tensor<64x64xbf16, #opnd>
  return
}

// -----

// Every other column.
#sw = #tle.shared<swizzle = 128>
#opnd = #tle.mma_operand<warp_groups = [1, 1]>
func.func @strided_columns() {
  %b = tle.shared_alloc : memref<64x128xbf16, #sw>
  %v = memref.subview %b[0, 0] [64, 64] [1, 2]
      : memref<64x128xbf16, #sw> to memref<64x64xbf16, strided<[128, 2]>, #sw>
  // expected-error @+1 {{a view of a swizzled tile takes every element along each dimension (unit strides)}}
  %x = tle.local_load %v : memref<64x64xbf16, strided<[128, 2]>, #sw> -> tensor<64x64xbf16, #opnd>
  return
}

// -----

// A view that comes in as an argument: nothing says where it starts.
#sw = #tle.shared<swizzle = 128>
#opnd = #tle.mma_operand<warp_groups = [1, 1]>
func.func @view_argument(%v: memref<64x64xbf16, strided<[128, 1], offset: 64>, #sw>) {
  // expected-error @+1 {{'tle.local_load' op the buffer is a view of a swizzled tile that does not start at a memref.subview chain from the tile}}
  %x = tle.local_load %v : memref<64x64xbf16, strided<[128, 1], offset: 64>, #sw> -> tensor<64x64xbf16, #opnd>
  return
}

// -----

// A view of a view: each step is checked against its own source (here
// 32 columns into the 256-column block).
#sw = #tle.shared<swizzle = 128>
#map = !tle.tensor_map<64x64xbf16, swizzle = 128>
func.func @tma_into_view_of_view(%m: !tle.tensor_map<64x64xbf16, swizzle = 128>, %i: index) {
  %b = tle.shared_alloc : memref<64x576xbf16, #sw>
  %v = memref.subview %b[0, 256] [64, 256] [1, 1]
      : memref<64x576xbf16, #sw> to memref<64x256xbf16, strided<[576, 1], offset: 256>, #sw>
  %w = memref.subview %v[0, 32] [64, 64] [1, 1]
      : memref<64x256xbf16, strided<[576, 1], offset: 256>, #sw> to memref<64x64xbf16, strided<[576, 1], offset: 288>, #sw>
  // expected-error @+1 {{'tle.tma_load' op the destination is the memref.subview at line 103, which cuts rows [0, 64) and columns [32, 96) out of}}
  tle.tma_load %m[%i, %i] into %w : !tle.tensor_map<64x64xbf16, swizzle = 128>, memref<64x64xbf16, strided<[576, 1], offset: 288>, #sw>
  return
}
