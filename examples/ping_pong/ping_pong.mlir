// RUN: tle-opt %s --tle-derive-sync --tle-sync-plan -o /dev/null | FileCheck %s --match-full-lines --strict-whitespace
// RUN: tle-opt %s --tle-derive-sync=strict-pipes=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=STRICT --allow-empty
// RUN: tle-opt %s --tle-to-llvm | FileCheck %s --check-prefix=LLVM
// RUN: tle-opt %s --tle-to-llvm | tle-translate --tle-to-ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin
// The protocol check proves the kernel: no warning under strict-pipes.
// STRICT-NOT: {{warning|error}}
//
// Two warp groups take turns on one shared accumulator, ordered by two turn
// tokens and nothing else: no pipe, no mbarrier, no dummy buffer.
//
// Each CTA sums 2n rows of 128 floats column by column. wg0 adds the even
// rows, wg1 the odd ones, into `acc` in shared memory; each hands the turn
// to the other after its row (turn01, turn10), and wg0 writes the sums once
// wg1's last row is in:
//
//   out[b, c] = sum of in[2nb + r, c] for r in 0 .. 2n - 1
//
// This is the shape of FlashAttention-3's ping-pong, where the two consumer
// warp groups take turns on the tensor cores; here the turn also orders
// their ordinary stores to `acc` (a named barrier orders the shared-memory
// accesses of the threads that meet at it).

// Tokens take the named barriers after the partitions'.
//      CHECK:sync plan for @ping_pong
// CHECK-NEXT:partitions: 2 warp groups, 256 threads, 63488 of 63488 registers
// CHECK-NEXT:  partition  warps  first warp  registers      named barrier
// CHECK-NEXT:  wg0        4      0           248 (derived)  1
// CHECK-NEXT:  wg1        4      4           248 (derived)  2
//      CHECK:tokens (one named barrier each: the signaler arrives, the waiter syncs):
// CHECK-NEXT:  token   named barrier  count  signals  awaits
// CHECK-NEXT:  turn01  3              256    wg0      wg1
// CHECK-NEXT:  turn10  4              256    wg1      wg0
// CHECK-NEXT:shared memory: 512 B of buffers + 0 B of barriers = 512 B (before alignment)

// LLVM-NOT: {{tle\.(token|signal|await)}}
// LLVM-DAG: llvm.call_intrinsic "llvm.nvvm.barrier.cta.arrive.aligned.count"
// LLVM-DAG: nvvm.barrier id = {{.*}} number_of_threads

// Each side arrives on the other's turn and syncs on its own, with the
// threads of both warp groups.
// PTX-DAG: bar.arrive {{.*}}3, 256;
// PTX-DAG: bar.sync {{.*}}4, 256;
// PTX-DAG: bar.sync {{.*}}3, 256;
// PTX-DAG: bar.arrive {{.*}}4, 256;

#smem = #gpu.address_space<workgroup>

func.func @ping_pong(%in: memref<?x128xf32>, %out: memref<?x128xf32>,
                     %n: index)
    attributes {tle.grid = "(rows(in) / (2 n), 1, 1): one CTA per 2n rows"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %b = gpu.block_id x
  %rows = arith.muli %n, %c2 : index
  %first_row = arith.muli %b, %rows : index
  %acc = tle.shared_alloc : memref<128xf32, #smem>
  %t01 = tle.token "turn01" from "wg0" to "wg1"
  %t10 = tle.token "turn10" from "wg1" to "wg0"

  tle.warp_specialize
  default "wg0" warps(4) {
    %t = gpu.thread_id x
    scf.for %i = %c0 to %n step %c1 {
      // wg0 starts; from then on it waits for wg1's row.
      %later = arith.cmpi ne, %i, %c0 : index
      %sum = scf.if %later -> f32 {
        tle.await %t10
        %s = memref.load %acc[%t] : memref<128xf32, #smem>
        scf.yield %s : f32
      } else {
        scf.yield %zero : f32
      }
      %two_i = arith.muli %i, %c2 : index
      %row = arith.addi %first_row, %two_i : index
      %x = memref.load %in[%row, %t] : memref<?x128xf32>
      %y = arith.addf %sum, %x : f32
      memref.store %y, %acc[%t] : memref<128xf32, #smem>
      tle.signal %t01
    }
    // wg1's last row.
    %any = arith.cmpi sgt, %n, %c0 : index
    %total = scf.if %any -> f32 {
      tle.await %t10
      %s = memref.load %acc[%t] : memref<128xf32, #smem>
      scf.yield %s : f32
    } else {
      scf.yield %zero : f32
    }
    memref.store %total, %out[%b, %t] : memref<?x128xf32>
    tle.warp_yield
  }
  partition "wg1" warps(4) {
    %t = gpu.thread_id x
    scf.for %i = %c0 to %n step %c1 {
      tle.await %t01
      %two_i = arith.muli %i, %c2 : index
      %even = arith.addi %first_row, %two_i : index
      %row = arith.addi %even, %c1 : index
      %s = memref.load %acc[%t] : memref<128xf32, #smem>
      %x = memref.load %in[%row, %t] : memref<?x128xf32>
      %y = arith.addf %s, %x : f32
      memref.store %y, %acc[%t] : memref<128xf32, #smem>
      tle.signal %t10
    }
    tle.warp_return
  }
  return
}
