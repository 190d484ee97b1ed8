// RUN: tle-opt %s --tle-derive-sync --tle-sync-plan -o /dev/null | FileCheck %s --match-full-lines --strict-whitespace
// RUN: tle-opt %s --tle-derive-sync=strict-pipes=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=STRICT --allow-empty
// RUN: tle-opt %s --tle-to-llvm | tle-translate --tle-to-ptx -o %t.ptx
// RUN: grep -c fence.proxy.async %t.ptx | FileCheck %s --check-prefix=FENCES
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
//
// DeepSeek V3.2 SparseMLA prefill, the seesaw schedule (SPARSE_MLA.md,
// dataflow 3; FlashMLA's sm90 prefill kernel written as pipes), on a
// persistent grid. A work item is one query token and 64 heads; CTA c of G
// takes items c, c + G, c + 2G, ... (tle.persistent: launched with one CTA
// per multiprocessor; any grid is correct). KV tiles of 64 rows are taken
// in pairs K0, K1.
//
//   gather (one warp group, 72 registers) copies each item's Q and, per
//     pair, the halves of both tiles, each into its own one-slot pipe, so
//     that each half is refilled as soon as its last reader releases it:
//     K0's left V half, K0's right half with its rope tail, K1's right half
//     with its tail, K1's left half. wg0 leads a pair (wg1 waits for its
//     maximum), and both right halves come free only at the end of wg1's
//     pair, so K0 comes whole first: one refill, not two, between the end
//     of a pair and the next S0 (1.5-2.5% faster than K1's right half
//     first, 4% on the math alone; the lab notebook, bench/results/). With the first
//     half of each tile it publishes the tile's bias (0 for a valid index,
//     -inf otherwise), so that the consumers add it with one fma per score
//     instead of loading and comparing indices. It loads an item's first
//     indices before its Q copies and every later pair's one pair ahead.
//   wg0 (216 registers) computes S0 = Q K0^T and owns out[:, 0:256]; wg1
//     (216) computes S1 = Q K1^T and owns out[:, 256:512]: FlashMLA's
//     register split. wg0 hands its row maximum to wg1 (pipe m0), wg1
//     merges it with its own and hands the pair's maximum back (pipe m01).
//     Each multiplies its own P (from registers) with its V half, rescales
//     and hands it to the other (P0 through pipe p0, whose storage is K0's
//     rope tail, dead once wg0's S0 has retired; P1 through pipe p1), and
//     multiplies the other's P with its V half (read by the tensor cores
//     from shared memory). wg0 issues P0 . V0l only once wg1's S1 has
//     retired (turn token s1_done), so that the multiply does not delay the
//     scores the pair's maximum waits for; wg1 frees K1's right half as
//     soon as P1 . V1r retires, while P0 . V0r still runs.
//
// The reference maximum of each row moves only when a tile's maximum
// exceeds it by more than 8 (base 2), so every P is at most 2^8, and the
// rescales (acc * alpha, wg0's acc * fix and P0 * fix) are tle.scale,
// which a warp skips when none of its factors differs from 1: after the
// first pair that is nearly every warp (docs/Compute.md). lse = m + log2 l
// holds for any reference m; the true maximum is tracked beside it for
// max_logits.
//
// At the end of an item wg1 hands its row sums and maxima to wg0 (pipe
// l1), which writes lse and max_logits and hands wg1 its rows' final scale
// (pipe final). Each stages its output half in the K half that only it
// reads (wg0: K0's left half, wg1: K1's right half) and writes it with TMA
// stores (tle.tma_store) through the extra argument out_map, a descriptor
// of out as [B * SQ * H, 512] with 64 x 64 boxes, as FlashMLA does from
// Q's storage (1-2% faster than storing 16 bytes a thread;
// the lab notebook, bench/results/). The item's last pair is peeled off its loop so
// that the window on that half lasts through the epilogue; the memref
// `out` is not read or written here: it stays in the signature that every
// SparseMLA kernel shares.
//
// Why persistent: every pipe counts its iterations over the CTA's items
// (n * pairs + j; q, l1 and final once an item), so the gather copies the
// next item's Q as soon as both warp groups' last scores of this item have
// retired, and the halves of its first pair that come free at the end of
// this one (K0's right and K1's left) while they finish the epilogue; only
// the two halves the output was staged in are copied after it. A CTA of
// one item spent that time, and its launch, before its first multiply
// (1-5% of the kernel's time, more at large SKV; the lab notebook, bench/results/).
//
// Arguments (out_map after them) and semantics are naive.mlir's. Every
// item runs ceil(topk / 128) pairs (the same count in every partition, so
// that the pipes' iterations line up); a tile past a row's topk_length
// reads only invalid ids (its P is 0), so any topk that is a multiple of
// 64 works.

// The sync plan shows the schedule: one full and one free barrier per half
// buffer (k0l, k0r, k1l, k1r), which warp group frees which half (wg0
// alone frees K0's left half as soon as its P0 . V0l retires, before it
// waits for the pair's maximum; K0's right half waits for both, since wg1
// reads P0 from its tail), the halves that also carry the bias (their
// full barriers count the gather's cp.async and its ordinary stores), the
// two maximum exchanges, who fences for the tensor cores (wg0 and wg1
// after their waits for the gathered rows, which cp.async wrote, and
// after storing P0 and P1; the gather not at all: only loads read its
// biases), and free barriers for q, l1 and final, which are taken once an
// item; the turn token s1_done is a named barrier of its own.
//
// Where the readers fence (--tle-place-proxy-fences, docs/SyncDerivation.md):
// after each wait for a K half, whose multiply follows it, three a pair in
// each warp group; Q's wait shares the fence of the item's first K half.
// The protocol check proves the kernel (the STRICT line); FENCES counts
// the fence.proxy.async of its PTX: those 12, the 4 after storing P0 and
// P1 (loop and peeled pair) and the 2 of the TMA stores.
// CHECK:sync plan for @sparse_mla_seesaw
// CHECK-NEXT:partitions: 3 warp groups, 384 threads, 64512 of 64512 registers
// CHECK-NEXT:  partition  warps  first warp  registers  named barrier
// CHECK-NEXT:  wg0        4      0           216        1
// CHECK-NEXT:  wg1        4      4           216        2
// CHECK-NEXT:  gather     4      8           72         3
// CHECK-NEXT:pipes:
// CHECK-NEXT:  pipe   capacity  field  slot         bytes/slot
// CHECK-NEXT:  q      1         q_l    64x256xbf16  32768
// CHECK-NEXT:                   q_r    64x256xbf16  32768
// CHECK-NEXT:                   q_t    64x64xbf16   8192
// CHECK-NEXT:  k0l    1         v      64x256xbf16  32768
// CHECK-NEXT:                   bias   64xf32       256
// CHECK-NEXT:  k0r    1         v      64x256xbf16  32768
// CHECK-NEXT:                   t      64x64xbf16   8192
// CHECK-NEXT:  k1l    1         v      64x256xbf16  32768
// CHECK-NEXT:  k1r    1         v      64x256xbf16  32768
// CHECK-NEXT:                   t      64x64xbf16   8192
// CHECK-NEXT:                   bias   64xf32       256
// CHECK-NEXT:  m0     1         m      64xf32       256
// CHECK-NEXT:  m01    1         m      64xf32       256
// CHECK-NEXT:  p0     1         p      64x64xbf16   8192
// CHECK-NEXT:  p1     1         p      64x64xbf16   8192
// CHECK-NEXT:  final  1         scale  64xf32       256
// CHECK-NEXT:  l1     1         l      64xf32       256
// CHECK-NEXT:                   x      64xf32       256
// CHECK-NEXT:barriers (one mbarrier per slot):
// CHECK-NEXT:  barrier     slots  count  tx bytes  arrive                   fence    arrives   waits
// CHECK-NEXT:  q.full      1      128    0         cp_async                 readers  gather    wg0, wg1
// CHECK-NEXT:  q.free      1      256    0         per_thread               no       wg0, wg1  gather
// CHECK-NEXT:  k0l.full    1      256    0         cp_async_and_per_thread  readers  gather    wg0
// CHECK-NEXT:  k0l.free    1      128    0         per_thread               no       wg0       gather
// CHECK-NEXT:  k0r.full    1      128    0         cp_async                 readers  gather    wg0, wg1
// CHECK-NEXT:  k0r.free    1      256    0         per_thread               no       wg0, wg1  gather
// CHECK-NEXT:  k1l.full    1      128    0         cp_async                 readers  gather    wg1, wg0
// CHECK-NEXT:  k1l.free    1      256    0         per_thread               no       wg1, wg0  gather
// CHECK-NEXT:  k1r.full    1      256    0         cp_async_and_per_thread  readers  gather    wg1
// CHECK-NEXT:  k1r.free    1      128    0         per_thread               no       wg1       gather
// CHECK-NEXT:  m0.full     1      128    0         per_thread               no       wg0       wg1
// CHECK-NEXT:  m0.free     1      128    0         per_thread               no       wg1       wg0
// CHECK-NEXT:  m01.full    1      128    0         per_thread               no       wg1       wg0
// CHECK-NEXT:  m01.free    1      128    0         per_thread               no       wg0       wg1
// CHECK-NEXT:  p0.full     1      128    0         per_thread               writer   wg0       wg1
// CHECK-NEXT:  p0.free     1      128    0         per_thread               no       wg1       wg0
// CHECK-NEXT:  p1.full     1      128    0         per_thread               writer   wg1       wg0
// CHECK-NEXT:  p1.free     1      128    0         per_thread               no       wg0       wg1
// CHECK-NEXT:  final.full  1      128    0         per_thread               no       wg0       wg1
// CHECK-NEXT:  final.free  1      128    0         per_thread               no       wg1       wg0
// CHECK-NEXT:  l1.full     1      128    0         per_thread               no       wg1       wg0
// CHECK-NEXT:  l1.free     1      128    0         per_thread               no       wg0       wg1
// CHECK-NEXT:tokens (one named barrier each: the signaler arrives, the waiter syncs):
// CHECK-NEXT:  token    named barrier  count  signals  awaits
// CHECK-NEXT:  s1_done  4              256    wg1      wg0
// CHECK-NEXT:shared memory: 231168 B of buffers + 176 B of barriers = 231344 B (before alignment)

