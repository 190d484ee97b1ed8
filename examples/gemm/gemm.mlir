// RUN: tle-opt %s --tle-derive-sync --tle-sync-plan -o /dev/null | FileCheck %s --match-full-lines --strict-whitespace
// RUN: tle-opt %s --tle-to-llvm | tle-translate --tle-to-ptx -o %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
//
// C[M, N] = A[M, K] . B[K, N]: bf16 inputs, fp32 accumulation, bf16 output,
// all row-major. One CTA computes a 128 x 256 tile of C.
//
// A one-warp producer streams 128 x 64 tiles of A and 64 x 256 tiles of B
// through the four-slot pipe `ab` with TMA; the eight-warp consumer (two
// warp groups, 64 rows of the tile each) multiplies every slot into its
// fp32 accumulator with wgmma straight from shared memory, and finally
// writes its rows of C. Nothing in this file is a barrier: the compiler
// derives the mbarriers, their transaction bytes, slots and parities, and
// the register split.
//
// Grid: (N / 256, M / 128). Requires K a multiple of 64, M of 128, N of 256.

// What the compiler derives for this kernel.
//      CHECK:sync plan for @gemm
// CHECK-NEXT:partitions: 3 warp groups, 384 threads, 64512 of 64512 registers
// CHECK-NEXT:  partition  warps  first warp  registers  named barrier
// CHECK-NEXT:  mma        8      0           232        1
// CHECK-NEXT:  tma        1      8           40         2
// CHECK-NEXT:pipes:
// CHECK-NEXT:  pipe  capacity  field  slot         bytes/slot
// CHECK-NEXT:  ab    4         a      128x64xbf16  16384
// CHECK-NEXT:                  b      64x256xbf16  32768
// CHECK-NEXT:barriers (one mbarrier per slot):
// CHECK-NEXT:  barrier  slots  count  tx bytes  arrive      fence  arrives  waits
// CHECK-NEXT:  ab.full  4      1      49152     expect_tx   no     tma      mma
// CHECK-NEXT:  ab.free  4      256    0         per_thread  no     mma      tma
// CHECK-NEXT:shared memory: 196608 B of buffers + 64 B of barriers = 196672 B (before alignment)

// ptxas honours setmaxnreg (no C7508) and spills nothing.
// PTXAS-NOT: C7508
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NEXT: {{.*}}Used {{[0-9]+}} registers

#sw = #tle.shared<swizzle = 128>
#acc = #tle.mma<warp_groups = [2, 1]>

func.func @gemm(%a: !tle.tensor_map<128x64xbf16, swizzle = 128>,
                %b: !tle.tensor_map<64x64xbf16, swizzle = 128>,
                %c: memref<?x?xbf16>, %k: index)
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
  default "mma" warps(8) registers(232) {
    %zero = arith.constant dense<0.0> : tensor<128x256xf32, #acc>
    %sum = scf.for %i = %c0 to %steps step %c1
        iter_args(%acc = %zero) -> tensor<128x256xf32, #acc> {
      %at, %bt = tle.wait %ab[%i : index] reader "mma"
          -> memref<128x64xbf16, #sw>, memref<64x256xbf16, #sw>
      %d = tle.wgmma %at, %bt, %acc
          : memref<128x64xbf16, #sw>, memref<64x256xbf16, #sw>,
            tensor<128x256xf32, #acc>
      // The multiply still reads the slot: the compiler makes the release
      // take effect when a wgmma_wait retires it, here in the next
      // iteration, so this multiply overlaps the next wait.
      tle.release %ab[%i : index] reader "mma"
      %issued = tle.wgmma_wait %d pending(1) : tensor<128x256xf32, #acc>
      scf.yield %issued : tensor<128x256xf32, #acc>
    }
    %done = tle.wgmma_wait %sum pending(0) : tensor<128x256xf32, #acc>
    // Epilogue: round to bf16 and store this warp group's rows of C.
    %out = arith.truncf %done : tensor<128x256xf32, #acc> to tensor<128x256xbf16, #acc>
    tle.store %out, %c[%m0, %n0] : tensor<128x256xbf16, #acc>, memref<?x?xbf16>
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
