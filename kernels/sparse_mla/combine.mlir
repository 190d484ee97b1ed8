// RUN: tle-opt %s --tle-derive-sync=strict-pipes=true -o /dev/null
// RUN: tle-opt %s --tle-to-llvm | tle-translate --tle-to-ptx -o %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
//
// The combine of split-KV sparse MLA decode (seesaw_decode.mlir writes
// the partials): for one query row and 16 heads, merges the row's chunks
// into out and lse with FlashMLA's contract.
//
//   o_acc [B, SQ, splits, H, 512] f32: each chunk's output, normalised by
//     the chunk's own softmax sum;
//   lse_acc [B, SQ, splits, H] f32: each chunk's log-sum-exp (natural
//     log), -inf for a chunk without a valid id;
//   out [B, SQ, H, 512] bf16, lse [B, H, SQ] f32 (FlashMLA's decode
//     layout: heads before tokens).
//
// lse = log sum_c e^lse_c and out = sum_c e^(lse_c - lse) o_c, taken
// against the row's largest lse_c so that no exponent overflows; then
// attn_sink scales out by 1 / (1 + e^(sink - lse)) (-inf: no change,
// +inf: 0) and leaves lse as it is. A row whose every chunk is empty (no
// valid id, or topk_length 0) gives out 0 and lse +inf. Two passes over
// the chunks: their lse first (64 bytes a chunk), then the outputs
// (32 KiB a chunk), each loaded once.
//
// Grid (H / 16, SQ, B), one warp group a CTA: each thread holds 4 rows of
// 16 consecutive columns in four pieces of 4 (16-byte loads of the
// partials, 8-byte stores of out).

// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// 4 rows x 128 columns a pass, repeated over the 16 x 512 tile.
#tile = #tle.blocked<per_thread = [1, 4], threads = [1, 32], warps = [4, 1]>
#heads = #tle.slice<dim = 1, parent = #tile>

