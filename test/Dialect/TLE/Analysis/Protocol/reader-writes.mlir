// RUN: tle-opt %s --tle-test-reader-writes -split-input-file -verify-diagnostics -o /dev/null

// A sole reader of a field may write its slot once its multiply reading
// the field is retired (an output staged in K's half, as the seesaw does).
#sw = #tle.shared<swizzle = 128>
#acc = #tle.mma<warp_groups = [1, 1]>
func.func @sole_reader(%n: index, %x: bf16) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tle.shared_alloc : memref<2x64x64xbf16, #sw>
  %b = tle.shared_alloc : memref<64x64xbf16, #sw>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64x64xbf16, #sw>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.wait %p[%i : index] reader "r" -> memref<64x64xbf16, #sw>
      %d = tle.wgmma %v, %b, %zero
          : memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>
      %s = tle.wgmma_wait %d pending(0) : tensor<64x64xf32, #acc>
      // expected-remark @+1 {{reader 'r' writes field 'a' of its slot with ordinary stores}}
      memref.store %x, %v[%c0, %c0] : memref<64x64xbf16, #sw>
      tle.release %p[%i : index] reader "r"
    }
    tle.warp_yield
  }
  partition "w" warps(1) {
    tle.warp_return
  }
  return
}

// -----

// The same store while the multiply may still read the slot.
#sw = #tle.shared<swizzle = 128>
#acc = #tle.mma<warp_groups = [1, 1]>
func.func @under_its_multiply(%n: index, %x: bf16) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tle.shared_alloc : memref<2x64x64xbf16, #sw>
  %b = tle.shared_alloc : memref<64x64xbf16, #sw>
  %p = tle.pipe "kv" capacity 2 fields(a = %a : memref<2x64x64xbf16, #sw>) readers(r)
  tle.warp_specialize
  default "r" warps(4) {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    scf.for %i = %c0 to %n step %c1 {
      %v = tle.wait %p[%i : index] reader "r" -> memref<64x64xbf16, #sw>
      // expected-note @+1 {{the multiply}}
      %d = tle.wgmma %v, %b, %zero
          : memref<64x64xbf16, #sw>, memref<64x64xbf16, #sw>, tensor<64x64xf32, #acc>
      %s = tle.wgmma_wait %d pending(1) : tensor<64x64xf32, #acc>
      // expected-remark @+2 {{reader 'r' writes field 'a' of its slot with ordinary stores}}
      // expected-error @+1 {{reader 'r' of pipe 'kv' writes its slot of field 'a' while a tle.wgmma it issued may still read it; retire the multiply with a tle.wgmma_wait pending(0) first}}
      memref.store %x, %v[%c0, %c0] : memref<64x64xbf16, #sw>
      %t = tle.wgmma_wait %s pending(0) : tensor<64x64xf32, #acc>
      tle.release %p[%i : index] reader "r"
    }
    tle.warp_yield
  }
  partition "w" warps(1) {
    tle.warp_return
  }
  return
}

// -----

// A field that two readers read is read-only.
func.func @shared_field(%x: f32) {
  %c0 = arith.constant 0 : index
  %a = tle.shared_alloc : memref<1x64xf32, 3>
  %p = tle.pipe "kv" capacity 1 fields(a = %a : memref<1x64xf32, 3>) readers(r1, r2)
  tle.warp_specialize
  default "r1" warps(4) {
    %v = tle.wait %p[%c0 : index] reader "r1" -> memref<64xf32, 3>
    // expected-remark @+2 {{reader 'r1' writes field 'a' of its slot with ordinary stores}}
    // expected-error @+1 {{reader 'r1' of pipe 'kv' writes the slot of field 'a' in partition 'r1', which reader 'r2' reads at the same time; a slot that several readers read is read-only, except for bytes that only the writing reader touches}}
    memref.store %x, %v[%c0] : memref<64xf32, 3>
    tle.release %p[%c0 : index] reader "r1"
    tle.warp_yield
  }
  partition "r2" warps(4) {
    %v = tle.wait %p[%c0 : index] reader "r2" -> memref<64xf32, 3>
    %y = memref.load %v[%c0] : memref<64xf32, 3>
    tle.release %p[%c0 : index] reader "r2"
    tle.warp_return
  }
  partition "w" warps(1) {
    tle.warp_return
  }
  return
}
