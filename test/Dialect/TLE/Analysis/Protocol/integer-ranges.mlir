// RUN: timeout 60 tle-opt %s --tle-test-integer-ranges -verify-diagnostics -o /dev/null

// Never negative by what defines them: sizes and ids, unsigned divisions
// and remainders, zero extensions from fewer bits, and sums, products,
// minima, maxima and selections of such values, sums and products taken
// not to overflow. An argument, a difference and a truncation to a width
// that keeps the sign bit may be negative.
func.func @ranges(%n: index, %m: memref<?xf32>, %x: i32, %c: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  %c6 = arith.constant 6 : index
  // expected-remark @+1 {{'size' in [0, 9223372036854775807], never negative}}
  %size = memref.dim {tag = "size"} %m, %c0 : memref<?xf32>
  // expected-remark @+1 {{'block' in [0, 4294967294], never negative}}
  %block = gpu.block_id x {tag = "block"}
  // expected-remark @+1 {{'argument' in [-9223372036854775808, 9223372036854775807], may be negative}}
  %arg = arith.addi %n, %c0 {tag = "argument"} : index
  // expected-remark @+1 {{'sum of sizes' in [63, 9223372036854775807], never negative}}
  %up = arith.addi %size, %c63 {tag = "sum of sizes"} : index
  // expected-remark @+1 {{'product' in [0, 9223372036854775807], never negative}}
  %prod = arith.muli %size, %block {tag = "product"} : index
  // expected-remark @+1 {{'difference' in [-4294967294, 9223372036854775807], may be negative}}
  %diff = arith.subi %size, %block {tag = "difference"} : index
  // expected-remark @+1 {{'divui' in [0, 288230376151711743], never negative}}
  %q = arith.divui %n, %c64 {tag = "divui"} : index
  // expected-remark @+1 {{'shrui' in [0, 288230376151711743], never negative}}
  %shifted = arith.shrui %n, %c6 {tag = "shrui"} : index
  // expected-remark @+1 {{'remui' in [0, 63], never negative}}
  %r = arith.remui %n, %c64 {tag = "remui"} : index
  // expected-remark @+1 {{'extui' in [0, 4294967295], never negative}}
  %z = arith.extui %x {tag = "extui"} : i32 to i64
  // expected-remark @+1 {{'index_cast' in [-2147483648, 2147483647], may be negative}}
  %s = arith.index_cast %x {tag = "index_cast"} : i32 to index
  // expected-remark @+1 {{'maxsi' in [0, 2147483647], never negative}}
  %mx = arith.maxsi %s, %c0 {tag = "maxsi"} : index
  // expected-remark @+1 {{'minui' in [0, 63], never negative}}
  %mn = arith.minui %n, %c63 {tag = "minui"} : index
  // expected-remark @+1 {{'select' in [0, 9223372036854775807], never negative}}
  %sel = arith.select %c, %size, %up {tag = "select"} : index
  %wide = arith.index_castui %size : index to i64
  // expected-remark @+1 {{'trunci' in [-2147483648, 2147483647], may be negative}}
  %t = arith.trunci %wide {tag = "trunci"} : i64 to i32
  // A sum a loop carries goes to the full range at once, as in MLIR's
  // analysis (a counter would otherwise grow by one per round).
  %count = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> index {
    // expected-remark @+1 {{'counter' in [-9223372036854775808, 9223372036854775807], may be negative}}
    %next = arith.addi %acc, %c1 {tag = "counter"} : index
    scf.yield %next : index
  }
  tle.warp_specialize
  default warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      // expected-remark @+1 {{'loop variable' in [0, 9223372036854775806], never negative}}
      %iv = arith.addi %i, %c0 {tag = "loop variable"} : index
    }
    tle.warp_yield
  }
  return
}
