// The metadata lists every kernel in module order with the defaults of the
// optional facts; functions that are not kernels are left out, and a
// CUtensorMap passed by value is a "tensor_map" parameter.
//
// RUN: tle-translate --tle-to-ptx %s --tle-metadata=%t.json -o /dev/null
// RUN: FileCheck --input-file=%t.json %s

// CHECK:       "chip": "sm_90a",
// CHECK-NEXT:  "kernels": [
// CHECK-NEXT:    {
// CHECK-NEXT:      "block": [
// CHECK-NEXT:        256,
// CHECK-NEXT:        1,
// CHECK-NEXT:        1
// CHECK-NEXT:      ],
// CHECK-NEXT:      "dynamic_shared_memory": 0,
// CHECK-NEXT:      "name": "first",
// CHECK-NEXT:      "params": [
// CHECK-NEXT:        "ptr",
// CHECK-NEXT:        "ptr",
// CHECK-NEXT:        "i64",
// CHECK-NEXT:        "f32"
// CHECK-NEXT:      ]
// CHECK-NEXT:    },
// CHECK-NEXT:    {
// CHECK-NEXT:      "args": [],
// CHECK-NEXT:      "block": [
// CHECK-NEXT:        32,
// CHECK-NEXT:        4,
// CHECK-NEXT:        1
// CHECK-NEXT:      ],
// CHECK-NEXT:      "dynamic_shared_memory": 197632,
// CHECK-NEXT:      "grid": "",
// CHECK-NEXT:      "name": "second",
// CHECK-NEXT:      "params": [],
// CHECK-NEXT:      "persistent": true
// CHECK-NEXT:    },
// CHECK-NEXT:    {
// CHECK:           "name": "maps",
// CHECK-NEXT:      "params": [
// CHECK-NEXT:        "tensor_map",
// CHECK-NEXT:        "ptr",
// CHECK-NEXT:        "ptr",
// CHECK-NEXT:        "i64"
// CHECK-NEXT:      ]
// CHECK-NEXT:    }
// CHECK-NEXT:  ],
// CHECK-NEXT:  "ptx_version": "8.6"
// CHECK-NOT:   helper

module {
  llvm.func @helper(%arg0: i64) -> i64 {
    llvm.return %arg0 : i64
  }

  llvm.func @first(%a: !llvm.ptr<1>, %b: !llvm.ptr, %n: i64, %x: f32)
      attributes {nvvm.kernel, nvvm.maxntid = array<i32: 256>} {
    %m = llvm.call @helper(%n) : (i64) -> i64
    llvm.store %m, %b : i64, !llvm.ptr
    llvm.store %x, %a : f32, !llvm.ptr<1>
    llvm.return
  }

  llvm.func @second() attributes {nvvm.kernel,
      nvvm.maxntid = array<i32: 32, 4>, tle.shared_memory_size = 197632 : i64,
      tle.kernel_signature = [], tle.grid = "", tle.persistent} {
    llvm.return
  }

  // A CUtensorMap by value is "tensor_map"; other byval pointers stay "ptr".
  llvm.func @maps(
      %map: !llvm.ptr {llvm.byval = !llvm.array<128 x i8>, llvm.align = 64},
      %other: !llvm.ptr {llvm.byval = !llvm.array<64 x i8>},
      %p: !llvm.ptr<1>, %n: i64)
      attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128>} {
    llvm.return
  }
}
