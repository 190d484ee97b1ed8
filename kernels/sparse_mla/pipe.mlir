// RUN: tle-opt %s --tle-derive-sync --tle-sync-plan -o /dev/null | FileCheck %s --match-full-lines --strict-whitespace
// RUN: tle-opt %s --tle-derive-sync=strict-pipes=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=STRICT --allow-empty
// RUN: tle-opt %s --tle-to-llvm | tle-translate --tle-to-ptx -o %t.ptx
// RUN: grep -c fence.proxy.async %t.ptx | FileCheck %s --check-prefix=FENCES
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
//
// DeepSeek V3.2 SparseMLA prefill, the three-lane pipe dataflow
// (SPARSE_MLA.md, dataflow 2): the same math as naive.mlir, with the
// gather and the two halves of the output on warp groups that talk only
// through pipes. Per CTA one query token and 64 heads, KV tiles of 64 rows.
//
//   gather (one warp group, few registers) copies Q once, through the
//     one-shot pipe `q`, and every KV tile into two two-slot pipes: `kv`
//     holds what only the left warp group reads, kv_l (V columns 0-255),
//     tail (the 64 rope columns) and bias, the tile's 64 score offsets (0
//     for a valid index, -inf for an invalid one or one past the row's
//     topk_length, written with ordinary stores from the indices it
//     already holds); `kv_right` holds kv_r (V columns 256-511), which
//     both read. Rows are copied with 16-byte cp.async that zero-fills
//     rows whose index is invalid and never forms their address. With two
//     pipes each half of a slot is refilled as soon as its own readers are
//     done: `kv` once the left's P . kv_l retires, `kv_right` once the
//     right's P . kv_r does, which comes later (see the turn below).
//   left (one warp group) computes S = Q K^T over all 576 columns, adds
//     the tile's bias (one fma per score: no index loads, compares or
//     bounds checks in the consumer), runs the base-2 online softmax, accumulates out[:, 0:256] += P . kv_l with P
//     from registers, and hands P (bf16) and the rescale factor alpha to
//     the right warp group through the one-slot pipe `score`. Right after
//     issuing P . kv_l of tile i it waits for tile i + 1 and issues its
//     scores, so that both multiplies run back to back on the tensor cores
//     while it holds both tiles' slots (a reader window carried across its
//     loop's iterations); the first tile is waited for before the loop and
//     the last one finished after it. It frees tile i's kv_r as soon as
//     the scores of tile i have retired.
//   right (one warp group) reads only kv_r of each tile: it waits for
//     `score`, rescales its accumulator by alpha and adds P . kv_r with P
//     read by the tensor cores straight from shared memory. It issues
//     P . kv_r of tile i only once the left has issued the scores of tile
//     i + 1 (turn token `turn`): behind them on the tensor cores, so that
//     the scores retire first and P . kv_r runs while the left warp group
//     works out the softmax, when the tensor cores would otherwise idle
//     (4.6% less time with invalid ids, where nothing is gathered;
//     the lab notebook, bench/results/).
//
// The rescales are tle.scale: the reference maximum of a row moves only
// when a tile's maximum exceeds it by more than 8 (base 2), so alpha is
// exactly 1 for nearly every warp after the first tile and the warp skips
// its 128 multiplies (docs/Compute.md); the true maximum is kept for
// max_logits.
//
// The left warp group also owns the statistics: at the end it writes lse
// and max_logits and hands the right one its rows' final scale (1 / l
// times the attn_sink factor) through the one-shot pipe `final`.
//
// Arguments, semantics and grid are naive.mlir's: invalid ids score -inf,
// a row with no valid id gives out 0, lse +inf, max_logits -inf; attn_sink
// and topk_length as FlashMLA's (callers without them pass -inf sinks and
// lengths of topk). Grid: (H / 64 * SQ, B), CTA x = token * H / 64 + head
// group. topk must be a multiple of 64.

