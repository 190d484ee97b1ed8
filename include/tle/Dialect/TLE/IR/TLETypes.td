//===- TLETypes.td - TLE type definitions ------------------*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TLE_TYPES
#define TLE_TYPES

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/CommonTypeConstraints.td"
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

def TLE_TokenType : TypeDef<TLE_Dialect, "Token"> {
  let mnemonic = "token";
  let summary = "A declared ordering edge between two partitions, with no data";
  let description = [{
    The value produced by `tle.token`. `tle.signal` and `tle.await` take it
    as their operand; the partitions at its two ends are read from the
    defining `tle.token` op, so a token value must be used directly, never
    passed through block arguments.

    ```mlir
    %turn = tle.token "turn" from "wg0" to "wg1"
    ```
  }];
}

def TLE_TensorMapType : TypeDef<TLE_Dialect, "TensorMap"> {
  let mnemonic = "tensor_map";
  let summary = "A TMA descriptor of a global tensor, passed to the kernel";
  let description = [{
    A kernel argument that the host fills with a `CUtensorMap` (built by
    `cuTensorMapEncodeTiled`) over a global tensor of the same rank as
    `box`. `tle.tma_load` copies boxes of shape `box` (outermost dimension
    first) of `elementType` through it, laid out in shared memory with the
    given `swizzle` (0, 32, 64 or 128 bytes; the innermost box dimension
    spans at most that many bytes). The kernel receives the descriptor by
    value as a 128-byte, 64-byte aligned `.param`; the runtime encodes it
    from the tensor the caller passes and the box and swizzle read from the
    kernel's signature.

    ```mlir
    func.func @gemm(%a: !tle.tensor_map<128x64xbf16, swizzle = 128>)
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$box, "Type":$elementType,
                        "int64_t":$swizzle);
  let assemblyFormat = [{
    `<` custom<BoxShape>($box, $elementType) `,` `swizzle` `=` $swizzle `>`
  }];
  let genVerifyDecl = 1;
}

/// A buffer operand or result of the pipe and tile ops; their verifiers
/// check that it is in shared memory.
def TLE_SharedMemRef : MemRefOf<[AnyType]>;

#endif // TLE_TYPES
