//===- ComputeOps.td - TMA and tile compute ops ------------*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// TMA tile loads and the tile compute ops on tensors distributed over the
// threads of a partition. Verifiers: lib/Dialect/TLE/IR/ComputeOps.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_COMPUTE_OPS
#define TLE_COMPUTE_OPS

include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "tle/Dialect/TLE/IR/TLETypes.td"

//===----------------------------------------------------------------------===//
// Transports
//===----------------------------------------------------------------------===//

def TLE_TMALoadOp : TLE_Op<"tma_load", [AttrSizedOperandSegments]> {
  let summary = "Copies a tile from global to shared memory with TMA";
  let description = [{
    Copies the tile of global memory that starts at `coordinates` (element
    indices, outermost dimension first) into `destination`, a view of a
    pipe slot, with bulk tensor copies (`cp.async.bulk.tensor`) through
    `tensorMap`. The destination is a whole number of the map's boxes along
    each dimension; each box is one copy, placed where the destination's
    shared-memory layout puts it. Elements outside the global tensor are
    filled with zeros. The copies complete on the slot's full barrier: the
    compiler counts the destination's bytes into the barrier's expected
    transaction bytes and issues the copies from one thread. The op must
    sit between the `tle.acquire` and `tle.commit` of the slot it writes.

    ```mlir
    tle.tma_load %map[%m, %k] into %a
        : !tle.tensor_map<128x64xbf16, swizzle = 128>,
          memref<128x64xbf16, #tle.shared<swizzle = 128>>
    ```
  }];
  let arguments = (ins TLE_TensorMapType:$tensorMap, Variadic<Index>:$coordinates,
                       TLE_SharedMemRef:$destination,
                       Optional<TLE_SharedMemRef>:$barriers,
                       Optional<Index>:$barrierIndex);
  let assemblyFormat = [{
    $tensorMap `[` $coordinates `]` `into` $destination
    (`barrier` $barriers^ `[` $barrierIndex `]` `:` type($barriers))?
    attr-dict `:` qualified(type($tensorMap)) `,` type($destination)
  }];
  let hasVerifier = 1;
}


