//===- TokenOps.td - Ordering edges without data -----------*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Turn tokens: one partition tells another "you may go" without handing
// over a buffer. Each token becomes a hardware named barrier
// (--tle-lower-warp-specialize). Verifiers: lib/Dialect/TLE/IR/TokenOps.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef TLE_TOKEN_OPS
#define TLE_TOKEN_OPS

include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/OpBase.td"
include "tle/Dialect/TLE/IR/TLETypes.td"

def TLE_TokenOp : TLE_Op<"token", [
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "Declares an ordering edge from one partition to another";
  let description = [{
    Declares a turn token: partition `from` signals it (`tle.signal`) and
    partition `to` awaits it (`tle.await`); the k-th await returns once the
    k-th signal has been made. Nothing else passes: the token carries no
    data and uses no shared memory. It is what two consumer warp groups
    taking turns on the tensor cores (ping-pong) need to order their
    phases.

    The partitions are named as the `tle.warp_specialize` names them
    (`default` and `partition<i>` for unnamed ones), and must be its
    partitions, whether or not anything uses the token. The token name is
    an identifier, used in reports and diagnostics.

    A token may join replicated partitions (`replicas(N)`), one token per
    replica once `--tle-expand-replicas` writes them out as `name#r`:
    - `from` and `to` the same replicated partition: a ring of turns,
      replica r signals replica (r + 1) mod N (FlashAttention-3's
      ping-pong between consumers written once); in replica r,
      `tle.signal` hands the turn to replica r + 1 and `tle.await` waits
      for it from replica r - 1;
    - two replicated partitions with as many replicas: replica r of
      `from` signals replica r of `to`.
    A token from a single partition to a replicated one, or back, or
    between partitions with different replica counts, is an error: a
    named barrier has one signaler and one waiter.

    `--tle-lower-warp-specialize` gives each token a hardware named barrier
    of its own: a signal is a `bar.arrive` and an await a `bar.sync` on it,
    both counting the threads of the two partitions. Such a barrier holds
    one signal at a time, so the signaler must not signal again before the
    waiter has awaited the previous signal; `--tle-verify-pipes` proves
    that ordering (it must come from another token or a pipe) and that
    every await is matched by a signal.

    ```mlir
    %turn01 = tle.token "turn01" from "wg0" to "wg1"
    // Replica r of "mma" hands the turn to replica (r + 1) mod N.
    %turn = tle.token "turn" from "mma" to "mma"
    ```
  }];
  let arguments = (ins StrAttr:$name, StrAttr:$signaler, StrAttr:$waiter);
  let results = (outs TLE_TokenType:$token);
  let assemblyFormat = "$name `from` $signaler `to` $waiter attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Checks that the token's ends are partitions of `ws` that a token may
    /// join (`ws` holds its uses, or sits beside an unused token); the
    /// error goes through `emitError`.
    LogicalResult verifyEnds(WarpSpecializeOp ws,
                             function_ref<InFlightDiagnostic()> emitError);
    /// Whether both ends are one replicated partition: a ring of turns.
    bool isRing() { return getSignaler() == getWaiter(); }
  }];
}

class TLE_TokenUseOp<string mnemonic> : TLE_Op<mnemonic> {
  let arguments = (ins TLE_TokenType:$token);
  let assemblyFormat = "$token attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The tle.token that declares the token, or null.
    TokenOp getTokenOp();
  }];
  let extraClassDefinition = [{
    TokenOp $cppClass::getTokenOp() {
      return getToken().getDefiningOp<TokenOp>();
    }
  }];
}

def TLE_SignalOp : TLE_TokenUseOp<"signal"> {
  let summary = "Signaler: let the waiting partition pass its next await";
  let description = [{
    Every thread of the token's `from` partition marks the token signaled
    and goes on without waiting. The waiting partition's next `tle.await`
    of the token then returns. Shared- and global-memory accesses the
    signaler made before the signal are performed, for the waiter, before
    its await returns (the named barrier orders them as `membar.cta`
    would); operations of the async proxy (TMA, the tensor cores reading
    shared memory) are not ordered by it.

    ```mlir
    tle.signal %turn01
    ```
  }];
}

def TLE_AwaitOp : TLE_TokenUseOp<"await"> {
  let summary = "Waiter: block until the token's next signal";
  let description = [{
    Blocks every thread of the token's `to` partition until the signaling
    partition has made the signal that matches this await: the k-th await
    of a token matches its k-th signal.

    ```mlir
    tle.await %turn01
    ```
  }];
}

#endif // TLE_TOKEN_OPS
