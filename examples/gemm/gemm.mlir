// RUN: tle-opt %s --tle-derive-sync --tle-sync-plan -o /dev/null | FileCheck %s --match-full-lines --strict-whitespace
// RUN: tle-opt %s --tle-derive-sync=strict-pipes=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=STRICT --allow-empty
// RUN: tle-opt %s --tle-to-llvm | tle-translate --tle-to-ptx -o %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// The protocol check proves the kernel: no warning under strict-pipes.
// STRICT-NOT: {{warning|error}}
//
// C[M, N] = A[M, K] . B[K, N]: bf16 inputs, fp32 accumulation, bf16 output,
// all row-major. One CTA computes a 128 x 256 tile of C.
//
// A one-warp producer streams 128 x 64 tiles of A and 64 x 256 tiles of B
// through the four-slot pipe `ab` with TMA; two consumer warp groups, the
// two replicas of partition mma (written once, with the replica index %r),
// take 64 rows of the tile each: replica r multiplies rows r * 64 .. of
// every A slot and the whole B slot into its fp32 accumulator with wgmma
// straight from shared memory. At the end each reclaims B slot r of the
// drained pipe, writes its rows of C there as bf16 (stmatrix) and stores
// them with TMA at row m0 + r * 64. Each replica is a reader of its own
// (mma#0, mma#1), so the free barrier counts both. Nothing in this file is a
// barrier or a fence: the compiler derives the mbarriers, their
// transaction bytes, slots and parities, the proxy fence and partition
// barriers around the TMA store, and the register split.
//
// Grid: (N / 256, M / 128). Requires K a multiple of 64, M of 128, N of 256.
// C is taken as a tensor map with 64 x 64 boxes (tle-run's gemm problem and
// tle.bench.gemm make it).

// What the compiler derives for this kernel.
//      CHECK:sync plan for @gemm
// CHECK-NEXT:partitions: 3 warp groups, 384 threads, 64512 of 64512 registers
// CHECK-NEXT:  partition  warps  first warp  registers  named barrier
// CHECK-NEXT:  mma#0      4      0           232        1
// CHECK-NEXT:  mma#1      4      4           232        2
// CHECK-NEXT:  tma        1      8           40         3
// CHECK-NEXT:pipes:
// CHECK-NEXT:  pipe  capacity  field  slot         bytes/slot
// CHECK-NEXT:  ab    4         a      128x64xbf16  16384
// CHECK-NEXT:                  b      64x256xbf16  32768
// CHECK-NEXT:barriers (one mbarrier per slot):
// CHECK-NEXT:  barrier  slots  count  tx bytes  arrive      fence  arrives       waits
// CHECK-NEXT:  ab.full  4      1      49152     expect_tx   no     tma           mma#0, mma#1
// CHECK-NEXT:  ab.free  4      256    0         per_thread  no     mma#0, mma#1  tma
// CHECK-NEXT:reclaims (one mbarrier each: every thread of the readers arrives, then waits):
// CHECK-NEXT:  barrier     count  readers
// CHECK-NEXT:  ab.reclaim  256    mma#0, mma#1
// CHECK-NEXT:shared memory: 196608 B of buffers + 72 B of barriers = 196680 B (before alignment)

// ptxas honours setmaxnreg (no C7508) and spills nothing.
// PTXAS-NOT: C7508
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NEXT: {{.*}}Used {{[0-9]+}} registers

// Each consumer's epilogue: its rows as stmatrix into the reclaimed slot,
// the proxy fence and its named barrier, one thread's four TMA stores (64 x
// 64 boxes) and the wait until they have read the slot.
// PTX: stmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX: fence.proxy.async.shared::cta;
// PTX-NEXT: bar.sync {{[12]}}, 128;
// PTX-COUNT-4: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// PTX: cp.async.bulk.commit_group;
// PTX-NEXT: cp.async.bulk.wait_group.read 0;

#sw = #tle.shared<swizzle = 128>
#acc = #tle.mma<warp_groups = [1, 1]>

