// RUN: tle-opt %s --tle-assign-pipe-phases --split-input-file | FileCheck %s --enable-var-scope
// The pass leaves assigned ops alone: a second run changes nothing.
// RUN: tle-opt %s --tle-assign-pipe-phases --split-input-file | tle-opt --tle-assign-pipe-phases --split-input-file | FileCheck %s --enable-var-scope

// Capacity 2, step 1: the loop of each side carries (slot, lap). The slot
// wraps with one compare and a select, and the lap parity flips on a wrap.

// CHECK-LABEL: func.func @capacity2(
// CHECK-SAME:      %[[N:.*]]: index)
// CHECK-DAG:       %[[TRUE:.*]] = arith.constant true
// CHECK-DAG:       %[[FALSE:.*]] = arith.constant false
// CHECK-DAG:       %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:       %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:       %[[C2:.*]] = arith.constant 2 : index
// CHECK:         default "consumer" warps(4) {
// CHECK-NEXT:      %{{.*}}:2 = scf.for %[[I:.*]] = %[[C0]] to %[[N]] step %[[C1]]
// CHECK-SAME:          iter_args(%[[SLOT:.*]] = %[[C0]], %[[LAP:.*]] = %[[FALSE]]) -> (index, i1) {
// CHECK-NEXT:        tle.wait %kv[%[[I]] : index] reader "consumer" slot(%[[SLOT]]) parity(%[[LAP]]) ->
// CHECK-NEXT:        tle.release %kv[%[[I]] : index] reader "consumer" slot(%[[SLOT]]){{$}}
// CHECK-NEXT:        %[[NEXT:.*]] = arith.addi %[[SLOT]], %[[C1]] : index
// CHECK-NEXT:        %[[WRAP:.*]] = arith.cmpi uge, %[[NEXT]], %[[C2]] : index
// CHECK-NEXT:        %[[BACK:.*]] = arith.subi %[[NEXT]], %[[C2]] : index
// CHECK-NEXT:        %[[SLOT2:.*]] = arith.select %[[WRAP]], %[[BACK]], %[[NEXT]] : index
// CHECK-NEXT:        %[[LAP2:.*]] = arith.xori %[[LAP]], %[[WRAP]] : i1
// CHECK-NEXT:        scf.yield %[[SLOT2]], %[[LAP2]] : index, i1
// CHECK-NEXT:      }
// CHECK-NEXT:      tle.warp_yield
// CHECK:         partition "producer" warps(1) {
// CHECK-NEXT:      %{{.*}}:2 = scf.for %[[I:.*]] = %[[C0]] to %[[N]] step %[[C1]]
// CHECK-SAME:          iter_args(%[[SLOT:.*]] = %[[C0]], %[[LAP:.*]] = %[[FALSE]]) -> (index, i1) {
// CHECK-NEXT:        %[[FREE:.*]] = arith.xori %[[LAP]], %[[TRUE]] : i1
// CHECK-NEXT:        tle.acquire %kv[%[[I]] : index] slot(%[[SLOT]]) parity(%[[FREE]]) ->
// CHECK-NEXT:        tle.commit %kv[%[[I]] : index] slot(%[[SLOT]]){{$}}
// CHECK-NEXT:        %[[NEXT:.*]] = arith.addi %[[SLOT]], %[[C1]] : index
// CHECK-NEXT:        %[[WRAP:.*]] = arith.cmpi uge, %[[NEXT]], %[[C2]] : index
// CHECK-NEXT:        %[[BACK:.*]] = arith.subi %[[NEXT]], %[[C2]] : index
// CHECK-NEXT:        %[[SLOT2:.*]] = arith.select %[[WRAP]], %[[BACK]], %[[NEXT]] : index
// CHECK-NEXT:        %[[LAP2:.*]] = arith.xori %[[LAP]], %[[WRAP]] : i1
// CHECK-NEXT:        scf.yield %[[SLOT2]], %[[LAP2]] : index, i1
// CHECK-NEXT:      }
// CHECK-NEXT:      tle.warp_return

