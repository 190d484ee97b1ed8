// RUN: tle-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{'tle.shared_alloc' op allocates 'memref<64xf32>', which is not in shared memory}}
%0 = tle.shared_alloc : memref<64xf32>

// -----

// expected-error @+1 {{'tle.shared_alloc' op needs a static shape}}
%0 = tle.shared_alloc : memref<?xf32, 3>

// -----

// index has no fixed size in shared memory.
// expected-error @+1 {{'tle.shared_alloc' op needs an element type of fixed size, got 'memref<4xindex, 3>'}}
%0 = tle.shared_alloc : memref<4xindex, 3>

// -----

%b = tle.shared_alloc : memref<2x64xf32, 3>
// expected-error @+1 {{pipe 'kv' has capacity 0; a pipe needs at least one slot}}
%p = tle.pipe "kv" capacity 0 fields(x = %b : memref<2x64xf32, 3>) readers(r)

// -----

%b = tle.shared_alloc : memref<2x64xf32, 3>
// expected-error @+1 {{one_shot pipe 'q' has capacity 2; a pipe written once has exactly one slot}}
%p = tle.pipe "q" capacity 2 one_shot fields(x = %b : memref<2x64xf32, 3>) readers(r)

// -----

%b = tle.shared_alloc : memref<3x64xf32, 3>
// expected-error @+1 {{field 'x' of pipe 'kv' has leading dimension 3 but the pipe has capacity 2}}
%p = tle.pipe "kv" capacity 2 fields(x = %b : memref<3x64xf32, 3>) readers(r)

// -----

func.func @not_shared(%b: memref<2x64xf32>) {
  // expected-error @+1 {{field 'x' of pipe 'kv' is 'memref<2x64xf32>', which is not in shared memory}}
  %p = tle.pipe "kv" capacity 2 fields(x = %b : memref<2x64xf32>) readers(r)
  return
}

// -----

func.func @dynamic_field(%b: memref<2x?xf32, 3>) {
  // expected-error @+1 {{a field is a statically shaped buffer with the identity layout}}
  %p = tle.pipe "kv" capacity 2 fields(x = %b : memref<2x?xf32, 3>) readers(r)
  return
}

// -----

%a = tle.shared_alloc : memref<2x64xf32, 3>
%b = tle.shared_alloc : memref<2x64xf32, 3>
// expected-error @+1 {{pipe 'kv' declares field 'x' twice}}
%p = tle.pipe "kv" capacity 2 fields(x = %a : memref<2x64xf32, 3>, x = %b : memref<2x64xf32, 3>) readers(r)

// -----

%a = tle.shared_alloc : memref<2x64xf32, 3>
// expected-error @+1 {{field name 'full' of pipe 'kv' is reserved}}
%p = tle.pipe "kv" capacity 2 fields(full = %a : memref<2x64xf32, 3>) readers(r)

// -----

%a = tle.shared_alloc : memref<2x64xf32, 3>
// expected-error @+1 {{field name 'not a name' of pipe 'kv' is not an identifier}}
%p = tle.pipe "kv" capacity 2 fields("not a name" = %a : memref<2x64xf32, 3>) readers(r)

// -----

%a = tle.shared_alloc : memref<2x64xf32, 3>
// expected-error @+1 {{field 'y' of pipe 'kv' binds a buffer that another field of the pipe binds too}}
%p = tle.pipe "kv" capacity 2 fields(x = %a : memref<2x64xf32, 3>, y = %a : memref<2x64xf32, 3>) readers(r)

// -----

%a = tle.shared_alloc : memref<2x64xf32, 3>
// expected-error @+1 {{pipe 'kv' declares reader 'r' twice}}
%p = tle.pipe "kv" capacity 2 fields(x = %a : memref<2x64xf32, 3>) readers(r, r = [x])

// -----

%a = tle.shared_alloc : memref<2x64xf32, 3>
// expected-error @+1 {{reader name 'writer' of pipe 'kv' is reserved for the writing side}}
%p = tle.pipe "kv" capacity 2 fields(x = %a : memref<2x64xf32, 3>) readers(writer)

