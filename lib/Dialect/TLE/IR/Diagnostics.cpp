//===- Diagnostics.cpp - Diagnostics a kernel author can read -------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/IR/Diagnostics.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::tle;

InFlightDiagnostic tle::emitAtHead(Operation *op, DiagnosticSeverity severity) {
  InFlightDiagnostic diag =
      op->getContext()->getDiagEngine().emit(op->getLoc(), severity);
  if (op->getContext()->shouldPrintOpOnDiagnostic())
    // The generic form prints even an op that failed its verifier.
    diag.attachNote(op->getLoc())
        .append("see current operation: ")
        .appendOp(*op, OpPrintingFlags().printGenericOpForm().skipRegions());
  return diag;
}

InFlightDiagnostic tle::emitOpErrorAtHead(Operation *op) {
  return emitAtHead(op) << "'" << op->getName() << "' op ";
}

/// "line 12" for the first file location inside `loc`, or nothing.
static std::optional<std::string> describeLine(Location loc) {
  std::optional<std::string> line;
  loc->walk([&](Location inner) {
    if (auto file = dyn_cast<FileLineColLoc>(inner)) {
      line = "line " + std::to_string(file.getLine());
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return line;
}

std::string tle::describeOp(Operation *op) {
  std::string text = ("the " + op->getName().getStringRef()).str();
  if (std::optional<std::string> line = describeLine(op->getLoc()))
    text += " at " + *line;
  return text;
}

std::string tle::describeValue(Value value) {
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return std::to_string(constant.getSExtValue());
  std::string text;
  llvm::raw_string_ostream os(text);
  Operation *owner = value.getDefiningOp();
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    owner = arg.getOwner()->getParentOp();
    // A kernel argument is found by its number.
    if (auto func = dyn_cast_if_present<FunctionOpInterface>(owner))
      return ("argument " + Twine(arg.getArgNumber()) + " of @" +
              func.getName())
          .str();
    auto loop = dyn_cast_if_present<scf::ForOp>(owner);
    if (loop && arg == loop.getInductionVar())
      os << "the loop variable of the scf.for";
    else if (owner)
      os << "block argument " << arg.getArgNumber() << " of the "
         << owner->getName();
  } else {
    os << "the " << owner->getName();
    if (owner->getNumResults() > 1)
      os << " (result " << cast<OpResult>(value).getResultNumber() << ")";
  }
  std::optional<std::string> line =
      owner ? describeLine(owner->getLoc()) : std::nullopt;
  if (!line) {
    text.clear();
    value.printAsOperand(os, OpPrintingFlags().useLocalScope());
    return text;
  }
  os << " at " << *line;
  return text;
}
