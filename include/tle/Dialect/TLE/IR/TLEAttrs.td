//===- TLEAttrs.td - TLE attribute definitions -------------*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TLE_ATTRS
#define TLE_ATTRS

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "tle/Dialect/TLE/IR/TLEDialect.td"

def TLE_BarrierKind : I32EnumAttr<"BarrierKind", "what a pipe barrier signals", [
    I32EnumAttrCase<"Full", 0, "full">,
    I32EnumAttrCase<"Free", 1, "free">]> {
  let cppNamespace = "::mlir::tle";
  let genSpecializedAttr = 0;
}

def TLE_ArriveKind : I32EnumAttr<"ArriveKind", "how a side arrives on a barrier", [
    I32EnumAttrCase<"PerThread", 0, "per_thread">,
    I32EnumAttrCase<"Elected", 1, "elected">,
    I32EnumAttrCase<"CpAsync", 2, "cp_async">,
    I32EnumAttrCase<"CpAsyncAndPerThread", 3, "cp_async_and_per_thread">,
    I32EnumAttrCase<"ExpectTx", 4, "expect_tx">]> {
  let cppNamespace = "::mlir::tle";
  let genSpecializedAttr = 0;
}

def TLE_FenceKind : I32EnumAttr<"FenceKind",
    "which side of a full barrier issues fence.proxy.async", [
    I32EnumAttrCase<"None", 0, "no">,
    I32EnumAttrCase<"Writer", 1, "writer">,
    I32EnumAttrCase<"Readers", 2, "readers">,
    I32EnumAttrCase<"Both", 3, "both">]> {
  let cppNamespace = "::mlir::tle";
  let genSpecializedAttr = 0;
}

def TLE_ReaderAttr : AttrDef<TLE_Dialect, "Reader"> {
  let mnemonic = "reader";
  let summary = "A named reader of a pipe and the fields it reads";
  let description = [{
    One reader of a `tle.pipe`: its name, used by `tle.wait` and
    `tle.release`, and the names of the fields it reads. An empty field list
    means the reader reads every field of the pipe.

    ```mlir
    #tle.reader<"left", ["kv_l", "tail"]>
    ```
  }];
  let parameters = (ins "StringAttr":$name, "ArrayAttr":$fields);
  let assemblyFormat = "`<` $name `,` $fields `>`";
  let extraClassDeclaration = [{
    /// Whether this reader reads the field called `field`.
    bool readsField(StringRef field) const;
  }];
}

def TLE_ArriveForm : I32EnumAttr<"ArriveForm", "one thread's arrival", [
    I32EnumAttrCase<"Plain", 0, "plain">,
    I32EnumAttrCase<"CpAsync", 1, "cp_async">,
    I32EnumAttrCase<"ExpectTx", 2, "expect_tx">]> {
  let cppNamespace = "::mlir::tle";
  let genSpecializedAttr = 0;
}

def TLE_ArriveFormAttr : EnumAttr<TLE_Dialect, TLE_ArriveForm, "arrive_form"> {
  let assemblyFormat = "$value";
}

