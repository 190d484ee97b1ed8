//===- WarpSpecializeOp.td - Partitions of a CTA -----------*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// tle.warp_specialize and the terminators of its regions. Verifier, custom
// syntax and warp placement: lib/Dialect/TLE/IR/WarpSpecializeOp.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_WARP_SPECIALIZE_OP
#define TLE_WARP_SPECIALIZE_OP

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "tle/Dialect/TLE/IR/TLEDialect.td"

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
    `min(warps, 4)`. The CTA is a whole number of warp groups (4 warps),
    at most 32 warps (1,024 threads) in all.
    `setmaxnreg` acts on a whole warp group, so partitions sharing a warp
    group must request the same budget; the budgets, counted per warp group
    of 128 threads, must fit in the registers the CTA's threads hold at
    entry (65,536 / threads per thread, rounded down to a multiple of 8:
    64,512 for 384 threads), the only ones `setmaxnreg` moves. Budgets are
    multiples of 8 in 24..256; a partition without `registers(...)` lets the
    compiler choose. A partition that issues warp-group MMA needs a multiple
    of 4 warps. Each partition owns one named barrier (id 0 is the CTA's),
    which bounds a CTA to 15 partitions.

    A partition may be *replicated*: `replicas(N) (%r: index)` runs N copies
    of its region, each on its own warps with the same warp count and
    register budget, and `%r` is the copy's replica index, 0..N-1. Warp
    placement, the register arithmetic and the 15-partition bound count
    every replica. A reader name used in a replicated partition stands for
    N readers, one per replica: each waits and releases on its own, so the
    free barrier of its fields counts the threads of all N. Replication is
    a shorthand that `--tle-expand-replicas` (the first pass of the
    pipelines) writes out into N ordinary partitions named `<name>#<r>`,
    with reader `<reader>#<r>`; every later pass expects it expanded.
    Replica 0 of a replicated default partition is the default partition
    (its warps go on past the op), the others follow it as partitions, and
    it yields no values. A replicated partition does not write a pipe (a
    pipe has one writer). A turn token may name it at both ends, for a
    ring of turns among its replicas (replica r signals replica r + 1 mod
    N), or join it to another partition of as many replicas (replica r to
    replica r); a token between it and a single partition is an error.

    ```mlir
    tle.warp_specialize
      default "consumer" warps(4) registers(232) {
        tle.warp_yield
      }
      partition "producer" warps(4) registers(40) {
        tle.warp_return
      }
    tle.warp_specialize
      default "producer" warps(4) {
        tle.warp_yield
      }
      partition "mma" warps(4) registers(232) replicas(2) (%r: index) {
        %row = arith.muli %r, %c64 : index
        tle.warp_return
      }
    ```
  }];
  let arguments = (ins StrArrayAttr:$partitionNames,
                       DenseI32ArrayAttr:$partitionNumWarps,
                       DenseI32ArrayAttr:$requestedRegisters,
                       OptionalAttr<DenseI32ArrayAttr>:$partitionReplicas);
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
    /// How many copies of partition i run (1 unless it is replicated).
    unsigned getNumReplicas(unsigned i);
    /// Whether partition i is replicated: its region takes the replica
    /// index, and --tle-expand-replicas has yet to write out its copies.
    bool isReplicated(unsigned i) {
      return getPartitionRegion(i).getNumArguments() != 0;
    }
    /// The first replicated partition, if any.
    std::optional<unsigned> getFirstReplicated();
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

#endif // TLE_WARP_SPECIALIZE_OP
