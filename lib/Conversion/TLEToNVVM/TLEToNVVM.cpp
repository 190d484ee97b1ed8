//===- TLEToNVVM.cpp - Lower TLE kernels to LLVM and NVVM -----------------===//

#include "tle/Conversion/TLEToNVVM/TLEToNVVM.h"
#include "tle/Dialect/TLE/IR/TLEDialect.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tle {
#define GEN_PASS_DEF_CONVERTTLETONVVM
#include "tle/Conversion/Passes.h.inc"
} // namespace mlir::tle

using namespace mlir;
using namespace mlir::tle;

void tle::populateTLEToNVVMConversionPatterns(LLVMTypeConverter &converter,
                                              RewritePatternSet &patterns) {}

namespace {
struct ConvertTLEToNVVMPass
    : tle::impl::ConvertTLEToNVVMBase<ConvertTLEToNVVMPass> {
  using Base::Base;
  void runOnOperation() override {}
};
} // namespace