// The sync plan shows the split: the right warp group waits only for
// kv_r's full barrier (kv_right), the left frees kv_r and its own fields
// through separate free barriers, the score pipe's barriers with the fence
// before the tensor cores read P written by ordinary stores, the turn
// token's named barrier, and the register split.
// CHECK:sync plan for @sparse_mla_pipe
// CHECK-NEXT:partitions: 3 warp groups, 384 threads, 63488 of 64512 registers
// CHECK-NEXT:  partition  warps  first warp  registers  named barrier
// CHECK-NEXT:  left       4      0           240        1
// CHECK-NEXT:  right      4      4           168        2
// CHECK-NEXT:  gather     4      8           88         3
// CHECK-NEXT:pipes:
// CHECK-NEXT:  pipe      capacity      field  slot         bytes/slot
// CHECK-NEXT:  q         1 (one_shot)  q_l    64x256xbf16  32768
// CHECK-NEXT:                          q_r    64x256xbf16  32768
// CHECK-NEXT:                          q_t    64x64xbf16   8192
// CHECK-NEXT:  kv        2             kv_l   64x256xbf16  32768
// CHECK-NEXT:                          tail   64x64xbf16   8192
// CHECK-NEXT:                          bias   64xf32       256
// CHECK-NEXT:  kv_right  2             kv_r   64x256xbf16  32768
// CHECK-NEXT:  score     1             p      64x64xbf16   8192
// CHECK-NEXT:                          alpha  64xf32       256
// CHECK-NEXT:  final     1 (one_shot)  scale  64xf32       256
// CHECK-NEXT:barriers (one mbarrier per slot):
// CHECK-NEXT:  barrier        slots  count  tx bytes  arrive                   fence    arrives      waits
// CHECK-NEXT:  q.full         1      128    0         cp_async                 readers  gather       left
// CHECK-NEXT:  kv.full        2      256    0         cp_async_and_per_thread  readers  gather       left
// CHECK-NEXT:  kv.free        2      128    0         per_thread               no       left         gather
// CHECK-NEXT:  kv_right.full  2      128    0         cp_async                 readers  gather       left, right
// CHECK-NEXT:  kv_right.free  2      256    0         per_thread               no       left, right  gather
// CHECK-NEXT:  score.full     1      128    0         per_thread               writer   left         right
// CHECK-NEXT:  score.free     1      128    0         per_thread               no       right        left
// CHECK-NEXT:  final.full     1      128    0         per_thread               no       left         right
// CHECK-NEXT:reclaims (one mbarrier each: every thread of the readers arrives, then waits):
// CHECK-NEXT:  barrier           count  readers
// CHECK-NEXT:  kv.reclaim        128    left
// CHECK-NEXT:  kv_right.reclaim  256    left, right
// CHECK-NEXT:tokens (one named barrier each: the signaler arrives, the waiter syncs):
// CHECK-NEXT:  token  named barrier  count  signals  awaits
// CHECK-NEXT:  turn   4              256    left     right
// CHECK-NEXT:shared memory: 230400 B of buffers + 112 B of barriers = 230512 B (before alignment)

// The protocol check proves the kernel (STRICT). Its fence.proxy.async
// (FENCES): the left warp group's after each wait for kv and for kv_right
// (first tile, then one of each in the loop; Q's wait shares the first
// tile's), the right's after its wait for kv_right, and the two before
// the left commits P (--tle-place-proxy-fences, docs/SyncDerivation.md).
// STRICT-NOT: {{warning|error}}
// FENCES: 7

// ptxas honours setmaxnreg (no C7508) and spills nothing.
// PTXAS-NOT: C7508
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NEXT: {{.*}}Used {{[0-9]+}} registers

#sw = #tle.shared<swizzle = 128>
#smem = #gpu.address_space<workgroup>
// One warp group holds whole 64-row tiles: S [64, 64] and an output half
// [64, 256]; row statistics are vectors over its rows.
#acc = #tle.mma<warp_groups = [1, 1]>
#pa = #tle.mma_operand<warp_groups = [1, 1]>
#row = #tle.slice<dim = 1, parent = #acc>
#col = #tle.slice<dim = 0, parent = #acc>
// A tile's indices in the gather warps: lane l holds rows l and l + 32.
#lanes = #tle.blocked<per_thread = [1], threads = [32], warps = [1]>
// An output half as global memory wants it: 16 contiguous bytes a thread,
// a warp a whole row of 512 bytes.
#rows = #tle.blocked<per_thread = [1, 8], threads = [1, 32], warps = [4, 1]>

