// RUN: tle-opt %s --tle-test-token-usage -split-input-file -verify-diagnostics -o /dev/null

// Named barrier 0 is the CTA's and 1..3 the three partitions'; the tokens
// take the next ids in the order they are declared (an unused token takes
// none), each counting the threads of both its ends.
func.func @ids() {
  // expected-remark @+1 {{signaled by 'b', awaited by 'c': named barrier 4 of 384 threads}}
  %bc = tle.token "bc" from "b" to "c"
  %unused = tle.token "unused" from "a" to "c"
  // expected-remark @+1 {{signaled by 'a', awaited by 'b': named barrier 5 of 160 threads}}
  %ab = tle.token "ab" from "a" to "b"
  tle.warp_specialize
  default "a" warps(1) {
    tle.signal %ab
    tle.warp_yield
  }
  partition "b" warps(4) {
    tle.await %ab
    tle.signal %bc
    tle.warp_return
  }
  partition "c" warps(8) {
    tle.await %bc
    tle.warp_return
  }
  return
}

// -----

// Two partitions and fourteen tokens need 17 named barriers.
func.func @too_many() {
  %t0 = tle.token "t0" from "a" to "b"
  %t1 = tle.token "t1" from "a" to "b"
  %t2 = tle.token "t2" from "a" to "b"
  %t3 = tle.token "t3" from "a" to "b"
  %t4 = tle.token "t4" from "a" to "b"
  %t5 = tle.token "t5" from "a" to "b"
  %t6 = tle.token "t6" from "a" to "b"
  %t7 = tle.token "t7" from "a" to "b"
  %t8 = tle.token "t8" from "a" to "b"
  %t9 = tle.token "t9" from "a" to "b"
  %t10 = tle.token "t10" from "a" to "b"
  %t11 = tle.token "t11" from "a" to "b"
  %t12 = tle.token "t12" from "a" to "b"
  %t13 = tle.token "t13" from "a" to "b"
  // expected-error @+1 {{'tle.warp_specialize' op needs 17 named barriers (1 for the CTA, 2 for its partitions and 14 for its tokens), but a CTA has 16; use fewer tokens or partitions, or a pipe for some edge}}
  tle.warp_specialize
  default "a" warps(4) {
    tle.signal %t0
    tle.signal %t1
    tle.signal %t2
    tle.signal %t3
    tle.signal %t4
    tle.signal %t5
    tle.signal %t6
    tle.signal %t7
    tle.signal %t8
    tle.signal %t9
    tle.signal %t10
    tle.signal %t11
    tle.signal %t12
    tle.signal %t13
    tle.warp_yield
  }
  partition "b" warps(4) {
    tle.await %t0
    tle.await %t1
    tle.await %t2
    tle.await %t3
    tle.await %t4
    tle.await %t5
    tle.await %t6
    tle.await %t7
    tle.await %t8
    tle.await %t9
    tle.await %t10
    tle.await %t11
    tle.await %t12
    tle.await %t13
    tle.warp_return
  }
  return
}
