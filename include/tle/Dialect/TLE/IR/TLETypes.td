//===- TLETypes.td - TLE type definitions ------------------*- tablegen -*-===//

#ifndef TLE_TYPES
#define TLE_TYPES

include "mlir/IR/AttrTypeBase.td"
include "tle/Dialect/TLE/IR/TLEDialect.td"

def TLE_PipeType : TypeDef<TLE_Dialect, "Pipe"> {
  let mnemonic = "pipe";
  let summary = "A declared producer/consumer edge over shared memory";
  let description = [{
    The value produced by `tle.pipe`. It stands for the pipe's buffers and for
    the barriers the compiler will create for it; lifecycle ops take it as
    their first operand. Everything else about the pipe (fields, readers,
    capacity) is read from the defining `tle.pipe` op, so a pipe value must be
    used directly, never passed through block arguments.

    ```mlir
    %kv = tle.pipe "kv" capacity 2 fields(kv = %buf : memref<2x64x64xbf16, 3>)
        readers(mma) : !tle.pipe
    ```
  }];
}

#endif // TLE_TYPES