func.func @capacity2(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = tle.shared_alloc : memref<2x64xf32, 3>
  %kv = tle.pipe "kv" capacity 2
      fields(x = %buf : memref<2x64xf32, 3>) readers(consumer)
  tle.warp_specialize
  default "consumer" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.wait %kv[%i : index] reader "consumer" -> memref<64xf32, 3>
      tle.release %kv[%i : index] reader "consumer"
    }
    tle.warp_yield
  }
  partition "producer" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.acquire %kv[%i : index] -> memref<64xf32, 3>
      tle.commit %kv[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// Capacity 1: the slot never moves and the lap parity flips every iteration.

// CHECK-LABEL: func.func @capacity1(
// CHECK-DAG:       %[[TRUE:.*]] = arith.constant true
// CHECK-DAG:       %[[FALSE:.*]] = arith.constant false
// CHECK-DAG:       %[[C0:.*]] = arith.constant 0 : index
// CHECK:         default "consumer" warps(4) {
// CHECK-NEXT:      %{{.*}}:2 = scf.for %[[I:.*]] = %[[C0]] to %{{.*}} step %{{[^ ]+}}
// CHECK-SAME:          iter_args(%[[SLOT:.*]] = %[[C0]], %[[LAP:.*]] = %[[FALSE]]) -> (index, i1) {
// CHECK-NEXT:        tle.wait %kv[%[[I]] : index] reader "consumer" slot(%[[SLOT]]) parity(%[[LAP]]) ->
// CHECK-NEXT:        tle.release %kv[%[[I]] : index] reader "consumer" slot(%[[SLOT]]){{$}}
// CHECK-NEXT:        %[[LAP2:.*]] = arith.xori %[[LAP]], %[[TRUE]] : i1
// CHECK-NEXT:        scf.yield %[[SLOT]], %[[LAP2]] : index, i1
// CHECK-NEXT:      }
// CHECK:         partition "producer" warps(1) {
// CHECK-NEXT:      %{{.*}}:2 = scf.for %[[I:.*]] = %[[C0]] to %{{.*}} step %{{[^ ]+}}
// CHECK-SAME:          iter_args(%[[SLOT:.*]] = %[[C0]], %[[LAP:.*]] = %[[FALSE]]) -> (index, i1) {
// CHECK-NEXT:        %[[FREE:.*]] = arith.xori %[[LAP]], %[[TRUE]] : i1
// CHECK-NEXT:        tle.acquire %kv[%[[I]] : index] slot(%[[SLOT]]) parity(%[[FREE]]) ->
// CHECK-NEXT:        tle.commit %kv[%[[I]] : index] slot(%[[SLOT]]){{$}}
// CHECK-NEXT:        %[[LAP2:.*]] = arith.xori %[[LAP]], %[[TRUE]] : i1
// CHECK-NEXT:        scf.yield %[[SLOT]], %[[LAP2]] : index, i1
// CHECK-NEXT:      }

func.func @capacity1(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = tle.shared_alloc : memref<1x64xf32, 3>
  %kv = tle.pipe "kv" capacity 1
      fields(x = %buf : memref<1x64xf32, 3>) readers(consumer)
  tle.warp_specialize
  default "consumer" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.wait %kv[%i : index] reader "consumer" -> memref<64xf32, 3>
      tle.release %kv[%i : index] reader "consumer"
    }
    tle.warp_yield
  }
  partition "producer" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.acquire %kv[%i : index] -> memref<64xf32, 3>
      tle.commit %kv[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// Capacity 3 from a lower bound only known at run time: the first phase is
// divided once, before the loop.

// CHECK-LABEL: func.func @capacity3(
// CHECK-SAME:      %[[LB:.*]]: index, %[[N:.*]]: index)
// CHECK-DAG:       %[[TRUE:.*]] = arith.constant true
// CHECK-DAG:       %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:       %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:       %[[C3:.*]] = arith.constant 3 : index
// CHECK:         default "consumer" warps(4) {
// CHECK-NEXT:      %[[SLOT0:.*]] = arith.remui %[[LB]], %[[C3]] : index
// CHECK-NEXT:      %[[LAPS0:.*]] = arith.divui %[[LB]], %[[C3]] : index
// CHECK-NEXT:      %[[BIT0:.*]] = arith.andi %[[LAPS0]], %[[C1]] : index
// CHECK-NEXT:      %[[LAP0:.*]] = arith.cmpi ne, %[[BIT0]], %[[C0]] : index
// CHECK-NEXT:      %{{.*}}:2 = scf.for %[[I:.*]] = %[[LB]] to %[[N]] step %[[C1]]
// CHECK-SAME:          iter_args(%[[SLOT:.*]] = %[[SLOT0]], %[[LAP:.*]] = %[[LAP0]]) -> (index, i1) {
// CHECK-NEXT:        tle.wait %kv[%[[I]] : index] reader "consumer" slot(%[[SLOT]]) parity(%[[LAP]]) ->
// CHECK-NEXT:        tle.release %kv[%[[I]] : index] reader "consumer" slot(%[[SLOT]]){{$}}
// CHECK-NEXT:        %[[NEXT:.*]] = arith.addi %[[SLOT]], %[[C1]] : index
// CHECK-NEXT:        %[[WRAP:.*]] = arith.cmpi uge, %[[NEXT]], %[[C3]] : index
// CHECK-NEXT:        %[[BACK:.*]] = arith.subi %[[NEXT]], %[[C3]] : index
// CHECK-NEXT:        %[[SLOT2:.*]] = arith.select %[[WRAP]], %[[BACK]], %[[NEXT]] : index
// CHECK-NEXT:        %[[LAP2:.*]] = arith.xori %[[LAP]], %[[WRAP]] : i1
// CHECK-NEXT:        scf.yield %[[SLOT2]], %[[LAP2]] : index, i1
// CHECK-NEXT:      }
// CHECK:         partition "producer" warps(1) {
// CHECK-NEXT:      %[[SLOT0:.*]] = arith.remui %[[LB]], %[[C3]] : index
// CHECK-NEXT:      %[[LAPS0:.*]] = arith.divui %[[LB]], %[[C3]] : index
// CHECK-NEXT:      %[[BIT0:.*]] = arith.andi %[[LAPS0]], %[[C1]] : index
// CHECK-NEXT:      %[[LAP0:.*]] = arith.cmpi ne, %[[BIT0]], %[[C0]] : index
// CHECK-NEXT:      %{{.*}}:2 = scf.for %[[I:.*]] = %[[LB]] to %[[N]] step %[[C1]]
// CHECK-SAME:          iter_args(%[[SLOT:.*]] = %[[SLOT0]], %[[LAP:.*]] = %[[LAP0]]) -> (index, i1) {
// CHECK-NEXT:        %[[FREE:.*]] = arith.xori %[[LAP]], %[[TRUE]] : i1
// CHECK-NEXT:        tle.acquire %kv[%[[I]] : index] slot(%[[SLOT]]) parity(%[[FREE]]) ->
// CHECK-NEXT:        tle.commit %kv[%[[I]] : index] slot(%[[SLOT]]){{$}}
// CHECK-NEXT:        %[[NEXT:.*]] = arith.addi %[[SLOT]], %[[C1]] : index
// CHECK-NEXT:        %[[WRAP:.*]] = arith.cmpi uge, %[[NEXT]], %[[C3]] : index
// CHECK-NEXT:        %[[BACK:.*]] = arith.subi %[[NEXT]], %[[C3]] : index
// CHECK-NEXT:        %[[SLOT2:.*]] = arith.select %[[WRAP]], %[[BACK]], %[[NEXT]] : index
// CHECK-NEXT:        %[[LAP2:.*]] = arith.xori %[[LAP]], %[[WRAP]] : i1
// CHECK-NEXT:        scf.yield %[[SLOT2]], %[[LAP2]] : index, i1
// CHECK-NEXT:      }

func.func @capacity3(%lb: index, %n: index) {
  %c1 = arith.constant 1 : index
  %buf = tle.shared_alloc : memref<3x64xf32, 3>
  %kv = tle.pipe "kv" capacity 3
      fields(x = %buf : memref<3x64xf32, 3>) readers(consumer)
  tle.warp_specialize
  default "consumer" warps(4) {
    scf.for %i = %lb to %n step %c1 {
      %v = tle.wait %kv[%i : index] reader "consumer" -> memref<64xf32, 3>
      tle.release %kv[%i : index] reader "consumer"
    }
    tle.warp_yield
  }
  partition "producer" warps(1) {
    scf.for %i = %lb to %n step %c1 {
      %v = tle.acquire %kv[%i : index] -> memref<64xf32, 3>
      tle.commit %kv[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// Step 2 over capacity 3 moves two slots and wraps into the next lap; step 3
// over capacity 2 moves one slot plus a whole lap, so the parity flips unless
// the slot wraps.

// CHECK-LABEL: func.func @constant_steps(
// CHECK-DAG:       %[[TRUE:.*]] = arith.constant true
// CHECK-DAG:       %[[FALSE:.*]] = arith.constant false
// CHECK-DAG:       %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:       %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:       %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:       %[[C3:.*]] = arith.constant 3 : index
// CHECK:           %{{.*}}:2 = scf.for %{{.*}} = %[[C0]] to %{{.*}} step %[[C2]]
// CHECK-SAME:          iter_args(%[[SLOT:.*]] = %[[C0]], %[[LAP:.*]] = %[[FALSE]]) -> (index, i1) {
// CHECK:             tle.release %p3[%{{.*}} : index] reader "consumer" slot(%[[SLOT]]){{$}}
// CHECK-NEXT:        %[[NEXT:.*]] = arith.addi %[[SLOT]], %[[C2]] : index
// CHECK-NEXT:        %[[WRAP:.*]] = arith.cmpi uge, %[[NEXT]], %[[C3]] : index
// CHECK-NEXT:        %[[BACK:.*]] = arith.subi %[[NEXT]], %[[C3]] : index
// CHECK-NEXT:        %[[SLOT2:.*]] = arith.select %[[WRAP]], %[[BACK]], %[[NEXT]] : index
// CHECK-NEXT:        %[[LAP2:.*]] = arith.xori %[[LAP]], %[[WRAP]] : i1
// CHECK-NEXT:        scf.yield %[[SLOT2]], %[[LAP2]] : index, i1
// CHECK-NEXT:      }
// CHECK-NEXT:      %{{.*}}:2 = scf.for %{{.*}} = %[[C0]] to %{{.*}} step %[[C3]]
// CHECK-SAME:          iter_args(%[[SLOT:.*]] = %[[C0]], %[[LAP:.*]] = %[[FALSE]]) -> (index, i1) {
// CHECK:             tle.release %p2[%{{.*}} : index] reader "consumer" slot(%[[SLOT]]){{$}}
// CHECK-NEXT:        %[[NEXT:.*]] = arith.addi %[[SLOT]], %[[C1]] : index
// CHECK-NEXT:        %[[WRAP:.*]] = arith.cmpi uge, %[[NEXT]], %[[C2]] : index
// CHECK-NEXT:        %[[BACK:.*]] = arith.subi %[[NEXT]], %[[C2]] : index
// CHECK-NEXT:        %[[SLOT2:.*]] = arith.select %[[WRAP]], %[[BACK]], %[[NEXT]] : index
// CHECK-NEXT:        %[[STAY:.*]] = arith.xori %[[WRAP]], %[[TRUE]] : i1
// CHECK-NEXT:        %[[LAP2:.*]] = arith.xori %[[LAP]], %[[STAY]] : i1
// CHECK-NEXT:        scf.yield %[[SLOT2]], %[[LAP2]] : index, i1
// CHECK-NEXT:      }

func.func @constant_steps(%n: index) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %b3 = tle.shared_alloc : memref<3x64xf32, 3>
  %b2 = tle.shared_alloc : memref<2x64xf32, 3>
  %p3 = tle.pipe "p3" capacity 3
      fields(x = %b3 : memref<3x64xf32, 3>) readers(consumer)
  %p2 = tle.pipe "p2" capacity 2
      fields(x = %b2 : memref<2x64xf32, 3>) readers(consumer)
  tle.warp_specialize
  default "consumer" warps(4) {
    scf.for %i = %c0 to %n step %c2 {
      %v = tle.wait %p3[%i : index] reader "consumer" -> memref<64xf32, 3>
      tle.release %p3[%i : index] reader "consumer"
    }
    scf.for %i = %c0 to %n step %c3 {
      %v = tle.wait %p2[%i : index] reader "consumer" -> memref<64xf32, 3>
      tle.release %p2[%i : index] reader "consumer"
    }
    tle.warp_yield
  }
  partition "producer" warps(1) {
    tle.warp_return
  }
  return
}

// -----

// A one_shot pipe has the single slot 0, filled in lap 0.

// CHECK-LABEL: func.func @one_shot(
// CHECK-DAG:       %[[FALSE:.*]] = arith.constant false
// CHECK-DAG:       %[[C0:.*]] = arith.constant 0 : index
// CHECK:         default "consumer" warps(4) {
// CHECK-NEXT:      tle.wait %q reader "consumer" slot(%[[C0]]) parity(%[[FALSE]]) ->
// CHECK:         partition "producer" warps(1) {
// CHECK-NEXT:      tle.commit %q slot(%[[C0]]){{$}}

func.func @one_shot() {
  %buf = tle.shared_alloc : memref<1x64xf32, 3>
  %q = tle.pipe "q" capacity 1 one_shot
      fields(q = %buf : memref<1x64xf32, 3>) readers(consumer)
  tle.warp_specialize
  default "consumer" warps(4) {
    %v = tle.wait %q reader "consumer" -> memref<64xf32, 3>
    tle.warp_yield
  }
  partition "producer" warps(1) {
    tle.commit %q
    tle.warp_return
  }
  return
}

// -----

// An i32 iteration from a function argument is divided where it is used; the
// release reuses the slot its wait computed.

// CHECK-LABEL: func.func @i32_argument(
// CHECK-SAME:      %[[J:.*]]: i32)
// CHECK-DAG:       %[[TRUE:.*]] = arith.constant true
// CHECK-DAG:       %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:       %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:       %[[C3:.*]] = arith.constant 3 : index
// CHECK:         default "consumer" warps(4) {
// CHECK-NEXT:      %[[IDX:.*]] = arith.index_castui %[[J]] : i32 to index
// CHECK-NEXT:      %[[SLOT:.*]] = arith.remui %[[IDX]], %[[C3]] : index
// CHECK-NEXT:      %[[LAPS:.*]] = arith.divui %[[IDX]], %[[C3]] : index
// CHECK-NEXT:      %[[BIT:.*]] = arith.andi %[[LAPS]], %[[C1]] : index
// CHECK-NEXT:      %[[LAP:.*]] = arith.cmpi ne, %[[BIT]], %[[C0]] : index
// CHECK-NEXT:      tle.wait %kv[%[[J]] : i32] reader "consumer" slot(%[[SLOT]]) parity(%[[LAP]]) ->
// CHECK-NEXT:      tle.release %kv[%[[J]] : i32] reader "consumer" slot(%[[SLOT]]){{$}}
// CHECK-NEXT:      tle.warp_yield
// CHECK:         partition "producer" warps(1) {
// CHECK-NEXT:      %[[IDX:.*]] = arith.index_castui %[[J]] : i32 to index
// CHECK-NEXT:      %[[SLOT:.*]] = arith.remui %[[IDX]], %[[C3]] : index
// CHECK-NEXT:      %[[LAPS:.*]] = arith.divui %[[IDX]], %[[C3]] : index
// CHECK-NEXT:      %[[BIT:.*]] = arith.andi %[[LAPS]], %[[C1]] : index
// CHECK-NEXT:      %[[LAP:.*]] = arith.cmpi ne, %[[BIT]], %[[C0]] : index
// CHECK-NEXT:      %[[FREE:.*]] = arith.xori %[[LAP]], %[[TRUE]] : i1
// CHECK-NEXT:      tle.acquire %kv[%[[J]] : i32] slot(%[[SLOT]]) parity(%[[FREE]]) ->
// CHECK-NEXT:      tle.commit %kv[%[[J]] : i32] slot(%[[SLOT]]){{$}}
// CHECK-NEXT:      tle.warp_return

func.func @i32_argument(%j: i32) {
  %buf = tle.shared_alloc : memref<3x64xf32, 3>
  %kv = tle.pipe "kv" capacity 3
      fields(x = %buf : memref<3x64xf32, 3>) readers(consumer)
  tle.warp_specialize
  default "consumer" warps(4) {
    %v = tle.wait %kv[%j : i32] reader "consumer" -> memref<64xf32, 3>
    tle.release %kv[%j : i32] reader "consumer"
    tle.warp_yield
  }
  partition "producer" warps(1) {
    %v = tle.acquire %kv[%j : i32] -> memref<64xf32, 3>
    tle.commit %kv[%j : i32]
    tle.warp_return
  }
  return
}

// -----

// Constant iterations fold to constants. In a ring of 3, iteration 5 is slot 2
// of lap 1: the wait waits for parity 1. Iteration 4 (an i32) is slot 1 of
// lap 1: the acquire waits for the inverse, parity 0.

// CHECK-LABEL: func.func @constant_iteration(
// CHECK-DAG:       %[[TRUE:.*]] = arith.constant true
// CHECK-DAG:       %[[FALSE:.*]] = arith.constant false
// CHECK-DAG:       %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:       %[[C2:.*]] = arith.constant 2 : index
// CHECK:         default "consumer" warps(4) {
// CHECK-NEXT:      tle.wait %kv[%{{.*}} : index] reader "consumer" slot(%[[C2]]) parity(%[[TRUE]]) ->
// CHECK-NEXT:      tle.release %kv[%{{.*}} : index] reader "consumer" slot(%[[C2]]){{$}}
// CHECK-NEXT:      tle.warp_yield
// CHECK:         partition "producer" warps(1) {
// CHECK-NEXT:      tle.acquire %kv[%{{.*}} : i32] slot(%[[C1]]) parity(%[[FALSE]]) ->
// CHECK-NEXT:      tle.commit %kv[%{{.*}} : i32] slot(%[[C1]]){{$}}
// CHECK-NEXT:      tle.warp_return

func.func @constant_iteration() {
  %c5 = arith.constant 5 : index
  %c4 = arith.constant 4 : i32
  %buf = tle.shared_alloc : memref<3x64xf32, 3>
  %kv = tle.pipe "kv" capacity 3
      fields(x = %buf : memref<3x64xf32, 3>) readers(consumer)
  tle.warp_specialize
  default "consumer" warps(4) {
    %v = tle.wait %kv[%c5 : index] reader "consumer" -> memref<64xf32, 3>
    tle.release %kv[%c5 : index] reader "consumer"
    tle.warp_yield
  }
  partition "producer" warps(1) {
    %v = tle.acquire %kv[%c4 : i32] -> memref<64xf32, 3>
    tle.commit %kv[%c4 : i32]
    tle.warp_return
  }
  return
}

// -----

// Ops nested in an scf.if of the loop use the loop's carried phase.

// CHECK-LABEL: func.func @nested_in_if(
// CHECK-SAME:      %[[N:.*]]: index, %[[COND:.*]]: i1)
// CHECK-DAG:       %[[TRUE:.*]] = arith.constant true
// CHECK-DAG:       %[[FALSE:.*]] = arith.constant false
// CHECK-DAG:       %[[C0:.*]] = arith.constant 0 : index
// CHECK:         default "consumer" warps(4) {
// CHECK-NEXT:      %{{.*}}:2 = scf.for %[[I:.*]] = %[[C0]] to %[[N]] step %{{[^ ]+}}
// CHECK-SAME:          iter_args(%[[SLOT:.*]] = %[[C0]], %[[LAP:.*]] = %[[FALSE]]) -> (index, i1) {
// CHECK-NEXT:        tle.wait %kv[%[[I]] : index] reader "consumer" slot(%[[SLOT]]) parity(%[[LAP]]) ->
// CHECK-NEXT:        scf.if %[[COND]] {
// CHECK-NEXT:          tle.release %kv[%[[I]] : index] reader "consumer" slot(%[[SLOT]]){{$}}
// CHECK-NEXT:        } else {
// CHECK-NEXT:          tle.release %kv[%[[I]] : index] reader "consumer" slot(%[[SLOT]]){{$}}
// CHECK-NEXT:        }
// CHECK:             scf.yield
// CHECK:         partition "producer" warps(1) {
// CHECK-NEXT:      %{{.*}}:2 = scf.for %[[I:.*]] = %[[C0]] to %[[N]] step %{{[^ ]+}}
// CHECK-SAME:          iter_args(%[[SLOT:.*]] = %[[C0]], %[[LAP:.*]] = %[[FALSE]]) -> (index, i1) {
// CHECK-NEXT:        %[[FREE:.*]] = arith.xori %[[LAP]], %[[TRUE]] : i1
// CHECK-NEXT:        scf.if %[[COND]] {
// CHECK-NEXT:          tle.acquire %kv[%[[I]] : index] slot(%[[SLOT]]) parity(%[[FREE]]) ->
// CHECK-NEXT:          tle.commit %kv[%[[I]] : index] slot(%[[SLOT]]){{$}}
// CHECK-NEXT:        }
// CHECK:             scf.yield

func.func @nested_in_if(%n: index, %cond: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = tle.shared_alloc : memref<2x64xf32, 3>
  %kv = tle.pipe "kv" capacity 2
      fields(x = %buf : memref<2x64xf32, 3>) readers(consumer)
  tle.warp_specialize
  default "consumer" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.wait %kv[%i : index] reader "consumer" -> memref<64xf32, 3>
      scf.if %cond {
        tle.release %kv[%i : index] reader "consumer"
      } else {
        tle.release %kv[%i : index] reader "consumer"
      }
    }
    tle.warp_yield
  }
  partition "producer" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      scf.if %cond {
        %v = tle.acquire %kv[%i : index] -> memref<64xf32, 3>
        tle.commit %kv[%i : index]
      }
    }
    tle.warp_return
  }
  return
}

