// Each CTA streams n rows of 256 floats through the pipe "rows":
//   out[r, c] = in[r, c] * 2 + 1 for c < 128, in[r, c] * 3 for c >= 128.
#smem = #gpu.address_space<workgroup>

func.func @first(%in: memref<?x256xf32>, %out: memref<?x256xf32>,
                 %n: index)
    attributes {tle.grid = "(rows(in) / n, 1, 1): one CTA per n rows"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %three = arith.constant 3.0 : f32
  %b = gpu.block_id x
  %first_row = arith.muli %b, %n : index
  %buffer = tle.shared_alloc : memref<2x256xf32, #smem>
  %rows = tle.pipe "rows" capacity 2
      fields(row = %buffer : memref<2x256xf32, #smem>)
      readers(consumer = [row])
  tle.warp_specialize
  default "consumer" warps(8) registers(232) {
    %t = gpu.thread_id x
    %low = arith.cmpi ult, %t, %c128 : index
    %scale = arith.select %low, %two, %three : f32
    %bias = arith.select %low, %one, %zero : f32
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.wait %rows[%i : index] reader "consumer" -> memref<256xf32, #smem>
      %x = memref.load %v[%t] : memref<256xf32, #smem>
      tle.release %rows[%i : index] reader "consumer"
      %y = arith.mulf %x, %scale : f32
      %z = arith.addf %y, %bias : f32
      %row = arith.addi %first_row, %i : index
      memref.store %z, %out[%row, %t] : memref<?x256xf32>
    }
    tle.warp_yield
  }
  partition "producer" warps(1) registers(40) {
    %t = gpu.thread_id x
    %col = arith.muli %t, %c4 : index
    %col_hi = arith.addi %col, %c128 : index
    scf.for %i = %c0 to %n step %c1 {
      %row = arith.addi %first_row, %i : index
      %slot = tle.acquire %rows[%i : index] -> memref<256xf32, #smem>
      %a = vector.load %in[%row, %col] : memref<?x256xf32>, vector<4xf32>
      vector.store %a, %slot[%col] : memref<256xf32, #smem>, vector<4xf32>
      %d = vector.load %in[%row, %col_hi] : memref<?x256xf32>, vector<4xf32>
      vector.store %d, %slot[%col_hi] : memref<256xf32, #smem>, vector<4xf32>
      tle.commit %rows[%i : index]
    }
    tle.warp_return
  }
  return
}
