// REQUIRES: ptxas
//
// Without launch bounds ptxas cannot tell the register count at entry and
// drops setmaxnreg (C7508), which would silently undo warp specialization's
// register split; --tle-to-cubin reports it as a warning.
//
// RUN: tle-translate --tle-to-cubin %s -o %t.cubin --tle-ptxas-log=%t.log 2>&1 \
// RUN:   | FileCheck %s
// RUN: FileCheck --check-prefix=LOG --input-file=%t.log %s

// CHECK: warning: ptxas info {{.*}}: (C7508) Potential Performance Loss: 'setmaxnreg' ignored
// LOG:   (C7508)
// LOG:   Used {{[0-9]+}} registers

module {
  llvm.func @no_bounds(%arg0: !llvm.ptr<1>) attributes {nvvm.kernel} {
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %c64 = llvm.mlir.constant(64 : i32) : i32
    %producer = llvm.icmp "ult" %tid, %c64 : i32
    llvm.cond_br %producer, ^produce, ^consume
  ^produce:
    nvvm.setmaxregister decrease 40
    llvm.br ^store
  ^consume:
    nvvm.setmaxregister increase 232
    llvm.br ^store
  ^store:
    %addr = llvm.getelementptr %arg0[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    llvm.store %tid, %addr : i32, !llvm.ptr<1>
    llvm.return
  }
}
