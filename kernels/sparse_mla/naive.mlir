// RUN: tle-opt %s --tle-derive-sync --tle-sync-plan -o /dev/null | FileCheck %s --match-full-lines --strict-whitespace
// RUN: tle-opt %s --tle-derive-sync=strict-pipes=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=STRICT --allow-empty
// RUN: tle-opt %s --tle-to-llvm | tle-translate --tle-to-ptx -o %t.ptx
// RUN: grep -c fence.proxy.async %t.ptx | FileCheck %s --check-prefix=FENCES
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
//
// DeepSeek V3.2 SparseMLA prefill, the naive dataflow (SPARSE_MLA.md,
// dataflow 1): one CTA per query token and 64 heads loops over its topk KV
// rows in tiles of 64, gathers each tile, computes the scores of all 576
// columns, runs a base-2 online softmax and accumulates P . V.
//
//   q       [B, SQ, H, 576] bf16 (rows may be padded)   kv [B, SKV, 1, 576] bf16
//   indices [B, SQ, 1, topk] i32                         out [B, SQ, H, 512] bf16
//   max_logits, lse [B, SQ, H] f32, natural-log units
//
// Partitions:
//   gather (4 warps) copies Q once and each KV tile with 16-byte cp.async,
//     zero-filling rows whose index is invalid (< 0 or >= SKV); it never
//     forms an address from an invalid index.
//   attn (8 warps = 2 warp groups) splits the columns, as Triton's 8 warps
//     do: warp group g computes scores of KV rows 32g .. 32g + 31 of each
//     tile (S = Q K^T, 36 wgmma K steps from shared memory) and accumulates
//     output columns 256g .. 256g + 255. Row maxima and sums combine the two
//     halves, and P (needed whole by both) changes layout, through shared
//     memory: the compiler generates those exchanges and their barriers.
//
// A column whose index is invalid gets the score -inf, so it adds nothing;
// a row without any valid index ends with l = 0 and gives out = 0,
// lse = +inf, max_logits = -inf. The running max starts at -1e30, a finite
// value, so that exp2(m_old - m_new) is never (-inf) - (-inf).
//
// attn_sink [H] and topk_length [B * SQ] are FlashMLA's; a caller without
// them passes -inf sinks and lengths of topk, which change nothing.
//
// Grid: (H / 64 * SQ, B), CTA x = token * H / 64 + head group. topk must
// be a multiple of 64.

// CHECK:sync plan for @sparse_mla_naive
// CHECK-NEXT:partitions: 3 warp groups, 384 threads, 62464 of 64512 registers
// CHECK-NEXT:  partition  warps  first warp  registers  named barrier
// CHECK-NEXT:  attn       8      0           224        1
// CHECK-NEXT:  gather     4      8           40         2
// CHECK-NEXT:pipes:
// CHECK-NEXT:  pipe  capacity      field  slot         bytes/slot
// CHECK-NEXT:  q     1 (one_shot)  q      64x576xbf16  73728
// CHECK-NEXT:  kv    2             kv     64x576xbf16  73728
// CHECK-NEXT:barriers (one mbarrier per slot):
// CHECK-NEXT:  barrier  slots  count  tx bytes  arrive      fence    arrives  waits
// CHECK-NEXT:  q.full   1      128    0         cp_async    readers  gather   attn
// CHECK-NEXT:  kv.full  2      128    0         cp_async    readers  gather   attn
// CHECK-NEXT:  kv.free  2      256    0         per_thread  no       attn     gather
// CHECK-NEXT:reclaims (one mbarrier each: every thread of the readers arrives, then waits):
// CHECK-NEXT:  barrier    count  readers
// CHECK-NEXT:  q.reclaim  256    attn
// CHECK-NEXT:shared memory: 221184 B of buffers + 48 B of barriers = 221232 B (before alignment)

// The protocol check proves the kernel (STRICT). Its one fence.proxy.async
// (FENCES) is attn's after each wait for a KV tile, which cp.async wrote
// and whose multiply follows; Q's wait shares the first tile's
// (--tle-place-proxy-fences, docs/SyncDerivation.md).
// STRICT-NOT: {{warning|error}}
// FENCES: 1

// ptxas honours setmaxnreg (no C7508) and spills nothing.
// PTXAS-NOT: C7508
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NEXT: {{.*}}Used {{[0-9]+}} registers

