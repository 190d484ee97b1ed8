// RUN: tle-opt %s --tle-test-uniformity -split-input-file -verify-diagnostics -o /dev/null

// What every thread of a partition shares: constants, arguments, block ids
// and sizes, loads from memory the kernel only reads, and arithmetic and
// loops on such values; not thread ids, loads from shared memory or from
// memory the kernel writes, nor a loop whose bounds may differ.
func.func @values(%n: index, %ro: memref<?xindex>, %rw: memref<?xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-remark @+1 {{'block' is uniform}}
  %b = gpu.block_id x {tag = "block"}
  // expected-remark @+1 {{'tiles' is uniform}}
  %tiles = arith.addi %n, %b {tag = "tiles"} : index
  // expected-remark @+1 {{'read-only' is uniform}}
  %r = memref.load %ro[%b] {tag = "read-only"} : memref<?xindex>
  // expected-remark @+1 {{'written' may differ between threads, from the memref.load at line 17}}
  %w = memref.load %rw[%b] {tag = "written"} : memref<?xindex>
  memref.store %c0, %rw[%c0] : memref<?xindex>
  // expected-remark @+1 {{'thread' may differ between threads, from the gpu.thread_id at line 20}}
  %t = gpu.thread_id x {tag = "thread"}
  %s = tle.shared_alloc : memref<4xi32, 3>
  // expected-remark @+1 {{'shared' may differ between threads, from the memref.load at line 23}}
  %l = memref.load %s[%c0] {tag = "shared"} : memref<4xi32, 3>
  // expected-remark @+1 {{'sum' is uniform}}
  %sum = scf.for %i = %c0 to %tiles step %c1 iter_args(%acc = %c0) -> index {
    %next = arith.addi %acc, %r : index
    scf.yield %next : index
  } {tag = "sum"}
  // expected-remark @+1 {{'count' may differ between threads, from the gpu.thread_id at line 20}}
  %count = scf.for %i = %c0 to %t step %c1 iter_args(%acc = %c0) -> index {
    %next = arith.addi %acc, %c1 : index
    scf.yield %next : index
  } {tag = "count"}
  tle.warp_specialize
  default warps(4) {
    tle.warp_yield
  }
  return
}

// -----

// A pipe operation under a branch on the thread id is reached by some
// threads of its partition only.
func.func @varying_branch(%n: index) {
  %c0 = arith.constant 0 : index
  %a = tle.shared_alloc : memref<1x64xf32, 3>
  %p = tle.pipe "kv" capacity 1 fields(a = %a : memref<1x64xf32, 3>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %v = tle.wait %p[%c0 : index] reader "r" -> memref<64xf32, 3>
    tle.release %p[%c0 : index] reader "r"
    tle.warp_yield
  }
  partition "w" warps(1) {
    // expected-note @+1 {{which may differ between threads: it comes from the gpu.thread_id at line 57, and only constants, kernel arguments, block ids, grid and block sizes, and loads from memory the kernel only reads are known to be the same in every thread}}
    %t = gpu.thread_id x
    %first = arith.cmpi eq, %t, %c0 : index
    // expected-note @+1 {{this scf.if depends on the arith.cmpi at line 58}}
    scf.if %first {
      // expected-error @+1 {{writer of pipe 'kv' sits under control flow that may differ between the threads of partition 'w'; every thread of the partition must reach it}}
      %v = tle.acquire %p[%c0 : index] -> memref<64xf32, 3>
      tle.commit %p[%c0 : index]
    }
    tle.warp_return
  }
  return
}
