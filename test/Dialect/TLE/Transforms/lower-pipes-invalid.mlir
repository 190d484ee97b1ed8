// RUN: tle-opt %s -split-input-file --tle-derive-sync --tle-lower-pipes -verify-diagnostics

// A release is only lowered where the protocol allows the writer to refill
// the slot: a multiply still reading it must be retired by a later
// tle.wgmma_wait. Here the only wait leaves it in flight.
#sw = #tle.shared<swizzle = 128>
#acc = #tle.mma<warp_groups = [1, 1]>
func.func @release_never_retired(%map: !tle.tensor_map<64x64xbf16, swizzle = 128>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = tle.shared_alloc : memref<2x64x64xbf16, #sw>
  %ab = tle.pipe "ab" capacity 2 fields(t = %buf : memref<2x64x64xbf16, #sw>) readers(mma)
  tle.warp_specialize
  default "mma" warps(4) {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    %t = tle.wait %ab[%c0 : index] reader "mma" -> memref<64x64xbf16, #sw>
    %d = tle.wgmma %t, %t, %zero transpose_b : memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>
    // expected-error @below {{'tle.release' op of pipe 'ab': reader 'mma' releases a slot that a tle.wgmma is still reading, and no tle.wgmma_wait retires that multiply later (in this iteration, the next one and after the loop)}}
    tle.release %ab[%c0 : index] reader "mma"
    %w = tle.wgmma_wait %d pending(1) : tensor<64x64xf32, #acc>
    tle.warp_yield
  }
  partition "tma" warps(1) {
    %t = tle.acquire %ab[%c0 : index] -> memref<64x64xbf16, #sw>
    tle.tma_load %map[%c0, %c0] into %t : !tle.tensor_map<64x64xbf16, swizzle = 128>, memref<64x64xbf16, #sw>
    tle.commit %ab[%c0 : index]
    tle.warp_return
  }
  return
}