// -----

%a = tle.shared_alloc : memref<2x64xf32, 3>
// expected-error @+1 {{reader 'r' of pipe 'kv' reads unknown field 'y'}}
%p = tle.pipe "kv" capacity 2 fields(x = %a : memref<2x64xf32, 3>) readers(r = [y])

// -----

%a = tle.shared_alloc : memref<2x64xf32, 3>
// expected-error @+1 {{reader 'r' of pipe 'kv' lists field 'x' twice}}
%p = tle.pipe "kv" capacity 2 fields(x = %a : memref<2x64xf32, 3>) readers(r = [x, x])

// -----

%a = tle.shared_alloc : memref<2x64xf32, 3>
// expected-error @+1 {{pipe 'kv' declares no readers}}
%p = tle.pipe "kv" capacity 2 fields(x = %a : memref<2x64xf32, 3>) readers()

// -----

func.func @unknown_reader(%i: index) {
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "kv" capacity 2 fields(x = %a : memref<2x64xf32, 3>) readers(left, right)
  // expected-error @+1 {{names reader 'middle' but pipe 'kv' declares readers: left, right}}
  %v = tle.wait %p[%i : index] reader "middle" -> memref<64xf32, 3>
  return
}

// -----

func.func @release_unknown_reader(%i: index) {
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "kv" capacity 2 fields(x = %a : memref<2x64xf32, 3>) readers(left)
  // expected-error @+1 {{names reader 'right' but pipe 'kv' declares readers: left}}
  tle.release %p[%i : index] reader "right"
  return
}

// -----

func.func @foreign_field(%i: index, %j: index) {
  %l = tle.shared_alloc : memref<2x64xf32, 3>
  %r = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "kv" capacity 2
      fields(kv_l = %l : memref<2x64xf32, 3>, kv_r = %r : memref<2x64xf32, 3>)
      readers(left = [kv_l], right = [kv_r])
  // expected-note @+1 {{slot held since this wait}}
  %v = tle.wait %p[%i : index] reader "right" -> memref<64xf32, 3>
  // expected-error @+1 {{touches field 'kv_l' of pipe 'kv' while reader 'right' holds the slot, but that reader reads only: kv_r}}
  %x = memref.load %l[%i, %j] : memref<2x64xf32, 3>
  tle.release %p[%i : index] reader "right"
  return
}

// -----

func.func @acquire_one_shot() {
  %a = tle.shared_alloc : memref<1x64xf32, 3>
  %p = tle.pipe "q" capacity 1 one_shot fields(x = %a : memref<1x64xf32, 3>) readers(r)
  // expected-error @+1 {{on one_shot pipe 'q': a pipe written once has no slot to wait for}}
  %v = tle.acquire %p -> memref<64xf32, 3>
  return
}

// -----

func.func @release_one_shot() {
  %a = tle.shared_alloc : memref<1x64xf32, 3>
  %p = tle.pipe "q" capacity 1 one_shot fields(x = %a : memref<1x64xf32, 3>) readers(r)
  // expected-error @+1 {{on one_shot pipe 'q': a pipe written once is never refilled, so its readers do not release it}}
  tle.release %p reader "r"
  return
}

// -----

func.func @one_shot_iteration(%i: index) {
  %a = tle.shared_alloc : memref<1x64xf32, 3>
  %p = tle.pipe "q" capacity 1 one_shot fields(x = %a : memref<1x64xf32, 3>) readers(r)
  // expected-error @+1 {{on one_shot pipe 'q' takes no iteration value}}
  tle.commit %p[%i : index]
  return
}

// -----

func.func @missing_iteration() {
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %p = tle.pipe "kv" capacity 2 fields(x = %a : memref<2x64xf32, 3>) readers(r)
  // expected-error @+1 {{on pipe 'kv' needs the logical iteration it works on}}
  tle.commit %p
  return
}

// -----

