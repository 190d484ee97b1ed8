//===- TLEOps.td - TLE operations --------------------------*- tablegen -*-===//

#ifndef TLE_OPS
#define TLE_OPS

include "mlir/IR/OpBase.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Dialect/LLVMIR/LLVMTypes.td"
include "tle/Dialect/TLE/IR/TLEDialect.td"
include "tle/Dialect/TLE/IR/TLETypes.td"
include "tle/Dialect/TLE/IR/TLEAttrs.td"
include "tle/Dialect/TLE/IR/TLEInterfaces.td"

def TLE_SharedMemRef : MemRefOf<[AnyType]>;
def TLE_Iteration : AnyTypeOf<[Index, I32], "index or i32">;
def TLE_ReaderArrayAttr : TypedArrayAttrBase<TLE_ReaderAttr,
    "array of pipe readers">;

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

def TLE_SharedAllocOp : TLE_Op<"shared_alloc",
    [MemoryEffects<[MemAlloc<DefaultResource>]>]> {
  let summary = "A statically shaped buffer in the CTA's shared memory";
  let description = [{
    Reserves a buffer in shared memory for the lifetime of the kernel. The
    compiler places all such buffers in the kernel's dynamic shared memory
    and gives each its offset; two pipes may bind the same buffer, which is
    how a kernel lets two hand-offs share storage.

    The type must be a statically shaped memref of fixed-size elements with
    the identity layout in the workgroup address space
    (`#gpu.address_space<workgroup>` or `3`).

    Optional attributes: `name` labels the buffer in reports and
    diagnostics; `alignment` (bytes, a power of two) raises the alignment
    the allocator gives it. `--tle-allocate-shared-memory` sets `offset`, the
    buffer's byte offset in the kernel's dynamic shared memory.

    ```mlir
    %kv = tle.shared_alloc : memref<2x64x576xbf16, #gpu.address_space<workgroup>>
    %q = tle.shared_alloc {name = "q", alignment = 1024}
        : memref<1x64x576xbf16, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins OptionalAttr<StrAttr>:$name,
                       OptionalAttr<I64Attr>:$alignment,
                       OptionalAttr<I64Attr>:$offset);
  let results = (outs TLE_SharedMemRef:$buffer);
  let assemblyFormat = "attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Pipes
//===----------------------------------------------------------------------===//

def TLE_PipeOp : TLE_Op<"pipe", [
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "Declares a producer/consumer edge over shared-memory slots";
  let description = [{
    Declares a ring of `capacity` slots. Each field binds a shared-memory
    buffer whose leading dimension is the capacity, so that slot `s` of a
    field is `buffer[s]`. One partition writes the pipe (`tle.acquire` /
    `tle.commit`); every named reader is one partition that reads it
    (`tle.wait` / `tle.release`). A reader may list the fields it reads; a
    reader without a list reads every field.

    A `one_shot` pipe is written exactly once (capacity 1): the writer
    commits without acquiring and readers wait without releasing, so the
    compiler creates no slot-free barrier for it. Its lifecycle ops take no
    iteration value.

    The compiler derives from the declaration and its uses the slot-full and
    slot-free barriers, their arrive counts and transaction bytes, and the
    parity at every wait. The pipe itself allocates nothing: its fields are
    the buffers the author bound, and a buffer may be bound by several pipes.

    Field and reader names are identifiers. The reader name `writer` is
    reserved for the writing side, and the field names `full` and `free` for
    the barriers (`kv.full`, `kv.free`) named in sync plans.

    ```mlir
    %kv = tle.pipe "kv" capacity 2
        fields(kv_l = %l : memref<2x64x256xbf16, 3>,
               kv_r = %r : memref<2x64x256xbf16, 3>)
        readers(left = [kv_l], right = [kv_r]) : !tle.pipe
    %q = tle.pipe "q" capacity 1 one_shot
        fields(q = %qbuf : memref<1x64x576xbf16, 3>)
        readers(left, right) : !tle.pipe
    ```
  }];
  let arguments = (ins StrAttr:$name, I64Attr:$capacity,
                       StrArrayAttr:$fieldNames,
                       Variadic<TLE_SharedMemRef>:$buffers,
                       TLE_ReaderArrayAttr:$readers, UnitAttr:$oneShot);
  let results = (outs TLE_PipeType:$pipe);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    unsigned getNumFields() { return getBuffers().size(); }
    StringRef getFieldName(unsigned i) {
      return cast<StringAttr>(getFieldNames()[i]).getValue();
    }
    /// Index of the field called `name`, if there is one.
    std::optional<unsigned> lookupField(StringRef name);
    /// The reader called `name`, or null.
    ReaderAttr lookupReader(StringRef name);
    /// Indices of the fields that `reader` reads, in declaration order.
    SmallVector<unsigned> getReaderFields(ReaderAttr reader);
    /// The type of one slot of field `i`: the buffer type without its
    /// leading (capacity) dimension.
    MemRefType getSlotType(unsigned i);
  }];
}

class TLE_LifecycleOp<string mnemonic, list<Trait> traits = []>
    : TLE_Op<mnemonic, !listconcat(traits, [AttrSizedOperandSegments,
        DeclareOpInterfaceMethods<TLE_PipeLifecycleOpInterface>])> {
  let hasVerifier = 1;
}

def TLE_AcquireOp : TLE_LifecycleOp<"acquire"> {
  let summary = "Writer: wait until the iteration's slot is free, then view it";
  let description = [{
    Blocks the writer partition until every reader has released the slot
    that iteration `%iter` maps to on its previous lap (the first lap passes
    at once), then returns a view of that slot for every field, in the
    pipe's field order. Writes through the views become visible to readers
    at the matching `tle.commit`.

    The slot is `iter mod capacity`; the compiler derives the parity.
    Not allowed on a `one_shot` pipe, which has no slot-free barrier.

    `--tle-assign-pipe-phases` adds `slot(%s)` and `parity(%p)`: the slot
    index and the parity the op waits for on the slot-free barrier, which is
    the inverse of the iteration's lap parity so that the first lap passes.

    ```mlir
    %l, %r = tle.acquire %kv[%i : index]
        -> memref<64x256xbf16, 3>, memref<64x256xbf16, 3>
    ```
  }];
  let arguments = (ins TLE_PipeType:$pipe, Optional<TLE_Iteration>:$iteration,
                       Optional<Index>:$slot, Optional<I1>:$parity);
  let results = (outs Variadic<TLE_SharedMemRef>:$views);
  let assemblyFormat = [{
    $pipe (`[` $iteration^ `:` type($iteration) `]`)?
    (`slot` `(` $slot^ `)`)? (`parity` `(` $parity^ `)`)? attr-dict
    (`->` type($views)^)?
  }];
}

def TLE_CommitOp : TLE_LifecycleOp<"commit"> {
  let summary = "Writer: publish the iteration's slot to the readers";
  let description = [{
    Marks the slot of iteration `%iter` as full: every write the writer
    partition made to it since `tle.acquire` (by ordinary stores, cp.async or
    TMA) becomes visible to each reader's `tle.wait` on the same iteration.
    How the writers arrive on the barrier follows from how the slot was
    written; the compiler chooses it and any proxy fence it needs.
    `--tle-assign-pipe-phases` adds `slot(%s)`, the slot it arrives on.

    ```mlir
    tle.commit %kv[%i : index]
    tle.commit %q
    ```
  }];
  let arguments = (ins TLE_PipeType:$pipe, Optional<TLE_Iteration>:$iteration,
                       Optional<Index>:$slot);
  let assemblyFormat = [{
    $pipe (`[` $iteration^ `:` type($iteration) `]`)? (`slot` `(` $slot^ `)`)?
    attr-dict
  }];
}

def TLE_WaitOp : TLE_LifecycleOp<"wait"> {
  let summary = "Reader: wait until the iteration's slot is full, then view it";
  let description = [{
    Blocks the partition of reader `reader` until the writer has committed
    iteration `%iter`, then returns a view of the slot for each field the
    reader declared, in the pipe's field order. The views may be used until
    the matching `tle.release`. Between the two, the reader must not touch
    the pipe's other fields.

    `--tle-assign-pipe-phases` adds `slot(%s)` and `parity(%p)`: the slot
    index and the lap parity `(iter / capacity) & 1` the op waits for on the
    slot-full barrier.

    ```mlir
    %r = tle.wait %kv[%i : index] reader "right" -> memref<64x256xbf16, 3>
    %qv = tle.wait %q reader "left" -> memref<64x576xbf16, 3>
    ```
  }];
  let arguments = (ins TLE_PipeType:$pipe, Optional<TLE_Iteration>:$iteration,
                       StrAttr:$reader, Optional<Index>:$slot,
                       Optional<I1>:$parity);
  let results = (outs Variadic<TLE_SharedMemRef>:$views);
  let assemblyFormat = [{
    $pipe (`[` $iteration^ `:` type($iteration) `]`)? `reader` $reader
    (`slot` `(` $slot^ `)`)? (`parity` `(` $parity^ `)`)? attr-dict
    (`->` type($views)^)?
  }];
  let extraClassDeclaration = [{
    /// The ops between this wait and the matching release in the same
    /// block, or to the end of the block when there is none.
    iterator_range<Block::iterator> getHoldRange();
  }];
}

def TLE_ReleaseOp : TLE_LifecycleOp<"release"> {
  let summary = "Reader: hand the iteration's slot back to the writer";
  let description = [{
    Declares that reader `reader` has finished with the slot of iteration
    `%iter` (including reads by the tensor cores issued from it): once every
    reader has released it, the writer's next `tle.acquire` of that slot
    proceeds. Not allowed on a `one_shot` pipe.
    `--tle-assign-pipe-phases` adds `slot(%s)`, the slot it arrives on.

    ```mlir
    tle.release %kv[%i : index] reader "right"
    ```
  }];
  let arguments = (ins TLE_PipeType:$pipe, Optional<TLE_Iteration>:$iteration,
                       StrAttr:$reader, Optional<Index>:$slot);
  let assemblyFormat = [{
    $pipe (`[` $iteration^ `:` type($iteration) `]`)? `reader` $reader
    (`slot` `(` $slot^ `)`)? attr-dict
  }];
}

def TLE_SlotOp : TLE_Op<"slot", [Pure]> {
  let summary = "A view of one slot of a pipe buffer";
  let description = [{
    Returns the `slot`-th element of the leading dimension of `buffer` as a
    memref of the remaining dimensions, with the identity layout: the view
    starts `slot * (elements per slot)` elements into the buffer. This is
    what `tle.acquire` and `tle.wait` return once `--tle-lower-pipes` has
    turned them into barrier operations.

    ```mlir
    %v = tle.slot %buf[%s] : memref<2x64x256xbf16, 3> -> memref<64x256xbf16, 3>
    ```
  }];
  let arguments = (ins TLE_SharedMemRef:$buffer, Index:$slot);
  let results = (outs TLE_SharedMemRef:$view);
  let assemblyFormat = [{
    $buffer `[` $slot `]` attr-dict `:` type($buffer) `->` type($view)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Barriers (what --tle-lower-pipes produces)
//===----------------------------------------------------------------------===//

def TLE_MBarrierArray : MemRefRankOf<[I64], [1]>;

class TLE_MBarrierOp<string mnemonic, list<Trait> traits = []>
    : TLE_Op<"mbarrier_" # mnemonic, traits> {
  let hasVerifier = 1;
}

def TLE_MBarrierInitOp : TLE_MBarrierOp<"init"> {
  let summary = "Initializes one mbarrier with its arrive count";
  let description = [{
    Initializes the mbarrier `barriers[index]` (`mbarrier.init.shared.b64`)
    to expect `count` arrivals per phase. One thread initializes; a
    `fence.mbarrier_init` and a CTA barrier must follow before other threads
    use it.

    ```mlir
    tle.mbarrier_init %full[%c0] count 32 : memref<2xi64, 3>
    ```
  }];
  let arguments = (ins TLE_MBarrierArray:$barriers, Index:$index,
                       ConfinedAttr<I64Attr, [IntMinValue<1>]>:$count);
  let assemblyFormat = [{
    $barriers `[` $index `]` `count` $count attr-dict `:` type($barriers)
  }];
}

def TLE_MBarrierWaitOp : TLE_MBarrierOp<"wait"> {
  let summary = "Blocks until the phase of the given parity has completed";
  let description = [{
    Loops on `mbarrier.try_wait.parity.shared.b64` until the phase of
    `barriers[index]` with parity `parity` has completed. It has acquire
    semantics: writes released by the arrivals of that phase are visible
    afterwards.

    ```mlir
    tle.mbarrier_wait %full[%slot], %parity : memref<2xi64, 3>
    ```
  }];
  let arguments = (ins TLE_MBarrierArray:$barriers, Index:$index, I1:$parity);
  let assemblyFormat = [{
    $barriers `[` $index `]` `,` $parity attr-dict `:` type($barriers)
  }];
}

def TLE_MBarrierArriveOp : TLE_MBarrierOp<"arrive"> {
  let summary = "Arrives on an mbarrier";
  let description = [{
    The executing thread arrives on `barriers[index]`, in one of three forms:

    * `plain`: `mbarrier.arrive.shared.b64`, with release semantics for the
      thread's earlier writes;
    * `cp_async`: `cp.async.mbarrier.arrive.noinc.shared.b64`, an arrival
      that happens once the thread's earlier cp.async copies complete (the
      init count already includes it);
    * `expect_tx`: `mbarrier.arrive.expect_tx.shared.b64` with `txBytes`,
      which also raises the bytes the phase waits for (TMA).

    ```mlir
    tle.mbarrier_arrive %full[%slot] plain : memref<2xi64, 3>
    tle.mbarrier_arrive %full[%slot] expect_tx 32768 : memref<2xi64, 3>
    ```
  }];
  let arguments = (ins TLE_ArriveFormAttr:$form, TLE_MBarrierArray:$barriers,
                       Index:$index, OptionalAttr<I64Attr>:$txBytes);
  let assemblyFormat = [{
    $barriers `[` $index `]` `` $form ($txBytes^)? attr-dict `:`
    type($barriers)
  }];
}

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
    `tle.wgmma` (as its accumulator), a `tle.wgmma_wait`, or a loop's yield
    until a `tle.wgmma_wait` returns it. Shared memory read by the op must
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

    ```mlir
    %m = tle.reduce max %s dim 1 : tensor<64x64xf32, #mma> -> tensor<64xf32, #row>
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

def TLE_ConvertLayoutOp : TLE_Op<"convert_layout", [Pure]> {
  let summary = "Reinterprets a tensor in another layout that keeps its data";
  let description = [{
    Changes a tensor's layout where every thread already holds the same
    elements in the same order: `#tle.mma` to `#tle.mma_operand` with one
    warp group per row block (`warp_groups = [g, 1]`), the step from a
    softmax result to the A operand of the next `tle.wgmma`. Conversions
    that would move data between threads go through shared memory with
    `tle.local_store` and `tle.local_load` instead.

    ```mlir
    %a = tle.convert_layout %p : tensor<64x64xbf16, #mma> -> tensor<64x64xbf16, #a>
    ```
  }];
  let arguments = (ins TLE_DistributedTensor:$source);
  let results = (outs TLE_DistributedTensor:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}

def TLE_LocalLoadOp : TLE_Op<"local_load"> {
  let summary = "Loads a tile from shared memory into a distributed tensor";
  let description = [{
    Reads `source`, a statically shaped view of shared memory (row-major,
    or swizzled in `#tle.shared`), into a tensor of the same shape in the
    result's layout, with the widest accesses the layout allows.

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
    memory of the same shape (row-major, or swizzled in `#tle.shared`).
    Threads holding the same element (replicated layouts) write the same
    value.

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

    ```mlir
    tle.gather_rows %kv rows(%ids : memref<64xi32, strided<[1], offset: ?>>)
        into %slot : memref<?x576xbf16, strided<[576, 1], offset: ?>>,
                     memref<64x576xbf16, #tle.shared<swizzle = 128>>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "", [MemRead]>:$source,
                       Arg<Optional<AnyTypeOf<[AnyMemRef, TLE_DistributedTensor]>>,
                           "", [MemRead]>:$indices,
                       Optional<Index>:$first,
                       Arg<TLE_SharedMemRef, "", [MemWrite]>:$destination);
  let assemblyFormat = [{
    $source (`rows` `(` $indices^ `:` type($indices) `)`)? (`from` $first^)?
    `into` $destination attr-dict `:` type($source) `,` type($destination)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Warp specialization
//===----------------------------------------------------------------------===//

def TLE_WarpSpecializeOp : TLE_Op<"warp_specialize", [
    RecursiveMemoryEffects]> {
  let summary = "Runs each region on its own warps of the CTA";
  let description = [{
    Splits the CTA into partitions. The `default` region and each `partition`
    region run concurrently, each on its own warps, with an optional
    register budget per thread that the compiler realizes with `setmaxnreg`.
    Code before the op runs on every warp of the CTA. The partition regions
    end in `tle.warp_return`, after which their warps exit; the default
    region ends in `tle.warp_yield`, whose operands become the op's results,
    and its warps continue with the code after the op.

    Values defined above the op are used directly inside the regions
    (implicit capture, as in `scf` regions): partitions run in the same
    function, so nothing needs to be copied in.

    Warps are placed in order: the default partition first, then each
    partition at the next warp index that is a multiple of
    `min(warps, 4)`. The CTA is a whole number of warp groups (4 warps).
    `setmaxnreg` acts on a whole warp group, so partitions sharing a warp
    group must request the same budget; the budgets, counted per warp group
    of 128 threads, must fit in the registers the CTA's threads hold at
    entry (65,536 / threads per thread, rounded down to a multiple of 8:
    64,512 for 384 threads), the only ones `setmaxnreg` moves. Budgets are
    multiples of 8 in 24..256; a partition without `registers(...)` lets the
    compiler choose. A partition that issues warp-group MMA needs a multiple
    of 4 warps. Each partition owns one named barrier (id 0 is the CTA's),
    which bounds a CTA to 15 partitions.

    ```mlir
    tle.warp_specialize
      default "consumer" warps(4) registers(232) {
        tle.warp_yield
      }
      partition "producer" warps(4) registers(40) {
        tle.warp_return
      }
    ```
  }];
  let arguments = (ins StrArrayAttr:$partitionNames,
                       DenseI32ArrayAttr:$partitionNumWarps,
                       DenseI32ArrayAttr:$requestedRegisters);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$defaultRegion,
                        VariadicRegion<SizedRegion<1>>:$partitionRegions);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// Partition 0 is the default region; partition i > 0 is
    /// partitionRegions[i - 1].
    unsigned getNumPartitions() { return getPartitionNumWarps().size(); }
    Region &getPartitionRegion(unsigned i) {
      return i == 0 ? getDefaultRegion() : getPartitionRegions()[i - 1];
    }
    /// The author's name for partition i, or "default" / "partition<i>".
    std::string getPartitionLabel(unsigned i);
    /// Registers requested by partition i, or std::nullopt.
    std::optional<unsigned> getRequestedRegisters(unsigned i);
    /// The partition (0 = default) of this op that contains `op`, if any.
    std::optional<unsigned> getPartitionOf(Operation *op);
  }];
}

def TLE_WarpYieldOp : TLE_Op<"warp_yield", [
    Pure, Terminator, ReturnLike, HasParent<"WarpSpecializeOp">]> {
  let summary = "Terminates the default region of tle.warp_specialize";
  let description = [{
    Ends the default partition's region; its operands become the results of
    the enclosing `tle.warp_specialize`, available to the code after it,
    which runs on the default partition's warps.

    ```mlir
    tle.warp_yield %acc : vector<4xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
  let hasVerifier = 1;
}

def TLE_WarpReturnOp : TLE_Op<"warp_return", [
    Pure, Terminator, ReturnLike, HasParent<"WarpSpecializeOp">]> {
  let summary = "Terminates a partition region of tle.warp_specialize";
  let description = [{
    Ends a non-default partition: its warps have no further work in the
    kernel and exit.

    ```mlir
    tle.warp_return
    ```
  }];
  let assemblyFormat = "attr-dict";
}

#endif // TLE_OPS
