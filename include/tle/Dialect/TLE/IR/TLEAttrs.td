//===- TLEAttrs.td - TLE attribute definitions -------------*- tablegen -*-===//

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
    * `fence`: whether the arriving threads issue `fence.proxy.async` first,
      because the slot is written by the generic proxy and read by the async
      proxy (wgmma, TMA store).
    * `arrivers` / `waiters`: the partitions that arrive and wait.

    ```mlir
    #tle.barrier<full, fields = ["lo", "hi"], count = 32, txBytes = 0,
                 arrive = per_thread, fence = false,
                 arrivers = ["producer"], waiters = ["left", "right"]>
    ```
  }];
  let parameters = (ins
    EnumParameter<TLE_BarrierKind>:$kind,
    "ArrayAttr":$fields,
    "int64_t":$count,
    "int64_t":$txBytes,
    EnumParameter<TLE_ArriveKind>:$arrive,
    "bool":$fence,
    "ArrayAttr":$arrivers,
    "ArrayAttr":$waiters);
  let assemblyFormat = [{
    `<` $kind `,` struct($fields, $count, $txBytes, $arrive, $fence,
                         $arrivers, $waiters) `>`
  }];
}

#endif // TLE_ATTRS