def TLE_TMAStoreOp : TLE_Op<"tma_store"> {
  let summary = "Copies a shared-memory tile to global memory with TMA";
  let description = [{
    Copies `source`, a shared-memory tile the partition has written (with
    `tle.local_store`, for instance), to the tile of global memory that
    starts at `coordinates` (element indices, outermost dimension first),
    with bulk tensor copies (`cp.async.bulk.tensor`) through `tensorMap`:
    one copy per box of the map, read from where the tile's shared-memory
    layout puts it, under the same rules as `tle.tma_load`. Elements that
    fall outside the global tensor are not written, so a tile may overhang
    the tensor's end.

    Every thread of the partition runs the op. Each fences its own writes
    to shared memory for the tensor memory accelerator and meets the
    others at the partition's barrier; one thread issues the copies and
    waits until they have read the tile; the partition meets again, so the
    tile may be written as soon as the op returns. The global writes
    complete before the kernel ends.

    `--tle-distribute-tensors` expands the op into that sequence, leaving
    the copies as the `issued` form (one thread's part), which
    `convert-tle-to-nvvm` lowers.

    ```mlir
    tle.local_store %c16, %tile : tensor<64x256xbf16, #acc>,
        memref<64x256xbf16, #tle.shared<swizzle = 128>>
    tle.tma_store %cmap[%m, %n] from %tile
        : !tle.tensor_map<64x64xbf16, swizzle = 128>,
          memref<64x256xbf16, #tle.shared<swizzle = 128>>
    ```
  }];
  let arguments = (ins TLE_TensorMapType:$tensorMap, Variadic<Index>:$coordinates,
                       TLE_SharedMemRef:$source, UnitAttr:$issued);
  let assemblyFormat = [{
    $tensorMap `[` $coordinates `]` `from` $source (`issued` $issued^)?
    attr-dict `:` qualified(type($tensorMap)) `,` type($source)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Tile compute: tensors distributed over the threads of a partition
//===----------------------------------------------------------------------===//

def TLE_DistributedTensor : RankedTensorOf<[AnyType]>;

def TLE_ReduceKind : I32EnumAttr<"ReduceKind", "a row or column reduction", [
    I32EnumAttrCase<"Max", 0, "max">,
    I32EnumAttrCase<"Sum", 1, "sum">]> {
  let cppNamespace = "::mlir::tle";
  let genSpecializedAttr = 0;
}

def TLE_ReduceKindAttr : EnumAttr<TLE_Dialect, TLE_ReduceKind, "reduce_kind"> {
  let assemblyFormat = "$value";
}

def TLE_EvictionPolicy : I32EnumAttr<"EvictionPolicy",
    "how long copied lines should stay in L2 (PTX createpolicy)", [
    I32EnumAttrCase<"EvictFirst", 0, "evict_first">,
    I32EnumAttrCase<"EvictLast", 1, "evict_last">,
    I32EnumAttrCase<"EvictUnchanged", 2, "evict_unchanged">]> {
  let cppNamespace = "::mlir::tle";
  let genSpecializedAttr = 0;
}

def TLE_EvictionPolicyAttr
    : EnumAttr<TLE_Dialect, TLE_EvictionPolicy, "eviction_policy"> {
  let assemblyFormat = "$value";
}

def TLE_KVCacheFormat : I32EnumAttr<"KVCacheFormat",
    "how a token of an FP8 KV cache is stored", [
    I32EnumAttrCase<"V32", 0, "v32">]> {
  let cppNamespace = "::mlir::tle";
  let genSpecializedAttr = 0;
}

def TLE_KVCacheFormatAttr
    : EnumAttr<TLE_Dialect, TLE_KVCacheFormat, "kv_cache_format"> {
  let assemblyFormat = "$value";
}

def TLE_WgmmaOp : TLE_Op<"wgmma", [AllTypesMatch<["acc", "result"]>,
                                   MemoryEffects<[MemRead]>]> {
  let summary = "Warp-group matrix multiply-accumulate on the tensor cores";
  let description = [{
    Computes `acc + A . B` with `wgmma.mma_async` (m64nNk16, bf16 or f16
    inputs, f32 accumulation) and returns the new accumulator, a tensor in
    the `#tle.mma` layout of `acc`. `A` `[M, K]` is either a view of shared
    memory in the `#tle.shared` swizzled layout (K contiguous) or a tensor
    in the `#tle.mma_operand` layout with the accumulator's `warp_groups`.
    `B` is a view of swizzled shared memory: `[K, N]` (N contiguous), or
    with `transpose_b`, `[N, K]` (K contiguous) so that the op computes
    `acc + A . B^T`. Warp group `g` of the `[gm, gn]` grid multiplies row
    block `g / gn` of A by column block `g mod gn` of B.

    The multiply is asynchronous: the result may only feed another
    `tle.wgmma` (as its accumulator), a `tle.wgmma_wait`, a loop's yield or
    a loop's init operand until a `tle.wgmma_wait` returns it. Shared memory read by the op must
    stay untouched until then.

    ```mlir
    %d = tle.wgmma %a, %b, %c
        : memref<128x64xbf16, #tle.shared<swizzle = 128>>,
          memref<64x256xbf16, #tle.shared<swizzle = 128>>,
          tensor<128x256xf32, #tle.mma<warp_groups = [2, 1]>>
    ```
  }];
  let arguments = (ins AnyTypeOf<[TLE_SharedMemRef, TLE_DistributedTensor]>:$a,
                       TLE_SharedMemRef:$b, TLE_DistributedTensor:$acc,
                       UnitAttr:$transposeB);
  let results = (outs TLE_DistributedTensor:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $acc (`transpose_b` $transposeB^)? attr-dict `:`
    type($a) `,` type($b) `,` type($acc)
  }];
  let hasVerifier = 1;
}

def TLE_WgmmaWaitOp : TLE_Op<"wgmma_wait", [AllTypesMatch<["inputs", "results"]>]> {
  let summary = "Waits until at most `pending` wgmma groups are in flight";
  let description = [{
    Waits for the warp group's earlier `tle.wgmma` ops to complete, leaving
    at most `pending` of the most recent ones in flight
    (`wgmma.wait_group`), and returns `inputs` as values that may be read.
    Pass the accumulators of the completed multiplies through it; with
    `pending(1)` a loop waits for the previous iteration's multiply, and so
    may release the shared memory it read, while its own runs.

    ```mlir
    %d1 = tle.wgmma_wait %d pending(1) : tensor<128x256xf32, #mma>
    ```
  }];
  let arguments = (ins Variadic<TLE_DistributedTensor>:$inputs,
                       I64Attr:$pending);
  let results = (outs Variadic<TLE_DistributedTensor>:$results);
  let assemblyFormat = [{
    $inputs `pending` `(` $pending `)` attr-dict `:` type($inputs)
  }];
  let builders = [OpBuilder<(ins "ValueRange":$inputs, "int64_t":$pending), [{
    build($_builder, $_state, inputs.getTypes(), inputs, pending);
  }]>];
  let hasVerifier = 1;
}

def TLE_ReduceOp : TLE_Op<"reduce", [Pure]> {
  let summary = "Reduces a 2-D tensor along one dimension";
  let description = [{
    Reduces `source` along `dim` with `max` or `sum`. The result's layout
    is `#tle.slice<dim = dim, parent = source layout>`: every thread ends
    with the reduced values of the rows (or columns) it holds. Threads of a
    warp combine with shuffles; warp groups that share rows combine through
    shared memory.

    With a 2-D result of the source's layout whose extent `w` along `dim`
    divides the source's, the op folds instead: element `j` of a row (for
    `dim = 1`) combines the source's elements `j`, `j + w`, `j + 2w`, ...
    That is exactly what each thread can do alone when it holds those
    elements, and then nothing moves between threads: in `#tle.mma` a
    thread holds the same two columns of every 8, so a row folds into 8.
    The running row sum of an online softmax is kept so, `l = l * alpha +
    fold(p)` per tile, and reduced across the lanes of each row once, by a
    `tle.reduce` of the `[M, 8]` tensor into the slice at the end, instead
    of shuffling at every tile. A fold some thread cannot make alone is an
    error.

    ```mlir
    %m = tle.reduce max %s dim 1 : tensor<64x64xf32, #mma> -> tensor<64xf32, #row>
    %part = tle.reduce sum %p dim 1 : tensor<64x128xf32, #mma> -> tensor<64x8xf32, #mma>
    %l = tle.reduce sum %part dim 1 : tensor<64x8xf32, #mma> -> tensor<64xf32, #row>
    ```
  }];
  let arguments = (ins TLE_ReduceKindAttr:$kind, TLE_DistributedTensor:$source,
                       I64Attr:$dim);
  let results = (outs TLE_DistributedTensor:$result);
  let assemblyFormat = [{
    $kind $source `dim` $dim attr-dict `:` type($source) `->` type($result)
  }];
  let hasVerifier = 1;
}

def TLE_BroadcastOp : TLE_Op<"broadcast", [Pure]> {
  let summary = "Repeats a row or column vector along one dimension";
  let description = [{
    The inverse shape of `tle.reduce`: `source`, in the layout
    `#tle.slice<dim = dim, parent = P>`, becomes a 2-D tensor in layout `P`
    whose every row (`dim = 1`) or column (`dim = 0`) is `source`. No data
    moves: each thread already holds the values it needs.

    ```mlir
    %b = tle.broadcast %m dim 1 : tensor<64xf32, #row> -> tensor<64x64xf32, #mma>
    ```
  }];
  let arguments = (ins TLE_DistributedTensor:$source, I64Attr:$dim);
  let results = (outs TLE_DistributedTensor:$result);
  let assemblyFormat = [{
    $source `dim` $dim attr-dict `:` type($source) `->` type($result)
  }];
  let hasVerifier = 1;
}

def TLE_ScaleOp : TLE_Op<"scale", [Pure, AllTypesMatch<["source", "result"]>]> {
  let summary = "Multiplies each row or column of a tensor by its factor";
  let description = [{
    `source * tle.broadcast(factors, dim)`: with `dim = 1` row i of
    `source` is multiplied by `factors[i]`, with `dim = 0` column j by
    `factors[j]`. `factors` is in the layout `#tle.slice<dim = dim, parent
    = P>`, P being the layout of `source`.

    The op exists for the rescaling of an online softmax, whose factors
    are mostly exactly 1: the threads of each warp vote whether any factor
    they hold differs from 1 (NaN differs) and the warp skips its
    multiplies when none does, since `x * 1.0` is `x`. The result is the
    product in either case; what the vote saves is one multiply per
    element the thread holds (128 for a 64 x 256 accumulator in a warp
    group), for a compare per factor, the vote and a branch. Like
    `tle.reduce`, it is executed by every thread of the partition.

    ```mlir
    %acc1 = tle.scale %acc by %alpha dim 1
        : tensor<64x256xf32, #mma>, tensor<64xf32, #row>
    ```
  }];
  let arguments = (ins TLE_DistributedTensor:$source,
                       TLE_DistributedTensor:$factors, I64Attr:$dim);
  let results = (outs TLE_DistributedTensor:$result);
  let assemblyFormat = [{
    $source `by` $factors `dim` $dim attr-dict `:` type($source) `,`
    type($factors)
  }];
  let hasVerifier = 1;
}

def TLE_ConvertLayoutOp : TLE_Op<"convert_layout"> {
  let summary = "Moves a tensor into another layout";
  let description = [{
    Changes a tensor's layout. Where every thread already holds the same
    elements in the same order (`#tle.mma` to `#tle.mma_operand` with one
    warp group per row block, `warp_groups = [g, 1]`: the step from a
    softmax result to the A operand of the next `tle.wgmma`) nothing moves.
    Any other conversion exchanges the elements between the partition's
    threads through shared memory: the tensor is stored in the source
    layout (`stmatrix` where `tle.local_store` would use it), the
    partition meets at its barrier, and the tensor is loaded in the result
    layout.

    Without `scratch`, the compiler allocates the exchange buffer (rows
    padded by 16 bytes against bank conflicts). With `scratch`, a
    shared-memory view of the tensor's shape and element type, possibly
    swizzled, the exchange goes through it and allocates nothing: storage
    that is dead by then, such as a part of a pipe the partition has
    reclaimed (`tle.reclaim`). The compiler adds the barriers the buffer
    needs: one before the exchange and one after it when the `scratch`
    value has other uses, and one after it when the op may run again (in a
    loop). Accesses through other views of the same storage are ordered
    as for `tle.local_store` and `tle.local_load`: by the author, or by the
    pipe that owns it (a reclaimed part is the partition's alone). A typical use
    is an output tile leaving the wgmma layout for one in which each
    thread stores 16 contiguous bytes to global memory.

    ```mlir
    %a = tle.convert_layout %p : tensor<64x64xbf16, #mma> -> tensor<64x64xbf16, #a>
    %rows = tle.convert_layout %o scratch %stage
        : tensor<64x256xbf16, #mma> -> tensor<64x256xbf16, #rows>,
          memref<64x256xbf16, #tle.shared<swizzle = 128>>
    ```
  }];
  let arguments = (ins TLE_DistributedTensor:$source,
                       Arg<Optional<TLE_SharedMemRef>, "",
                           [MemRead, MemWrite]>:$scratch);
  let results = (outs TLE_DistributedTensor:$result);
  let assemblyFormat = [{
    $source (`scratch` $scratch^)? attr-dict `:` type($source) `->`
    type($result) (`,` type($scratch)^)?
  }];
  let hasVerifier = 1;
}

def TLE_LocalLoadOp : TLE_Op<"local_load"> {
  let summary = "Loads a tile from shared memory into a distributed tensor";
  let description = [{
    Reads `source`, a statically shaped view of shared memory (row-major,
    or swizzled in `#tle.shared`), into a tensor of the same shape in the
    result's layout, with the widest accesses the layout allows: `ldmatrix`
    for 16-bit elements in the wgmma layouts.

    ```mlir
    %t = tle.local_load %buf : memref<64x64xbf16, #tle.shared<swizzle = 128>>
        -> tensor<64x64xbf16, #blocked>
    ```
  }];
  let arguments = (ins Arg<TLE_SharedMemRef, "", [MemRead]>:$source);
  let results = (outs TLE_DistributedTensor:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}

def TLE_LocalStoreOp : TLE_Op<"local_store"> {
  let summary = "Stores a distributed tensor into a shared-memory tile";
  let description = [{
    Writes `value` into `destination`, a statically shaped view of shared
    memory of the same shape (row-major, or swizzled in `#tle.shared`),
    with the widest accesses the layout allows: `stmatrix` for 16-bit
    elements in the wgmma layouts. Threads holding the same element
    (replicated layouts) write the same value.

    ```mlir
    tle.local_store %p, %buf : tensor<64x64xbf16, #mma>,
        memref<64x64xbf16, #tle.shared<swizzle = 128>>
    ```
  }];
  let arguments = (ins TLE_DistributedTensor:$value,
                       Arg<TLE_SharedMemRef, "", [MemWrite]>:$destination);
  let assemblyFormat = [{
    $value `,` $destination attr-dict `:` type($value) `,` type($destination)
  }];
  let hasVerifier = 1;
}

def TLE_LoadOp : TLE_Op<"load"> {
  let summary = "Loads a tile of global memory, padded outside the bounds";
  let description = [{
    Reads the tile of `source` (a global memref) whose first element is at
    `indices`, with the shape and layout of the result. Elements outside
    `source`'s sizes are never dereferenced and read as `padding` (zero if
    absent), e.g. -1 for indices past a row's length. Consecutive
    elements a thread holds along the last dimension are loaded as one
    vector when all of it is in bounds, and one by one where it straddles
    the end.

    ```mlir
    %q = tle.load %queries[%row, %c0] : memref<?x576xbf16>
        -> tensor<64x576xbf16, #blocked>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "", [MemRead]>:$source,
                       Variadic<Index>:$indices,
                       OptionalAttr<TypedAttrInterface>:$padding);
  let results = (outs TLE_DistributedTensor:$result);
  let assemblyFormat = [{
    $source `[` $indices `]` (`padding` `(` $padding^ `)`)? attr-dict `:`
    type($source) `->` type($result)
  }];
  let hasVerifier = 1;
}

def TLE_StoreOp : TLE_Op<"store"> {
  let summary = "Stores a tile to global memory, skipping out-of-bounds elements";
  let description = [{
    Writes `value` into the tile of `destination` (a global memref) whose
    first element is at `indices`. Elements outside `destination`'s sizes
    are not written. Consecutive elements a thread holds along the last
    dimension are stored as one vector when all of it is in bounds, and
    one by one where it straddles the end.

    ```mlir
    tle.store %c, %out[%m, %n] : tensor<128x256xbf16, #mma>, memref<?x?xbf16>
    ```
  }];
  let arguments = (ins TLE_DistributedTensor:$value,
                       Arg<AnyMemRef, "", [MemWrite]>:$destination,
                       Variadic<Index>:$indices);
  let assemblyFormat = [{
    $value `,` $destination `[` $indices `]` attr-dict `:` type($value) `,`
    type($destination)
  }];
  let hasVerifier = 1;
}

def TLE_SplatOp : TLE_Op<"splat", [Pure]> {
  let summary = "A distributed tensor whose every element is one scalar";
  let description = [{
    Makes a tensor of the result's shape and layout whose elements all equal
    `value`, e.g. to scale a tile by a runtime scalar.

    ```mlir
    %s = tle.splat %scale : f32 -> tensor<64x64xf32, #mma>
    ```
  }];
  let arguments = (ins AnyType:$value);
  let results = (outs TLE_DistributedTensor:$result);
  let assemblyFormat = "$value attr-dict `:` type($value) `->` type($result)";
  let hasVerifier = 1;
}

def TLE_IotaOp : TLE_Op<"iota", [Pure]> {
  let summary = "A distributed tensor of its own coordinates along one dimension";
  let description = [{
    Every element is its index along `dim`, e.g. the position of each
    column of a tile, to compare with a bound.

    ```mlir
    %cols = tle.iota dim 0 : tensor<64xi32, #tle.slice<dim = 0, parent = #mma>>
    ```
  }];
  let arguments = (ins I64Attr:$dim);
  let results = (outs TLE_DistributedTensor:$result);
  let assemblyFormat = "`dim` $dim attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def TLE_GatherRowsOp : TLE_Op<"gather_rows", [AttrSizedOperandSegments]> {
  let summary = "Copies rows of a global matrix, picked by index, into shared memory";
  let description = [{
    Copies rows of `source`, a global `[R, C]` memref with contiguous rows,
    into `destination`, a `[n, C]` shared-memory tile (row-major or
    `#tle.shared`): row `i` of the destination is row `indices[i]` of the
    source, or with `from`, row `first + i`. Every thread of the partition
    issues 16-byte `cp.async` copies (the row's bytes must be a multiple of
    16). A row whose index is outside `[0, R)` is filled with zeros, and its
    index is never used to form an address.

    `indices` is a 1-D global memref of i32 read by the op, or a tensor of
    i32 already in registers in the layout
    `#tle.blocked<per_thread = [1], threads = [32], warps = [1]>` (lane `l`
    holds rows `l`, `l + 32`, ...), so that a kernel can load the next
    tile's indices while the current one is gathered.

    The copies are asynchronous: in a pipe slot, the commit that follows
    makes the readers wait for them (a cp.async arrive per thread).

    Two optional cache hints apply to every copy: `l2_prefetch = N` lets
    L2 fetch the N bytes (64, 128 or 256) around each piece at once, which
    a gather of whole rows of 256 bytes or more reads anyway; `evict = P`
    tags the copied lines with an L2 eviction priority, e.g. `evict_last`
    for rows that other CTAs gather soon after.

    ```mlir
    tle.gather_rows %kv rows(%ids : memref<64xi32, strided<[1], offset: ?>>)
        into %slot l2_prefetch = 256 evict = evict_last
        : memref<?x576xbf16, strided<[576, 1], offset: ?>>,
          memref<64x576xbf16, #tle.shared<swizzle = 128>>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "", [MemRead]>:$source,
                       Arg<Optional<AnyTypeOf<[AnyMemRef, TLE_DistributedTensor]>>,
                           "", [MemRead]>:$indices,
                       Optional<Index>:$first,
                       Arg<TLE_SharedMemRef, "", [MemWrite]>:$destination,
                       OptionalAttr<I64Attr>:$l2Prefetch,
                       OptionalAttr<TLE_EvictionPolicyAttr>:$eviction);
  let assemblyFormat = [{
    $source (`rows` `(` $indices^ `:` type($indices) `)`)? (`from` $first^)?
    `into` $destination (`l2_prefetch` `=` $l2Prefetch^)?
    (`evict` `=` $eviction^)? attr-dict `:` type($source) `,`
    type($destination)
  }];
  let hasVerifier = 1;
}

def TLE_GatherRowsFp8Op : TLE_Op<"gather_rows_fp8"> {
  let summary = "Gathers tokens of an FP8 KV cache into a bf16 shared-memory tile";
  let description = [{
    Reads the tokens of `cache`, a paged FP8 KV cache in the layout
    `format`, that `indices` names, and writes them dequantized to bf16
    into `destination`, a `[n, w]` shared-memory tile (row-major or
    `#tle.shared`): row `i` holds bf16 columns `[first_column,
    first_column + w)` of the 576 of token `indices[i]`. `cache` is the
    cache's bytes as `[blocks, 64, bytes per token]` (i8, any block
    stride: FlashMLA pads each block); a token id is `block * 64 +
    offset`, and an id outside `[0, 64 * blocks)` gives a row of zeros
    without forming an address from it.

    `format = v32` is DeepSeek V3.2's layout (FlashMLA's tests/quant.py,
    656 bytes a token): 512 float8_e4m3fn values in 4 tiles of 128
    columns, one f32 scale a tile, then the 64 rope columns as bf16. A
    value is its fp8 times its tile's scale (exact in bf16: the scales are
    powers of two); the rope columns are copied. The window lies in the
    fp8 columns (16-column aligned) or in the rope columns (8-column
    aligned).

    `indices` is a tensor of i32 in registers, laid out as
    `#tle.blocked<per_thread = [1], threads = [32], warps = [1]>` (lane
    `l` holds rows `l`, `l + 32`, ...), as tle.gather_rows takes it. Every
    thread loads 16 bytes at a time with `ld.global.nc` and stores with
    ordinary shared-memory stores: unlike tle.gather_rows the op is
    complete when it returns, and in a pipe slot the writer arrives per
    thread and fences for the tensor cores (the compiler derives both).
    `l2_prefetch` and `evict` are tle.gather_rows's cache hints.

    ```mlir
    tle.gather_rows_fp8 %cache rows(%ids : tensor<64xi32, #lanes>)
        into %slot format = v32 columns = 256 l2_prefetch = 256
        evict = evict_last
        : memref<?x64x656xi8, strided<[?, 656, 1], offset: ?>>,
          memref<64x256xbf16, #tle.shared<swizzle = 128>>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "", [MemRead]>:$cache,
                       TLE_DistributedTensor:$indices,
                       Arg<TLE_SharedMemRef, "", [MemWrite]>:$destination,
                       TLE_KVCacheFormatAttr:$format,
                       I64Attr:$firstColumn,
                       OptionalAttr<I64Attr>:$l2Prefetch,
                       OptionalAttr<TLE_EvictionPolicyAttr>:$eviction);
  let assemblyFormat = [{
    $cache `rows` `(` $indices `:` type($indices) `)` `into` $destination
    `format` `=` $format `columns` `=` $firstColumn
    (`l2_prefetch` `=` $l2Prefetch^)? (`evict` `=` $eviction^)? attr-dict
    `:` type($cache) `,` type($destination)
  }];
  let hasVerifier = 1;
}

#endif // TLE_COMPUTE_OPS
