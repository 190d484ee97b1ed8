// RUN: tle-opt %s --tle-infer-arrive-counts --tle-sync-plan -o /dev/null | FileCheck %s --match-full-lines --strict-whitespace
// RUN: tle-opt %s --tle-infer-arrive-counts --tle-sync-plan=json=true -o /dev/null | FileCheck %s --check-prefix=JSON
// RUN: not tle-opt %s --tle-sync-plan -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOPLAN
// RUN: tle-opt %s --tle-infer-arrive-counts --tle-sync-plan=output=%t.txt -o /dev/null && FileCheck %s --input-file=%t.txt --match-full-lines --strict-whitespace

// Two partitions share the last warp group: the TMA one requests 40
// registers for the group; the consumer requests none, so it gets what the
// others leave: (512 - 40) / 2 = 236 per thread, rounded down to 232.

//      CHECK:sync plan for @attention
// CHECK-NEXT:partitions: 3 warp groups, 384 threads, 64512 of 64512 registers
// CHECK-NEXT:  partition  warps  first warp  registers      named barrier
// CHECK-NEXT:  consumer   8      0           232 (derived)  1
// CHECK-NEXT:  tma        1      8           40             2
// CHECK-NEXT:  stats      1      9           40 (derived)   3
// CHECK-NEXT:pipes:
// CHECK-NEXT:  pipe  capacity      field  slot         bytes/slot
// CHECK-NEXT:  q     1 (one_shot)  q      64x576xbf16  73728
// CHECK-NEXT:  kv    3             k      64x576xbf16  73728
// CHECK-NEXT:                      row    64xf32       256
// CHECK-NEXT:barriers (one mbarrier per slot):
// CHECK-NEXT:  barrier      slots  count  tx bytes  arrive      fence  arrives   waits
// CHECK-NEXT:  q.full       1      1      73728     expect_tx   no     tma       consumer
// CHECK-NEXT:  kv.full      3      1      73984     expect_tx   no     tma       consumer, stats
// CHECK-NEXT:  kv.free.k    3      256    0         per_thread  no     consumer  tma
// CHECK-NEXT:  kv.free.row  3      32     0         per_thread  no     stats     tma
// CHECK-NEXT:shared memory: 295680 B of buffers + 80 B of barriers = 295760 B (before alignment)

// JSON: "kernels": [
// JSON: "name": "q.full"
// JSON: "tx_bytes": 73728
// JSON: "cp_async_fence": "readers"
// JSON: "kernel": "attention"
// JSON: "registers": 232
// JSON: "registers_requested": false
// JSON: "shared_memory": {
// JSON-NEXT: "barriers": 80,
// JSON-NEXT: "buffers": 295680,
// JSON-NEXT: "total": 295760
// JSON: "threads": 384
// JSON: "warp_groups": 3

// NOPLAN: error: pipe 'q' has no derived barriers; run --tle-infer-arrive-counts before --tle-sync-plan

#smem = #gpu.address_space<workgroup>
#sw = #tle.shared<swizzle = 128>
func.func @attention(%map: !tle.tensor_map<64x64xbf16, swizzle = 128>, %map1: !tle.tensor_map<64xf32, swizzle = 0>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %qbuf = tle.shared_alloc : memref<1x64x576xbf16, #sw>
  %kbuf = tle.shared_alloc : memref<3x64x576xbf16, #sw>
  %rbuf = tle.shared_alloc : memref<3x64xf32, #smem>
  %q = tle.pipe "q" capacity 1 one_shot fields(q = %qbuf : memref<1x64x576xbf16, #sw>) readers(mma)
  %kv = tle.pipe "kv" capacity 3 fields(k = %kbuf : memref<3x64x576xbf16, #sw>, row = %rbuf : memref<3x64xf32, #smem>) readers(mma = [k], stats = [row])
  tle.warp_specialize
  default "consumer" warps(8) {
    %qv = tle.wait %q reader "mma" -> memref<64x576xbf16, #sw>
    scf.for %i = %c0 to %n step %c1 {
      %k = tle.wait %kv[%i : index] reader "mma" -> memref<64x576xbf16, #sw>
      tle.release %kv[%i : index] reader "mma"
    }
    tle.warp_yield
  }
  partition "tma" warps(1) registers(40) {
    %q0 = memref.subview %qbuf[0, 0, 0] [1, 64, 576] [1, 1, 1] : memref<1x64x576xbf16, #sw> to memref<64x576xbf16, #sw>
    tle.tma_load %map[%c0, %c0] into %q0 : !tle.tensor_map<64x64xbf16, swizzle = 128>, memref<64x576xbf16, #sw>
    tle.commit %q
    scf.for %i = %c0 to %n step %c1 {
      %k, %r = tle.acquire %kv[%i : index] -> memref<64x576xbf16, #sw>, memref<64xf32, #smem>
      tle.tma_load %map[%c0, %c0] into %k : !tle.tensor_map<64x64xbf16, swizzle = 128>, memref<64x576xbf16, #sw>
      tle.tma_load %map1[%c0] into %r : !tle.tensor_map<64xf32, swizzle = 0>, memref<64xf32, #smem>
      tle.commit %kv[%i : index]
    }
    tle.warp_return
  }
  partition "stats" warps(1) {
    scf.for %i = %c0 to %n step %c1 {
      %r = tle.wait %kv[%i : index] reader "stats" -> memref<64xf32, #smem>
      tle.release %kv[%i : index] reader "stats"
    }
    tle.warp_return
  }
  return
}