func.func @acquire_view_count(%i: index) {
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %b = tle.shared_alloc : memref<2x8xi32, 3>
  %p = tle.pipe "kv" capacity 2 fields(x = %a : memref<2x64xf32, 3>, y = %b : memref<2x8xi32, 3>) readers(r)
  // expected-error @+1 {{returns 1 views but the writer of pipe 'kv' sees 2 fields (x, y)}}
  %v = tle.acquire %p[%i : index] -> memref<64xf32, 3>
  return
}

// -----

func.func @wait_view_type(%i: index) {
  %a = tle.shared_alloc : memref<2x64xf32, 3>
  %b = tle.shared_alloc : memref<2x8xi32, 3>
  %p = tle.pipe "kv" capacity 2 fields(x = %a : memref<2x64xf32, 3>, y = %b : memref<2x8xi32, 3>) readers(r = [y], s = [x])
  // expected-error @+1 {{returns 'memref<64xf32, 3>' for field 'y' of pipe 'kv', whose slot type is 'memref<8xi32, 3>'}}
  %v = tle.wait %p[%i : index] reader "r" -> memref<64xf32, 3>
  return
}

// -----

func.func @pipe_through_block_argument(%p: !tle.pipe, %i: index) {
  // expected-error @+1 {{needs a pipe defined directly by tle.pipe}}
  tle.commit %p[%i : index]
  return
}

// -----

// expected-error @+1 {{partition 'producer' has 3 warps; warps per partition must be a positive power of two}}
tle.warp_specialize
default warps(4) {
  tle.warp_yield
}
partition "producer" warps(3) {
  tle.warp_return
}

// -----

// expected-error @+1 {{partition 'default' has 0 warps; warps per partition must be a positive power of two}}
tle.warp_specialize
default warps(0) {
  tle.warp_yield
}

// -----