// STRICT-NOT: {{warning|error}}
// FENCES: 18

// ptxas honours setmaxnreg, spills nothing and keeps the multiplies
// asynchronous (no C7514 serialisation).
// PTXAS-NOT: C75{{08|14}}
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

// Coordinates of work item n of CTA cta of ctas: items are numbered
// batch-major, then by token, then by head group, so that the CTAs
// running side by side work on one token's head groups, which gather the
// same KV rows while those are in L2. In 32 bits: a 64-bit division is a
// subroutine call in SASS.
func.func private @item_rows(%n: index, %cta: index, %ctas: index,
                             %head_groups: index, %sq: index)
    -> (index, index, index) {
  %c64 = arith.constant 64 : i32
  %n32 = arith.index_castui %n : index to i32
  %cta32 = arith.index_castui %cta : index to i32
  %ctas32 = arith.index_castui %ctas : index to i32
  %groups32 = arith.index_castui %head_groups : index to i32
  %sq32 = arith.index_castui %sq : index to i32
  %step = arith.muli %n32, %ctas32 : i32
  %item = arith.addi %cta32, %step : i32
  %head_group = arith.remui %item, %groups32 : i32
  %row = arith.divui %item, %groups32 : i32
  %token = arith.remui %row, %sq32 : i32
  %batch = arith.divui %row, %sq32 : i32
  %h0 = arith.muli %head_group, %c64 : i32
  %batch_i = arith.index_castui %batch : i32 to index
  %token_i = arith.index_castui %token : i32 to index
  %h0_i = arith.index_castui %h0 : i32 to index
  return %batch_i, %token_i, %h0_i : index, index, index
}

