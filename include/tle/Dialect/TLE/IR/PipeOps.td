//===- PipeOps.td - Shared buffers, pipes and mbarriers ----*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The synchronization surface: shared-memory buffers, the pipes that bind
// them with their lifecycle ops, and the mbarrier ops --tle-lower-pipes
// turns those into. Verifiers and custom syntax:
// lib/Dialect/TLE/IR/PipeOps.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_PIPE_OPS
#define TLE_PIPE_OPS

include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "tle/Dialect/TLE/IR/TLEAttrs.td"
include "tle/Dialect/TLE/IR/TLEInterfaces.td"
include "tle/Dialect/TLE/IR/TLETypes.td"

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

def TLE_ReclaimOp : TLE_Op<"reclaim"> {
  let summary = "Reader: done with a pipe for good; reuse part of its storage";
  let description = [{
    Declares that reader `reader` will not touch pipe `%pipe` again, and
    waits until every reader of the pipe has declared the same. The readers
    reclaim together: the op is a barrier among exactly the partitions that
    read the pipe, so each of them reclaims it once, directly in its
    partition's body, after its last `tle.wait`/`tle.release` of the pipe
    (for a `one_shot` pipe, after its wait; otherwise after the last
    iteration) and after a `tle.wgmma_wait pending(0)` if a multiply may
    still read the pipe's storage.

    With `scratch`, the partition then owns `%part`, a view of one of the
    pipe's fields, and uses it through the result: as partition-local
    scratch, for instance an output tile staged through Q's storage. The
    parts that the readers name are disjoint. The writer has finished with
    the storage once every reader waited for its last commit, so the
    storage is free once the readers are done.

    `--tle-verify-pipes` checks all of this; `--tle-lower-pipes` turns the
    readers' reclaims into one mbarrier (`<pipe>.reclaim`) on which every
    thread of the readers arrives and then waits for the first phase.

    ```mlir
    %left = memref.subview %qbuf[0, 0, 0] [1, 64, 256] [1, 1, 1]
        : memref<1x64x576xbf16, 3> to memref<64x256xbf16, strided<[576, 1]>, 3>
    // in partition "wg0", after its last use of %q:
    %o = tle.reclaim %q reader "wg0" scratch %left
        : memref<64x256xbf16, strided<[576, 1]>, 3>
    // in partition "wg1":
    tle.reclaim %q reader "wg1"
    ```
  }];
  let arguments = (ins TLE_PipeType:$pipe, StrAttr:$reader,
                       Optional<TLE_SharedMemRef>:$part);
  let results = (outs Optional<TLE_SharedMemRef>:$scratch);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "Value":$pipe, "StringRef":$reader, "Value":$part)>
  ];
  let extraClassDeclaration = [{
    /// The tle.pipe that declares `pipe`, or null.
    PipeOp getPipeOp() { return getPipe().getDefiningOp<PipeOp>(); }
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

/// What one phase of an mbarrier counts, arrivals or transaction bytes:
/// 1 to 2^20 - 1 (PTX ISA, mbarrier).
def TLE_MBarrierCountAttr : ConfinedAttr<I64Attr, [AttrConstraint<
    CPred<"::llvm::cast<::mlir::IntegerAttr>($_self).getInt() >= 1 && "
          "::llvm::cast<::mlir::IntegerAttr>($_self).getInt() <= "
          "::tle::hopper::kMaxMBarrierCount">,
    "whose value is 1 to 2^20 - 1, what an mbarrier phase counts">]>;

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
                       TLE_MBarrierCountAttr:$count);
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
                       Index:$index,
                       OptionalAttr<TLE_MBarrierCountAttr>:$txBytes);
  let assemblyFormat = [{
    $barriers `[` $index `]` `` $form ($txBytes^)? attr-dict `:`
    type($barriers)
  }];
}


#endif // TLE_PIPE_OPS