// -----

// Pipes of different capacity in one loop get a pair each; pipes of the same
// capacity share one.

// CHECK-LABEL: func.func @two_capacities(
// CHECK-DAG:       %[[TRUE:.*]] = arith.constant true
// CHECK-DAG:       %[[FALSE:.*]] = arith.constant false
// CHECK-DAG:       %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:       %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:       %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:       %[[C3:.*]] = arith.constant 3 : index
// CHECK:         partition "producer" warps(1) {
// CHECK-NEXT:      %{{.*}}:4 = scf.for %[[I:.*]] = %[[C0]] to %{{.*}} step %[[C1]]
// CHECK-SAME:          iter_args(%[[SLOT2:.*]] = %[[C0]], %[[LAP2:.*]] = %[[FALSE]], %[[SLOT3:.*]] = %[[C0]], %[[LAP3:.*]] = %[[FALSE]])
// CHECK-SAME:          -> (index, i1, index, i1) {
// CHECK-NEXT:        %[[FREE2:.*]] = arith.xori %[[LAP2]], %[[TRUE]] : i1
// CHECK-NEXT:        %[[FREE3:.*]] = arith.xori %[[LAP3]], %[[TRUE]] : i1
// CHECK-NEXT:        tle.acquire %k[%[[I]] : index] slot(%[[SLOT2]]) parity(%[[FREE2]]) ->
// CHECK-NEXT:        tle.commit %k[%[[I]] : index] slot(%[[SLOT2]]){{$}}
// CHECK-NEXT:        tle.acquire %v[%[[I]] : index] slot(%[[SLOT3]]) parity(%[[FREE3]]) ->
// CHECK-NEXT:        tle.commit %v[%[[I]] : index] slot(%[[SLOT3]]){{$}}
// CHECK-NEXT:        tle.acquire %s[%[[I]] : index] slot(%[[SLOT2]]) parity(%[[FREE2]]) ->
// CHECK-NEXT:        tle.commit %s[%[[I]] : index] slot(%[[SLOT2]]){{$}}
// CHECK-NEXT:        %[[NEXT2:.*]] = arith.addi %[[SLOT2]], %[[C1]] : index
// CHECK-NEXT:        %[[WRAP2:.*]] = arith.cmpi uge, %[[NEXT2]], %[[C2]] : index
// CHECK-NEXT:        %[[BACK2:.*]] = arith.subi %[[NEXT2]], %[[C2]] : index
// CHECK-NEXT:        %[[SLOT2N:.*]] = arith.select %[[WRAP2]], %[[BACK2]], %[[NEXT2]] : index
// CHECK-NEXT:        %[[LAP2N:.*]] = arith.xori %[[LAP2]], %[[WRAP2]] : i1
// CHECK-NEXT:        %[[NEXT3:.*]] = arith.addi %[[SLOT3]], %[[C1]] : index
// CHECK-NEXT:        %[[WRAP3:.*]] = arith.cmpi uge, %[[NEXT3]], %[[C3]] : index
// CHECK-NEXT:        %[[BACK3:.*]] = arith.subi %[[NEXT3]], %[[C3]] : index
// CHECK-NEXT:        %[[SLOT3N:.*]] = arith.select %[[WRAP3]], %[[BACK3]], %[[NEXT3]] : index
// CHECK-NEXT:        %[[LAP3N:.*]] = arith.xori %[[LAP3]], %[[WRAP3]] : i1
// CHECK-NEXT:        scf.yield %[[SLOT2N]], %[[LAP2N]], %[[SLOT3N]], %[[LAP3N]] : index, i1, index, i1
// CHECK-NEXT:      }