func.func @sparse_mla_seesaw(
    %q: memref<?x?x?x576xbf16, strided<[?, ?, ?, 1]>>,
    %kv: memref<?x?x1x576xbf16>,
    %indices: memref<?x?x1x?xi32>,
    %out: memref<?x?x?x512xbf16>,
    %max_logits: memref<?x?x?xf32>,
    %lse: memref<?x?x?xf32>,
    %sm_scale: f32,
    %attn_sink: memref<?xf32>,
    %topk_length: memref<?xi32>,
    %out_map: !tle.tensor_map<64x64xbf16, swizzle = 128>)
    attributes {tle.persistent,
                tle.grid = "B * SQ * H / 64 work items, one per query token and 64 heads; any grid, best one CTA per multiprocessor"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  %c127 = arith.constant 127 : index
  %c128 = arith.constant 128 : index
  %c192 = arith.constant 192 : index
  %c256 = arith.constant 256 : index
  // The CTA's linear id and the number of CTAs: with one CTA per item
  // ((H / 64 * SQ, B), the other kernels' grid) each CTA takes its own.
  %bx = gpu.block_id x
  %by = gpu.block_id y
  %gx = gpu.grid_dim x
  %gy = gpu.grid_dim y
  %by_x = arith.muli %by, %gx : index
  %cta = arith.addi %bx, %by_x : index
  %ctas = arith.muli %gx, %gy : index
  %batches = memref.dim %indices, %c0 : memref<?x?x1x?xi32>
  %sq = memref.dim %indices, %c1 : memref<?x?x1x?xi32>
  %topk = memref.dim %indices, %c3 : memref<?x?x1x?xi32>
  %heads = memref.dim %q, %c2 : memref<?x?x?x576xbf16, strided<[?, ?, ?, 1]>>
  %head_groups = arith.divui %heads, %c64 : index
  %skv = memref.dim %kv, %c1 : memref<?x?x1x576xbf16>
  %rows = arith.muli %batches, %sq : index
  %items = arith.muli %rows, %head_groups : index
  // This CTA's items: ceil((items - cta) / ctas), none past the end.
  %after = arith.subi %items, %cta : index
  %after_pos = arith.maxsi %after, %c0 : index
  %ctas_m1 = arith.subi %ctas, %c1 : index
  %mine_up = arith.addi %after_pos, %ctas_m1 : index
  %mine_up32 = arith.index_castui %mine_up : index to i32
  %ctas32 = arith.index_castui %ctas : index to i32
  %mine32 = arith.divui %mine_up32, %ctas32 : i32
  %mine = arith.index_castui %mine32 : i32 to index
  // Every item runs ceil(topk / 128) pairs; the last one is peeled off
  // the consumers' loops (pairs > 0 guards them, so that the protocol
  // check can count the peeled pair: topk is positive at run time).
  %pairs_up = arith.addi %topk, %c127 : index
  %pairs = arith.divui %pairs_up, %c128 : index
  %last = arith.subi %pairs, %c1 : index
  %has_pairs = arith.cmpi sgt, %pairs, %c0 : index

  // Q (72 KiB), K0 and K1 (2 x 72 KiB), P1 (8 KiB), the biases and the
  // exchanges: 225.75 KiB of the 227. P0 shares K0's rope tail.
  %ql = tle.shared_alloc {name = "q_l"} : memref<1x64x256xbf16, #sw>
  %qr = tle.shared_alloc {name = "q_r"} : memref<1x64x256xbf16, #sw>
  %qt = tle.shared_alloc {name = "q_t"} : memref<1x64x64xbf16, #sw>
  %k0l = tle.shared_alloc {name = "k0_l"} : memref<1x64x256xbf16, #sw>
  %k0r = tle.shared_alloc {name = "k0_r"} : memref<1x64x256xbf16, #sw>
  %k0t = tle.shared_alloc {name = "k0_t"} : memref<1x64x64xbf16, #sw>
  %k1l = tle.shared_alloc {name = "k1_l"} : memref<1x64x256xbf16, #sw>
  %k1r = tle.shared_alloc {name = "k1_r"} : memref<1x64x256xbf16, #sw>
  %k1t = tle.shared_alloc {name = "k1_t"} : memref<1x64x64xbf16, #sw>
  %p1b = tle.shared_alloc {name = "p1"} : memref<1x64x64xbf16, #sw>
  %m0b = tle.shared_alloc {name = "m0"} : memref<1x64xf32, #smem>
  %m01b = tle.shared_alloc {name = "m01"} : memref<1x64xf32, #smem>
  %fb = tle.shared_alloc {name = "scale"} : memref<1x64xf32, #smem>
  %b0b = tle.shared_alloc {name = "bias0"} : memref<1x64xf32, #smem>
  %b1b = tle.shared_alloc {name = "bias1"} : memref<1x64xf32, #smem>
  %l1b = tle.shared_alloc {name = "l1"} : memref<1x64xf32, #smem>
  %x1b = tle.shared_alloc {name = "x1"} : memref<1x64xf32, #smem>
  // Q once an item, read by both warp groups' scores.
  %qp = tle.pipe "q" capacity 1
      fields(q_l = %ql : memref<1x64x256xbf16, #sw>,
             q_r = %qr : memref<1x64x256xbf16, #sw>,
             q_t = %qt : memref<1x64x64xbf16, #sw>) readers(wg0, wg1)
  %k0lp = tle.pipe "k0l" capacity 1
      fields(v = %k0l : memref<1x64x256xbf16, #sw>,
             bias = %b0b : memref<1x64xf32, #smem>) readers(wg0)
  %k0rp = tle.pipe "k0r" capacity 1
      fields(v = %k0r : memref<1x64x256xbf16, #sw>,
             t = %k0t : memref<1x64x64xbf16, #sw>) readers(wg0, wg1)
  %k1lp = tle.pipe "k1l" capacity 1
      fields(v = %k1l : memref<1x64x256xbf16, #sw>) readers(wg1, wg0)
  %k1rp = tle.pipe "k1r" capacity 1
      fields(v = %k1r : memref<1x64x256xbf16, #sw>,
             t = %k1t : memref<1x64x64xbf16, #sw>,
             bias = %b1b : memref<1x64xf32, #smem>) readers(wg1)
  %m0p = tle.pipe "m0" capacity 1
      fields(m = %m0b : memref<1x64xf32, #smem>) readers(wg1)
  %m01p = tle.pipe "m01" capacity 1
      fields(m = %m01b : memref<1x64xf32, #smem>) readers(wg0)
  // P0 lives in K0's rope tail: wg0 writes it after its S0 has retired and
  // before it releases k0r; wg1 reads it inside its own window on k0r.
  %p0p = tle.pipe "p0" capacity 1
      fields(p = %k0t : memref<1x64x64xbf16, #sw>) readers(wg1)
  %p1p = tle.pipe "p1" capacity 1
      fields(p = %p1b : memref<1x64x64xbf16, #sw>) readers(wg0)
  // Once an item: wg0's final scale of wg1's rows, wg1's row sums and maxima.
  %fp = tle.pipe "final" capacity 1
      fields(scale = %fb : memref<1x64xf32, #smem>) readers(wg1)
  %l1p = tle.pipe "l1" capacity 1
      fields(l = %l1b : memref<1x64xf32, #smem>,
             x = %x1b : memref<1x64xf32, #smem>) readers(wg0)
  // wg1's S1 retired: wg0 may issue P0 . V0l (see wg0's loop).
  %s1_done = tle.token "s1_done" from "wg1" to "wg0"

  tle.warp_specialize
  default "wg0" warps(4) registers(216) {
    %log2e = arith.constant 1.44269504 : f32
    %ln2 = arith.constant 0.693147182 : f32
    %scale2 = arith.mulf %sm_scale, %log2e : f32
    %scale = tle.splat %scale2 : f32 -> tensor<64x64xf32, #acc>
    %zero_s = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    %m_init = arith.constant dense<-1.0e+30> : tensor<64xf32, #row>
    %jump_min = arith.constant dense<8.0> : tensor<64xf32, #row>
    %l_init = arith.constant dense<0.0> : tensor<64xf32, #row>
    %o_init = arith.constant dense<0.0> : tensor<64x256xf32, #acc>
    scf.if %has_pairs {
      scf.for %n = %c0 to %mine step %c1 {
        %batch, %token, %h0 = func.call @item_rows(%n, %cta, %ctas, %head_groups, %sq)
            : (index, index, index, index, index) -> (index, index, index)
        // The item's first row of out seen as [B * SQ * H, 512] (out_map).
        %row_base = arith.muli %batch, %sq : index
        %row = arith.addi %row_base, %token : index
        %out_head_rows = arith.muli %row, %heads : index
        %out_row = arith.addi %out_head_rows, %h0 : index
        %lse_rows = memref.subview %lse[%batch, %token, %h0] [1, 1, 64] [1, 1, 1]
            : memref<?x?x?xf32> to memref<64xf32, strided<[1], offset: ?>>
        %max_rows = memref.subview %max_logits[%batch, %token, %h0] [1, 1, 64] [1, 1, 1]
            : memref<?x?x?xf32> to memref<64xf32, strided<[1], offset: ?>>
        %sink_rows = memref.subview %attn_sink[%h0] [64] [1]
            : memref<?xf32> to memref<64xf32, strided<[1], offset: ?>>
        %q_l, %q_r, %q_t = tle.wait %qp[%n : index] reader "wg0"
            -> memref<64x256xbf16, #sw>, memref<64x256xbf16, #sw>, memref<64x64xbf16, #sw>
        %base = arith.muli %n, %pairs : index
        %m_a, %x_a, %l_a, %acc_a = scf.for %j = %c0 to %last step %c1
            iter_args(%m_old = %m_init, %x_old = %m_init, %l_old = %l_init, %acc_old = %o_init)
            -> (tensor<64xf32, #row>, tensor<64xf32, #row>, tensor<64xf32, #row>, tensor<64x256xf32, #acc>) {
          %it = arith.addi %base, %j : index
          // S0 = Q K0^T: the left V half first, it arrives first.
          %v0l, %bias_slot = tle.wait %k0lp[%it : index] reader "wg0"
              -> memref<64x256xbf16, #sw>, memref<64xf32, #smem>
          %bias = tle.local_load %bias_slot : memref<64xf32, #smem> -> tensor<64xf32, #col>
          %s_l = tle.wgmma %q_l, %v0l, %zero_s transpose_b
              : memref<64x256xbf16, #sw>, memref<64x256xbf16, #sw>, tensor<64x64xf32, #acc>
          %v0r, %t0 = tle.wait %k0rp[%it : index] reader "wg0"
              -> memref<64x256xbf16, #sw>, memref<64x64xbf16, #sw>
          %s_lr = tle.wgmma %q_r, %v0r, %s_l transpose_b
              : memref<64x256xbf16, #sw>, memref<64x256xbf16, #sw>, tensor<64x64xf32, #acc>
          %s_all = tle.wgmma %q_t, %t0, %s_lr transpose_b
              : memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>
          %qk = tle.wgmma_wait %s_all pending(0) : tensor<64x64xf32, #acc>

          // Scaled scores plus the gather's bias: -inf for invalid ids.
          %bias_s = tle.broadcast %bias dim 0
              : tensor<64xf32, #col> -> tensor<64x64xf32, #acc>
          %logits = math.fma %qk, %scale, %bias_s : tensor<64x64xf32, #acc>

          // wg0's reference maximum (moved only by a jump of more than 8),
          // to wg1; its true maximum beside.
          %tile_max = tle.reduce max %logits dim 1
              : tensor<64x64xf32, #acc> -> tensor<64xf32, #row>
          %grown = arith.subf %tile_max, %m_old : tensor<64xf32, #row>
          %jump = arith.cmpf ogt, %grown, %jump_min : tensor<64xf32, #row>
          %m_own = arith.select %jump, %tile_max, %m_old : tensor<64xi1, #row>, tensor<64xf32, #row>
          %x_new = arith.maximumf %x_old, %tile_max : tensor<64xf32, #row>
          %m_slot = tle.acquire %m0p[%it : index] -> memref<64xf32, #smem>
          tle.local_store %m_own, %m_slot : tensor<64xf32, #row>, memref<64xf32, #smem>
          tle.commit %m0p[%it : index]

          // P0 at wg0's own maximum; acc = acc * alpha + P0 . V0l.
          %m_diff = arith.subf %m_old, %m_own : tensor<64xf32, #row>
          %alpha = math.exp2 %m_diff fastmath<afn> : tensor<64xf32, #row>
          %m_wide = tle.broadcast %m_own dim 1
              : tensor<64xf32, #row> -> tensor<64x64xf32, #acc>
          %shifted = arith.subf %logits, %m_wide : tensor<64x64xf32, #acc>
          %p = math.exp2 %shifted fastmath<afn> : tensor<64x64xf32, #acc>
          %p_sum = tle.reduce sum %p dim 1
              : tensor<64x64xf32, #acc> -> tensor<64xf32, #row>
          %l_scaled = arith.mulf %l_old, %alpha : tensor<64xf32, #row>
          %l_own = arith.addf %l_scaled, %p_sum : tensor<64xf32, #row>
          %p16 = arith.truncf %p : tensor<64x64xf32, #acc> to tensor<64x64xbf16, #acc>
          %acc_scaled = tle.scale %acc_old by %alpha dim 1
              : tensor<64x256xf32, #acc>, tensor<64xf32, #row>
          %pa = tle.convert_layout %p16
              : tensor<64x64xbf16, #acc> -> tensor<64x64xbf16, #pa>
          // Not before wg1's S1 has retired: the pair's maximum waits for S1,
          // so P0 . V0l goes behind it on the tensor cores and runs while wg1
          // works out its softmax.
          tle.await %s1_done
          %o_own = tle.wgmma %pa, %v0l, %acc_scaled
              : tensor<64x64xbf16, #pa>, memref<64x256xbf16, #sw>, tensor<64x256xf32, #acc>
          // K0's left half goes back as soon as P0 . V0l retires: the gather
          // refills it first for the next pair.
          %o_mid = tle.wgmma_wait %o_own pending(0) : tensor<64x256xf32, #acc>
          tle.release %k0lp[%it : index] reader "wg0"

          // The pair's maximum from wg1: rescale P0 to it and hand it over
          // through K0's rope tail, which S0 no longer reads.
          %m_pair_slot = tle.wait %m01p[%it : index] reader "wg0" -> memref<64xf32, #smem>
          %m_pair = tle.local_load %m_pair_slot : memref<64xf32, #smem> -> tensor<64xf32, #row>
          tle.release %m01p[%it : index] reader "wg0"
          %m_gap = arith.subf %m_own, %m_pair : tensor<64xf32, #row>
          %fix = math.exp2 %m_gap fastmath<afn> : tensor<64xf32, #row>
          %p_fixed = tle.scale %p by %fix dim 1
              : tensor<64x64xf32, #acc>, tensor<64xf32, #row>
          %p0_16 = arith.truncf %p_fixed : tensor<64x64xf32, #acc> to tensor<64x64xbf16, #acc>
          %p0_slot = tle.acquire %p0p[%it : index] -> memref<64x64xbf16, #sw>
          tle.local_store %p0_16, %p0_slot : tensor<64x64xbf16, #acc>, memref<64x64xbf16, #sw>
          tle.commit %p0p[%it : index]
          %l_pair = arith.mulf %l_own, %fix : tensor<64xf32, #row>

          // acc = acc * fix + P1 . V1l, P1 from wg1 through shared memory.
          tle.release %k0rp[%it : index] reader "wg0"
          %o_fixed = tle.scale %o_mid by %fix dim 1
              : tensor<64x256xf32, #acc>, tensor<64xf32, #row>
          %p1 = tle.wait %p1p[%it : index] reader "wg0" -> memref<64x64xbf16, #sw>
          %v1l = tle.wait %k1lp[%it : index] reader "wg0" -> memref<64x256xbf16, #sw>
          %o_other = tle.wgmma %p1, %v1l, %o_fixed
              : memref<64x64xbf16, #sw>, memref<64x256xbf16, #sw>, tensor<64x256xf32, #acc>
          %acc_new = tle.wgmma_wait %o_other pending(0) : tensor<64x256xf32, #acc>
          tle.release %p1p[%it : index] reader "wg0"
          tle.release %k1lp[%it : index] reader "wg0"
          scf.yield %m_pair, %x_new, %l_pair, %acc_new
              : tensor<64xf32, #row>, tensor<64xf32, #row>, tensor<64xf32, #row>, tensor<64x256xf32, #acc>
        }
        // The item's last pair, as in the loop but for Q, released once S0
        // has retired, and K0's left half, kept for the output.
        %it_last = arith.addi %base, %last : index
        %v0l, %bias_slot = tle.wait %k0lp[%it_last : index] reader "wg0"
            -> memref<64x256xbf16, #sw>, memref<64xf32, #smem>
        %bias = tle.local_load %bias_slot : memref<64xf32, #smem> -> tensor<64xf32, #col>
        %s_l = tle.wgmma %q_l, %v0l, %zero_s transpose_b
            : memref<64x256xbf16, #sw>, memref<64x256xbf16, #sw>, tensor<64x64xf32, #acc>
        %v0r, %t0 = tle.wait %k0rp[%it_last : index] reader "wg0"
            -> memref<64x256xbf16, #sw>, memref<64x64xbf16, #sw>
        %s_lr = tle.wgmma %q_r, %v0r, %s_l transpose_b
            : memref<64x256xbf16, #sw>, memref<64x256xbf16, #sw>, tensor<64x64xf32, #acc>
        %s_all = tle.wgmma %q_t, %t0, %s_lr transpose_b
            : memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>
        %qk = tle.wgmma_wait %s_all pending(0) : tensor<64x64xf32, #acc>
        // The item's last S0 has retired: the gather may load the next Q.
        tle.release %qp[%n : index] reader "wg0"

        %bias_s = tle.broadcast %bias dim 0
            : tensor<64xf32, #col> -> tensor<64x64xf32, #acc>
        %logits = math.fma %qk, %scale, %bias_s : tensor<64x64xf32, #acc>

        %tile_max = tle.reduce max %logits dim 1
            : tensor<64x64xf32, #acc> -> tensor<64xf32, #row>
        %grown = arith.subf %tile_max, %m_a : tensor<64xf32, #row>
        %jump = arith.cmpf ogt, %grown, %jump_min : tensor<64xf32, #row>
        %m_own = arith.select %jump, %tile_max, %m_a : tensor<64xi1, #row>, tensor<64xf32, #row>
        %x_new = arith.maximumf %x_a, %tile_max : tensor<64xf32, #row>
        %m_slot = tle.acquire %m0p[%it_last : index] -> memref<64xf32, #smem>
        tle.local_store %m_own, %m_slot : tensor<64xf32, #row>, memref<64xf32, #smem>
        tle.commit %m0p[%it_last : index]

        %m_diff = arith.subf %m_a, %m_own : tensor<64xf32, #row>
        %alpha = math.exp2 %m_diff fastmath<afn> : tensor<64xf32, #row>
        %m_wide = tle.broadcast %m_own dim 1
            : tensor<64xf32, #row> -> tensor<64x64xf32, #acc>
        %shifted = arith.subf %logits, %m_wide : tensor<64x64xf32, #acc>
        %p = math.exp2 %shifted fastmath<afn> : tensor<64x64xf32, #acc>
        %p_sum = tle.reduce sum %p dim 1
            : tensor<64x64xf32, #acc> -> tensor<64xf32, #row>
        %l_scaled = arith.mulf %l_a, %alpha : tensor<64xf32, #row>
        %l_own = arith.addf %l_scaled, %p_sum : tensor<64xf32, #row>
        %p16 = arith.truncf %p : tensor<64x64xf32, #acc> to tensor<64x64xbf16, #acc>
        %acc_scaled = tle.scale %acc_a by %alpha dim 1
            : tensor<64x256xf32, #acc>, tensor<64xf32, #row>
        %pa = tle.convert_layout %p16
            : tensor<64x64xbf16, #acc> -> tensor<64x64xbf16, #pa>
        tle.await %s1_done
        %o_own = tle.wgmma %pa, %v0l, %acc_scaled
            : tensor<64x64xbf16, #pa>, memref<64x256xbf16, #sw>, tensor<64x256xf32, #acc>
        // K0's left half stays: the output is staged in it below.
        %o_mid = tle.wgmma_wait %o_own pending(0) : tensor<64x256xf32, #acc>

        %m_pair_slot = tle.wait %m01p[%it_last : index] reader "wg0" -> memref<64xf32, #smem>
        %m_pair = tle.local_load %m_pair_slot : memref<64xf32, #smem> -> tensor<64xf32, #row>
        tle.release %m01p[%it_last : index] reader "wg0"
        %m_gap = arith.subf %m_own, %m_pair : tensor<64xf32, #row>
        %fix = math.exp2 %m_gap fastmath<afn> : tensor<64xf32, #row>
        %p_fixed = tle.scale %p by %fix dim 1
            : tensor<64x64xf32, #acc>, tensor<64xf32, #row>
        %p0_16 = arith.truncf %p_fixed : tensor<64x64xf32, #acc> to tensor<64x64xbf16, #acc>
        %p0_slot = tle.acquire %p0p[%it_last : index] -> memref<64x64xbf16, #sw>
        tle.local_store %p0_16, %p0_slot : tensor<64x64xbf16, #acc>, memref<64x64xbf16, #sw>
        tle.commit %p0p[%it_last : index]
        %l_pair = arith.mulf %l_own, %fix : tensor<64xf32, #row>

        tle.release %k0rp[%it_last : index] reader "wg0"
        %o_fixed = tle.scale %o_mid by %fix dim 1
            : tensor<64x256xf32, #acc>, tensor<64xf32, #row>
        %p1 = tle.wait %p1p[%it_last : index] reader "wg0" -> memref<64x64xbf16, #sw>
        %v1l = tle.wait %k1lp[%it_last : index] reader "wg0" -> memref<64x256xbf16, #sw>
        %o_other = tle.wgmma %p1, %v1l, %o_fixed
            : memref<64x64xbf16, #sw>, memref<64x256xbf16, #sw>, tensor<64x256xf32, #acc>
        %acc_new = tle.wgmma_wait %o_other pending(0) : tensor<64x256xf32, #acc>
        tle.release %p1p[%it_last : index] reader "wg0"
        tle.release %k1lp[%it_last : index] reader "wg0"
        // Epilogue: wg1's row sums and maxima join wg0's, which works out
        // every row's statistics and hands wg1 its rows' final scale.
        %l1_slot, %x1_slot = tle.wait %l1p[%n : index] reader "wg0"
            -> memref<64xf32, #smem>, memref<64xf32, #smem>
        %l1 = tle.local_load %l1_slot : memref<64xf32, #smem> -> tensor<64xf32, #row>
        %x1 = tle.local_load %x1_slot : memref<64xf32, #smem> -> tensor<64xf32, #row>
        tle.release %l1p[%n : index] reader "wg0"
        %x_all = arith.maximumf %x_new, %x1 : tensor<64xf32, #row>
        %l_total = arith.addf %l_pair, %l1 : tensor<64xf32, #row>
        %zero_row = arith.constant dense<0.0> : tensor<64xf32, #row>
        %one_row = arith.constant dense<1.0> : tensor<64xf32, #row>
        %inf_row = arith.constant dense<0x7F800000> : tensor<64xf32, #row>
        %ninf_row = arith.constant dense<0xFF800000> : tensor<64xf32, #row>
        %ln2_row = tle.splat %ln2 : f32 -> tensor<64xf32, #row>
        %any = arith.cmpf ogt, %l_total, %zero_row : tensor<64xf32, #row>
        %inv = arith.divf %one_row, %l_total : tensor<64xf32, #row>
        %inv_l = arith.select %any, %inv, %zero_row : tensor<64xi1, #row>, tensor<64xf32, #row>
        // lse = (m + log2 l) ln 2 and max_logits = x ln 2, natural units.
        %log2_l = math.log2 %l_total : tensor<64xf32, #row>
        %lse2 = arith.addf %m_pair, %log2_l : tensor<64xf32, #row>
        %lse_n = arith.mulf %lse2, %ln2_row : tensor<64xf32, #row>
        %lse_v = arith.select %any, %lse_n, %inf_row : tensor<64xi1, #row>, tensor<64xf32, #row>
        %max_n = arith.mulf %x_all, %ln2_row : tensor<64xf32, #row>
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
        %scale_slot = tle.acquire %fp[%n : index] -> memref<64xf32, #smem>
        tle.local_store %row_scale, %scale_slot : tensor<64xf32, #row>, memref<64xf32, #smem>
        tle.commit %fp[%n : index]
        %scale_wide = tle.broadcast %row_scale dim 1
            : tensor<64xf32, #row> -> tensor<64x256xf32, #acc>
        %o_final = arith.mulf %acc_new, %scale_wide : tensor<64x256xf32, #acc>
        %o16 = arith.truncf %o_final : tensor<64x256xf32, #acc> to tensor<64x256xbf16, #acc>
        // Staged in K0's left half, which only wg0 reads, with stmatrix.
        tle.local_store %o16, %v0l : tensor<64x256xbf16, #acc>, memref<64x256xbf16, #sw>
        // Four boxes of 64 x 64 from the staged tile, copied by the tensor
        // memory accelerator: the threads only wait for them to be read.
        tle.tma_store %out_map[%out_row, %c0] from %v0l
            : !tle.tensor_map<64x64xbf16, swizzle = 128>, memref<64x256xbf16, #sw>
        tle.release %k0lp[%it_last : index] reader "wg0"
        tle.store %lse_v, %lse_rows[%c0]
            : tensor<64xf32, #row>, memref<64xf32, strided<[1], offset: ?>>
        tle.store %max_v, %max_rows[%c0]
            : tensor<64xf32, #row>, memref<64xf32, strided<[1], offset: ?>>
      }
    }
    tle.warp_yield
  }
  partition "wg1" warps(4) registers(216) {
    %log2e = arith.constant 1.44269504 : f32
    %scale2 = arith.mulf %sm_scale, %log2e : f32
    %scale = tle.splat %scale2 : f32 -> tensor<64x64xf32, #acc>
    %zero_s = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    %m_init = arith.constant dense<-1.0e+30> : tensor<64xf32, #row>
    %jump_min = arith.constant dense<8.0> : tensor<64xf32, #row>
    %l_init = arith.constant dense<0.0> : tensor<64xf32, #row>
    %o_init = arith.constant dense<0.0> : tensor<64x256xf32, #acc>
    scf.if %has_pairs {
      scf.for %n = %c0 to %mine step %c1 {
        %batch, %token, %h0 = func.call @item_rows(%n, %cta, %ctas, %head_groups, %sq)
            : (index, index, index, index, index) -> (index, index, index)
        // The item's first row of out seen as [B * SQ * H, 512] (out_map).
        %row_base = arith.muli %batch, %sq : index
        %row = arith.addi %row_base, %token : index
        %out_head_rows = arith.muli %row, %heads : index
        %out_row = arith.addi %out_head_rows, %h0 : index
        %q_l, %q_r, %q_t = tle.wait %qp[%n : index] reader "wg1"
            -> memref<64x256xbf16, #sw>, memref<64x256xbf16, #sw>, memref<64x64xbf16, #sw>
        %base = arith.muli %n, %pairs : index
        %m_a, %x_a, %l_a, %acc_a = scf.for %j = %c0 to %last step %c1
            iter_args(%m_old = %m_init, %x_old = %m_init, %l_old = %l_init, %acc_old = %o_init)
            -> (tensor<64xf32, #row>, tensor<64xf32, #row>, tensor<64xf32, #row>, tensor<64x256xf32, #acc>) {
          %it = arith.addi %base, %j : index
          // S1 = Q K1^T: the right half and the tail first, they arrive first.
          %v1r, %t1, %bias_slot = tle.wait %k1rp[%it : index] reader "wg1"
              -> memref<64x256xbf16, #sw>, memref<64x64xbf16, #sw>, memref<64xf32, #smem>
          %bias = tle.local_load %bias_slot : memref<64xf32, #smem> -> tensor<64xf32, #col>
          %s_t = tle.wgmma %q_t, %t1, %zero_s transpose_b
              : memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>
          %s_tr = tle.wgmma %q_r, %v1r, %s_t transpose_b
              : memref<64x256xbf16, #sw>, memref<64x256xbf16, #sw>, tensor<64x64xf32, #acc>
          %v1l = tle.wait %k1lp[%it : index] reader "wg1" -> memref<64x256xbf16, #sw>
          %s_all = tle.wgmma %q_l, %v1l, %s_tr transpose_b
              : memref<64x256xbf16, #sw>, memref<64x256xbf16, #sw>, tensor<64x64xf32, #acc>
          %qk = tle.wgmma_wait %s_all pending(0) : tensor<64x64xf32, #acc>
          tle.release %k1lp[%it : index] reader "wg1"
          tle.signal %s1_done

          // Scaled scores plus the gather's bias: -inf for invalid ids.
          %bias_s = tle.broadcast %bias dim 0
              : tensor<64xf32, #col> -> tensor<64x64xf32, #acc>
          %logits = math.fma %qk, %scale, %bias_s : tensor<64x64xf32, #acc>

          // The pair's maximum: wg0's merged with this tile's, back to wg0.
          %tile_max = tle.reduce max %logits dim 1
              : tensor<64x64xf32, #acc> -> tensor<64xf32, #row>
          %m0_slot = tle.wait %m0p[%it : index] reader "wg1" -> memref<64xf32, #smem>
          %m_wg0 = tle.local_load %m0_slot : memref<64xf32, #smem> -> tensor<64xf32, #row>
          tle.release %m0p[%it : index] reader "wg1"
          %grown = arith.subf %tile_max, %m_wg0 : tensor<64xf32, #row>
          %jump = arith.cmpf ogt, %grown, %jump_min : tensor<64xf32, #row>
          %m_pair = arith.select %jump, %tile_max, %m_wg0 : tensor<64xi1, #row>, tensor<64xf32, #row>
          %x_new = arith.maximumf %x_old, %tile_max : tensor<64xf32, #row>
          %m_slot = tle.acquire %m01p[%it : index] -> memref<64xf32, #smem>
          tle.local_store %m_pair, %m_slot : tensor<64xf32, #row>, memref<64xf32, #smem>
          tle.commit %m01p[%it : index]

          // P1 at the pair's maximum; acc = acc * alpha + P1 . V1r.
          %m_diff = arith.subf %m_old, %m_pair : tensor<64xf32, #row>
          %alpha = math.exp2 %m_diff fastmath<afn> : tensor<64xf32, #row>
          %m_wide = tle.broadcast %m_pair dim 1
              : tensor<64xf32, #row> -> tensor<64x64xf32, #acc>
          %shifted = arith.subf %logits, %m_wide : tensor<64x64xf32, #acc>
          %p = math.exp2 %shifted fastmath<afn> : tensor<64x64xf32, #acc>
          %p_sum = tle.reduce sum %p dim 1
              : tensor<64x64xf32, #acc> -> tensor<64xf32, #row>
          %l_scaled = arith.mulf %l_old, %alpha : tensor<64xf32, #row>
          %l_new = arith.addf %l_scaled, %p_sum : tensor<64xf32, #row>
          %p16 = arith.truncf %p : tensor<64x64xf32, #acc> to tensor<64x64xbf16, #acc>
          %acc_scaled = tle.scale %acc_old by %alpha dim 1
              : tensor<64x256xf32, #acc>, tensor<64xf32, #row>
          %pa = tle.convert_layout %p16
              : tensor<64x64xbf16, #acc> -> tensor<64x64xbf16, #pa>
          %o_own = tle.wgmma %pa, %v1r, %acc_scaled
              : tensor<64x64xbf16, #pa>, memref<64x256xbf16, #sw>, tensor<64x256xf32, #acc>
          %p1_slot = tle.acquire %p1p[%it : index] -> memref<64x64xbf16, #sw>
          tle.local_store %p16, %p1_slot : tensor<64x64xbf16, #acc>, memref<64x64xbf16, #sw>
          tle.commit %p1p[%it : index]

          // acc += P0 . V0r, P0 from wg0 through K0's rope tail.
          // wg1 holds all of k0r (not only v) while it reads P0 from its tail.
          %v0r, %t0_unused = tle.wait %k0rp[%it : index] reader "wg1"
              -> memref<64x256xbf16, #sw>, memref<64x64xbf16, #sw>
          %p0 = tle.wait %p0p[%it : index] reader "wg1" -> memref<64x64xbf16, #sw>
          %o_other = tle.wgmma %p0, %v0r, %o_own
              : memref<64x64xbf16, #sw>, memref<64x256xbf16, #sw>, tensor<64x256xf32, #acc>
          // P1 . V1r, issued first, retires first: K1's right half goes back
          // while P0 . V0r still runs.
          %o_part = tle.wgmma_wait %o_other pending(1) : tensor<64x256xf32, #acc>
          tle.release %k1rp[%it : index] reader "wg1"
          %acc_new = tle.wgmma_wait %o_part pending(0) : tensor<64x256xf32, #acc>
          tle.release %p0p[%it : index] reader "wg1"
          tle.release %k0rp[%it : index] reader "wg1"
          scf.yield %m_pair, %x_new, %l_new, %acc_new
              : tensor<64xf32, #row>, tensor<64xf32, #row>, tensor<64xf32, #row>, tensor<64x256xf32, #acc>
        }
        // The item's last pair, as in the loop but for Q, released once S1
        // has retired, and K1's right half, kept for the output; its last
        // multiply drains before the epilogue.
        %it_last = arith.addi %base, %last : index
        %v1r, %t1, %bias_slot = tle.wait %k1rp[%it_last : index] reader "wg1"
            -> memref<64x256xbf16, #sw>, memref<64x64xbf16, #sw>, memref<64xf32, #smem>
        %bias = tle.local_load %bias_slot : memref<64xf32, #smem> -> tensor<64xf32, #col>
        %s_t = tle.wgmma %q_t, %t1, %zero_s transpose_b
            : memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>
        %s_tr = tle.wgmma %q_r, %v1r, %s_t transpose_b
            : memref<64x256xbf16, #sw>, memref<64x256xbf16, #sw>, tensor<64x64xf32, #acc>
        %v1l = tle.wait %k1lp[%it_last : index] reader "wg1" -> memref<64x256xbf16, #sw>
        %s_all = tle.wgmma %q_l, %v1l, %s_tr transpose_b
            : memref<64x256xbf16, #sw>, memref<64x256xbf16, #sw>, tensor<64x64xf32, #acc>
        %qk = tle.wgmma_wait %s_all pending(0) : tensor<64x64xf32, #acc>
        tle.release %k1lp[%it_last : index] reader "wg1"
        tle.release %qp[%n : index] reader "wg1"
        tle.signal %s1_done

        %bias_s = tle.broadcast %bias dim 0
            : tensor<64xf32, #col> -> tensor<64x64xf32, #acc>
        %logits = math.fma %qk, %scale, %bias_s : tensor<64x64xf32, #acc>

        %tile_max = tle.reduce max %logits dim 1
            : tensor<64x64xf32, #acc> -> tensor<64xf32, #row>
        %m0_slot = tle.wait %m0p[%it_last : index] reader "wg1" -> memref<64xf32, #smem>
        %m_wg0 = tle.local_load %m0_slot : memref<64xf32, #smem> -> tensor<64xf32, #row>
        tle.release %m0p[%it_last : index] reader "wg1"
        %grown = arith.subf %tile_max, %m_wg0 : tensor<64xf32, #row>
        %jump = arith.cmpf ogt, %grown, %jump_min : tensor<64xf32, #row>
        %m_pair = arith.select %jump, %tile_max, %m_wg0 : tensor<64xi1, #row>, tensor<64xf32, #row>
        %x_new = arith.maximumf %x_a, %tile_max : tensor<64xf32, #row>
        %m_slot = tle.acquire %m01p[%it_last : index] -> memref<64xf32, #smem>
        tle.local_store %m_pair, %m_slot : tensor<64xf32, #row>, memref<64xf32, #smem>
        tle.commit %m01p[%it_last : index]

        %m_diff = arith.subf %m_a, %m_pair : tensor<64xf32, #row>
        %alpha = math.exp2 %m_diff fastmath<afn> : tensor<64xf32, #row>
        %m_wide = tle.broadcast %m_pair dim 1
            : tensor<64xf32, #row> -> tensor<64x64xf32, #acc>
        %shifted = arith.subf %logits, %m_wide : tensor<64x64xf32, #acc>
        %p = math.exp2 %shifted fastmath<afn> : tensor<64x64xf32, #acc>
        %p_sum = tle.reduce sum %p dim 1
            : tensor<64x64xf32, #acc> -> tensor<64xf32, #row>
        %l_scaled = arith.mulf %l_a, %alpha : tensor<64xf32, #row>
        %l_new = arith.addf %l_scaled, %p_sum : tensor<64xf32, #row>
        %p16 = arith.truncf %p : tensor<64x64xf32, #acc> to tensor<64x64xbf16, #acc>
        %acc_scaled = tle.scale %acc_a by %alpha dim 1
            : tensor<64x256xf32, #acc>, tensor<64xf32, #row>
        %pa = tle.convert_layout %p16
            : tensor<64x64xbf16, #acc> -> tensor<64x64xbf16, #pa>
        // K1's right half stays: the output is staged in it below.
        %o_own = tle.wgmma %pa, %v1r, %acc_scaled
            : tensor<64x64xbf16, #pa>, memref<64x256xbf16, #sw>, tensor<64x256xf32, #acc>
        %p1_slot = tle.acquire %p1p[%it_last : index] -> memref<64x64xbf16, #sw>
        tle.local_store %p16, %p1_slot : tensor<64x64xbf16, #acc>, memref<64x64xbf16, #sw>
        tle.commit %p1p[%it_last : index]

        %v0r, %t0_unused = tle.wait %k0rp[%it_last : index] reader "wg1"
            -> memref<64x256xbf16, #sw>, memref<64x64xbf16, #sw>
        %p0 = tle.wait %p0p[%it_last : index] reader "wg1" -> memref<64x64xbf16, #sw>
        %o_other = tle.wgmma %p0, %v0r, %o_own
            : memref<64x64xbf16, #sw>, memref<64x256xbf16, #sw>, tensor<64x256xf32, #acc>
        %acc_new = tle.wgmma_wait %o_other pending(0) : tensor<64x256xf32, #acc>
        tle.release %p0p[%it_last : index] reader "wg1"
        tle.release %k0rp[%it_last : index] reader "wg1"
        // Epilogue: the row sums and maxima to wg0, the rows' final scale back.
        %l_slot, %x_slot = tle.acquire %l1p[%n : index]
            -> memref<64xf32, #smem>, memref<64xf32, #smem>
        tle.local_store %l_new, %l_slot : tensor<64xf32, #row>, memref<64xf32, #smem>
        tle.local_store %x_new, %x_slot : tensor<64xf32, #row>, memref<64xf32, #smem>
        tle.commit %l1p[%n : index]
        %scale_slot = tle.wait %fp[%n : index] reader "wg1" -> memref<64xf32, #smem>
        %row_scale = tle.local_load %scale_slot : memref<64xf32, #smem> -> tensor<64xf32, #row>
        tle.release %fp[%n : index] reader "wg1"
        %scale_wide = tle.broadcast %row_scale dim 1
            : tensor<64xf32, #row> -> tensor<64x256xf32, #acc>
        %o_final = arith.mulf %acc_new, %scale_wide : tensor<64x256xf32, #acc>
        %o16 = arith.truncf %o_final : tensor<64x256xf32, #acc> to tensor<64x256xbf16, #acc>
        // Staged in K1's right half, which only wg1 reads.
        tle.local_store %o16, %v1r : tensor<64x256xbf16, #acc>, memref<64x256xbf16, #sw>
        tle.tma_store %out_map[%out_row, %c256] from %v1r
            : !tle.tensor_map<64x64xbf16, swizzle = 128>, memref<64x256xbf16, #sw>
        tle.release %k1rp[%it_last : index] reader "wg1"
      }
    }
    tle.warp_return
  }
  partition "gather" warps(4) registers(72) {
    %skv_i32 = arith.index_cast %skv : index to i32
    %id_end = tle.splat %skv_i32 : i32 -> tensor<64xi32, #lanes>
    %zero_b = arith.constant dense<0.0> : tensor<64xf32, #lanes>
    %ninf_b = arith.constant dense<0xFF800000> : tensor<64xf32, #lanes>
    scf.if %has_pairs {
      scf.for %n = %c0 to %mine step %c1 {
        %batch, %token, %h0 = func.call @item_rows(%n, %cta, %ctas, %head_groups, %sq)
            : (index, index, index, index, index) -> (index, index, index)
        %row_base = arith.muli %batch, %sq : index
        %row = arith.addi %row_base, %token : index
        // Only the first topk_length[row] indices count; loads past the
      // row's view give -1, an invalid index (see naive.mlir).
      %length_i32 = memref.load %topk_length[%row] : memref<?xi32>
        %length_raw = arith.index_cast %length_i32 : i32 to index
        %length_pos = arith.maxsi %length_raw, %c0 : index
        %length = arith.minsi %length_pos, %topk : index
        %ids = memref.subview %indices[%batch, %token, 0, 0] [1, 1, 1, %length] [1, 1, 1, 1]
            : memref<?x?x1x?xi32> to memref<?xi32, strided<[1], offset: ?>>
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
            : memref<?x?x1x576xbf16> to memref<?x576xbf16, strided<[576, 1], offset: ?>>
        %kv_rows_l = memref.subview %kv_rows[0, 0] [%skv, 256] [1, 1]
            : memref<?x576xbf16, strided<[576, 1], offset: ?>>
              to memref<?x256xbf16, strided<[576, 1], offset: ?>>
        %kv_rows_r = memref.subview %kv_rows[0, 256] [%skv, 256] [1, 1]
            : memref<?x576xbf16, strided<[576, 1], offset: ?>>
              to memref<?x256xbf16, strided<[576, 1], offset: ?>>
        %kv_rows_t = memref.subview %kv_rows[0, 512] [%skv, 64] [1, 1]
            : memref<?x576xbf16, strided<[576, 1], offset: ?>>
              to memref<?x64xbf16, strided<[576, 1], offset: ?>>
        // The first pair's indices, then Q once both warp groups' last
        // scores of the previous item have retired.
        %ids0 = tle.load %ids[%c0] padding(-1 : i32)
            : memref<?xi32, strided<[1], offset: ?>> -> tensor<64xi32, #lanes>
        %ids1 = tle.load %ids[%c64] padding(-1 : i32)
            : memref<?xi32, strided<[1], offset: ?>> -> tensor<64xi32, #lanes>
        %q_l, %q_r, %q_t = tle.acquire %qp[%n : index]
            -> memref<64x256xbf16, #sw>, memref<64x256xbf16, #sw>, memref<64x64xbf16, #sw>
        tle.gather_rows %q_rows_l from %c0 into %q_l evict = evict_first
            : memref<64x256xbf16, strided<[?, 1], offset: ?>>, memref<64x256xbf16, #sw>
        tle.gather_rows %q_rows_r from %c0 into %q_r evict = evict_first
            : memref<64x256xbf16, strided<[?, 1], offset: ?>>, memref<64x256xbf16, #sw>
        tle.gather_rows %q_rows_t from %c0 into %q_t evict = evict_first
            : memref<64x64xbf16, strided<[?, 1], offset: ?>>, memref<64x64xbf16, #sw>
        tle.commit %qp[%n : index]
        %base = arith.muli %n, %pairs : index
        %ok0 = arith.cmpi ult, %ids0, %id_end : tensor<64xi32, #lanes>
        %bias0 = arith.select %ok0, %zero_b, %ninf_b : tensor<64xi1, #lanes>, tensor<64xf32, #lanes>
        %ok1 = arith.cmpi ult, %ids1, %id_end : tensor<64xi32, #lanes>
        %bias1 = arith.select %ok1, %zero_b, %ninf_b : tensor<64xi1, #lanes>, tensor<64xf32, #lanes>
        // The first pair: the halves that the end of the previous item's
        // last pair frees first (K0's right half, K1's left half), then the
        // two that its epilogue staged the output in.
        %v0r, %t0 = tle.acquire %k0rp[%base : index]
            -> memref<64x256xbf16, #sw>, memref<64x64xbf16, #sw>
        tle.gather_rows %kv_rows_r rows(%ids0 : tensor<64xi32, #lanes>) into %v0r
            l2_prefetch = 256 evict = evict_last
            : memref<?x256xbf16, strided<[576, 1], offset: ?>>, memref<64x256xbf16, #sw>
        tle.gather_rows %kv_rows_t rows(%ids0 : tensor<64xi32, #lanes>) into %t0
            l2_prefetch = 256 evict = evict_last
            : memref<?x64xbf16, strided<[576, 1], offset: ?>>, memref<64x64xbf16, #sw>
        tle.commit %k0rp[%base : index]
        %v1l = tle.acquire %k1lp[%base : index] -> memref<64x256xbf16, #sw>
        tle.gather_rows %kv_rows_l rows(%ids1 : tensor<64xi32, #lanes>) into %v1l
            l2_prefetch = 256 evict = evict_last
            : memref<?x256xbf16, strided<[576, 1], offset: ?>>, memref<64x256xbf16, #sw>
        tle.commit %k1lp[%base : index]
        %v0l, %b0 = tle.acquire %k0lp[%base : index] -> memref<64x256xbf16, #sw>, memref<64xf32, #smem>
        tle.gather_rows %kv_rows_l rows(%ids0 : tensor<64xi32, #lanes>) into %v0l
            l2_prefetch = 256 evict = evict_last
            : memref<?x256xbf16, strided<[576, 1], offset: ?>>, memref<64x256xbf16, #sw>
        tle.local_store %bias0, %b0 : tensor<64xf32, #lanes>, memref<64xf32, #smem>
        tle.commit %k0lp[%base : index]
        %v1r, %t1, %b1 = tle.acquire %k1rp[%base : index]
            -> memref<64x256xbf16, #sw>, memref<64x64xbf16, #sw>, memref<64xf32, #smem>
        tle.gather_rows %kv_rows_r rows(%ids1 : tensor<64xi32, #lanes>) into %v1r
            l2_prefetch = 256 evict = evict_last
            : memref<?x256xbf16, strided<[576, 1], offset: ?>>, memref<64x256xbf16, #sw>
        tle.gather_rows %kv_rows_t rows(%ids1 : tensor<64xi32, #lanes>) into %t1
            l2_prefetch = 256 evict = evict_last
            : memref<?x64xbf16, strided<[576, 1], offset: ?>>, memref<64x64xbf16, #sw>
        tle.local_store %bias1, %b1 : tensor<64xf32, #lanes>, memref<64xf32, #smem>
        tle.commit %k1rp[%base : index]
        %ids0_second = tle.load %ids[%c128] padding(-1 : i32)
            : memref<?xi32, strided<[1], offset: ?>> -> tensor<64xi32, #lanes>
        %ids1_second = tle.load %ids[%c192] padding(-1 : i32)
            : memref<?xi32, strided<[1], offset: ?>> -> tensor<64xi32, #lanes>
        %ids_unused:2 = scf.for %j = %c1 to %pairs step %c1
            iter_args(%ids0_j = %ids0_second, %ids1_j = %ids1_second)
            -> (tensor<64xi32, #lanes>, tensor<64xi32, #lanes>) {
          %it = arith.addi %base, %j : index
          %first = arith.muli %j, %c128 : index
          %next0 = arith.addi %first, %c128 : index
          %next1 = arith.addi %next0, %c64 : index
          %ids0_next = tle.load %ids[%next0] padding(-1 : i32)
              : memref<?xi32, strided<[1], offset: ?>> -> tensor<64xi32, #lanes>
          %ids1_next = tle.load %ids[%next1] padding(-1 : i32)
              : memref<?xi32, strided<[1], offset: ?>> -> tensor<64xi32, #lanes>
          %okj0 = arith.cmpi ult, %ids0_j, %id_end : tensor<64xi32, #lanes>
          %biasj0 = arith.select %okj0, %zero_b, %ninf_b : tensor<64xi1, #lanes>, tensor<64xf32, #lanes>
          %okj1 = arith.cmpi ult, %ids1_j, %id_end : tensor<64xi32, #lanes>
          %biasj1 = arith.select %okj1, %zero_b, %ninf_b : tensor<64xi1, #lanes>, tensor<64xf32, #lanes>
          %w0l, %c0b = tle.acquire %k0lp[%it : index] -> memref<64x256xbf16, #sw>, memref<64xf32, #smem>
          tle.gather_rows %kv_rows_l rows(%ids0_j : tensor<64xi32, #lanes>) into %w0l
              l2_prefetch = 256 evict = evict_last
              : memref<?x256xbf16, strided<[576, 1], offset: ?>>, memref<64x256xbf16, #sw>
          tle.local_store %biasj0, %c0b : tensor<64xf32, #lanes>, memref<64xf32, #smem>
          tle.commit %k0lp[%it : index]
          %w0r, %u0 = tle.acquire %k0rp[%it : index]
              -> memref<64x256xbf16, #sw>, memref<64x64xbf16, #sw>
          tle.gather_rows %kv_rows_r rows(%ids0_j : tensor<64xi32, #lanes>) into %w0r
              l2_prefetch = 256 evict = evict_last
              : memref<?x256xbf16, strided<[576, 1], offset: ?>>, memref<64x256xbf16, #sw>
          tle.gather_rows %kv_rows_t rows(%ids0_j : tensor<64xi32, #lanes>) into %u0
              l2_prefetch = 256 evict = evict_last
              : memref<?x64xbf16, strided<[576, 1], offset: ?>>, memref<64x64xbf16, #sw>
          tle.commit %k0rp[%it : index]
          %w1r, %u1, %c1b = tle.acquire %k1rp[%it : index]
              -> memref<64x256xbf16, #sw>, memref<64x64xbf16, #sw>, memref<64xf32, #smem>
          tle.gather_rows %kv_rows_r rows(%ids1_j : tensor<64xi32, #lanes>) into %w1r
              l2_prefetch = 256 evict = evict_last
              : memref<?x256xbf16, strided<[576, 1], offset: ?>>, memref<64x256xbf16, #sw>
          tle.gather_rows %kv_rows_t rows(%ids1_j : tensor<64xi32, #lanes>) into %u1
              l2_prefetch = 256 evict = evict_last
              : memref<?x64xbf16, strided<[576, 1], offset: ?>>, memref<64x64xbf16, #sw>
          tle.local_store %biasj1, %c1b : tensor<64xf32, #lanes>, memref<64xf32, #smem>
          tle.commit %k1rp[%it : index]
          %w1l = tle.acquire %k1lp[%it : index] -> memref<64x256xbf16, #sw>
          tle.gather_rows %kv_rows_l rows(%ids1_j : tensor<64xi32, #lanes>) into %w1l
              l2_prefetch = 256 evict = evict_last
              : memref<?x256xbf16, strided<[576, 1], offset: ?>>, memref<64x256xbf16, #sw>
          tle.commit %k1lp[%it : index]
          scf.yield %ids0_next, %ids1_next : tensor<64xi32, #lanes>, tensor<64xi32, #lanes>
        }
      }
    }
    tle.warp_return
  }
  return
}
