// RUN: tle-opt %s --tle-infer-arrive-counts --tle-sync-plan -o /dev/null | FileCheck %s --match-full-lines --strict-whitespace
// RUN: tle-opt %s --tle-infer-arrive-counts --tle-sync-plan=json=true -o /dev/null | FileCheck %s --check-prefix=JSON

// Two consumers take turns through two tokens; a one-warp partition tells
// the first when to start. Tokens take the named barriers after the three
// partitions', in the order they are declared; each counts the threads of
// both ends.

//      CHECK:sync plan for @ping_pong
//      CHECK:  partition  warps  first warp  registers      named barrier
// CHECK-NEXT:  wg0        4      0           {{.*}}  1
// CHECK-NEXT:  wg1        4      4           {{.*}}  2
// CHECK-NEXT:  starter    1      8           {{.*}}  3
//      CHECK:tokens (one named barrier each: the signaler arrives, the waiter syncs):
// CHECK-NEXT:  token   named barrier  count  signals  awaits
// CHECK-NEXT:  turn01  4              256    wg0      wg1
// CHECK-NEXT:  turn10  5              256    wg1      wg0
// CHECK-NEXT:  start   6              160    starter  wg0
// CHECK-NEXT:shared memory: 0 B of buffers + 0 B of barriers = 0 B (before alignment)

// JSON: "tokens": [
// JSON-NEXT:   {
// JSON-NEXT:     "count": 256,
// JSON-NEXT:     "name": "turn01",
// JSON-NEXT:     "named_barrier": 4,
// JSON-NEXT:     "signaler": "wg0",
// JSON-NEXT:     "waiter": "wg1"
// JSON-NEXT:   },
// JSON: "name": "start",
// JSON-NEXT: "named_barrier": 6,

func.func @ping_pong(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t01 = tle.token "turn01" from "wg0" to "wg1"
  %t10 = tle.token "turn10" from "wg1" to "wg0"
  %start = tle.token "start" from "starter" to "wg0"
  tle.warp_specialize
  default "wg0" warps(4) {
    tle.await %start
    scf.for %i = %c0 to %n step %c1 {
      %later = arith.cmpi ne, %i, %c0 : index
      scf.if %later {
        tle.await %t10
      }
      tle.signal %t01
    }
    tle.warp_yield
  }
  partition "wg1" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      tle.await %t01
      %next = arith.addi %i, %c1 : index
      %more = arith.cmpi ult, %next, %n : index
      scf.if %more {
        tle.signal %t10
      }
    }
    tle.warp_return
  }
  partition "starter" warps(1) {
    tle.signal %start
    tle.warp_return
  }
  return
}
