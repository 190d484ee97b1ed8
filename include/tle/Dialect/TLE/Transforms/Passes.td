//===- Passes.td - TLE dialect passes ----------------------*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TLE_DIALECT_TLE_TRANSFORMS_PASSES
#define TLE_DIALECT_TLE_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def TLEExpandReplicas : Pass<"tle-expand-replicas"> {
  let summary = "Writes out each replicated partition as ordinary partitions";
  let description = [{
    A partition declared `replicas(N) (%r: index)` becomes N partitions,
    `<name>#0` .. `<name>#<N-1>`, in its place: each a copy of the region
    with the same warps and register budget, the replica index replaced by
    an `arith.constant`, and the ops that depend on it folded (so a view
    offset by `%r` gets static offsets, the form the protocol check and
    the lowering need). A reader name used in the replicated partition
    becomes `<reader>#<r>` in copy r, and the pipe's `readers(...)` lists
    the N readers in its place with the same fields: each replica is a
    reader of its own, so the free barrier counts the threads of all N.
    A turn token between replicas becomes N tokens `<token>#<r>`: of a
    ring (`from "mma" to "mma"`), token r goes from `mma#r` to
    `mma#<(r + 1) mod N>`, so copy r signals token r and awaits token
    r - 1 mod N; between two partitions of N replicas, token r goes from
    replica r to replica r. The `tle-derive-sync` and `tle-to-llvm`
    pipelines run it first; every later pass rejects a replicated
    partition.

    Replica 0 of a replicated default partition stays the default
    partition; the others follow it and end in `tle.warp_return`. It is an
    error for a replicated partition to write a pipe (a pipe has one
    writer) or to share a reader name of a pipe with another partition.

    Before:

    ```mlir
    %ab = tle.pipe "ab" capacity 2 fields(a = %abuf : memref<2x128x64xbf16, #sw>)
        readers(mma)
    tle.warp_specialize
    default "tma" warps(1) { ... tle.warp_yield }
    partition "mma" warps(4) replicas(2) (%r: index) {
      %row = arith.muli %r, %c64 : index
      %a = tle.wait %ab[%i : index] reader "mma" -> memref<128x64xbf16, #sw>
      %half = memref.subview %a[%row, 0] [64, 64] [1, 1]
          : memref<128x64xbf16, #sw> to memref<64x64xbf16, strided<[64, 1], offset: ?>, #sw>
      %d = tle.wgmma %half, %b, %acc : memref<64x64xbf16, strided<[64, 1], offset: ?>, #sw>, ...
      tle.release %ab[%i : index] reader "mma"
      tle.warp_return
    }
    ```

    After (TLE ops take the static view; another user would take a
    `memref.cast` of it back to the type written):

    ```mlir
    %ab = tle.pipe "ab" capacity 2 fields(a = %abuf : memref<2x128x64xbf16, #sw>)
        readers("mma#0", "mma#1")
    tle.warp_specialize
    default "tma" warps(1) { ... tle.warp_yield }
    partition "mma#0" warps(4) {
      %a = tle.wait %ab[%i : index] reader "mma#0" -> memref<128x64xbf16, #sw>
      %half = memref.subview %a[0, 0] [64, 64] [1, 1]
          : memref<128x64xbf16, #sw> to memref<64x64xbf16, strided<[64, 1]>, #sw>
      %d = tle.wgmma %half, %b, %acc : memref<64x64xbf16, strided<[64, 1]>, #sw>, ...
      tle.release %ab[%i : index] reader "mma#0"
      tle.warp_return
    }
    partition "mma#1" warps(4) {
      ... the same with reader "mma#1" and the subview at [64, 0], of type
      memref<64x64xbf16, strided<[64, 1], offset: 4096>, #sw>
    }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TLEVerifyPipes : Pass<"tle-verify-pipes"> {
  let summary = "Checks the pipe protocol of every kernel before lowering";
  let description = [{
    Proves, before any barrier exists, that the pipes of each
    `tle.warp_specialize` are used consistently, so that a kernel it accepts
    does not deadlock or race on its barriers on the GPU:

    * the op sits once, directly in the body of a `func.func` that returns
      nothing, and the kernel's buffers and the pipes' mbarriers fit in the
      232,448 bytes of shared memory a CTA may use;
    * every lifecycle op sits in a partition; each pipe has exactly one
      writer partition and each reader name exactly one partition, distinct
      from the writer; a `one_shot` pipe is committed exactly once;
    * every thread of a partition reaches its lifecycle ops with the same
      iteration: the conditions, loop bounds and iterations around them are
      provably uniform (constants, kernel arguments, block ids, grid and
      block sizes, loads from memory the kernel only reads, and arithmetic
      of those);
    * on every path through `scf.for`, `scf.while` and `scf.if`, each
      `acquire` is followed by the `commit` of the same iteration and each
      `wait` by the `release` of the same iteration, before the loop
      iteration or the partition ends, except a reader's window that an
      `scf.for` carries into its next iteration (the body waits for
      `e(iv + step)` and yields its views as iter_args);
    * a pipe is defined before the `tle.warp_specialize`, and its buffers
      are touched only through the slot views, between their opening and
      closing ops (a `tle.reclaim` ends them), inside the slot; a reader
      writes only bytes of its slot that no other reader touches;
    * the writer commits as many iterations as each reader waits for;
    * every side uses each slot for laps 0, 1, 2, ... in order (the k-th
      use of slot s is iteration k x capacity + s), the only order in
      which the slot and parity `--tle-assign-pipe-phases` derives are
      right;
    * no deadlock and no wait or acquire that passes on the phase of
      another iteration: the partitions run against the barrier semantics
      the lowering emits, releases where `--tle-lower-pipes` places them,
      with inputs chosen so that every loop holding pipe operations runs at
      least capacity + 1 times, conditions it cannot compute at 0 and 1,
      and loop steps at every value up to the total capacity plus one.

    What it cannot prove (counts it cannot compare, a loop bound or
    iteration computed inside a partition from a value it cannot know, a
    loop it cannot make long enough, readers that hand cp.async data to
    the async proxy without their proxy fences, under
    `tle.cp_async_fence = "none"`) is a warning
    naming the loop, op or kernel; with `strict=true` it is an error.

    Before (the left reader never releases on the else path):

    ```mlir
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.wait %kv[%i : index] reader "left" -> memref<64xf32, 3>
      scf.if %c {
        tle.release %kv[%i : index] reader "left"
      }
    }
    ```

    After: an error at the `scf.if` — "reader 'left' of pipe 'kv' holds
    iteration <the loop variable of the scf.for at line 1> on one path of
    this scf.if but not on the other". The pass changes nothing in valid
    IR.
  }];
  let options = [
    Option<"strict", "strict", "bool", "false",
           "Report what the check cannot prove as errors, not warnings">,
  ];
}

def TLEInferArriveCounts : Pass<"tle-infer-arrive-counts"> {
  let summary = "Derives each pipe's barriers, arrive counts and tx bytes";
  let description = [{
    For every `tle.pipe` used in a `tle.warp_specialize`, writes the
    `tle.barriers` attribute: one slot-full barrier and one slot-free
    barrier per group of fields read by the same readers (none for
    `one_shot`), each with its arrive count, transaction bytes, arrive form,
    proxy fence, arriving and waiting partitions.

    The writer's transport decides the full barrier: TMA (`tle.tma_load`)
    arrives once with `expect_tx` of the bytes copied per slot; cp.async
    (`nvgpu.device_async_copy`) arrives with one `.noinc` arrive per writer
    thread; ordinary stores arrive once per writer thread (or once per
    partition after its named barrier with `generic-arrive=elected`);
    cp.async mixed with ordinary stores arrives both ways per thread. TMA
    mixed with another transport is rejected. Each free barrier counts one
    arrive per thread of each reader partition of its fields (or one per
    partition with `generic-arrive=elected`). Splitting the free barrier by
    field groups lets the writer refill the fields one reader has released
    while another still reads its own.

    Before:

    ```mlir
    %rows = tle.pipe "rows" capacity 2 fields(lo = %lo : memref<2x128xf32, 3>,
        hi = %hi : memref<2x128xf32, 3>) readers(left = [lo], right = [hi])
    ```

    After (writer: one warp of ordinary stores; readers: 4 warps each):

    ```mlir
    %rows = tle.pipe "rows" capacity 2 fields(...) readers(...) {tle.barriers = [
      #tle.barrier<full, fields = ["lo", "hi"], count = 32, txBytes = 0,
                   arrive = per_thread, fence = no,
                   arrivers = ["producer"], waiters = ["left", "right"]>,
      #tle.barrier<free, fields = ["lo"], count = 128, txBytes = 0,
                   arrive = per_thread, fence = no,
                   arrivers = ["left"], waiters = ["producer"]>,
      #tle.barrier<free, fields = ["hi"], count = 128, txBytes = 0,
                   arrive = per_thread, fence = no,
                   arrivers = ["right"], waiters = ["producer"]>]}
    ```
  }];
  let options = [
    Option<"genericArrive", "generic-arrive", "std::string", "\"per-thread\"",
           "How ordinary-store commits and all releases arrive: "
           "'per-thread' or 'elected' (one thread after the partition's "
           "named barrier)">,
  ];
}

def TLEAssignPipePhases : Pass<"tle-assign-pipe-phases"> {
  let summary = "Materializes the slot and parity of every lifecycle op";
  let description = [{
    Gives each lifecycle op its slot, `iter mod capacity`, and gives
    `tle.acquire` and `tle.wait` the parity they wait for: the lap parity
    `(iter / capacity) & 1` for a wait, its inverse for an acquire (so the
    writer's first lap passes the not-yet-completed free barrier). A
    `one_shot` pipe uses slot 0 and parity 0.

    When the iteration is the induction variable of an enclosing `scf.for`
    with a constant step, the slot and lap parity are carried as loop
    `iter_args` and advanced each iteration (no division in the loop);
    otherwise they are computed from the iteration value. Iteration values
    are taken as non-negative.

    Before:

    ```mlir
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.wait %kv[%i : index] reader "left" -> memref<64xf32, 3>
      tle.release %kv[%i : index] reader "left"
    }
    ```

    After (capacity 2):

    ```mlir
    %r:2 = scf.for %i = %c0 to %n step %c1
        iter_args(%slot = %c0, %lap = %false) -> (index, i1) {
      %v = tle.wait %kv[%i : index] reader "left" slot(%slot) parity(%lap)
          -> memref<64xf32, 3>
      tle.release %kv[%i : index] reader "left" slot(%slot)
      %next = arith.addi %slot, %c1 : index
      %wrap = arith.cmpi uge, %next, %c2 : index
      ...
      scf.yield %next_slot, %next_lap : index, i1
    }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def TLESyncPlan : Pass<"tle-sync-plan"> {
  let summary = "Prints what the compiler derived for each kernel";
  let description = [{
    Prints, for each `tle.warp_specialize`, a table a kernel author can read:
    the partitions with their warps, threads, first warp, register budget
    (requested or derived) and named barrier, with the CTA's register total;
    the pipes with their fields and bytes per slot; every barrier from
    `--tle-infer-arrive-counts` with its arrive count, transaction bytes,
    arrive form, proxy fence, arriving and waiting partitions (and a line
    when the kernel's readers do not fence cp.async data, under
    `tle.cp_async_fence = "none"`); the mbarrier on which
    the readers of a pipe meet to `tle.reclaim` it, with its count; the
    turn tokens with their named barriers; and the shared-memory footprint
    of the buffers and barriers (before alignment). With
    `json=true` the same content is printed as JSON. The IR is unchanged.

    Example output:

    ```
    sync plan for @pipes
    partitions: 3 warp groups, 384 threads, 64512 of 64512 registers
      #  partition  warps  first warp  registers    named barrier
      0  left       4      0           232          1
      ...
    ```
  }];
  let options = [
    Option<"json", "json", "bool", "false", "Print the plan as JSON">,
    Option<"outputFile", "output", "std::string", "\"-\"",
           "Where to print the plan ('-' for stdout)">,
  ];
}

