// GPU test kernels for shared-memory tiles (shared_tiles.test runs them
// through shared_tiles.py; the build compiles them with the other test
// kernels).
//
// @round_trip: a bf16 tile in the accumulator layout of two warp groups
// side by side goes through shared memory and back, with stmatrix and
// ldmatrix, once through each layout: 32-, 64- and 128-byte swizzled tiles
// and a row-major buffer, read back in the accumulator layout (swizzles 32
// and 0) or in the register A operand layout (whole rows in both warp
// groups; swizzles 64 and 128). Every copy must reproduce the tile exactly.
//
// @swizzled_views: views of 128-byte swizzled tiles, addressed where the
// layout puts them (a column block of a 64 x 576 tile starts at chunk 4,
// 32768 bytes in, not 512). From the 64 x 576 tile B (gathered whole):
//   out_t = A . B[:, 256:512]^T (wgmma, transpose_b, K = 256)
//   out_n = A[:, 0:64] . B[:, 256:512] (wgmma, N-major B)
//   out_v = B[:, 256:512], read from the view with ldmatrix
// and into column block 1 of two 64 x 128 tiles, read back whole:
//   out_c[:, 64:128] = B[:, 320:384], written by TMA into the view
//   out_d[:, 64:128] = B[:, 384:448], gathered into the view

#sw = #tle.shared<swizzle = 128>
#sw64 = #tle.shared<swizzle = 64>
#sw32 = #tle.shared<swizzle = 32>
#smem = #gpu.address_space<workgroup>
#acc2 = #tle.mma<warp_groups = [1, 2]>
#opnd2 = #tle.mma_operand<warp_groups = [1, 2]>
#acc = #tle.mma<warp_groups = [1, 1]>
#opnd = #tle.mma_operand<warp_groups = [1, 1]>
#rows = #tle.blocked<per_thread = [1, 8], threads = [2, 16], warps = [4, 1]>

func.func @round_trip(%in: memref<64x64xbf16>, %out_32: memref<64x64xbf16>,
                      %out_64: memref<64x64xbf16>, %out_128: memref<64x64xbf16>,
                      %out_rm: memref<64x64xbf16>)
    attributes {tle.grid = "(1, 1, 1)"} {
  %c0 = arith.constant 0 : index
  %sw32 = tle.shared_alloc {name = "swizzle_32"} : memref<64x64xbf16, #sw32>
  %sw64 = tle.shared_alloc {name = "swizzle_64"} : memref<64x64xbf16, #sw64>
  %sw128 = tle.shared_alloc {name = "swizzle_128"} : memref<64x64xbf16, #sw>
  %rm = tle.shared_alloc {name = "row_major"} : memref<64x64xbf16, #smem>
  tle.warp_specialize
  default "tiles" warps(8) {
    %x = tle.load %in[%c0, %c0] : memref<64x64xbf16> -> tensor<64x64xbf16, #acc2>
    tle.local_store %x, %sw32 : tensor<64x64xbf16, #acc2>, memref<64x64xbf16, #sw32>
    tle.local_store %x, %sw64 : tensor<64x64xbf16, #acc2>, memref<64x64xbf16, #sw64>
    tle.local_store %x, %sw128 : tensor<64x64xbf16, #acc2>, memref<64x64xbf16, #sw>
    tle.local_store %x, %rm : tensor<64x64xbf16, #acc2>, memref<64x64xbf16, #smem>
    gpu.barrier
    %a32 = tle.local_load %sw32 : memref<64x64xbf16, #sw32> -> tensor<64x64xbf16, #acc2>
    %a64 = tle.local_load %sw64 : memref<64x64xbf16, #sw64> -> tensor<64x64xbf16, #opnd2>
    %a128 = tle.local_load %sw128 : memref<64x64xbf16, #sw> -> tensor<64x64xbf16, #opnd2>
    %arm = tle.local_load %rm : memref<64x64xbf16, #smem> -> tensor<64x64xbf16, #acc2>
    tle.store %a32, %out_32[%c0, %c0] : tensor<64x64xbf16, #acc2>, memref<64x64xbf16>
    tle.store %a64, %out_64[%c0, %c0] : tensor<64x64xbf16, #opnd2>, memref<64x64xbf16>
    tle.store %a128, %out_128[%c0, %c0] : tensor<64x64xbf16, #opnd2>, memref<64x64xbf16>
    tle.store %arm, %out_rm[%c0, %c0] : tensor<64x64xbf16, #acc2>, memref<64x64xbf16>
    tle.warp_yield
  }
  return
}

