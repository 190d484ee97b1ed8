//===- TLEInterfaces.td - TLE op interfaces ----------------*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TLE_INTERFACES
#define TLE_INTERFACES

include "mlir/IR/OpBase.td"

def TLE_PipeLifecycleOpInterface : OpInterface<"PipeLifecycleOpInterface"> {
  let cppNamespace = "::mlir::tle";
  let description = [{
    The four ops that move one side of a pipe through a slot's life:
    `tle.acquire` and `tle.commit` on the writer side, `tle.wait` and
    `tle.release` on a reader side. Passes that reason about the protocol
    treat them uniformly through this interface.
  }];
  let methods = [
    InterfaceMethod<"The pipe operand.", "::mlir::TypedValue<PipeType>",
      "getPipe">,
    InterfaceMethod<"The logical iteration, or null for a one_shot pipe.",
      "::mlir::Value", "getIteration">,
    InterfaceMethod<[{The slot index assigned by --tle-assign-pipe-phases,
      or null.}], "::mlir::Value", "getSlot">,
    InterfaceMethod<[{The reader this op acts for, or null on the writer
      side.}], "::mlir::StringAttr", "getReaderAttr", (ins), [{}], [{
      return {};
    }]>,
  ];
  let extraClassDeclaration = [{
    /// The `tle.pipe` op that defines the pipe operand.
    PipeOp getPipeOp();
    /// Whether this op acts for the writer side of the pipe.
    bool isWriterSide() { return !getReaderAttr(); }
    /// "writer" or "reader 'name'", for diagnostics.
    std::string describeSide();
  }];
}

#endif // TLE_INTERFACES