#sw = #tle.shared<swizzle = 128>
// Scores and output: warp group g holds the right half of the columns when
// g = 1 (scores 32g .. 32g + 31, output 256g .. 256g + 255), all 64 rows.
#s = #tle.mma<warp_groups = [1, 2]>
#o = #tle.mma<warp_groups = [1, 2]>
// P as the register A operand of both warp groups' P . V: all 64 columns.
#p = #tle.mma_operand<warp_groups = [1, 2]>
#row_s = #tle.slice<dim = 1, parent = #s>
#row_o = #tle.slice<dim = 1, parent = #o>
#col_s = #tle.slice<dim = 0, parent = #s>
// A tile's indices in the gather warps: lane l holds rows l and l + 32.
#lanes = #tle.blocked<per_thread = [1], threads = [32], warps = [1]>
// The output as global memory wants it: 16 contiguous bytes a thread, a
// warp half a row (512 bytes).
#rows = #tle.blocked<per_thread = [1, 8], threads = [1, 32], warps = [8, 1]>

func.func @sparse_mla_naive(
    %q: memref<?x?x?x576xbf16, strided<[?, ?, ?, 1]>>,
    %kv: memref<?x?x1x576xbf16, strided<[?, ?, ?, 1]>>,
    %indices: memref<?x?x1x?xi32, strided<[?, ?, ?, 1]>>,
    %out: memref<?x?x?x512xbf16>,
    %max_logits: memref<?x?x?xf32>,
    %lse: memref<?x?x?xf32>,
    %sm_scale: f32,
    %attn_sink: memref<?xf32>,
    %topk_length: memref<?xi32>)
    attributes {tle.grid = "(H / 64 * SQ, B): one CTA per query token and 64 heads, a token's head groups adjacent"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  // The CTAs of one token's head groups are neighbours in the grid, so
  // that they gather the same KV rows while those are in L2.
  %c2 = arith.constant 2 : index
  %cta = gpu.block_id x
  %batch = gpu.block_id y
  %heads = memref.dim %q, %c2 : memref<?x?x?x576xbf16, strided<[?, ?, ?, 1]>>
  %head_groups = arith.divui %heads, %c64 : index
  %head_group = arith.remui %cta, %head_groups : index
  %token = arith.divui %cta, %head_groups : index
  %h0 = arith.muli %head_group, %c64 : index
  %skv = memref.dim %kv, %c1 : memref<?x?x1x576xbf16, strided<[?, ?, ?, 1]>>
  %topk = memref.dim %indices, %c3 : memref<?x?x1x?xi32, strided<[?, ?, ?, 1]>>
  %sq = memref.dim %indices, %c1 : memref<?x?x1x?xi32, strided<[?, ?, ?, 1]>>
  %c63 = arith.constant 63 : index

  // Only the first topk_length[row] indices of this row count (FlashMLA's
  // topk_length, row = batch * SQ + token). The row's index view ends
  // there: loads past it give -1, an invalid index, so positions past the
  // length are masked and never dereferenced like any invalid index, and
  // the loops stop at the last tile that holds a counted position.
  %row_base = arith.muli %batch, %sq : index
  %row = arith.addi %row_base, %token : index
  %length_i32 = memref.load %topk_length[%row] : memref<?xi32>
  %length_raw = arith.index_cast %length_i32 : i32 to index
  %length_pos = arith.maxsi %length_raw, %c0 : index
  %length = arith.minsi %length_pos, %topk : index
  %length_up = arith.addi %length, %c63 : index
  %tiles = arith.divui %length_up, %c64 : index

  // This CTA's rows of every tensor.
  %q_rows = memref.subview %q[%batch, %token, %h0, 0] [1, 1, 64, 576] [1, 1, 1, 1]
      : memref<?x?x?x576xbf16, strided<[?, ?, ?, 1]>>
        to memref<64x576xbf16, strided<[?, 1], offset: ?>>
  %kv_rows = memref.subview %kv[%batch, 0, 0, 0] [1, %skv, 1, 576] [1, 1, 1, 1]
      : memref<?x?x1x576xbf16, strided<[?, ?, ?, 1]>> to memref<?x576xbf16, strided<[?, 1], offset: ?>>
  %ids = memref.subview %indices[%batch, %token, 0, 0] [1, 1, 1, %length] [1, 1, 1, 1]
      : memref<?x?x1x?xi32, strided<[?, ?, ?, 1]>> to memref<?xi32, strided<[1], offset: ?>>
  %out_rows = memref.subview %out[%batch, %token, %h0, 0] [1, 1, 64, 512] [1, 1, 1, 1]
      : memref<?x?x?x512xbf16> to memref<64x512xbf16, strided<[512, 1], offset: ?>>
  %lse_rows = memref.subview %lse[%batch, %token, %h0] [1, 1, 64] [1, 1, 1]
      : memref<?x?x?xf32> to memref<64xf32, strided<[1], offset: ?>>
  %max_rows = memref.subview %max_logits[%batch, %token, %h0] [1, 1, 64] [1, 1, 1]
      : memref<?x?x?xf32> to memref<64xf32, strided<[1], offset: ?>>
  %sink_rows = memref.subview %attn_sink[%h0] [64] [1]
      : memref<?xf32> to memref<64xf32, strided<[1], offset: ?>>

  // Q once, and two stages of gathered KV tiles: 72 KiB each.
  %qbuf = tle.shared_alloc {name = "q"} : memref<1x64x576xbf16, #sw>
  %kvbuf = tle.shared_alloc {name = "kv"} : memref<2x64x576xbf16, #sw>
  %qp = tle.pipe "q" capacity 1 one_shot
      fields(q = %qbuf : memref<1x64x576xbf16, #sw>) readers(attn)
  %kvp = tle.pipe "kv" capacity 2
      fields(kv = %kvbuf : memref<2x64x576xbf16, #sw>) readers(attn)

  tle.warp_specialize
  default "attn" warps(8) registers(224) {
    %log2e = arith.constant 1.44269504 : f32
    %ln2 = arith.constant 0.693147182 : f32
    %scale2 = arith.mulf %sm_scale, %log2e : f32
    %scale = tle.splat %scale2 : f32 -> tensor<64x64xf32, #s>
    %neg_inf = arith.constant dense<0xFF800000> : tensor<64x64xf32, #s>
    %zero_s = arith.constant dense<0.0> : tensor<64x64xf32, #s>
    %m_init = arith.constant dense<-1.0e+30> : tensor<64xf32, #row_s>
    %l_init = arith.constant dense<0.0> : tensor<64xf32, #row_s>
    %o_init = arith.constant dense<0.0> : tensor<64x512xf32, #o>
    %skv_i32 = arith.index_cast %skv : index to i32
    %id_end = tle.splat %skv_i32 : i32 -> tensor<64xi32, #col_s>

    // Each tile's indices are loaded one tile ahead, so that their latency
    // is not on the path from one tile to the next. Past the last tile the
    // load reads nothing (out of bounds gives zeros).
    %ids_first = tle.load %ids[%c0] padding(-1 : i32)
        : memref<?xi32, strided<[1], offset: ?>> -> tensor<64xi32, #col_s>
    %qt = tle.wait %qp reader "attn" -> memref<64x576xbf16, #sw>
    %m, %l, %acc, %unused = scf.for %i = %c0 to %tiles step %c1
        iter_args(%m_old = %m_init, %l_old = %l_init, %acc_old = %o_init,
                  %id = %ids_first)
        -> (tensor<64xf32, #row_s>, tensor<64xf32, #row_s>, tensor<64x512xf32, #o>,
            tensor<64xi32, #col_s>) {
      %kvt = tle.wait %kvp[%i : index] reader "attn" -> memref<64x576xbf16, #sw>

      // Scores of the tile: Q [64, 576] . K^T, K = the tile's 576 columns.
      %s_issued = tle.wgmma %qt, %kvt, %zero_s transpose_b
          : memref<64x576xbf16, #sw>, memref<64x576xbf16, #sw>,
            tensor<64x64xf32, #s>
      %qk = tle.wgmma_wait %s_issued pending(0) : tensor<64x64xf32, #s>

      %k_next = arith.muli %i, %c64 : index
      %k_after = arith.addi %k_next, %c64 : index
      %id_next = tle.load %ids[%k_after] padding(-1 : i32)
          : memref<?xi32, strided<[1], offset: ?>> -> tensor<64xi32, #col_s>

      // Columns with an invalid index score -inf.
      // Unsigned, a negative index is above SKV: one compare for both ends.
      %valid = arith.cmpi ult, %id, %id_end : tensor<64xi32, #col_s>
      %valid_s = tle.broadcast %valid dim 0
          : tensor<64xi1, #col_s> -> tensor<64x64xi1, #s>
      %scaled = arith.mulf %qk, %scale : tensor<64x64xf32, #s>
      %logits = arith.select %valid_s, %scaled, %neg_inf
          : tensor<64x64xi1, #s>, tensor<64x64xf32, #s>

      // Online softmax in base 2 (exp2 with afn: the flush-to-zero hardware
      // approximation; exp2(-inf) is 0).
      %tile_max = tle.reduce max %logits dim 1
          : tensor<64x64xf32, #s> -> tensor<64xf32, #row_s>
      %m_new = arith.maximumf %m_old, %tile_max : tensor<64xf32, #row_s>
      %m_diff = arith.subf %m_old, %m_new : tensor<64xf32, #row_s>
      %alpha = math.exp2 %m_diff fastmath<afn> : tensor<64xf32, #row_s>
      %m_wide = tle.broadcast %m_new dim 1
          : tensor<64xf32, #row_s> -> tensor<64x64xf32, #s>
      %shifted = arith.subf %logits, %m_wide : tensor<64x64xf32, #s>
      %p = math.exp2 %shifted fastmath<afn> : tensor<64x64xf32, #s>
      %p_sum = tle.reduce sum %p dim 1
          : tensor<64x64xf32, #s> -> tensor<64xf32, #row_s>
      %l_scaled = arith.mulf %l_old, %alpha : tensor<64xf32, #row_s>
      %l_new = arith.addf %l_scaled, %p_sum : tensor<64xf32, #row_s>

      // acc = acc * alpha + P . V, V = the tile's first 512 columns.
      %alpha_wide = tle.broadcast %alpha dim 1
          : tensor<64xf32, #row_o> -> tensor<64x512xf32, #o>
      %acc_scaled = arith.mulf %acc_old, %alpha_wide : tensor<64x512xf32, #o>
      %p16 = arith.truncf %p : tensor<64x64xf32, #s> to tensor<64x64xbf16, #s>
      %pa = tle.convert_layout %p16
          : tensor<64x64xbf16, #s> -> tensor<64x64xbf16, #p>
      %v = memref.subview %kvt[0, 0] [64, 512] [1, 1]
          : memref<64x576xbf16, #sw> to memref<64x512xbf16, strided<[576, 1]>, #sw>
      %o_issued = tle.wgmma %pa, %v, %acc_scaled
          : tensor<64x64xbf16, #p>, memref<64x512xbf16, strided<[576, 1]>, #sw>,
            tensor<64x512xf32, #o>
      %acc_new = tle.wgmma_wait %o_issued pending(0) : tensor<64x512xf32, #o>
      tle.release %kvp[%i : index] reader "attn"
      scf.yield %m_new, %l_new, %acc_new, %id_next
          : tensor<64xf32, #row_s>, tensor<64xf32, #row_s>, tensor<64x512xf32, #o>,
            tensor<64xi32, #col_s>
    }

    // Epilogue. Rows without a valid index have l = 0.
    %zero_row = arith.constant dense<0.0> : tensor<64xf32, #row_s>
    %one_row = arith.constant dense<1.0> : tensor<64xf32, #row_s>
    %inf_row = arith.constant dense<0x7F800000> : tensor<64xf32, #row_s>
    %ninf_row = arith.constant dense<0xFF800000> : tensor<64xf32, #row_s>
    %ln2_row = tle.splat %ln2 : f32 -> tensor<64xf32, #row_s>
    %any = arith.cmpf ogt, %l, %zero_row : tensor<64xf32, #row_s>
    %inv = arith.divf %one_row, %l : tensor<64xf32, #row_s>
    %inv_l = arith.select %any, %inv, %zero_row : tensor<64xi1, #row_s>, tensor<64xf32, #row_s>
    %inv_wide = tle.broadcast %inv_l dim 1
        : tensor<64xf32, #row_o> -> tensor<64x512xf32, #o>
    // Every multiply has retired, so Q may be reclaimed below.
    %acc_done = tle.wgmma_wait %acc pending(0) : tensor<64x512xf32, #o>
    %o_norm = arith.mulf %acc_done, %inv_wide : tensor<64x512xf32, #o>

    // lse = (m + log2 l) ln 2 and max_logits = m ln 2, natural units.
    %log2_l = math.log2 %l : tensor<64xf32, #row_s>
    %lse2 = arith.addf %m, %log2_l : tensor<64xf32, #row_s>
    %lse_n = arith.mulf %lse2, %ln2_row : tensor<64xf32, #row_s>
    %lse_v = arith.select %any, %lse_n, %inf_row : tensor<64xi1, #row_s>, tensor<64xf32, #row_s>
    %max_n = arith.mulf %m, %ln2_row : tensor<64xf32, #row_s>
    %max_v = arith.select %any, %max_n, %ninf_row : tensor<64xi1, #row_s>, tensor<64xf32, #row_s>

    // attn_sink: out *= e^lse / (e^lse + e^sink) = 1 / (1 + e^(sink - lse));
    // a sink of -inf changes nothing, +inf zeroes the row. Rows without a
    // valid index are zero already (and sink - lse may be inf - inf there).
    %sink = tle.load %sink_rows[%c0] : memref<64xf32, strided<[1], offset: ?>>
        -> tensor<64xf32, #row_s>
    %sink_gap = arith.subf %sink, %lse_n : tensor<64xf32, #row_s>
    %sink_weight = math.exp %sink_gap : tensor<64xf32, #row_s>
    %sink_den = arith.addf %one_row, %sink_weight : tensor<64xf32, #row_s>
    %sink_keep = arith.divf %one_row, %sink_den : tensor<64xf32, #row_s>
    %keep = arith.select %any, %sink_keep, %one_row : tensor<64xi1, #row_s>, tensor<64xf32, #row_s>
    %keep_wide = tle.broadcast %keep dim 1
        : tensor<64xf32, #row_o> -> tensor<64x512xf32, #o>
    %o_final = arith.mulf %o_norm, %keep_wide : tensor<64x512xf32, #o>
    %o16 = arith.truncf %o_final : tensor<64x512xf32, #o> to tensor<64x512xbf16, #o>
    // Out of the wgmma layout through Q's first 512 columns, dead now:
    // stored as half rows, 16 bytes a thread.
    %q_part = memref.subview %qbuf[0, 0, 0] [1, 64, 512] [1, 1, 1]
        : memref<1x64x576xbf16, #sw> to memref<64x512xbf16, strided<[576, 1]>, #sw>
    %stage = tle.reclaim %qp reader "attn" scratch %q_part
        : memref<64x512xbf16, strided<[576, 1]>, #sw>
    %o_rows = tle.convert_layout %o16 scratch %stage
        : tensor<64x512xbf16, #o> -> tensor<64x512xbf16, #rows>,
          memref<64x512xbf16, strided<[576, 1]>, #sw>
    tle.store %o_rows, %out_rows[%c0, %c0]
        : tensor<64x512xbf16, #rows>, memref<64x512xbf16, strided<[512, 1], offset: ?>>
    tle.store %lse_v, %lse_rows[%c0]
        : tensor<64xf32, #row_s>, memref<64xf32, strided<[1], offset: ?>>
    tle.store %max_v, %max_rows[%c0]
        : tensor<64xf32, #row_s>, memref<64xf32, strided<[1], offset: ?>>
    tle.warp_yield
  }
  partition "gather" warps(4) registers(40) {
    %q_slot = memref.subview %qbuf[0, 0, 0] [1, 64, 576] [1, 1, 1]
        : memref<1x64x576xbf16, #sw> to memref<64x576xbf16, #sw>
    tle.gather_rows %q_rows from %c0 into %q_slot evict = evict_first
        : memref<64x576xbf16, strided<[?, 1], offset: ?>>, memref<64x576xbf16, #sw>
    tle.commit %qp
    // The indices of tile i + 1 load while tile i waits for its slot.
    %ids_first = tle.load %ids[%c0] padding(-1 : i32)
        : memref<?xi32, strided<[1], offset: ?>> -> tensor<64xi32, #lanes>
    %unused = scf.for %i = %c0 to %tiles step %c1 iter_args(%tile_ids = %ids_first)
        -> tensor<64xi32, #lanes> {
      %k_next = arith.muli %i, %c64 : index
      %k_after = arith.addi %k_next, %c64 : index
      %next_ids = tle.load %ids[%k_after] padding(-1 : i32)
          : memref<?xi32, strided<[1], offset: ?>> -> tensor<64xi32, #lanes>
      %slot = tle.acquire %kvp[%i : index] -> memref<64x576xbf16, #sw>
      tle.gather_rows %kv_rows rows(%tile_ids : tensor<64xi32, #lanes>) into %slot
          l2_prefetch = 256 evict = evict_last
          : memref<?x576xbf16, strided<[?, 1], offset: ?>>, memref<64x576xbf16, #sw>
      tle.commit %kvp[%i : index]
      scf.yield %next_ids : tensor<64xi32, #lanes>
    }
    tle.warp_return
  }
  return
}
