// RUN: tle-opt %s --tle-derive-sync --tle-sync-plan -o /dev/null | FileCheck %s --match-full-lines --strict-whitespace
// RUN: tle-opt %s --tle-derive-sync=strict-pipes=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=STRICT --allow-empty
// The protocol check proves the kernel: no warning under strict-pipes.
// STRICT-NOT: {{warning|error}}
//
// A warp-specialized streaming kernel: the smallest program that exercises
// every part of a pipe.
//
// Each CTA streams `n` rows of 256 floats. A one-warp producer copies row i
// into the two fields of the `rows` pipe (lo = columns 0..127, hi = columns
// 128..255); reader `left` scales the lo half, reader `right` the hi half,
// and each writes its half of row i of the output. Each reader declared the
// one field it reads, so the compiler can free the halves independently.
//
//   out[b*n + i, c] = in[b*n + i, c] * 2 + 1    for c <  128
//   out[b*n + i, c] = in[b*n + i, c] * 3        for c >= 128
//
// Thread ids inside a partition count from 0 within that partition.

#smem = #gpu.address_space<workgroup>

// What the compiler derives for this kernel: every number below is pinned.
//      CHECK:sync plan for @pipes
// CHECK-NEXT:partitions: 3 warp groups, 384 threads, 64512 of 64512 registers
// CHECK-NEXT:  partition  warps  first warp  registers  named barrier
// CHECK-NEXT:  left       4      0           232        1
// CHECK-NEXT:  right      4      4           232        2
// CHECK-NEXT:  producer   1      8           40         3
// CHECK-NEXT:pipes:
// CHECK-NEXT:  pipe  capacity  field  slot     bytes/slot
// CHECK-NEXT:  rows  2         lo     128xf32  512
// CHECK-NEXT:                  hi     128xf32  512
// CHECK-NEXT:barriers (one mbarrier per slot):
// CHECK-NEXT:  barrier       slots  count  tx bytes  arrive      fence  arrives   waits
// CHECK-NEXT:  rows.full     2      32     0         per_thread  no     producer  left, right
// CHECK-NEXT:  rows.free.lo  2      128    0         per_thread  no     left      producer
// CHECK-NEXT:  rows.free.hi  2      128    0         per_thread  no     right     producer
// CHECK-NEXT:shared memory: 2048 B of buffers + 48 B of barriers = 2096 B (before alignment)

func.func @pipes(%in: memref<?x256xf32>, %out: memref<?x256xf32>,
                 %n: index)
    attributes {tle.grid = "(rows(in) / n, 1, 1): one CTA per n rows"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %three = arith.constant 3.0 : f32
  %b = gpu.block_id x
  %first_row = arith.muli %b, %n : index

  %lo = tle.shared_alloc : memref<2x128xf32, #smem>
  %hi = tle.shared_alloc : memref<2x128xf32, #smem>
  %rows = tle.pipe "rows" capacity 2
      fields(lo = %lo : memref<2x128xf32, #smem>,
             hi = %hi : memref<2x128xf32, #smem>)
      readers(left = [lo], right = [hi])

  tle.warp_specialize
  default "left" warps(4) registers(232) {
    %t = gpu.thread_id x
    scf.for %i = %c0 to %n step %c1 {
      %row = arith.addi %first_row, %i : index
      %v = tle.wait %rows[%i : index] reader "left" -> memref<128xf32, #smem>
      %x = memref.load %v[%t] : memref<128xf32, #smem>
      tle.release %rows[%i : index] reader "left"
      %y = arith.mulf %x, %two : f32
      %z = arith.addf %y, %one : f32
      memref.store %z, %out[%row, %t] : memref<?x256xf32>
    }
    tle.warp_yield
  }
  partition "right" warps(4) registers(232) {
    %t = gpu.thread_id x
    %col = arith.addi %t, %c128 : index
    scf.for %i = %c0 to %n step %c1 {
      %row = arith.addi %first_row, %i : index
      %v = tle.wait %rows[%i : index] reader "right" -> memref<128xf32, #smem>
      %x = memref.load %v[%t] : memref<128xf32, #smem>
      tle.release %rows[%i : index] reader "right"
      %y = arith.mulf %x, %three : f32
      memref.store %y, %out[%row, %col] : memref<?x256xf32>
    }
    tle.warp_return
  }
  partition "producer" warps(1) registers(40) {
    %t = gpu.thread_id x
    %col = arith.muli %t, %c4 : index
    %col_hi = arith.addi %col, %c128 : index
    scf.for %i = %c0 to %n step %c1 {
      %row = arith.addi %first_row, %i : index
      %l, %h = tle.acquire %rows[%i : index]
          -> memref<128xf32, #smem>, memref<128xf32, #smem>
      %a = vector.load %in[%row, %col] : memref<?x256xf32>, vector<4xf32>
      vector.store %a, %l[%col] : memref<128xf32, #smem>, vector<4xf32>
      %d = vector.load %in[%row, %col_hi] : memref<?x256xf32>, vector<4xf32>
      vector.store %d, %h[%col] : memref<128xf32, #smem>, vector<4xf32>
      tle.commit %rows[%i : index]
    }
    tle.warp_return
  }
  return
}
