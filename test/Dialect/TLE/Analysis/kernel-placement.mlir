// RUN: tle-opt %s --tle-test-kernel-placement -split-input-file -verify-diagnostics -o /dev/null

// One tle.warp_specialize directly in the one-block body of a kernel that
// returns nothing: the lowering can place it.
func.func @kernel() {
  // expected-remark @+1 {{the lowering can split the kernel's warps here}}
  tle.warp_specialize
  default warps(4) {
    tle.warp_yield
  }
  return
}

// -----

func.func @in_a_branch(%c: i1) {
  scf.if %c {
    // expected-error @+1 {{'tle.warp_specialize' op must sit directly in the body of a func.func kernel, not in the scf.if at line 17: it splits the kernel's warps once, so it cannot run in a loop or a branch}}
    tle.warp_specialize
    default warps(4) {
      tle.warp_yield
    }
  }
  return
}

// -----

func.func @returns() -> index {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tle.warp_specialize' op is in '@returns', which returns values; a GPU kernel returns nothing}}
  tle.warp_specialize
  default warps(4) {
    tle.warp_yield
  }
  return %c0 : index
}

// -----

// The second of two is the one reported, where the first is noted.
func.func @twice() {
  // expected-note @+2 {{the first is here}}
  // expected-remark @+1 {{the lowering can split the kernel's warps here}}
  tle.warp_specialize
  default warps(4) {
    tle.warp_yield
  }
  // expected-error @+1 {{'tle.warp_specialize' op is one of several in '@twice'; a kernel has one tle.warp_specialize}}
  tle.warp_specialize
  default warps(4) {
    tle.warp_yield
  }
  return
}