def TLEPlaceProxyFences : Pass<"tle-place-proxy-fences"> {
  let summary = "Places the readers' proxy fences for cp.async data";
  let description = [{
    A reader that waits for data its writer copied with cp.async (a
    generic-proxy write) and hands it to the async proxy (a `tle.wgmma`
    operand, a wgmma descriptor, a TMA store) must issue
    `fence.proxy.async` in every thread between the two. One fence orders
    everything the thread waited for before it, so the pass places as few
    as each path needs, by a forward dataflow over the partition's
    `scf.for`, `scf.if` and `scf.while` (loop back edges joined): a wait
    that hands cp.async data to the async proxy leaves the thread dirty, a
    fence cleans it (the writer's fence at a `tle.commit`, the one
    `tle.tma_store` issues, any `fence.proxy.async` already there), and an
    async-proxy read while dirty needs a fence. It goes right after the last
    op of the read's block that left the thread dirty (so waits back to back
    share one); before a loop, or an `scf.if` whose every branch needs it,
    when only the dirty entry asks for it there; and at the end of an
    iteration that hands its data to the next. Nothing is placed under
    `tle.cp_async_fence = "none"`. `tle-derive-sync` runs the pass last;
    the rule and its cost are in docs/SyncDerivation.md.

    `form=acquire` (the default) places PTX 8.6's one-directional
    `fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster`
    (a generic-to-async proxy fence with acquire semantics: what a reader
    needs after an mbarrier wait for data others wrote; one `NOP` in SASS;
    `tle-translate`'s default `+ptx86` selects it); `form=bidirectional`
    places `fence.proxy.async.shared::cta`, which also waits for the
    thread's outstanding memory operations.

    Before (q and kv filled by cp.async):

    ```mlir
    %q = tle.wait %qp reader "r" -> memref<64x64xbf16, #sw>
    scf.for %i = %c0 to %n step %c1 {
      %k = tle.wait %kv[%i : index] reader "r" slot(%s) parity(%p)
          -> memref<64x64xbf16, #sw>
      %x = tle.wgmma %q, %k, %zero transpose_b : ...
      ...
    }
    ```

    After (one fence a tile covers both waits; none after the wait for q):

    ```mlir
    %q = tle.wait %qp reader "r" -> memref<64x64xbf16, #sw>
    scf.for %i = %c0 to %n step %c1 {
      %k = tle.wait %kv[%i : index] reader "r" slot(%s) parity(%p)
          -> memref<64x64xbf16, #sw>
      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>,
                        space = #nvvm.shared_space<cta>}
      %x = tle.wgmma %q, %k, %zero transpose_b : ...
      ...
    }
    ```
  }];
  let options = [
    Option<"form", "form", "std::string", "\"acquire\"",
           "The fence: 'acquire' (PTX 8.6's one-directional acquire form, "
           "the default) or 'bidirectional' (fence.proxy.async.shared::cta)">,
  ];
  let dependentDialects = ["::mlir::NVVM::NVVMDialect"];
}