func.func @swizzled_views(%a: memref<64x256xbf16>, %b: memref<64x576xbf16>,
                          %b_map: !tle.tensor_map<64x64xbf16, swizzle = 128>,
                          %out_t: memref<64x64xf32>, %out_n: memref<64x256xf32>,
                          %out_v: memref<64x256xbf16>, %out_c: memref<64x128xbf16>,
                          %out_d: memref<64x128xbf16>)
    attributes {tle.grid = "(1, 1, 1)"} {
  %c0 = arith.constant 0 : index
  %c320 = arith.constant 320 : index
  %bbuf = tle.shared_alloc {name = "b"} : memref<1x64x576xbf16, #sw>
  %cbuf = tle.shared_alloc {name = "c"} : memref<1x64x128xbf16, #sw>
  %dbuf = tle.shared_alloc {name = "d"} : memref<1x64x128xbf16, #sw>
  %bp = tle.pipe "b" capacity 1 one_shot
      fields(b = %bbuf : memref<1x64x576xbf16, #sw>,
             d = %dbuf : memref<1x64x128xbf16, #sw>) readers(mma)
  %cp = tle.pipe "c" capacity 1
      fields(c = %cbuf : memref<1x64x128xbf16, #sw>) readers(mma)
  tle.warp_specialize
  default "mma" warps(4) registers(232) {
    %zero_t = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    %zero_n = arith.constant dense<0.0> : tensor<64x256xf32, #acc>
    %bt, %dt = tle.wait %bp reader "mma"
        -> memref<64x576xbf16, #sw>, memref<64x128xbf16, #sw>
    %bv = memref.subview %bt[0, 256] [64, 256] [1, 1]
        : memref<64x576xbf16, #sw> to memref<64x256xbf16, strided<[576, 1], offset: 256>, #sw>
    %a_all = tle.load %a[%c0, %c0] : memref<64x256xbf16> -> tensor<64x256xbf16, #opnd>
    %t_issued = tle.wgmma %a_all, %bv, %zero_t transpose_b
        : tensor<64x256xbf16, #opnd>, memref<64x256xbf16, strided<[576, 1], offset: 256>, #sw>,
          tensor<64x64xf32, #acc>
    %t = tle.wgmma_wait %t_issued pending(0) : tensor<64x64xf32, #acc>
    tle.store %t, %out_t[%c0, %c0] : tensor<64x64xf32, #acc>, memref<64x64xf32>
    %a_64 = tle.load %a[%c0, %c0] : memref<64x256xbf16> -> tensor<64x64xbf16, #opnd>
    %n_issued = tle.wgmma %a_64, %bv, %zero_n
        : tensor<64x64xbf16, #opnd>, memref<64x256xbf16, strided<[576, 1], offset: 256>, #sw>,
          tensor<64x256xf32, #acc>
    %n = tle.wgmma_wait %n_issued pending(0) : tensor<64x256xf32, #acc>
    tle.store %n, %out_n[%c0, %c0] : tensor<64x256xf32, #acc>, memref<64x256xf32>
    %v = tle.local_load %bv
        : memref<64x256xbf16, strided<[576, 1], offset: 256>, #sw> -> tensor<64x256xbf16, #opnd>
    tle.store %v, %out_v[%c0, %c0] : tensor<64x256xbf16, #opnd>, memref<64x256xbf16>
    %d = tle.local_load %dt : memref<64x128xbf16, #sw> -> tensor<64x128xbf16, #rows>
    tle.store %d, %out_d[%c0, %c0] : tensor<64x128xbf16, #rows>, memref<64x128xbf16>
    %ct = tle.wait %cp[%c0 : index] reader "mma" -> memref<64x128xbf16, #sw>
    %c = tle.local_load %ct : memref<64x128xbf16, #sw> -> tensor<64x128xbf16, #rows>
    tle.release %cp[%c0 : index] reader "mma"
    tle.store %c, %out_c[%c0, %c0] : tensor<64x128xbf16, #rows>, memref<64x128xbf16>
    tle.warp_yield
  }
  partition "load" warps(4) registers(40) {
    %b_d = memref.subview %b[0, 384] [64, 64] [1, 1]
        : memref<64x576xbf16> to memref<64x64xbf16, strided<[576, 1], offset: 384>>
    %bt = memref.subview %bbuf[0, 0, 0] [1, 64, 576] [1, 1, 1]
        : memref<1x64x576xbf16, #sw> to memref<64x576xbf16, #sw>
    %dt = memref.subview %dbuf[0, 0, 0] [1, 64, 128] [1, 1, 1]
        : memref<1x64x128xbf16, #sw> to memref<64x128xbf16, #sw>
    tle.gather_rows %b from %c0 into %bt
        : memref<64x576xbf16>, memref<64x576xbf16, #sw>
    %dv = memref.subview %dt[0, 64] [64, 64] [1, 1]
        : memref<64x128xbf16, #sw> to memref<64x64xbf16, strided<[128, 1], offset: 64>, #sw>
    tle.gather_rows %b_d from %c0 into %dv
        : memref<64x64xbf16, strided<[576, 1], offset: 384>>,
          memref<64x64xbf16, strided<[128, 1], offset: 64>, #sw>
    tle.commit %bp
    %ct = tle.acquire %cp[%c0 : index] -> memref<64x128xbf16, #sw>
    %cv = memref.subview %ct[0, 64] [64, 64] [1, 1]
        : memref<64x128xbf16, #sw> to memref<64x64xbf16, strided<[128, 1], offset: 64>, #sw>
    tle.tma_load %b_map[%c0, %c320] into %cv
        : !tle.tensor_map<64x64xbf16, swizzle = 128>,
          memref<64x64xbf16, strided<[128, 1], offset: 64>, #sw>
    tle.commit %cp[%c0 : index]
    tle.warp_return
  }
  return
}
