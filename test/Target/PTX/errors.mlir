// Input the translation cannot handle is reported, never crashed on.
//
// RUN: tle-translate --tle-to-ptx %s -split-input-file -verify-diagnostics \
// RUN:   --tle-metadata=%t.json -o /dev/null
// RUN: not tle-translate --tle-to-ptx %s -split-input-file -o /dev/null 2>&1 \
// RUN:   | FileCheck %s

// Something left unlowered.
// expected-error @below {{cannot translate the module to LLVM IR; everything must be lowered to the LLVM and NVVM dialects first}}
module {
  llvm.func @k(%arg0: i64) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128>} {
    // expected-error @below {{LLVM Translation failed for operation: builtin.unrealized_conversion_cast}}
    %0 = builtin.unrealized_conversion_cast %arg0 : i64 to index
    llvm.return
  }
}
// CHECK: error: LLVM Translation failed for operation: builtin.unrealized_conversion_cast
// CHECK: error: cannot translate the module to LLVM IR

// -----

module {
  // expected-error @below {{kernel 'k' has no 'nvvm.maxntid' attribute; the block size of its launch is unknown}}
  llvm.func @k() attributes {nvvm.kernel} {
    llvm.return
  }
}

// -----

// Every kernel is checked before giving up.
module {
  // expected-error @below {{'tle.shared_memory_size' must be a non-negative integer, got -1 : i64}}
  llvm.func @k1() attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128>, tle.shared_memory_size = -1 : i64} {
    llvm.return
  }
  // expected-error @below {{'tle.kernel_signature' must be an array of strings, got [1]}}
  llvm.func @k2() attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128>, tle.kernel_signature = [1]} {
    llvm.return
  }
  // expected-error @below {{'tle.grid' must be a string, got 4 : i64}}
  llvm.func @k3() attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128>, tle.grid = 4} {
    llvm.return
  }
}

// -----

// Every argument of the signature must be a type a launch can pass.
module {
  // expected-error @below {{kernel 'k1': argument 1 of 'tle.kernel_signature', 'memref<?xfloat>', is not a type: }}
  llvm.func @k1() attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128>, tle.kernel_signature = ["index", "memref<?xfloat>"]} {
    llvm.return
  }
  // expected-error @below {{kernel 'k2': argument 0 has type 'i64', which a launch cannot pass; kernel arguments are memrefs, tensor maps, index, i32 or f32}}
  llvm.func @k2() attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128>, tle.kernel_signature = ["i64"]} {
    llvm.return
  }
  // expected-error @below {{kernel 'k3': argument 0 has type 'memref<8xf32, affine_map<(d0) -> (d0 floordiv 2)>>', whose layout is not strided; a launch can only pass memrefs with the identity or a strided layout}}
  llvm.func @k3() attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128>, tle.kernel_signature = ["memref<8xf32, affine_map<(d0) -> (d0 floordiv 2)>>"]} {
    llvm.return
  }
}

// -----

// An instruction outside any function (MLIR's export would crash on it).
module {
  // expected-error @below {{'nvvm.barrier0' cannot be translated at module level; a kernel module holds llvm.func, llvm.mlir.global and other LLVM module-level ops}}
  nvvm.barrier0
}

// -----

// A nested module would be skipped, kernels and all.
module {
  // expected-error @below {{'builtin.module' cannot be translated at module level}}
  module {
  }
}