func.func @sparse_mla_pipe(
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
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  // The CTAs of one token's head groups are neighbours in the grid, so
  // that they gather the same KV rows while those are in L2.
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

  // Only the first topk_length[row] indices count; loads past the row's
  // view give -1, an invalid index (see naive.mlir).
  %row_base = arith.muli %batch, %sq : index
  %row = arith.addi %row_base, %token : index
  %length_i32 = memref.load %topk_length[%row] : memref<?xi32>
  %length_raw = arith.index_cast %length_i32 : i32 to index
  %length_pos = arith.maxsi %length_raw, %c0 : index
  %length = arith.minsi %length_pos, %topk : index
  %length_up = arith.addi %length, %c63 : index
  %tiles = arith.divui %length_up, %c64 : index

  // This CTA's rows of every tensor, Q and KV split into the columns each
  // field holds.
  %q_rows = memref.subview %q[%batch, %token, %h0, 0] [1, 1, 64, 576] [1, 1, 1, 1]
      : memref<?x?x?x576xbf16, strided<[?, ?, ?, 1]>>
        to memref<64x576xbf16, strided<[?, 1], offset: ?>>
  %q_rows_l = memref.subview %q_rows[0, 0] [64, 256] [1, 1]
      : memref<64x576xbf16, strided<[?, 1], offset: ?>>
        to memref<64x256xbf16, strided<[?, 1], offset: ?>>
  %q_rows_r = memref.subview %q_rows[0, 256] [64, 256] [1, 1]
      : memref<64x576xbf16, strided<[?, 1], offset: ?>>
        to memref<64x256xbf16, strided<[?, 1], offset: ?>>
  %q_rows_t = memref.subview %q_rows[0, 512] [64, 64] [1, 1]
      : memref<64x576xbf16, strided<[?, 1], offset: ?>>
        to memref<64x64xbf16, strided<[?, 1], offset: ?>>
  %kv_rows = memref.subview %kv[%batch, 0, 0, 0] [1, %skv, 1, 576] [1, 1, 1, 1]
      : memref<?x?x1x576xbf16, strided<[?, ?, ?, 1]>> to memref<?x576xbf16, strided<[?, 1], offset: ?>>
  %kv_rows_l = memref.subview %kv_rows[0, 0] [%skv, 256] [1, 1]
      : memref<?x576xbf16, strided<[?, 1], offset: ?>>
        to memref<?x256xbf16, strided<[?, 1], offset: ?>>
  %kv_rows_r = memref.subview %kv_rows[0, 256] [%skv, 256] [1, 1]
      : memref<?x576xbf16, strided<[?, 1], offset: ?>>
        to memref<?x256xbf16, strided<[?, 1], offset: ?>>
  %kv_rows_t = memref.subview %kv_rows[0, 512] [%skv, 64] [1, 1]
      : memref<?x576xbf16, strided<[?, 1], offset: ?>>
        to memref<?x64xbf16, strided<[?, 1], offset: ?>>
  %ids = memref.subview %indices[%batch, %token, 0, 0] [1, 1, 1, %length] [1, 1, 1, 1]
      : memref<?x?x1x?xi32, strided<[?, ?, ?, 1]>> to memref<?xi32, strided<[1], offset: ?>>
  %out_rows = memref.subview %out[%batch, %token, %h0, 0] [1, 1, 64, 512] [1, 1, 1, 1]
      : memref<?x?x?x512xbf16> to memref<64x512xbf16, strided<[512, 1], offset: ?>>
  %out_l = memref.subview %out_rows[0, 0] [64, 256] [1, 1]
      : memref<64x512xbf16, strided<[512, 1], offset: ?>>
        to memref<64x256xbf16, strided<[512, 1], offset: ?>>
  %out_r = memref.subview %out_rows[0, 256] [64, 256] [1, 1]
      : memref<64x512xbf16, strided<[512, 1], offset: ?>>
        to memref<64x256xbf16, strided<[512, 1], offset: ?>>
  %lse_rows = memref.subview %lse[%batch, %token, %h0] [1, 1, 64] [1, 1, 1]
      : memref<?x?x?xf32> to memref<64xf32, strided<[1], offset: ?>>
  %max_rows = memref.subview %max_logits[%batch, %token, %h0] [1, 1, 64] [1, 1, 1]
      : memref<?x?x?xf32> to memref<64xf32, strided<[1], offset: ?>>
  %sink_rows = memref.subview %attn_sink[%h0] [64] [1]
      : memref<?xf32> to memref<64xf32, strided<[1], offset: ?>>

  // Q once (72 KiB), two stages of KV tiles (2 x 72 KiB, in two pipes),
  // one slot of P and alpha, and the final scale: 224.5 KiB of the 227.
  %ql = tle.shared_alloc {name = "q_l"} : memref<1x64x256xbf16, #sw>
  %qr = tle.shared_alloc {name = "q_r"} : memref<1x64x256xbf16, #sw>
  %qt = tle.shared_alloc {name = "q_t"} : memref<1x64x64xbf16, #sw>
  %kvl = tle.shared_alloc {name = "kv_l"} : memref<2x64x256xbf16, #sw>
  %kvr = tle.shared_alloc {name = "kv_r"} : memref<2x64x256xbf16, #sw>
  %kvt = tle.shared_alloc {name = "tail"} : memref<2x64x64xbf16, #sw>
  %pbuf = tle.shared_alloc {name = "p"} : memref<1x64x64xbf16, #sw>
  %abuf = tle.shared_alloc {name = "alpha"} : memref<1x64xf32, #smem>
  %fbuf = tle.shared_alloc {name = "scale"} : memref<1x64xf32, #smem>
  %kvb = tle.shared_alloc {name = "bias"} : memref<2x64xf32, #smem>
  %qp = tle.pipe "q" capacity 1 one_shot
      fields(q_l = %ql : memref<1x64x256xbf16, #sw>,
             q_r = %qr : memref<1x64x256xbf16, #sw>,
             q_t = %qt : memref<1x64x64xbf16, #sw>) readers(left)
  %kvp = tle.pipe "kv" capacity 2
      fields(kv_l = %kvl : memref<2x64x256xbf16, #sw>,
             tail = %kvt : memref<2x64x64xbf16, #sw>,
             bias = %kvb : memref<2x64xf32, #smem>)
      readers(left)
  %kvrp = tle.pipe "kv_right" capacity 2
      fields(kv_r = %kvr : memref<2x64x256xbf16, #sw>)
      readers(left, right)
  %sp = tle.pipe "score" capacity 1
      fields(p = %pbuf : memref<1x64x64xbf16, #sw>,
             alpha = %abuf : memref<1x64xf32, #smem>) readers(right)
  %fp = tle.pipe "final" capacity 1 one_shot
      fields(scale = %fbuf : memref<1x64xf32, #smem>) readers(right)
  // The left signals once it has issued the scores of tile i + 1; the
  // right awaits that before P . kv_r of tile i (every tile but the last).
  %turn = tle.token "turn" from "left" to "right"

  tle.warp_specialize
  default "left" warps(4) registers(240) {
    %log2e = arith.constant 1.44269504 : f32
    %ln2 = arith.constant 0.693147182 : f32
    %scale2 = arith.mulf %sm_scale, %log2e : f32
    %scale = tle.splat %scale2 : f32 -> tensor<64x64xf32, #acc>
    %zero_s = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    %m_init = arith.constant dense<-1.0e+30> : tensor<64xf32, #row>
    %jump_min = arith.constant dense<8.0> : tensor<64xf32, #row>
    %l_init = arith.constant dense<0.0> : tensor<64xf32, #row>
    %o_init = arith.constant dense<0.0> : tensor<64x256xf32, #acc>
    %q_l, %q_r, %q_t = tle.wait %qp reader "left"
        -> memref<64x256xbf16, #sw>, memref<64x256xbf16, #sw>, memref<64x64xbf16, #sw>

    // P . V of tile i and the scores of tile i + 1 run back to back on the
    // tensor cores; tile i + 1 is waited for after the softmax of tile i,
    // so the gather keeps a softmax of slack.
    %nonempty = arith.cmpi sgt, %tiles, %c0 : index
    %m, %x, %l, %acc = scf.if %nonempty
        -> (tensor<64xf32, #row>, tensor<64xf32, #row>, tensor<64xf32, #row>, tensor<64x256xf32, #acc>) {
      %k0_l, %k0_t, %k0_b = tle.wait %kvp[%c0 : index] reader "left"
          -> memref<64x256xbf16, #sw>, memref<64x64xbf16, #sw>, memref<64xf32, #smem>
      %bias_first = tle.local_load %k0_b : memref<64xf32, #smem> -> tensor<64xf32, #col>
      %s0_t = tle.wgmma %q_t, %k0_t, %zero_s transpose_b
          : memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>
      %s0_tl = tle.wgmma %q_l, %k0_l, %s0_t transpose_b
          : memref<64x256xbf16, #sw>, memref<64x256xbf16, #sw>, tensor<64x64xf32, #acc>
      %k0_r = tle.wait %kvrp[%c0 : index] reader "left" -> memref<64x256xbf16, #sw>
      %s0 = tle.wgmma %q_r, %k0_r, %s0_tl transpose_b
          : memref<64x256xbf16, #sw>, memref<64x256xbf16, #sw>, tensor<64x64xf32, #acc>
      %last = arith.subi %tiles, %c1 : index
      %m_run, %x_run, %l_run, %acc_run, %s_last, %k_last, %bias_last =
          scf.for %i = %c0 to %last step %c1
          iter_args(%m_old = %m_init, %x_old = %m_init, %l_old = %l_init, %acc_old = %o_init,
                    %s_cur = %s0, %k_l = %k0_l, %bias = %bias_first)
          -> (tensor<64xf32, #row>, tensor<64xf32, #row>, tensor<64xf32, #row>, tensor<64x256xf32, #acc>,
              tensor<64x64xf32, #acc>, memref<64x256xbf16, #sw>, tensor<64xf32, #col>) {
        %qk = tle.wgmma_wait %s_cur pending(0) : tensor<64x64xf32, #acc>
        // The scores were the left's only use of kv_r.
        tle.release %kvrp[%i : index] reader "left"
        // Columns with an invalid index score -inf (the gather's bias).
        %bias_s = tle.broadcast %bias dim 0
            : tensor<64xf32, #col> -> tensor<64x64xf32, #acc>
        %logits = math.fma %qk, %scale, %bias_s : tensor<64x64xf32, #acc>

        // Online softmax in base 2. The reference maximum moves only when
        // the tile's exceeds it by more than 8, so P <= 2^8 and alpha is
        // mostly 1: tle.scale skips those warps' rescales. The true
        // maximum (x) is kept for max_logits.
        %tile_max = tle.reduce max %logits dim 1
            : tensor<64x64xf32, #acc> -> tensor<64xf32, #row>
        %grown = arith.subf %tile_max, %m_old : tensor<64xf32, #row>
        %jump = arith.cmpf ogt, %grown, %jump_min : tensor<64xf32, #row>
        %m_new = arith.select %jump, %tile_max, %m_old : tensor<64xi1, #row>, tensor<64xf32, #row>
        %x_new = arith.maximumf %x_old, %tile_max : tensor<64xf32, #row>
        %m_diff = arith.subf %m_old, %m_new : tensor<64xf32, #row>
        %alpha = math.exp2 %m_diff fastmath<afn> : tensor<64xf32, #row>
        %m_wide = tle.broadcast %m_new dim 1
            : tensor<64xf32, #row> -> tensor<64x64xf32, #acc>
        %shifted = arith.subf %logits, %m_wide : tensor<64x64xf32, #acc>
        %p = math.exp2 %shifted fastmath<afn> : tensor<64x64xf32, #acc>
        %p_sum = tle.reduce sum %p dim 1
            : tensor<64x64xf32, #acc> -> tensor<64xf32, #row>
        %l_scaled = arith.mulf %l_old, %alpha : tensor<64xf32, #row>
        %l_new = arith.addf %l_scaled, %p_sum : tensor<64xf32, #row>
        %p16 = arith.truncf %p : tensor<64x64xf32, #acc> to tensor<64x64xbf16, #acc>

        // Hand P and alpha to the right warp group.
        %p_slot, %alpha_slot = tle.acquire %sp[%i : index]
            -> memref<64x64xbf16, #sw>, memref<64xf32, #smem>
        tle.local_store %p16, %p_slot : tensor<64x64xbf16, #acc>, memref<64x64xbf16, #sw>
        tle.local_store %alpha, %alpha_slot : tensor<64xf32, #row>, memref<64xf32, #smem>
        tle.commit %sp[%i : index]

        // acc = acc * alpha + P . kv_l, P from registers (its accumulator
        // layout is the A operand's: nothing moves).
        %acc_scaled = tle.scale %acc_old by %alpha dim 1
            : tensor<64x256xf32, #acc>, tensor<64xf32, #row>
        %pa = tle.convert_layout %p16
            : tensor<64x64xbf16, #acc> -> tensor<64x64xbf16, #pa>
        %o_issued = tle.wgmma %pa, %k_l, %acc_scaled
            : tensor<64x64xbf16, #pa>, memref<64x256xbf16, #sw>, tensor<64x256xf32, #acc>
        %next = arith.addi %i, %c1 : index
        %n_l, %n_t, %n_b = tle.wait %kvp[%next : index] reader "left"
            -> memref<64x256xbf16, #sw>, memref<64x64xbf16, #sw>, memref<64xf32, #smem>
        %sn_t = tle.wgmma %q_t, %n_t, %zero_s transpose_b
            : memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>
        %sn_tl = tle.wgmma %q_l, %n_l, %sn_t transpose_b
            : memref<64x256xbf16, #sw>, memref<64x256xbf16, #sw>, tensor<64x64xf32, #acc>
        %n_r = tle.wait %kvrp[%next : index] reader "left" -> memref<64x256xbf16, #sw>
        %s_next = tle.wgmma %q_r, %n_r, %sn_tl transpose_b
            : memref<64x256xbf16, #sw>, memref<64x256xbf16, #sw>, tensor<64x64xf32, #acc>
        tle.signal %turn
        %bias_next = tle.local_load %n_b : memref<64xf32, #smem> -> tensor<64xf32, #col>
        %acc_new = tle.wgmma_wait %o_issued pending(3) : tensor<64x256xf32, #acc>
        tle.release %kvp[%i : index] reader "left"
        scf.yield %m_new, %x_new, %l_new, %acc_new, %s_next, %n_l, %bias_next
            : tensor<64xf32, #row>, tensor<64xf32, #row>, tensor<64xf32, #row>, tensor<64x256xf32, #acc>,
              tensor<64x64xf32, #acc>, memref<64x256xbf16, #sw>, tensor<64xf32, #col>
      }
      %qk_last = tle.wgmma_wait %s_last pending(0) : tensor<64x64xf32, #acc>
      tle.release %kvrp[%last : index] reader "left"
      // Columns with an invalid index score -inf (the gather's bias).
      %bias_s_e = tle.broadcast %bias_last dim 0
          : tensor<64xf32, #col> -> tensor<64x64xf32, #acc>
      %logits_e = math.fma %qk_last, %scale, %bias_s_e : tensor<64x64xf32, #acc>

      // Online softmax in base 2.
      %tile_max_e = tle.reduce max %logits_e dim 1
          : tensor<64x64xf32, #acc> -> tensor<64xf32, #row>
      %grown_e = arith.subf %tile_max_e, %m_run : tensor<64xf32, #row>
      %jump_e = arith.cmpf ogt, %grown_e, %jump_min : tensor<64xf32, #row>
      %m_new_e = arith.select %jump_e, %tile_max_e, %m_run : tensor<64xi1, #row>, tensor<64xf32, #row>
      %x_new_e = arith.maximumf %x_run, %tile_max_e : tensor<64xf32, #row>
      %m_diff_e = arith.subf %m_run, %m_new_e : tensor<64xf32, #row>
      %alpha_e = math.exp2 %m_diff_e fastmath<afn> : tensor<64xf32, #row>
      %m_wide_e = tle.broadcast %m_new_e dim 1
          : tensor<64xf32, #row> -> tensor<64x64xf32, #acc>
      %shifted_e = arith.subf %logits_e, %m_wide_e : tensor<64x64xf32, #acc>
      %p_e = math.exp2 %shifted_e fastmath<afn> : tensor<64x64xf32, #acc>
      %p_sum_e = tle.reduce sum %p_e dim 1
          : tensor<64x64xf32, #acc> -> tensor<64xf32, #row>
      %l_scaled_e = arith.mulf %l_run, %alpha_e : tensor<64xf32, #row>
      %l_new_e = arith.addf %l_scaled_e, %p_sum_e : tensor<64xf32, #row>
      %p16_e = arith.truncf %p_e : tensor<64x64xf32, #acc> to tensor<64x64xbf16, #acc>

      // Hand P and alpha to the right warp group.
      %p_slot_e, %alpha_slot_e = tle.acquire %sp[%last : index]
          -> memref<64x64xbf16, #sw>, memref<64xf32, #smem>
      tle.local_store %p16_e, %p_slot_e : tensor<64x64xbf16, #acc>, memref<64x64xbf16, #sw>
      tle.local_store %alpha_e, %alpha_slot_e : tensor<64xf32, #row>, memref<64xf32, #smem>
      tle.commit %sp[%last : index]

      // acc = acc * alpha + P . kv_l, P from registers (its accumulator
      // layout is the A operand's: nothing moves).
      %acc_scaled_e = tle.scale %acc_run by %alpha_e dim 1
          : tensor<64x256xf32, #acc>, tensor<64xf32, #row>
      %pa_e = tle.convert_layout %p16_e
          : tensor<64x64xbf16, #acc> -> tensor<64x64xbf16, #pa>
      %o_issued_e = tle.wgmma %pa_e, %k_last, %acc_scaled_e
          : tensor<64x64xbf16, #pa>, memref<64x256xbf16, #sw>, tensor<64x256xf32, #acc>
      %acc_end = tle.wgmma_wait %o_issued_e pending(0) : tensor<64x256xf32, #acc>
      tle.release %kvp[%last : index] reader "left"
      scf.yield %m_new_e, %x_new_e, %l_new_e, %acc_end
          : tensor<64xf32, #row>, tensor<64xf32, #row>, tensor<64xf32, #row>, tensor<64x256xf32, #acc>
    } else {
      scf.yield %m_init, %m_init, %l_init, %o_init
          : tensor<64xf32, #row>, tensor<64xf32, #row>, tensor<64xf32, #row>, tensor<64x256xf32, #acc>
    }

    // Epilogue. Rows without a valid index have l = 0.
    %zero_row = arith.constant dense<0.0> : tensor<64xf32, #row>
    %one_row = arith.constant dense<1.0> : tensor<64xf32, #row>
    %inf_row = arith.constant dense<0x7F800000> : tensor<64xf32, #row>
    %ninf_row = arith.constant dense<0xFF800000> : tensor<64xf32, #row>
    %ln2_row = tle.splat %ln2 : f32 -> tensor<64xf32, #row>
    %any = arith.cmpf ogt, %l, %zero_row : tensor<64xf32, #row>
    %inv = arith.divf %one_row, %l : tensor<64xf32, #row>
    %inv_l = arith.select %any, %inv, %zero_row : tensor<64xi1, #row>, tensor<64xf32, #row>

    // lse = (m + log2 l) ln 2 and max_logits = x ln 2, natural units.
    %log2_l = math.log2 %l : tensor<64xf32, #row>
    %lse2 = arith.addf %m, %log2_l : tensor<64xf32, #row>
    %lse_n = arith.mulf %lse2, %ln2_row : tensor<64xf32, #row>
    %lse_v = arith.select %any, %lse_n, %inf_row : tensor<64xi1, #row>, tensor<64xf32, #row>
    %max_n = arith.mulf %x, %ln2_row : tensor<64xf32, #row>
    %max_v = arith.select %any, %max_n, %ninf_row : tensor<64xi1, #row>, tensor<64xf32, #row>

    // attn_sink: out *= 1 / (1 + e^(sink - lse)), as in naive.mlir.
    %sink = tle.load %sink_rows[%c0] : memref<64xf32, strided<[1], offset: ?>>
        -> tensor<64xf32, #row>
    %sink_gap = arith.subf %sink, %lse_n : tensor<64xf32, #row>
    %sink_weight = math.exp %sink_gap : tensor<64xf32, #row>
    %sink_den = arith.addf %one_row, %sink_weight : tensor<64xf32, #row>
    %sink_keep = arith.divf %one_row, %sink_den : tensor<64xf32, #row>
    %keep = arith.select %any, %sink_keep, %one_row : tensor<64xi1, #row>, tensor<64xf32, #row>
    %row_scale = arith.mulf %inv_l, %keep : tensor<64xf32, #row>

    // The right warp group's rows get the same scale.
    %scale_slot = memref.subview %fbuf[0, 0] [1, 64] [1, 1]
        : memref<1x64xf32, #smem> to memref<64xf32, #smem>
    tle.local_store %row_scale, %scale_slot : tensor<64xf32, #row>, memref<64xf32, #smem>
    tle.commit %fp

    %scale_wide = tle.broadcast %row_scale dim 1
        : tensor<64xf32, #row> -> tensor<64x256xf32, #acc>
    // Every multiply has retired, so the KV pipes may be reclaimed below.
    %acc_done = tle.wgmma_wait %acc pending(0) : tensor<64x256xf32, #acc>
    %o_final = arith.mulf %acc_done, %scale_wide : tensor<64x256xf32, #acc>
    %o16 = arith.truncf %o_final : tensor<64x256xf32, #acc> to tensor<64x256xbf16, #acc>
    // Out of the wgmma layout through the left half of KV slot 0, dead
    // now (the right warp group takes the right half): stored as whole
    // rows, 16 bytes a thread.
    %kv_part = memref.subview %kvl[0, 0, 0] [1, 64, 256] [1, 1, 1]
        : memref<2x64x256xbf16, #sw> to memref<64x256xbf16, #sw>
    %stage = tle.reclaim %kvp reader "left" scratch %kv_part : memref<64x256xbf16, #sw>
    tle.reclaim %kvrp reader "left"
    %o_rows = tle.convert_layout %o16 scratch %stage
        : tensor<64x256xbf16, #acc> -> tensor<64x256xbf16, #rows>, memref<64x256xbf16, #sw>
    tle.store %o_rows, %out_l[%c0, %c0]
        : tensor<64x256xbf16, #rows>, memref<64x256xbf16, strided<[512, 1], offset: ?>>
    tle.store %lse_v, %lse_rows[%c0]
        : tensor<64xf32, #row>, memref<64xf32, strided<[1], offset: ?>>
    tle.store %max_v, %max_rows[%c0]
        : tensor<64xf32, #row>, memref<64xf32, strided<[1], offset: ?>>
    tle.warp_yield
  }
  partition "right" warps(4) registers(168) {
    %o_init = arith.constant dense<0.0> : tensor<64x256xf32, #acc>
    %acc = scf.for %i = %c0 to %tiles step %c1 iter_args(%acc_old = %o_init)
        -> tensor<64x256xf32, #acc> {
      %p_slot, %alpha_slot = tle.wait %sp[%i : index] reader "right"
          -> memref<64x64xbf16, #sw>, memref<64xf32, #smem>
      %k_r = tle.wait %kvrp[%i : index] reader "right" -> memref<64x256xbf16, #sw>
      %alpha = tle.local_load %alpha_slot : memref<64xf32, #smem> -> tensor<64xf32, #row>
      %acc_scaled = tle.scale %acc_old by %alpha dim 1
          : tensor<64x256xf32, #acc>, tensor<64xf32, #row>
      // P . kv_r with P read by the tensor cores from the score slot,
      // behind the left's scores of tile i + 1.
      %i_next = arith.addi %i, %c1 : index
      %not_last = arith.cmpi ult, %i_next, %tiles : index
      scf.if %not_last {
        tle.await %turn
      }
      %o_issued = tle.wgmma %p_slot, %k_r, %acc_scaled
          : memref<64x64xbf16, #sw>, memref<64x256xbf16, #sw>, tensor<64x256xf32, #acc>
      %acc_new = tle.wgmma_wait %o_issued pending(0) : tensor<64x256xf32, #acc>
      tle.release %sp[%i : index] reader "right"
      tle.release %kvrp[%i : index] reader "right"
      scf.yield %acc_new : tensor<64x256xf32, #acc>
    }
    %scale_slot = tle.wait %fp reader "right" -> memref<64xf32, #smem>
    %row_scale = tle.local_load %scale_slot : memref<64xf32, #smem> -> tensor<64xf32, #row>
    %scale_wide = tle.broadcast %row_scale dim 1
        : tensor<64xf32, #row> -> tensor<64x256xf32, #acc>
    // Every multiply has retired, so the KV pipes may be reclaimed below.
    %acc_done = tle.wgmma_wait %acc pending(0) : tensor<64x256xf32, #acc>
    %o_final = arith.mulf %acc_done, %scale_wide : tensor<64x256xf32, #acc>
    %o16 = arith.truncf %o_final : tensor<64x256xf32, #acc> to tensor<64x256xbf16, #acc>
    %kv_part = memref.subview %kvr[0, 0, 0] [1, 64, 256] [1, 1, 1]
        : memref<2x64x256xbf16, #sw> to memref<64x256xbf16, #sw>
    %stage = tle.reclaim %kvrp reader "right" scratch %kv_part : memref<64x256xbf16, #sw>
    %o_rows = tle.convert_layout %o16 scratch %stage
        : tensor<64x256xbf16, #acc> -> tensor<64x256xbf16, #rows>, memref<64x256xbf16, #sw>
    tle.store %o_rows, %out_r[%c0, %c0]
        : tensor<64x256xbf16, #rows>, memref<64x256xbf16, strided<[512, 1], offset: ?>>
    tle.warp_return
  }
  partition "gather" warps(4) registers(88) {
    %skv_i32 = arith.index_cast %skv : index to i32
    %id_end = tle.splat %skv_i32 : i32 -> tensor<64xi32, #lanes>
    %zero_b = arith.constant dense<0.0> : tensor<64xf32, #lanes>
    %ninf_b = arith.constant dense<0xFF800000> : tensor<64xf32, #lanes>
    %q_l = memref.subview %ql[0, 0, 0] [1, 64, 256] [1, 1, 1]
        : memref<1x64x256xbf16, #sw> to memref<64x256xbf16, #sw>
    %q_r = memref.subview %qr[0, 0, 0] [1, 64, 256] [1, 1, 1]
        : memref<1x64x256xbf16, #sw> to memref<64x256xbf16, #sw>
    %q_t = memref.subview %qt[0, 0, 0] [1, 64, 64] [1, 1, 1]
        : memref<1x64x64xbf16, #sw> to memref<64x64xbf16, #sw>
    tle.gather_rows %q_rows_l from %c0 into %q_l evict = evict_first
        : memref<64x256xbf16, strided<[?, 1], offset: ?>>, memref<64x256xbf16, #sw>
    tle.gather_rows %q_rows_r from %c0 into %q_r evict = evict_first
        : memref<64x256xbf16, strided<[?, 1], offset: ?>>, memref<64x256xbf16, #sw>
    tle.gather_rows %q_rows_t from %c0 into %q_t evict = evict_first
        : memref<64x64xbf16, strided<[?, 1], offset: ?>>, memref<64x64xbf16, #sw>
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
      %l, %t, %b = tle.acquire %kvp[%i : index]
          -> memref<64x256xbf16, #sw>, memref<64x64xbf16, #sw>, memref<64xf32, #smem>
      tle.gather_rows %kv_rows_l rows(%tile_ids : tensor<64xi32, #lanes>) into %l
          l2_prefetch = 256 evict = evict_last
          : memref<?x256xbf16, strided<[?, 1], offset: ?>>, memref<64x256xbf16, #sw>
      tle.gather_rows %kv_rows_t rows(%tile_ids : tensor<64xi32, #lanes>) into %t
          l2_prefetch = 256 evict = evict_last
          : memref<?x64xbf16, strided<[?, 1], offset: ?>>, memref<64x64xbf16, #sw>
      // The tile's bias: one unsigned compare covers negative ids, ids
      // past skv and the -1 that loads past topk_length give.
      %ok = arith.cmpi ult, %tile_ids, %id_end : tensor<64xi32, #lanes>
      %bias = arith.select %ok, %zero_b, %ninf_b : tensor<64xi1, #lanes>, tensor<64xf32, #lanes>
      tle.local_store %bias, %b : tensor<64xf32, #lanes>, memref<64xf32, #smem>
      tle.commit %kvp[%i : index]
      // kv_r last: its slot comes free last.
      %r = tle.acquire %kvrp[%i : index] -> memref<64x256xbf16, #sw>
      tle.gather_rows %kv_rows_r rows(%tile_ids : tensor<64xi32, #lanes>) into %r
          l2_prefetch = 256 evict = evict_last
          : memref<?x256xbf16, strided<[?, 1], offset: ?>>, memref<64x256xbf16, #sw>
      tle.commit %kvrp[%i : index]
      scf.yield %next_ids : tensor<64xi32, #lanes>
    }
    tle.warp_return
  }
  return
}