func.func @wgmma_needs_warp_group(%a: i64, %b: i64, %acc: !llvm.struct<(f32, f32, f32, f32)>) {
  // expected-error @+1 {{partition 'mma' issues warp-group MMA but has 2 warps; warp-group MMA needs a multiple of 4 warps}}
  tle.warp_specialize
  default warps(4) {
    tle.warp_yield
  }
  partition "mma" warps(2) {
    %r = nvvm.wgmma.mma_async %a, %b, %acc, #nvvm.shape<m = 64, n = 8, k = 16>,
        D [<f32>, #nvvm.wgmma_scale_out<one>],
        A [<bf16>, #nvvm.wgmma_scale_in<one>, <row>],
        B [<bf16>, #nvvm.wgmma_scale_in<one>, <col>]
        : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
    tle.warp_return
  }
  return
}

// -----

// expected-error @+1 {{partition 'consumer' requests 250 registers; setmaxnreg takes a multiple of 8 in 24..256}}
tle.warp_specialize
default "consumer" warps(4) registers(250) {
  tle.warp_yield
}

// -----

// expected-error @+1 {{partition 'producer' requests 16 registers; setmaxnreg takes a multiple of 8 in 24..256}}
tle.warp_specialize
default warps(4) {
  tle.warp_yield
}
partition "producer" warps(4) registers(16) {
  tle.warp_return
}

// -----

// expected-error @+1 {{register budgets need 66560 registers per CTA (warp group 0: 240 x 128, warp group 1: 240 x 128, warp group 2: 40 x 128), over the 64512 that setmaxnreg can hand out: the CTA's 384 threads start with 168 registers each}}
tle.warp_specialize
default "left" warps(4) registers(240) {
  tle.warp_yield
}
partition "right" warps(4) registers(240) {
  tle.warp_return
}
partition "producer" warps(4) registers(40) {
  tle.warp_return
}

// -----

// Unrequested warp groups count at the 24-register floor.
// expected-error @+1 {{register budgets need 71680 registers per CTA (warp group 0: 256 x 128, warp group 1: 256 x 128, warp group 2: 24 x 128, warp group 3: 24 x 128)}}
tle.warp_specialize
default "left" warps(4) registers(256) {
  tle.warp_yield
}
partition "right" warps(4) registers(256) {
  tle.warp_return
}
partition warps(4) {
  tle.warp_return
}
partition warps(4) {
  tle.warp_return
}

// -----

// expected-error @+1 {{partitions 'load' and 'store' share warp group 1 but request 40 and 56 registers; setmaxnreg sets one budget per warp group}}
tle.warp_specialize
default warps(4) {
  tle.warp_yield
}
partition "load" warps(1) registers(40) {
  tle.warp_return
}
partition "store" warps(1) registers(56) {
  tle.warp_return
}

// -----

// expected-error @+1 {{has 16 partitions, but each partition needs a named barrier and a CTA has 16 (id 0 is the CTA-wide barrier), so at most 15 partitions fit}}
tle.warp_specialize
default warps(1) { tle.warp_yield }
partition warps(1) { tle.warp_return }
partition warps(1) { tle.warp_return }
partition warps(1) { tle.warp_return }
partition warps(1) { tle.warp_return }
partition warps(1) { tle.warp_return }
partition warps(1) { tle.warp_return }
partition warps(1) { tle.warp_return }
partition warps(1) { tle.warp_return }
partition warps(1) { tle.warp_return }
partition warps(1) { tle.warp_return }
partition warps(1) { tle.warp_return }
partition warps(1) { tle.warp_return }
partition warps(1) { tle.warp_return }
partition warps(1) { tle.warp_return }
partition warps(1) { tle.warp_return }

// -----

// expected-error @+1 {{places its partitions on 36 warps (1152 threads) but a CTA holds at most 32 warps}}
tle.warp_specialize
default warps(16) { tle.warp_yield }
partition warps(16) { tle.warp_return }
partition warps(1) { tle.warp_return }

// -----

// expected-error @+1 {{has two partitions named 'mma'}}
tle.warp_specialize
default "mma" warps(4) { tle.warp_yield }
partition "mma" warps(4) { tle.warp_return }

// -----

tle.warp_specialize
default warps(4) {
  // expected-error @+1 {{cannot be nested in another tle.warp_specialize}}
  tle.warp_specialize
  default warps(4) { tle.warp_yield }
  tle.warp_yield
}

// -----

func.func @yield_types(%x: f32) -> f32 {
  %r = tle.warp_specialize -> (f32)
  default warps(4) {
    // expected-error @+1 {{yields 0 values of types  but the tle.warp_specialize returns 'f32'}}
    tle.warp_yield
  }
  return %r : f32
}

// -----

// expected-error @+1 {{default region must end in tle.warp_yield}}
tle.warp_specialize
default warps(4) { tle.warp_return }

// -----

tle.warp_specialize
default warps(4) { tle.warp_yield }
partition warps(4) {
  // expected-error @+1 {{ends a partition region; use tle.warp_return there}}
  tle.warp_yield
}

// -----

// expected-error @+1 {{'tle.warp_yield' op expects parent op 'tle.warp_specialize'}}
tle.warp_yield

// -----

%a = tle.shared_alloc : memref<2x64xf32, 3>
%b = tle.shared_alloc : memref<2x64xf32, 3>
// expected-error @+1 {{field 'y' of pipe 'kv' is read by no reader; drop it or list it in a reader's fields}}
%p = tle.pipe "kv" capacity 2 fields(x = %a : memref<2x64xf32, 3>, y = %b : memref<2x64xf32, 3>) readers(r = [x])

// -----

// The whole register file is not available: 384 threads start with 168
// registers each, and setmaxnreg only moves those (measured: asking for all
// 65,536 hangs in setmaxnreg.inc).
// expected-error @+1 {{register budgets need 65536 registers per CTA (warp group 0: 224 x 128, warp group 1: 224 x 128, warp group 2: 64 x 128), over the 64512 that setmaxnreg can hand out: the CTA's 384 threads start with 168 registers each}}
tle.warp_specialize
default "attn" warps(8) registers(224) {
  tle.warp_yield
}
partition "gather" warps(4) registers(64) {
  tle.warp_return
}