func.func @sparse_mla_decode_combine(
    %o_acc: memref<?x?x?x?x512xf32>,
    %lse_acc: memref<?x?x?x?xf32>,
    %attn_sink: memref<?xf32>,
    %out: memref<?x?x?x512xbf16>,
    %lse: memref<?x?x?xf32>)
    attributes {tle.grid = "(H / 16, SQ, B): one CTA per query token and 16 heads"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %splits = memref.dim %lse_acc, %c2 : memref<?x?x?x?xf32>
  %bx = gpu.block_id x
  %token = gpu.block_id y
  %batch = gpu.block_id z
  %h0 = arith.muli %bx, %c16 : index
  tle.warp_specialize
  default "combine" warps(4) {
    %ninf = arith.constant dense<0xFF800000> : tensor<16xf32, #heads>
    %inf = arith.constant dense<0x7F800000> : tensor<16xf32, #heads>
    %zero = arith.constant dense<0.0> : tensor<16xf32, #heads>
    %one = arith.constant dense<1.0> : tensor<16xf32, #heads>
    %o_zero = arith.constant dense<0.0> : tensor<16x512xf32, #tile>
    // The row's largest chunk lse, -inf when every chunk is empty.
    %m = scf.for %c = %c0 to %splits step %c1 iter_args(%m_c = %ninf)
        -> (tensor<16xf32, #heads>) {
      %lse_c_rows = memref.subview %lse_acc[%batch, %token, %c, %h0] [1, 1, 1, 16] [1, 1, 1, 1]
          : memref<?x?x?x?xf32> to memref<16xf32, strided<[1], offset: ?>>
      %lse_c = tle.load %lse_c_rows[%c0] : memref<16xf32, strided<[1], offset: ?>>
          -> tensor<16xf32, #heads>
      %m_next = arith.maximumf %m_c, %lse_c : tensor<16xf32, #heads>
      scf.yield %m_next : tensor<16xf32, #heads>
    }
    %any = arith.cmpf ogt, %m, %ninf : tensor<16xf32, #heads>
    // Against 0 for an empty row: every weight is then e^-inf = 0.
    %m_safe = arith.select %any, %m, %zero : tensor<16xi1, #heads>, tensor<16xf32, #heads>
    %sum, %acc = scf.for %c = %c0 to %splits step %c1
        iter_args(%sum_c = %zero, %acc_c = %o_zero)
        -> (tensor<16xf32, #heads>, tensor<16x512xf32, #tile>) {
      %lse_c_rows = memref.subview %lse_acc[%batch, %token, %c, %h0] [1, 1, 1, 16] [1, 1, 1, 1]
          : memref<?x?x?x?xf32> to memref<16xf32, strided<[1], offset: ?>>
      %lse_c = tle.load %lse_c_rows[%c0] : memref<16xf32, strided<[1], offset: ?>>
          -> tensor<16xf32, #heads>
      %gap = arith.subf %lse_c, %m_safe : tensor<16xf32, #heads>
      %w = math.exp %gap : tensor<16xf32, #heads>
      %sum_next = arith.addf %sum_c, %w : tensor<16xf32, #heads>
      %o_c_rows = memref.subview %o_acc[%batch, %token, %c, %h0, 0] [1, 1, 1, 16, 512] [1, 1, 1, 1, 1]
          : memref<?x?x?x?x512xf32> to memref<16x512xf32, strided<[512, 1], offset: ?>>
      %o_c = tle.load %o_c_rows[%c0, %c0] : memref<16x512xf32, strided<[512, 1], offset: ?>>
          -> tensor<16x512xf32, #tile>
      %w_wide = tle.broadcast %w dim 1 : tensor<16xf32, #heads> -> tensor<16x512xf32, #tile>
      %acc_next = math.fma %o_c, %w_wide, %acc_c : tensor<16x512xf32, #tile>
      scf.yield %sum_next, %acc_next : tensor<16xf32, #heads>, tensor<16x512xf32, #tile>
    }
    // Natural-log units, as the chunks'.
    %log_sum = math.log %sum : tensor<16xf32, #heads>
    %lse_row = arith.addf %m_safe, %log_sum : tensor<16xf32, #heads>
    %lse_v = arith.select %any, %lse_row, %inf : tensor<16xi1, #heads>, tensor<16xf32, #heads>
    %inv = arith.divf %one, %sum : tensor<16xf32, #heads>
    %inv_l = arith.select %any, %inv, %zero : tensor<16xi1, #heads>, tensor<16xf32, #heads>
    %sink_rows = memref.subview %attn_sink[%h0] [16] [1]
        : memref<?xf32> to memref<16xf32, strided<[1], offset: ?>>
    %sink = tle.load %sink_rows[%c0] : memref<16xf32, strided<[1], offset: ?>>
        -> tensor<16xf32, #heads>
    %sink_gap = arith.subf %sink, %lse_row : tensor<16xf32, #heads>
    %sink_weight = math.exp %sink_gap : tensor<16xf32, #heads>
    %sink_den = arith.addf %one, %sink_weight : tensor<16xf32, #heads>
    %sink_keep = arith.divf %one, %sink_den : tensor<16xf32, #heads>
    // An empty row's lse is -inf here: its sink gap is not a number.
    %keep = arith.select %any, %sink_keep, %one : tensor<16xi1, #heads>, tensor<16xf32, #heads>
    %row_scale = arith.mulf %inv_l, %keep : tensor<16xf32, #heads>
    %scale_wide = tle.broadcast %row_scale dim 1
        : tensor<16xf32, #heads> -> tensor<16x512xf32, #tile>
    %o = arith.mulf %acc, %scale_wide : tensor<16x512xf32, #tile>
    %o16 = arith.truncf %o : tensor<16x512xf32, #tile> to tensor<16x512xbf16, #tile>
    %out_rows = memref.subview %out[%batch, %token, %h0, 0] [1, 1, 16, 512] [1, 1, 1, 1]
        : memref<?x?x?x512xbf16> to memref<16x512xbf16, strided<[512, 1], offset: ?>>
    tle.store %o16, %out_rows[%c0, %c0]
        : tensor<16x512xbf16, #tile>, memref<16x512xbf16, strided<[512, 1], offset: ?>>
    %lse_rows = memref.subview %lse[%batch, %h0, %token] [1, 16, 1] [1, 1, 1]
        : memref<?x?x?xf32> to memref<16xf32, strided<[?], offset: ?>>
    tle.store %lse_v, %lse_rows[%c0] : tensor<16xf32, #heads>, memref<16xf32, strided<[?], offset: ?>>
    tle.warp_yield
  }
  return
}