def TLE_BarrierAttr : AttrDef<TLE_Dialect, "Barrier"> {
  let mnemonic = "barrier";
  let summary = "One derived barrier of a pipe (one mbarrier per slot)";
  let description = [{
    Written by `--tle-infer-arrive-counts` into the `tle.barriers` array of a
    `tle.pipe`. A `full` barrier tells readers a slot was committed; a `free`
    barrier tells the writer that every reader of `fields` released it. Each
    barrier stands for one mbarrier per slot.

    * `count`: the arrive count each mbarrier is initialised with.
    * `txBytes`: the transaction bytes one phase expects (TMA), else 0.
    * `arrive`: how each arriving thread arrives: `per_thread` (every thread
      of the arriving partitions), `elected` (one thread per partition after
      its named barrier), `cp_async` (one `cp.async.mbarrier.arrive.noinc`
      per thread), `cp_async_and_per_thread` (both), `expect_tx` (one
      `mbarrier.arrive.expect_tx`).
    * `fence`: who issues `fence.proxy.async` for a field that the generic
      proxy writes and the async proxy (wgmma, TMA store) reads: `writer`
      (each writing thread before its arrive: the field is written by
      ordinary stores), `readers` (each reader after its wait: the field is
      written by cp.async, whose data lands with no writer instruction
      after it), `both`, or `no`. A field that only generic loads read
      needs none, however it was written.
    * `arrivers` / `waiters`: the partitions that arrive and wait.

    ```mlir
    #tle.barrier<full, fields = ["lo", "hi"], count = 32, txBytes = 0,
                 arrive = per_thread, fence = no,
                 arrivers = ["producer"], waiters = ["left", "right"]>
    ```
  }];
  let parameters = (ins
    EnumParameter<TLE_BarrierKind>:$kind,
    "ArrayAttr":$fields,
    "int64_t":$count,
    "int64_t":$txBytes,
    EnumParameter<TLE_ArriveKind>:$arrive,
    EnumParameter<TLE_FenceKind>:$fence,
    "ArrayAttr":$arrivers,
    "ArrayAttr":$waiters);
  let assemblyFormat = [{
    `<` $kind `,` struct($fields, $count, $txBytes, $arrive, $fence,
                         $arrivers, $waiters) `>`
  }];
}

//===----------------------------------------------------------------------===//
// Shared-memory swizzling and tensor layouts
//===----------------------------------------------------------------------===//

