//===- SyncPlan.cpp
//---------------------------------------------------------===//

#include "tle/Dialect/TLE/IR/TLEDialect.h"
#include "tle/Dialect/TLE/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::tle {
#define GEN_PASS_DEF_TLESYNCPLAN
#include "tle/Dialect/TLE/Transforms/Passes.h.inc"
} // namespace mlir::tle

using namespace mlir;
using namespace mlir::tle;

namespace {
struct TLESyncPlanPass : tle::impl::TLESyncPlanBase<TLESyncPlanPass> {
  using Base::Base;
  void runOnOperation() override {}
};
} // namespace