func.func @two_capacities(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ka = tle.shared_alloc : memref<2x64xf32, 3>
  %kb = tle.shared_alloc : memref<2x64xf32, 3>
  %vb = tle.shared_alloc : memref<3x64xf32, 3>
  %k = tle.pipe "k" capacity 2
      fields(x = %ka : memref<2x64xf32, 3>) readers(consumer)
  %s = tle.pipe "s" capacity 2
      fields(x = %kb : memref<2x64xf32, 3>) readers(consumer)
  %v = tle.pipe "v" capacity 3
      fields(x = %vb : memref<3x64xf32, 3>) readers(consumer)
  tle.warp_specialize
  default "consumer" warps(4) {
    tle.warp_yield
  }
  partition "producer" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %kv = tle.acquire %k[%i : index] -> memref<64xf32, 3>
      tle.commit %k[%i : index]
      %vv = tle.acquire %v[%i : index] -> memref<64xf32, 3>
      tle.commit %v[%i : index]
      %sv = tle.acquire %s[%i : index] -> memref<64xf32, 3>
      tle.commit %s[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// The inner loop's induction variable is the iteration: the inner loop
// carries the phase, and it restarts from the inner lower bound.

// CHECK-LABEL: func.func @nested_loops(
// CHECK-SAME:      %[[M:.*]]: index, %[[N:.*]]: index)
// CHECK-DAG:       %[[FALSE:.*]] = arith.constant false
// CHECK-DAG:       %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:       %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:       %[[C2:.*]] = arith.constant 2 : index
// CHECK:         default "consumer" warps(4) {
// CHECK-NEXT:      scf.for %{{.*}} = %[[C0]] to %[[M]] step %[[C1]] {
// CHECK-NEXT:        %{{.*}}:2 = scf.for %[[I:.*]] = %[[C0]] to %[[N]] step %[[C1]]
// CHECK-SAME:            iter_args(%[[SLOT:.*]] = %[[C0]], %[[LAP:.*]] = %[[FALSE]]) -> (index, i1) {
// CHECK-NEXT:          tle.wait %kv[%[[I]] : index] reader "consumer" slot(%[[SLOT]]) parity(%[[LAP]]) ->
// CHECK-NEXT:          tle.release %kv[%[[I]] : index] reader "consumer" slot(%[[SLOT]]){{$}}
// CHECK-NEXT:          %[[NEXT:.*]] = arith.addi %[[SLOT]], %[[C1]] : index
// CHECK-NEXT:          %[[WRAP:.*]] = arith.cmpi uge, %[[NEXT]], %[[C2]] : index
// CHECK-NEXT:          %[[BACK:.*]] = arith.subi %[[NEXT]], %[[C2]] : index
// CHECK-NEXT:          %[[SLOT2:.*]] = arith.select %[[WRAP]], %[[BACK]], %[[NEXT]] : index
// CHECK-NEXT:          %[[LAP2:.*]] = arith.xori %[[LAP]], %[[WRAP]] : i1
// CHECK-NEXT:          scf.yield %[[SLOT2]], %[[LAP2]] : index, i1
// CHECK-NEXT:        }
// CHECK-NEXT:      }

func.func @nested_loops(%m: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = tle.shared_alloc : memref<2x64xf32, 3>
  %kv = tle.pipe "kv" capacity 2
      fields(x = %buf : memref<2x64xf32, 3>) readers(consumer)
  tle.warp_specialize
  default "consumer" warps(4) {
    scf.for %o = %c0 to %m step %c1 {
      scf.for %i = %c0 to %n step %c1 {
        %v = tle.wait %kv[%i : index] reader "consumer" -> memref<64xf32, 3>
        tle.release %kv[%i : index] reader "consumer"
      }
    }
    tle.warp_yield
  }
  partition "producer" warps(1) {
    tle.warp_return
  }
  return
}

// -----

// The loop's own iter_args stay first; the phase is appended.

// CHECK-LABEL: func.func @existing_iter_args(
// CHECK-DAG:       %[[FALSE:.*]] = arith.constant false
// CHECK-DAG:       %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:       %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         default "consumer" warps(4) {
// CHECK-NEXT:      %[[R:.*]]:3 = scf.for %[[I:.*]] = %[[C0]] to %{{.*}} step %{{[^ ]+}}
// CHECK-SAME:          iter_args(%[[ACC:.*]] = %[[ZERO]], %[[SLOT:.*]] = %[[C0]], %[[LAP:.*]] = %[[FALSE]]) -> (f32, index, i1) {
// CHECK-NEXT:        %[[V:.*]] = tle.wait %kv[%[[I]] : index] reader "consumer" slot(%[[SLOT]]) parity(%[[LAP]]) ->
// CHECK-NEXT:        %[[X:.*]] = memref.load %[[V]][%[[C0]]]
// CHECK-NEXT:        tle.release %kv[%[[I]] : index] reader "consumer" slot(%[[SLOT]]){{$}}
// CHECK-NEXT:        %[[SUM:.*]] = arith.addf %[[ACC]], %[[X]] : f32
// CHECK:             %[[SLOT2:.*]] = arith.select
// CHECK-NEXT:        %[[LAP2:.*]] = arith.xori %[[LAP]], %{{.*}} : i1
// CHECK-NEXT:        scf.yield %[[SUM]], %[[SLOT2]], %[[LAP2]] : f32, index, i1
// CHECK-NEXT:      }
// CHECK-NEXT:      tle.warp_yield %[[R]]#0 : f32

func.func @existing_iter_args(%n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %buf = tle.shared_alloc : memref<2x64xf32, 3>
  %kv = tle.pipe "kv" capacity 2
      fields(x = %buf : memref<2x64xf32, 3>) readers(consumer)
  %r = tle.warp_specialize -> (f32)
  default "consumer" warps(4) {
    %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = tle.wait %kv[%i : index] reader "consumer" -> memref<64xf32, 3>
      %x = memref.load %v[%c0] : memref<64xf32, 3>
      tle.release %kv[%i : index] reader "consumer"
      %next = arith.addf %acc, %x : f32
      scf.yield %next : f32
    }
    tle.warp_yield %sum : f32
  }
  partition "producer" warps(1) {
    tle.warp_return
  }
  return %r : f32
}

// -----

// Iterations the pass cannot follow are divided where they are used: the
// induction variable of a loop with a run-time step, and an iter_args value.

// CHECK-LABEL: func.func @computed_in_loops(
// CHECK-SAME:      %[[N:.*]]: index, %[[STEP:.*]]: index)
// CHECK-DAG:       %[[TRUE:.*]] = arith.constant true
// CHECK-DAG:       %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:       %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:       %[[C2:.*]] = arith.constant 2 : index
// CHECK:         default "consumer" warps(4) {
// CHECK-NEXT:      %{{.*}} = scf.for %{{.*}} = %[[C0]] to %[[N]] step %[[C1]] iter_args(%[[IT:.*]] = %[[C0]]) -> (index) {
// CHECK-NEXT:        %[[SLOT:.*]] = arith.remui %[[IT]], %[[C2]] : index
// CHECK-NEXT:        %[[LAPS:.*]] = arith.divui %[[IT]], %[[C2]] : index
// CHECK-NEXT:        %[[BIT:.*]] = arith.andi %[[LAPS]], %[[C1]] : index
// CHECK-NEXT:        %[[LAP:.*]] = arith.cmpi ne, %[[BIT]], %[[C0]] : index
// CHECK-NEXT:        tle.wait %kv[%[[IT]] : index] reader "consumer" slot(%[[SLOT]]) parity(%[[LAP]]) ->
// CHECK-NEXT:        tle.release %kv[%[[IT]] : index] reader "consumer" slot(%[[SLOT]]){{$}}
// CHECK-NEXT:        %[[NEXT:.*]] = arith.addi %[[IT]], %[[C1]] : index
// CHECK-NEXT:        scf.yield %[[NEXT]] : index
// CHECK-NEXT:      }
// CHECK:         partition "producer" warps(1) {
// CHECK-NEXT:      scf.for %[[I:.*]] = %[[C0]] to %[[N]] step %[[STEP]] {
// CHECK-NEXT:        %[[SLOT:.*]] = arith.remui %[[I]], %[[C2]] : index
// CHECK-NEXT:        %[[LAPS:.*]] = arith.divui %[[I]], %[[C2]] : index
// CHECK-NEXT:        %[[BIT:.*]] = arith.andi %[[LAPS]], %[[C1]] : index
// CHECK-NEXT:        %[[LAP:.*]] = arith.cmpi ne, %[[BIT]], %[[C0]] : index
// CHECK-NEXT:        %[[FREE:.*]] = arith.xori %[[LAP]], %[[TRUE]] : i1
// CHECK-NEXT:        tle.acquire %kv[%[[I]] : index] slot(%[[SLOT]]) parity(%[[FREE]]) ->
// CHECK-NEXT:        tle.commit %kv[%[[I]] : index] slot(%[[SLOT]]){{$}}
// CHECK-NEXT:      }

func.func @computed_in_loops(%n: index, %step: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = tle.shared_alloc : memref<2x64xf32, 3>
  %kv = tle.pipe "kv" capacity 2
      fields(x = %buf : memref<2x64xf32, 3>) readers(consumer)
  tle.warp_specialize
  default "consumer" warps(4) {
    %last = scf.for %i = %c0 to %n step %c1 iter_args(%it = %c0) -> (index) {
      %v = tle.wait %kv[%it : index] reader "consumer" -> memref<64xf32, 3>
      tle.release %kv[%it : index] reader "consumer"
      %next = arith.addi %it, %c1 : index
      scf.yield %next : index
    }
    tle.warp_yield
  }
  partition "producer" warps(1) {
    scf.for %i = %c0 to %n step %step {
      %v = tle.acquire %kv[%i : index] -> memref<64xf32, 3>
      tle.commit %kv[%i : index]
    }
    tle.warp_return
  }
  return
}

// -----

// An i32 loop carries an index slot; its lower bound is cast once, before
// the loop.

// CHECK-LABEL: func.func @i32_loop(
// CHECK-SAME:      %[[LB:.*]]: i32, %[[N:.*]]: i32)
// CHECK-DAG:       %[[TRUE:.*]] = arith.constant true
// CHECK-DAG:       %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:       %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:       %[[C2:.*]] = arith.constant 2 : index
// CHECK:         partition "producer" warps(1) {
// CHECK-NEXT:      %[[START:.*]] = arith.index_castui %[[LB]] : i32 to index
// CHECK-NEXT:      %[[SLOT0:.*]] = arith.remui %[[START]], %[[C2]] : index
// CHECK-NEXT:      %[[LAPS0:.*]] = arith.divui %[[START]], %[[C2]] : index
// CHECK-NEXT:      %[[BIT0:.*]] = arith.andi %[[LAPS0]], %[[C1]] : index
// CHECK-NEXT:      %[[LAP0:.*]] = arith.cmpi ne, %[[BIT0]], %[[C0]] : index
// CHECK-NEXT:      %{{.*}}:2 = scf.for %[[I:.*]] = %[[LB]] to %[[N]] step %{{[^ ]+}}
// CHECK-SAME:          iter_args(%[[SLOT:.*]] = %[[SLOT0]], %[[LAP:.*]] = %[[LAP0]]) -> (index, i1) : i32 {
// CHECK-NEXT:        %[[FREE:.*]] = arith.xori %[[LAP]], %[[TRUE]] : i1
// CHECK-NEXT:        tle.acquire %kv[%[[I]] : i32] slot(%[[SLOT]]) parity(%[[FREE]]) ->
// CHECK-NEXT:        tle.commit %kv[%[[I]] : i32] slot(%[[SLOT]]){{$}}
// CHECK-NEXT:        %[[NEXT:.*]] = arith.addi %[[SLOT]], %[[C1]] : index
// CHECK:             scf.yield

func.func @i32_loop(%lb: i32, %n: i32) {
  %c1 = arith.constant 1 : i32
  %buf = tle.shared_alloc : memref<2x64xf32, 3>
  %kv = tle.pipe "kv" capacity 2
      fields(x = %buf : memref<2x64xf32, 3>) readers(consumer)
  tle.warp_specialize
  default "consumer" warps(4) {
    tle.warp_yield
  }
  partition "producer" warps(1) {
    scf.for %i = %lb to %n step %c1 : i32 {
      %v = tle.acquire %kv[%i : i32] -> memref<64xf32, 3>
      tle.commit %kv[%i : i32]
    }
    tle.warp_return
  }
  return
}

// -----

// A loop that waits one iteration ahead (a carried window): the phase of
// %i + 1 is the carried phase of %i advanced by one slot at the start of
// the body, with no division; the release of %i uses the carried one.

// CHECK-LABEL: func.func @wait_ahead(
// CHECK-DAG:       %[[FALSE:.*]] = arith.constant false
// CHECK-DAG:       %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:       %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:       %[[C2:.*]] = arith.constant 2 : index
// CHECK:         tle.wait %kv[%[[C0]] : index] reader "r" slot(%[[C0]]) parity(%[[FALSE]])
// CHECK:         scf.for %[[I:.*]] = %[[C0]] to %{{.*}} step %[[C1]]
// CHECK-SAME:        iter_args(%{{.*}} = %{{.*}}, %[[SLOT:.*]] = %[[C0]], %[[LAP:.*]] = %[[FALSE]])
// CHECK-NEXT:      %[[NEXT:.*]] = arith.addi %[[SLOT]], %[[C1]] : index
// CHECK-NEXT:      %[[WRAP:.*]] = arith.cmpi uge, %[[NEXT]], %[[C2]] : index
// CHECK-NEXT:      %[[BACK:.*]] = arith.subi %[[NEXT]], %[[C2]] : index
// CHECK-NEXT:      %[[SLOT1:.*]] = arith.select %[[WRAP]], %[[BACK]], %[[NEXT]] : index
// CHECK-NEXT:      %[[LAP1:.*]] = arith.xori %[[LAP]], %[[WRAP]] : i1
// CHECK-NEXT:      %[[IT:.*]] = arith.addi %[[I]], %[[C1]] : index
// CHECK-NEXT:      tle.wait %kv[%[[IT]] : index] reader "r" slot(%[[SLOT1]]) parity(%[[LAP1]])
// CHECK-NEXT:      tle.release %kv[%[[I]] : index] reader "r" slot(%[[SLOT]]){{$}}
// CHECK:         %[[LASTSLOT:.*]] = arith.remui %[[LAST:.*]], %[[C2]] : index
// CHECK-NEXT:    tle.release %kv[%[[LAST]] : index] reader "r" slot(%[[LASTSLOT]]){{$}}

func.func @wait_ahead(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %nonempty = arith.cmpi sgt, %n, %c0 : index
    scf.if %nonempty {
      %first = tle.wait %p[%c0 : index] reader "r" -> memref<64xf32, 3>
      %last = arith.subi %n, %c1 : index
      %held = scf.for %i = %c0 to %last step %c1 iter_args(%cur = %first) -> memref<64xf32, 3> {
        %next = arith.addi %i, %c1 : index
        %v = tle.wait %p[%next : index] reader "r" -> memref<64xf32, 3>
        tle.release %p[%i : index] reader "r"
        scf.yield %v : memref<64xf32, 3>
      }
      tle.release %p[%last : index] reader "r"
    }
    tle.warp_yield
  }
  partition "w" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.acquire %p[%i : index] -> memref<64xf32, 3>
      tle.commit %p[%i : index]
    }
    tle.warp_return
  }
  return
}