def TLELowerPipes : Pass<"tle-lower-pipes"> {
  let summary = "Turns pipes into mbarriers, waits, arrives and fences";
  let description = [{
    Realizes the plan of `--tle-infer-arrive-counts` with the slots and
    parities of `--tle-assign-pipe-phases`:

    * each barrier of each pipe becomes a `tle.shared_alloc` of one mbarrier
      per slot, initialised by thread 0 before the `tle.warp_specialize`
      with its count, followed by `nvvm.fence.mbarrier.init` and a CTA
      barrier;
    * `tle.acquire` waits on the slot-free barriers with its parity (each
      field group's wait placed just before the first use of that group's
      views, so the writer can fill what is free first; a TMA pipe waits on
      all and then arrives with `expect_tx`); `tle.wait` waits on the
      slot-full barrier; their views become `tle.slot` ops;
    * `tle.commit` and `tle.release` arrive in the form the plan chose:
      per thread, elected (partition barrier, then thread 0), cp.async
      no-increment, or nothing for TMA (the copy completes the phase);
    * `fence.proxy.async.shared::cta` goes before a commit whose ordinary
      stores are read by the async proxy, and nowhere else (the readers'
      fences for cp.async data are `--tle-place-proxy-fences`'s).

    No `tle.pipe` or lifecycle op survives.

    Before:

    ```mlir
    %v = tle.wait %rows[%i : index] reader "left" slot(%s) parity(%p)
        -> memref<128xf32, 3>
    %x = memref.load %v[%t] : memref<128xf32, 3>
    tle.release %rows[%i : index] reader "left" slot(%s)
    ```

    After:

    ```mlir
    tle.mbarrier_wait %full[%s], %p : memref<2xi64, 3>
    %v = tle.slot %lo[%s] : memref<2x128xf32, 3> -> memref<128xf32, 3>
    %x = memref.load %v[%t] : memref<128xf32, 3>
    tle.mbarrier_arrive %free_lo[%s] plain : memref<2xi64, 3>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::scf::SCFDialect"];
}

def TLEDistributeTensors : Pass<"tle-distribute-tensors"> {
  let summary = "Turns tensors with TLE layouts and tile ops into per-thread code";
  let description = [{
    Every tensor whose encoding is a TLE layout (`#tle.mma`,
    `#tle.mma_operand`, `#tle.slice`, `#tle.blocked`) becomes a vector of
    the elements one thread holds, in the layout's register order, and every
    op on such tensors becomes what one thread executes:

    * element-wise `arith` and `math` ops, splat constants and `scf` loop
      values keep their op and take the vector;
    * `tle.wgmma` becomes `wgmma.fence`, one `wgmma.mma_async` per K step of
      16 and per 256 columns, with the shared-memory descriptors of each
      warp group's part of A and B, and `wgmma.commit_group`; a zero
      accumulator constant is not read (scale-d = 0 on the first step);
    * `tle.wgmma_wait` becomes `wgmma.wait_group N` with the waited
      registers tied through it;
    * `tle.reduce` folds a thread's elements per row (or column) and
      combines the lanes of a warp with XOR shuffles; `tle.broadcast`
      and `tle.convert_layout` move no data;
    * `tle.local_load`/`tle.local_store` and `tle.load`/`tle.store` become
      vector loads and stores of up to 16 bytes at the swizzled (shared) or
      strided (global) address of each run of consecutive elements; global
      accesses outside the memref are skipped (loads give zero). 16-bit
      tiles in the wgmma layouts move to and from shared memory as 8x8
      matrices instead (`ldmatrix` / `stmatrix`, four per instruction);
      a view of a `#tle.shared` tile is addressed where the layout puts it.

    The pass runs before `--tle-lower-warp-specialize`, so `gpu.thread_id`
    counts from 0 in each partition.

    Before:

    ```mlir
    %s = tle.reduce max %p dim 1 : tensor<64x64xf32, #mma> -> tensor<64xf32, #row>
    ```

    After (each thread holds 32 elements of `%p` and rows r and r + 8):

    ```mlir
    %e0 = vector.extract %p[0] : f32 from vector<32xf32>
    ...
    %m0 = arith.maximumf %e0, %e1 : f32
    ...
    %x = gpu.shuffle xor %m0, 1, 32 : f32
    ...
    %s = vector.from_elements %r0, %r8 : vector<2xf32>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def TLEAllocateSharedMemory : Pass<"tle-allocate-shared-memory"> {
  let summary = "Places every shared-memory buffer of a kernel";
  let description = [{
    Gives each `tle.shared_alloc` of a kernel (a function) its byte `offset`
    in the kernel's dynamic shared memory and sets the function's
    `tle.shared_memory_size`. Buffers keep declaration order, mbarrier arrays
    last; each starts at its alignment: 1024 bytes for buffers that TMA
    writes or the tensor cores read through a descriptor (128-byte swizzled
    tiles need it), 8 for mbarrier arrays, else 128, raised to the
    `alignment` attribute where that is larger. A
    buffer bound by several pipes is one buffer. A kernel over 232,448 bytes
    (227 KiB, the most an sm_90 CTA may use) is an error that lists every
    buffer with its offset and size.

    Before:

    ```mlir
    %a = tle.shared_alloc : memref<2x128xf32, 3>
    %full = tle.shared_alloc {name = "rows.full"} : memref<2xi64, 3>
    ```

    After:

    ```mlir
    func.func @k(...) attributes {tle.shared_memory_size = 1040 : i64} {
      %a = tle.shared_alloc {offset = 0 : i64} : memref<2x128xf32, 3>
      %full = tle.shared_alloc {name = "rows.full", offset = 1024 : i64}
          : memref<2xi64, 3>
    ```
  }];
}

def TLELowerWarpSpecialize : Pass<"tle-lower-warp-specialize"> {
  let summary = "Places partitions on warp groups with their register budgets";
  let description = [{
    Replaces `tle.warp_specialize` by a dispatch on the warp index. Each
    group of warp groups with one register budget is one branch that first
    runs `setmaxnreg` (increase or decrease from the budget every thread
    starts with, 65536 / block size capped at 255 and rounded down to a
    multiple of 8; none when one branch holds the whole CTA), then the
    partitions placed on it; warps of no partition exit. The default
    partition's branch also runs the code after the op. Inside a partition,
    `gpu.thread_id x` counts from 0 and `gpu.barrier` becomes the
    partition's named barrier (`bar.sync id, threads`). Each token gets
    a named barrier of its own, after the partitions' (in the order the
    tokens are declared; more than 16 in all is an error): `tle.signal`
    becomes `bar.arrive id, threads` and `tle.await` `bar.sync id,
    threads`, where threads counts both partitions of the token. The
    kernel gets `tle.block_size`, which `convert-tle-to-nvvm` turns into `nvvm.kernel`,
    `nvvm.maxntid` and `nvvm.minctasm = 1`, without which ptxas ignores
    `setmaxnreg`.

    Before:

    ```mlir
    tle.warp_specialize
    default "left" warps(4) registers(232) { ... tle.warp_yield }
    partition "producer" warps(1) registers(40) { ... tle.warp_return }
    ```

    After (384 threads, so every thread starts with 65536 / 384 = 170,
    rounded down to 168 registers):

    ```mlir
    %warp = arith.divui %tid, %c32 : index
    %in_default = arith.cmpi ult, %warp, %c4 : index
    scf.if %in_default {
      nvvm.setmaxregister increase 232
      ...
    } else {
      %in_producer = ...
      scf.if %in_producer {
        nvvm.setmaxregister decrease 40
        ...
      }
    }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::scf::SCFDialect"];
}

#endif // TLE_DIALECT_TLE_TRANSFORMS_PASSES
