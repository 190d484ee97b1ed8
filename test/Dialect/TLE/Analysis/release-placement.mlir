// RUN: tle-opt %s --tle-test-release-placement -split-input-file -verify-diagnostics -o /dev/null

// A release whose slot no multiply reads takes effect where it stands; one
// whose slot a tle.wgmma still reads, after the tle.wgmma_wait that
// retires it: later in the block (pending(0)), or in the next iteration
// and after the loop (pending(1) keeps this iteration's multiply).
#sw = #tle.shared<swizzle = 128>
#acc = #tle.mma<warp_groups = [1, 1]>
func.func @placements(%map: !tle.tensor_map<64x64xbf16, swizzle = 128>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = tle.shared_alloc : memref<2x64x64xbf16, #sw>
  %ab = tle.pipe "ab" capacity 2 fields(t = %buf : memref<2x64x64xbf16, #sw>) readers(mma)
  tle.warp_specialize
  default "mma" warps(4) {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    // expected-remark @+1 {{may leave a multiply in flight}}
    %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> tensor<64x64xf32, #acc> {
      %t = tle.wait %ab[%i : index] reader "mma" -> memref<64x64xbf16, #sw>
      %d = tle.wgmma %t, %t, %acc transpose_b : memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>
      // expected-remark @+1 {{takes effect after the tle.wgmma_wait at line 23 of the next iteration, and for the last iteration after the tle.wgmma_wait at line 26}}
      tle.release %ab[%i : index] reader "mma"
      %w = tle.wgmma_wait %d pending(1) : tensor<64x64xf32, #acc>
      scf.yield %w : tensor<64x64xf32, #acc>
    }
    %done = tle.wgmma_wait %sum pending(0) : tensor<64x64xf32, #acc>
    // expected-remark @+1 {{drains its multiplies}}
    %again = scf.for %i = %n to %c1 step %c1 iter_args(%acc = %done) -> tensor<64x64xf32, #acc> {
      %t = tle.wait %ab[%i : index] reader "mma" -> memref<64x64xbf16, #sw>
      %d = tle.wgmma %t, %t, %acc transpose_b : memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>
      // expected-remark @+1 {{takes effect after the tle.wgmma_wait at line 33}}
      tle.release %ab[%i : index] reader "mma"
      %w = tle.wgmma_wait %d pending(0) : tensor<64x64xf32, #acc>
      scf.yield %w : tensor<64x64xf32, #acc>
    }
    %t = tle.wait %ab[%n : index] reader "mma" -> memref<64x64xbf16, #sw>
    // expected-remark @+1 {{takes effect here}}
    tle.release %ab[%n : index] reader "mma"
    tle.warp_yield
  }
  partition "tma" warps(1) {
    tle.warp_return
  }
  return
}

// -----

// No tle.wgmma_wait retires the multiply: the lowering has nowhere to put
// the release.
#sw = #tle.shared<swizzle = 128>
#acc = #tle.mma<warp_groups = [1, 1]>
func.func @unretired(%n: index) {
  %c0 = arith.constant 0 : index
  %buf = tle.shared_alloc : memref<1x64x64xbf16, #sw>
  %qp = tle.pipe "q" capacity 1 fields(t = %buf : memref<1x64x64xbf16, #sw>) readers(mma)
  tle.warp_specialize
  default "mma" warps(4) {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    %t = tle.wait %qp[%c0 : index] reader "mma" -> memref<64x64xbf16, #sw>
    %d = tle.wgmma %t, %t, %zero transpose_b : memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>
    // expected-error @+1 {{'tle.release' op of pipe 'q': reader 'mma' releases a slot that a tle.wgmma is still reading, and no tle.wgmma_wait retires that multiply later (in this iteration, the next one and after the loop)}}
    tle.release %qp[%c0 : index] reader "mma"
    tle.warp_yield
  }
  partition "tma" warps(1) {
    tle.warp_return
  }
  return
}
