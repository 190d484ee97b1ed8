// Each argument of tle.kernel_signature becomes a descriptor: its kind, its
// type as written, and for memrefs and tensor maps what a caller must pass
// (element type, sizes, layout; box and swizzle), -1 where dynamic.
//
// RUN: tle-translate --tle-to-ptx %s --tle-metadata=%t.json -o /dev/null
// RUN: FileCheck --input-file=%t.json %s

// CHECK:       "args": [
// CHECK-NEXT:    {
// CHECK-NEXT:      "element_type": "f32",
// CHECK-NEXT:      "kind": "memref",
// CHECK-NEXT:      "layout": "identity",
// CHECK-NEXT:      "sizes": [
// CHECK-NEXT:        -1,
// CHECK-NEXT:        256
// CHECK-NEXT:      ],
// CHECK-NEXT:      "type": "memref<?x256xf32>"
// CHECK-NEXT:    },
// CHECK-NEXT:    {
// CHECK-NEXT:      "element_type": "bf16",
// CHECK-NEXT:      "kind": "memref",
// CHECK-NEXT:      "layout": "strided",
// CHECK-NEXT:      "offset": 0,
// CHECK-NEXT:      "sizes": [
// CHECK-NEXT:        -1,
// CHECK-NEXT:        4,
// CHECK-NEXT:        576
// CHECK-NEXT:      ],
// CHECK-NEXT:      "strides": [
// CHECK-NEXT:        -1,
// CHECK-NEXT:        -1,
// CHECK-NEXT:        1
// CHECK-NEXT:      ],
// CHECK-NEXT:      "type": "memref<?x4x576xbf16, strided<[?, ?, 1]>>"
// CHECK-NEXT:    },
// CHECK-NEXT:    {
// CHECK-NEXT:      "element_type": "i32",
// CHECK-NEXT:      "kind": "memref",
// CHECK-NEXT:      "layout": "strided",
// CHECK-NEXT:      "offset": -1,
// CHECK-NEXT:      "sizes": [
// CHECK-NEXT:        8
// CHECK-NEXT:      ],
// CHECK-NEXT:      "strides": [
// CHECK-NEXT:        2
// CHECK-NEXT:      ],
// CHECK-NEXT:      "type": "memref<8xi32, strided<[2], offset: ?>>"
// CHECK-NEXT:    },
// CHECK-NEXT:    {
// CHECK-NEXT:      "box": [
// CHECK-NEXT:        128,
// CHECK-NEXT:        64
// CHECK-NEXT:      ],
// CHECK-NEXT:      "element_type": "bf16",
// CHECK-NEXT:      "kind": "tensor_map",
// CHECK-NEXT:      "swizzle": 128,
// CHECK-NEXT:      "type": "!tle.tensor_map<128x64xbf16, swizzle = 128>"
// CHECK-NEXT:    },
// CHECK-NEXT:    {
// CHECK-NEXT:      "kind": "index",
// CHECK-NEXT:      "type": "index"
// CHECK-NEXT:    },
// CHECK-NEXT:    {
// CHECK-NEXT:      "kind": "i32",
// CHECK-NEXT:      "type": "i32"
// CHECK-NEXT:    },
// CHECK-NEXT:    {
// CHECK-NEXT:      "kind": "f32",
// CHECK-NEXT:      "type": "f32"
// CHECK-NEXT:    }
// CHECK-NEXT:  ],

module {
  llvm.func @k() attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128>,
      tle.kernel_signature = ["memref<?x256xf32>",
                              "memref<?x4x576xbf16, strided<[?, ?, 1]>>",
                              "memref<8xi32, strided<[2], offset: ?>>",
                              "!tle.tensor_map<128x64xbf16, swizzle = 128>",
                              "index", "i32", "f32"]} {
    llvm.return
  }
}
