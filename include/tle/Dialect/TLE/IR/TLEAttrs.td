//===- TLEAttrs.td - TLE attribute definitions -------------*- tablegen -*-===//

#ifndef TLE_ATTRS
#define TLE_ATTRS

include "mlir/IR/AttrTypeBase.td"
include "tle/Dialect/TLE/IR/TLEDialect.td"

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

#endif // TLE_ATTRS
