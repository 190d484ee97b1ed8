// RUN: tle-opt %s --tle-distribute-tensors -split-input-file -verify-diagnostics

// A layout over two warp groups in a partition of one: half of its
// elements would belong to threads that do not exist. The check runs
// before any conversion.
func.func @layout_wider_than_partition() {
  tle.warp_specialize
  default warps(4) {
    // expected-error @+1 {{'arith.constant' op produces 'tensor<128x64xf32, #tle.mma<warp_groups = [2, 1]>>', whose layout spans 256 threads, in a partition of 128; a layout must span the partition's threads or a divisor of them}}
    %t = arith.constant dense<1.0> : tensor<128x64xf32, #tle.mma<warp_groups = [2, 1]>>
    tle.warp_yield
  }
  return
}

// -----

// The same rule for a named partition, on an op nested in a loop.
func.func @layout_wider_than_partition_in_loop(%x: f32, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tle.warp_specialize
  default warps(4) {
    tle.warp_yield
  }
  partition "compute" warps(4) {
    scf.for %i = %c0 to %n step %c1 {
      // expected-error @+1 {{'tle.splat' op produces 'tensor<64x64xf32, #tle.mma<warp_groups = [1, 2]>>', whose layout spans 256 threads, in a partition of 128; a layout must span the partition's threads or a divisor of them}}
      %t = tle.splat %x : f32 -> tensor<64x64xf32, #tle.mma<warp_groups = [1, 2]>>
    }
    tle.warp_return
  }
  return
}

// -----

// tle.gather_rows spreads its pieces over the threads of its partition, so
// it needs one to know how many there are.
func.func @gather_rows_outside_partition(%src: memref<?x64xbf16>, %first: index) {
  %dst = tle.shared_alloc : memref<64x64xbf16, 3>
  // expected-error @+2 {{'tle.gather_rows' op must run in a partition of a tle.warp_specialize}}
  // expected-error @+1 {{failed to legalize operation 'tle.gather_rows' that was explicitly marked illegal}}
  tle.gather_rows %src from %first into %dst : memref<?x64xbf16>, memref<64x64xbf16, 3>
  return
}

// -----

// Only a splat constant has the same value in every thread's registers.
func.func @constant_not_splat() {
  // expected-error @+2 {{'arith.constant' op a distributed tensor constant must be a splat}}
  // expected-error @+1 {{failed to legalize operation 'arith.constant' that was explicitly marked illegal}}
  %t = arith.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0]> : tensor<32xf32, #tle.blocked<per_thread = [1], threads = [32], warps = [1]>>
  return
}

// -----

// wgmma_wait ties registers through "=f"/"=r" asm operands, 32 bits each;
// a bf16 tensor has no such registers.
#acc = #tle.mma<warp_groups = [1, 1]>
func.func @wgmma_wait_16_bit() {
  %t = arith.constant dense<1.0> : tensor<64x16xbf16, #acc>
  // expected-error @+2 {{'tle.wgmma_wait' op waits on 32-bit elements only, got 'bf16'}}
  // expected-error @+1 {{failed to legalize operation 'tle.wgmma_wait' that was explicitly marked illegal}}
  %w = tle.wgmma_wait %t pending(0) : tensor<64x16xbf16, #acc>
  return
}

// -----

// A tensor its layout cannot hold (two elements over a block of 32) is
// reported, not turned into per-thread code.
func.func @bad_shape() {
  // expected-error @below {{'arith.constant' op result: dimension 0 (2) is not a multiple of the layout's block (32)}}
  %c = arith.constant dense<1.0> : tensor<2xf32, #tle.blocked<per_thread = [1], threads = [32], warps = [1]>>
  return
}

// -----

// A distributed tensor cannot cross a function boundary.
#acc = #tle.mma<warp_groups = [1, 1]>
// expected-error @+1 {{'func.func' op @takes_accumulator takes or returns a tensor with a TLE layout, which lives in the registers of one partition; pass it through shared or global memory}}
func.func @takes_accumulator(%acc: tensor<64x64xf32, #acc>) {
  return
}