def TLE_SharedSpaceAttr : AttrDef<TLE_Dialect, "SharedSpace"> {
  let mnemonic = "shared";
  let summary = "Shared memory holding tiles in the swizzled tensor-core layout";
  let description = [{
    A memory space for `memref`s in the CTA's shared memory whose tiles are
    stored the way TMA writes them and `wgmma` reads them: a 2-D tile
    `[R, C]` of `b`-byte elements is cut into column chunks of `W = swizzle /
    b` elements; chunk `j` holds columns `[j*W, (j+1)*W)` of every row as `R`
    consecutive rows of `swizzle` bytes; and within each 8-row group of a
    chunk, the 16-byte unit `u` of row `r` is stored at unit `u xor (r mod
    8)` (for 64 and 32 bytes: `xor ((r mod 8) / 2)` and `/ 4`). Leading
    dimensions beyond the last two (e.g. a pipe's capacity) index whole
    tiles. `swizzle` is 32, 64 or 128.

    Tiles in this space must be read and written with TLE's tile ops
    (`tle.tma_load`, `tle.local_load`, `tle.local_store`, `tle.wgmma`,
    `tle.gather_rows`): plain `memref.load` would assume a row-major layout
    and is rejected when lowering. The allocator aligns such buffers to 1024
    bytes, the period of the swizzle pattern.

    These ops also take a `memref.subview` of such a tile where the layout
    can express the view as a tile: whole chunks of every row (a column
    block `[0, j*W] [R, k*W]`), whole 8-row groups of a single chunk, and
    any index of the leading dimensions. The view is addressed where the
    layout puts it (column `j*W` at chunk `j`, `j*R*swizzle` bytes in), not
    where its strided memref would; any other view is an error at its use.

    ```mlir
    %a = tle.shared_alloc : memref<4x128x64xbf16, #tle.shared<swizzle = 128>>
    ```
  }];
  let parameters = (ins "int64_t":$swizzle);
  let assemblyFormat = "`<` `swizzle` `=` $swizzle `>`";
  let genVerifyDecl = 1;
}

def TLE_MmaLayoutAttr : AttrDef<TLE_Dialect, "MmaLayout"> {
  let mnemonic = "mma";
  let summary = "The wgmma accumulator layout over one or more warp groups";
  let description = [{
    Distributes a 2-D tensor `[M, N]` the way `wgmma.mma_async.m64nNk16`
    leaves its fp32 accumulator: the partition's warp groups form a
    `warp_groups = [gm, gn]` grid (warp group `g` takes row block `g / gn`
    and column block `g mod gn`), so `M = 64 * gm` and each warp group owns
    a `[64, N / gn]` block. In a block, warp `w` owns rows `16w..16w+15`;
    lane `l` holds rows `16w + l/4` and `16w + l/4 + 8` and, in every group
    of 8 columns, columns `2(l mod 4)` and `2(l mod 4) + 1`. A thread's
    elements are ordered by column group, then (row, row + 8) x (col,
    col + 1), which is the order of wgmma's accumulator registers.

    ```mlir
    tensor<128x256xf32, #tle.mma<warp_groups = [2, 1]>>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$warpGroups);
  let assemblyFormat = "`<` `warp_groups` `=` `[` $warpGroups `]` `>`";
  let genVerifyDecl = 1;
}

def TLE_MmaOperandLayoutAttr : AttrDef<TLE_Dialect, "MmaOperandLayout"> {
  let mnemonic = "mma_operand";
  let summary = "The wgmma register A-operand layout";
  let description = [{
    Distributes a 2-D tensor `[M, K]` of 16-bit elements as the A operand of
    `wgmma.mma_async` taken from registers, for the accumulator layout
    `#tle.mma` with the same `warp_groups`: warp group `g` holds the row
    block `g / gn` of A in full (warp groups of one row block hold the same
    values). Within a block the rows and columns of a thread are those of
    the accumulator layout with K in place of N, so a `#tle.mma` tensor
    converts to this layout without moving data when `gn` is 1.

    ```mlir
    tensor<64x64xbf16, #tle.mma_operand<warp_groups = [1, 1]>>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$warpGroups);
  let assemblyFormat = "`<` `warp_groups` `=` `[` $warpGroups `]` `>`";
  let genVerifyDecl = 1;
}

def TLE_SliceLayoutAttr : AttrDef<TLE_Dialect, "SliceLayout"> {
  let mnemonic = "slice";
  let summary = "A row or column vector of a 2-D layout";
  let description = [{
    Distributes a 1-D tensor as dimension `dim` of a 2-D `parent` layout
    removed: with `dim = 1` a thread holds the rows it holds in the parent
    (row statistics such as a row maximum), with `dim = 0` the columns.
    Threads that share a row in the parent hold the same values.

    ```mlir
    tensor<64xf32, #tle.slice<dim = 1, parent = #tle.mma<warp_groups = [1, 2]>>>
    ```
  }];
  let parameters = (ins "int64_t":$dim, "Attribute":$parent);
  let assemblyFormat = "`<` `dim` `=` $dim `,` `parent` `=` $parent `>`";
  let genVerifyDecl = 1;
}

def TLE_BlockedLayoutAttr : AttrDef<TLE_Dialect, "BlockedLayout"> {
  let mnemonic = "blocked";
  let summary = "A row-major blocked layout for global memory access";
  let description = [{
    Distributes a tensor in row-major blocks: each thread holds
    `per_thread[d]` consecutive elements along each dimension `d`, a warp
    tiles `threads[d]` threads along `d` (the last dimension fastest), and
    the partition's warps tile `warps[d]` warps the same way; the block of
    `per_thread * threads * warps` elements repeats over the tensor, which
    must be a multiple of it. Consecutive elements of the last dimension
    become one vector access (up to 16 bytes).

    ```mlir
    tensor<64x512xbf16, #tle.blocked<per_thread = [1, 8], threads = [2, 16],
                                     warps = [8, 1]>>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$perThread,
                        ArrayRefParameter<"int64_t">:$threads,
                        ArrayRefParameter<"int64_t">:$warps);
  let assemblyFormat = [{
    `<` `per_thread` `=` `[` $perThread `]` `,` `threads` `=` `[` $threads `]`
    `,` `warps` `=` `[` $warps `]` `>`
  }];
  let genVerifyDecl = 1;
}

#endif // TLE_ATTRS
