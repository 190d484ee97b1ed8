// RUN: tle-opt %s --tle-test-iteration-expr -verify-diagnostics -o /dev/null

// Iterations are affine expressions: constants plus integer multiples of
// atoms (loop variables, arguments, results of other ops), followed
// through addi, subi, muli by a constant and widening casts; `%i + 1`
// written twice is one iteration, so the commit closes the acquire.
func.func @exprs(%n: index, %m: i32, %w: i64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %a = tle.shared_alloc : memref<4x64xf32, 3>
  %p = tle.pipe "p" capacity 4 fields(a = %a : memref<4x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %twice = arith.muli %c2, %i : index
      %odd = arith.addi %twice, %c1 : index
      // expected-remark @+1 {{iteration 2 x the loop variable of the scf.for at line 15 + 1}}
      %v = tle.wait %p[%odd : index] reader "r" -> memref<64xf32, 3>
      %back = arith.subi %odd, %i : index
      // expected-remark @+1 {{iteration the loop variable of the scf.for at line 15 + 1}}
      tle.release %p[%back : index] reader "r"
    }
    %wide = arith.index_cast %m : i32 to index
    %k = arith.addi %wide, %n : index
    // expected-remark @+1 {{iteration argument 0 of @exprs + argument 1 of @exprs}}
    %v = tle.wait %p[%k : index] reader "r" -> memref<64xf32, 3>
    %narrow = arith.index_cast %w : i64 to index
    // expected-remark @+1 {{iteration argument 2 of @exprs}}
    tle.release %p[%narrow : index] reader "r"
    tle.warp_yield
  }
  partition "w" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %next = arith.addi %i, %c1 : index
      // expected-remark @+1 {{iteration the loop variable of the scf.for at line 34 + 1, committed by the tle.commit at line 42}}
      %v = tle.acquire %p[%next : index] -> memref<64xf32, 3>
      %also = arith.addi %c1, %i : index
      // expected-remark @+1 {{iteration 2, committed by no tle.commit in its block}}
      %u = tle.acquire %p[%c2 : index] -> memref<64xf32, 3>
      // expected-remark @+1 {{iteration the loop variable of the scf.for at line 34 + 1}}
      tle.commit %p[%also : index]
    }
    tle.warp_return
  }
  return
}
