// A chip or PTX version that cannot work, and a ptxas that cannot run, are
// errors with a reason and a non-zero exit, not LLVM aborts.
//
// RUN: not tle-translate --tle-to-ptx --tle-chip=sm_91z %s 2>&1 \
// RUN:   | FileCheck --check-prefix=CHIP %s
// CHIP: error: unknown NVPTX chip 'sm_91z'; known chips: {{.*}}sm_90a
//
// RUN: not tle-translate --tle-to-ptx --tle-features=ptx80 %s 2>&1 \
// RUN:   | FileCheck --check-prefix=FEATURE %s
// RUN: not tle-translate --tle-to-ptx --tle-features=+ptx99 %s 2>&1 \
// RUN:   | FileCheck --check-prefix=FEATURE %s
// FEATURE: error: invalid NVPTX feature '{{\+?}}ptx{{80|99}}': expected '+' or '-' and one of {{.*}}ptx80
//
// sm_90a needs PTX 8.0; LLVM's fatal error becomes a diagnostic.
// RUN: not tle-translate --tle-to-ptx --tle-features=+ptx78 %s 2>&1 \
// RUN:   | FileCheck --check-prefix=VERSION %s
// VERSION: error: PTX generation for sm_90a (+ptx78) failed: PTX version 7.8 does not support target 'sm_90a'
//
// setmaxnreg exists only on sm_90a; instruction selection fails on sm_90.
// RUN: not tle-translate --tle-to-ptx --tle-chip=sm_90 %s 2>&1 \
// RUN:   | FileCheck --check-prefix=SELECT %s
// SELECT: error: PTX generation for sm_90 (+ptx86) failed: Cannot select: intrinsic %llvm.nvvm.setmaxnreg.inc.sync.aligned.u32
// SELECT: note: the kernel uses an instruction that sm_90 does not have
//
// A later PTX version is accepted and declared.
// RUN: tle-translate --tle-to-ptx --tle-features=+ptx87 %s \
// RUN:   --tle-metadata=%t.json | FileCheck --check-prefix=PTX87 %s
// RUN: FileCheck --check-prefix=META87 --input-file=%t.json %s
// PTX87: .version 8.7
// META87: "ptx_version": "8.7"
//
// RUN: env TLE_PTXAS=%t.missing not tle-translate --tle-to-cubin %s \
// RUN:   -o %t.cubin 2>&1 | FileCheck --check-prefix=NOPTXAS %s
// NOPTXAS: error: TLE_PTXAS='{{.*}}.missing' is not an executable program
//
// RUN: env TLE_PTXAS=false not tle-translate --tle-to-cubin %s -o %t.cubin \
// RUN:   2>&1 | FileCheck --check-prefix=PTXASFAIL %s
// PTXASFAIL: error: {{.*}}false -arch=sm_90a failed (exit code 1)

module {
  llvm.func @k() attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128>} {
    nvvm.setmaxregister increase 232
    llvm.return
  }
}
