// GPU test kernels for tle.scale (scale.test runs them through scale.py;
// the build compiles them with the other test kernels).
//
// One warp group scales a 64 x 64 f32 tile in the accumulator layout, where
// warp w holds rows 16 w to 16 w + 15:
//   @scale_rows:    out = x * factors[row]     (tle.scale ... dim 1)
//   @scale_columns: out = x * factors[column]  (tle.scale ... dim 0)
// scale.py picks factors so that some warps hold only factors of 1 (they
// skip their multiplies), some hold one other factor among ones, and one
// holds a NaN; x has subnormals, zeros of both signs and infinities. Every
// element must be x * factor, rounded to f32, bit for bit.

#acc = #tle.mma<warp_groups = [1, 1]>
#row = #tle.slice<dim = 1, parent = #acc>
#col = #tle.slice<dim = 0, parent = #acc>

func.func @scale_rows(%x: memref<64x64xf32>, %factors: memref<64xf32>,
                      %out: memref<64x64xf32>)
    attributes {tle.grid = "(1, 1, 1)"} {
  %c0 = arith.constant 0 : index
  tle.warp_specialize
  default "scale" warps(4) {
    %t = tle.load %x[%c0, %c0] : memref<64x64xf32> -> tensor<64x64xf32, #acc>
    %f = tle.load %factors[%c0] : memref<64xf32> -> tensor<64xf32, #row>
    %s = tle.scale %t by %f dim 1 : tensor<64x64xf32, #acc>, tensor<64xf32, #row>
    tle.store %s, %out[%c0, %c0] : tensor<64x64xf32, #acc>, memref<64x64xf32>
    tle.warp_yield
  }
  return
}

func.func @scale_columns(%x: memref<64x64xf32>, %factors: memref<64xf32>,
                         %out: memref<64x64xf32>)
    attributes {tle.grid = "(1, 1, 1)"} {
  %c0 = arith.constant 0 : index
  tle.warp_specialize
  default "scale" warps(4) {
    %t = tle.load %x[%c0, %c0] : memref<64x64xf32> -> tensor<64x64xf32, #acc>
    %f = tle.load %factors[%c0] : memref<64xf32> -> tensor<64xf32, #col>
    %s = tle.scale %t by %f dim 0 : tensor<64x64xf32, #acc>, tensor<64xf32, #col>
    tle.store %s, %out[%c0, %c0] : tensor<64x64xf32, #acc>, memref<64x64xf32>
    tle.warp_yield
  }
  return
}