func.func @gemm(%a: !tle.tensor_map<128x64xbf16, swizzle = 128>,
                %b: !tle.tensor_map<64x64xbf16, swizzle = 128>,
                %c: !tle.tensor_map<64x64xbf16, swizzle = 128>, %k: index)
    attributes {tle.grid = "(N / 256, M / 128, 1): one CTA per 128x256 tile of C"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  // CTAs run in launch order; consecutive ones take the tiles of a group
  // of 8 row blocks, column by column, so that a wave shares its rows of A
  // and its columns of B in L2 (rather than sweeping all of B per row).
  %c8 = arith.constant 8 : index
  %bx = gpu.block_id x
  %by = gpu.block_id y
  %gx = gpu.grid_dim x
  %gy = gpu.grid_dim y
  %row_major = arith.muli %by, %gx : index
  %pid = arith.addi %row_major, %bx : index
  %per_group = arith.muli %gx, %c8 : index
  %group = arith.divui %pid, %per_group : index
  %first_m = arith.muli %group, %c8 : index
  %left = arith.subi %gy, %first_m : index
  %group_rows = arith.minui %left, %c8 : index
  %in_group = arith.remui %pid, %per_group : index
  %m_in = arith.remui %in_group, %group_rows : index
  %m_tile = arith.addi %first_m, %m_in : index
  %n_tile = arith.divui %in_group, %group_rows : index
  %m0 = arith.muli %m_tile, %c128 : index
  %n0 = arith.muli %n_tile, %c256 : index
  %steps = arith.divui %k, %c64 : index

  // Four stages of (A, B) tiles: 4 x 48 KiB.
  %abuf = tle.shared_alloc {name = "a"} : memref<4x128x64xbf16, #sw>
  %bbuf = tle.shared_alloc {name = "b"} : memref<4x64x256xbf16, #sw>
  %ab = tle.pipe "ab" capacity 4
      fields(a = %abuf : memref<4x128x64xbf16, #sw>,
             b = %bbuf : memref<4x64x256xbf16, #sw>)
      readers(mma)

  tle.warp_specialize
  // Two copies of the consumer, one warp group each; replica %r takes rows
  // %r * 64 .. %r * 64 + 63 of the tile. Replica 0 is the default
  // partition, on warps 0-3; replica 1 follows on warps 4-7.
  default "mma" warps(4) registers(232) replicas(2) (%r: index) {
    %row = arith.muli %r, %c64 : index
    %zero = arith.constant dense<0.0> : tensor<64x256xf32, #acc>
    %sum = scf.for %i = %c0 to %steps step %c1
        iter_args(%acc = %zero) -> tensor<64x256xf32, #acc> {
      %at, %bt = tle.wait %ab[%i : index] reader "mma"
          -> memref<128x64xbf16, #sw>, memref<64x256xbf16, #sw>
      // This replica's 64 rows of the A tile: a whole 8-row-group view of
      // its one chunk (static once the replicas are expanded).
      %ah = memref.subview %at[%row, 0] [64, 64] [1, 1]
          : memref<128x64xbf16, #sw> to memref<64x64xbf16, strided<[64, 1], offset: ?>, #sw>
      %d = tle.wgmma %ah, %bt, %acc
          : memref<64x64xbf16, strided<[64, 1], offset: ?>, #sw>, memref<64x256xbf16, #sw>,
            tensor<64x256xf32, #acc>
      // The multiply still reads the slot: the compiler makes the release
      // take effect when a wgmma_wait retires it, here in the next
      // iteration, so this multiply overlaps the next wait.
      tle.release %ab[%i : index] reader "mma"
      %issued = tle.wgmma_wait %d pending(1) : tensor<64x256xf32, #acc>
      scf.yield %issued : tensor<64x256xf32, #acc>
    }
    %done = tle.wgmma_wait %sum pending(0) : tensor<64x256xf32, #acc>
    // Epilogue: round to bf16, stage the rows in B's slot %r once both
    // replicas are done with the pipe (tle.reclaim), and store them with
    // TMA at row m0 + %r * 64, which leaves out rows and columns past C's
    // end.
    %out = arith.truncf %done : tensor<64x256xf32, #acc> to tensor<64x256xbf16, #acc>
    %slot = memref.subview %bbuf[%r, 0, 0] [1, 64, 256] [1, 1, 1]
        : memref<4x64x256xbf16, #sw> to memref<64x256xbf16, strided<[256, 1], offset: ?>, #sw>
    %stage = tle.reclaim %ab reader "mma" scratch %slot
        : memref<64x256xbf16, strided<[256, 1], offset: ?>, #sw>
    tle.local_store %out, %stage
        : tensor<64x256xbf16, #acc>, memref<64x256xbf16, strided<[256, 1], offset: ?>, #sw>
    %m = arith.addi %m0, %row : index
    tle.tma_store %c[%m, %n0] from %stage
        : !tle.tensor_map<64x64xbf16, swizzle = 128>,
          memref<64x256xbf16, strided<[256, 1], offset: ?>, #sw>
    tle.warp_yield
  }
  partition "tma" warps(1) registers(40) {
    scf.for %i = %c0 to %steps step %c1 {
      %kk = arith.muli %i, %c64 : index
      %at, %bt = tle.acquire %ab[%i : index]
          -> memref<128x64xbf16, #sw>, memref<64x256xbf16, #sw>
      tle.tma_load %a[%m0, %kk] into %at
          : !tle.tensor_map<128x64xbf16, swizzle = 128>, memref<128x64xbf16, #sw>
      tle.tma_load %b[%kk, %n0] into %bt
          : !tle.tensor_map<64x64xbf16, swizzle = 128>, memref<64x256xbf16, #sw>
      tle.commit %ab[%i : index]
    }
    tle.warp_return
  }
  return
}
