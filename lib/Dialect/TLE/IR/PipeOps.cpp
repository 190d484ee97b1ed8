//===- PipeOps.cpp - tle.shared_alloc, tle.pipe and its lifecycle ops -----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tle/Dialect/TLE/IR/TLEDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::tle;

static std::string joinNames(ArrayRef<StringRef> names) {
  return llvm::join(names, ", ");
}

bool mlir::tle::isIdentifier(StringRef name) {
  if (name.empty() || !(llvm::isAlpha(name.front()) || name.front() == '_'))
    return false;
  return llvm::all_of(name.drop_front(),
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

std::string mlir::tle::getReplicaName(StringRef name, unsigned replica) {
  return (name + "#" + Twine(replica)).str();
}

bool mlir::tle::isIdentifierOrReplicaName(StringRef name) {
  if (!name.contains('#'))
    return isIdentifier(name);
  auto [base, replica] = name.rsplit('#');
  return isIdentifier(base) && !replica.empty() &&
         llvm::all_of(replica, llvm::isDigit);
}

//===----------------------------------------------------------------------===//
// SharedAllocOp
//===----------------------------------------------------------------------===//

LogicalResult SharedAllocOp::verify() {
  MemRefType type = getBuffer().getType();
  if (std::optional<uint64_t> alignment = getAlignment();
      alignment && !llvm::isPowerOf2_64(*alignment))
    return emitOpError("alignment ") << *alignment << " is not a power of two";
  if (!isSharedMemorySpace(type.getMemorySpace()))
    return emitOpError("allocates ")
           << type << ", which is not in shared memory; use the "
           << "#gpu.address_space<workgroup> memory space";
  if (!type.hasStaticShape())
    return emitOpError("needs a static shape, got ") << type;
  if (!getBufferByteSize(type))
    return emitOpError("needs an element type of fixed size, got ") << type;
  if (!type.getLayout().isIdentity())
    return emitOpError("needs the identity layout, got ") << type;
  return success();
}

//===----------------------------------------------------------------------===//
// PipeOp
//===----------------------------------------------------------------------===//

std::optional<unsigned> PipeOp::lookupField(StringRef name) {
  for (unsigned i = 0, e = getNumFields(); i < e; ++i)
    if (getFieldName(i) == name)
      return i;
  return std::nullopt;
}

ReaderAttr PipeOp::lookupReader(StringRef name) {
  for (auto reader : getReaders().getAsRange<ReaderAttr>())
    if (reader.getName().getValue() == name)
      return reader;
  return {};
}

SmallVector<unsigned> PipeOp::getReaderFields(ReaderAttr reader) {
  SmallVector<unsigned> fields;
  for (unsigned i = 0, e = getNumFields(); i < e; ++i)
    if (reader.readsField(getFieldName(i)))
      fields.push_back(i);
  return fields;
}

MemRefType PipeOp::getSlotType(unsigned i) {
  auto type = cast<MemRefType>(getBuffers()[i].getType());
  return MemRefType::get(type.getShape().drop_front(), type.getElementType(),
                         MemRefLayoutAttrInterface(), type.getMemorySpace());
}

void PipeOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getPipe(), getName());
}

ParseResult PipeOp::parse(OpAsmParser &parser, OperationState &result) {
  MLIRContext *ctx = parser.getContext();
  Builder &b = parser.getBuilder();
  StringAttr name;
  int64_t capacity = 0;
  if (parser.parseAttribute(name, "name", result.attributes) ||
      parser.parseKeyword("capacity") || parser.parseInteger(capacity))
    return failure();
  result.addAttribute("capacity", b.getI64IntegerAttr(capacity));
  if (succeeded(parser.parseOptionalKeyword("one_shot")))
    result.addAttribute("oneShot", b.getUnitAttr());

  SmallVector<Attribute> fieldNames;
  SmallVector<OpAsmParser::UnresolvedOperand> buffers;
  SmallVector<Type> bufferTypes;
  auto parseField = [&]() -> ParseResult {
    std::string fieldName;
    if (parser.parseKeywordOrString(&fieldName) || parser.parseEqual() ||
        parser.parseOperand(buffers.emplace_back()) ||
        parser.parseColonType(bufferTypes.emplace_back()))
      return failure();
    fieldNames.push_back(b.getStringAttr(fieldName));
    return success();
  };
  if (parser.parseKeyword("fields") ||
      parser.parseCommaSeparatedList(AsmParser::Delimiter::Paren, parseField))
    return failure();

  SmallVector<Attribute> readers;
  auto parseReader = [&]() -> ParseResult {
    std::string readerName;
    if (parser.parseKeywordOrString(&readerName))
      return failure();
    SmallVector<Attribute> subset;
    if (succeeded(parser.parseOptionalEqual())) {
      auto parseSubsetField = [&]() -> ParseResult {
        std::string field;
        if (parser.parseKeywordOrString(&field))
          return failure();
        subset.push_back(b.getStringAttr(field));
        return success();
      };
      if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                         parseSubsetField))
        return failure();
    }
    readers.push_back(ReaderAttr::get(ctx, b.getStringAttr(readerName),
                                      b.getArrayAttr(subset)));
    return success();
  };
  if (parser.parseKeyword("readers") ||
      parser.parseCommaSeparatedList(AsmParser::Delimiter::Paren, parseReader))
    return failure();

  result.addAttribute("fieldNames", b.getArrayAttr(fieldNames));
  result.addAttribute("readers", b.getArrayAttr(readers));
  if (parser.parseOptionalAttrDict(result.attributes) ||
      parser.resolveOperands(buffers, bufferTypes, parser.getNameLoc(),
                             result.operands))
    return failure();
  result.addTypes(PipeType::get(ctx));
  return success();
}

void PipeOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printAttributeWithoutType(getNameAttr());
  p << " capacity " << getCapacity();
  if (getOneShot())
    p << " one_shot";
  p << " fields(";
  llvm::interleaveComma(
      llvm::seq<unsigned>(0, getNumFields()), p, [&](unsigned i) {
        p.printKeywordOrString(getFieldName(i));
        p << " = " << getBuffers()[i] << " : " << getBuffers()[i].getType();
      });
  p << ") readers(";
  llvm::interleaveComma(
      getReaders().getAsRange<ReaderAttr>(), p, [&](ReaderAttr reader) {
        p.printKeywordOrString(reader.getName().getValue());
        if (reader.getFields().empty())
          return;
        p << " = [";
        llvm::interleaveComma(reader.getFields().getAsValueRange<StringAttr>(),
                              p,
                              [&](StringRef f) { p.printKeywordOrString(f); });
        p << "]";
      });
  p << ")";
  p.printOptionalAttrDict((*this)->getAttrs(),
                          {getNameAttrName(), getCapacityAttrName(),
                           getOneShotAttrName(), getFieldNamesAttrName(),
                           getReadersAttrName()});
}

LogicalResult PipeOp::verify() {
  StringRef name = getName();
  int64_t capacity = getCapacityAttr().getInt();
  if (capacity < 1)
    return emitOpError("pipe '") << name << "' has capacity " << capacity
                                 << "; a pipe needs at least one slot";
  if (getOneShot() && capacity != 1)
    return emitOpError("one_shot pipe '")
           << name << "' has capacity " << capacity
           << "; a pipe written once has exactly one slot";
  if (getFieldNames().size() != getBuffers().size())
    return emitOpError("pipe '")
           << name << "' names " << getFieldNames().size()
           << " fields but binds " << getBuffers().size() << " buffers";
  if (getBuffers().empty())
    return emitOpError("pipe '") << name << "' binds no fields";

  llvm::StringSet<> fieldNames;
  llvm::SmallPtrSet<Value, 4> buffers;
  for (unsigned i = 0, e = getNumFields(); i < e; ++i) {
    StringRef field = getFieldName(i);
    if (!isIdentifier(field))
      return emitOpError("field name '")
             << field << "' of pipe '" << name << "' is not an identifier";
    if (field == "full" || field == "free")
      return emitOpError("field name '")
             << field << "' of pipe '" << name
             << "' is reserved: sync plans name the pipe's barriers '" << name
             << ".full' and '" << name << ".free'";
    if (!fieldNames.insert(field).second)
      return emitOpError("pipe '")
             << name << "' declares field '" << field << "' twice";
    Value buffer = getBuffers()[i];
    if (!buffers.insert(buffer).second)
      return emitOpError("field '")
             << field << "' of pipe '" << name
             << "' binds a buffer that another field of the pipe binds too";
    auto type = cast<MemRefType>(buffer.getType());
    if (!isSharedMemorySpace(type.getMemorySpace()))
      return emitOpError("field '")
             << field << "' of pipe '" << name << "' is " << type
             << ", which is not in shared memory";
    if (type.getRank() < 1 || !getBufferByteSize(type) ||
        !type.getLayout().isIdentity())
      return emitOpError("field '")
             << field << "' of pipe '" << name << "' is " << type
             << "; a field is a statically shaped buffer with the identity "
                "layout whose leading dimension indexes the slots";
    if (type.getDimSize(0) != capacity)
      return emitOpError("field '")
             << field << "' of pipe '" << name << "' has leading dimension "
             << type.getDimSize(0) << " but the pipe has capacity " << capacity;
  }

  if (getReaders().empty())
    return emitOpError("pipe '") << name << "' declares no readers";
  llvm::StringSet<> readerNames;
  for (auto reader : getReaders().getAsRange<ReaderAttr>()) {
    StringRef readerName = reader.getName().getValue();
    if (!isIdentifierOrReplicaName(readerName))
      return emitOpError("reader name '")
             << readerName << "' of pipe '" << name << "' is not an identifier";
    if (readerName == "writer")
      return emitOpError("reader name 'writer' of pipe '")
             << name << "' is reserved for the writing side";
    if (!readerNames.insert(readerName).second)
      return emitOpError("pipe '")
             << name << "' declares reader '" << readerName << "' twice";
    llvm::StringSet<> subset;
    for (Attribute fieldAttr : reader.getFields()) {
      auto field = dyn_cast<StringAttr>(fieldAttr);
      if (!field)
        return emitOpError("reader '")
               << readerName << "' of pipe '" << name
               << "' lists a field that is not a string";
      if (!fieldNames.contains(field.getValue()))
        return emitOpError("reader '")
               << readerName << "' of pipe '" << name
               << "' reads unknown field '" << field.getValue() << "'";
      if (!subset.insert(field.getValue()).second)
        return emitOpError("reader '")
               << readerName << "' of pipe '" << name << "' lists field '"
               << field.getValue() << "' twice";
    }
  }
  for (unsigned i = 0, e = getNumFields(); i < e; ++i)
    if (llvm::none_of(getReaders().getAsRange<ReaderAttr>(), [&](ReaderAttr r) {
          return r.readsField(getFieldName(i));
        }))
      return emitOpError("field '")
             << getFieldName(i) << "' of pipe '" << name
             << "' is read by no reader; drop it or list it in a reader's "
                "fields";
  return success();
}

//===----------------------------------------------------------------------===//
// Lifecycle ops
//===----------------------------------------------------------------------===//

/// Checks what all four lifecycle ops share: the pipe comes straight from
/// tle.pipe, the iteration is present exactly when the pipe is not one_shot,
/// and a reader side names a declared reader. Returns the pipe on success.
static PipeOp verifyLifecycleOp(PipeLifecycleOpInterface op) {
  Operation *operation = op.getOperation();
  PipeOp pipe = op.getPipeOp();
  if (!pipe) {
    operation->emitOpError("needs a pipe defined directly by tle.pipe; pipe "
                           "values cannot be passed through block arguments");
    return {};
  }
  // In a graph region the pipe may be verified after its users: check it
  // quietly before reading its declaration.
  LogicalResult pipeValid = success();
  {
    ScopedDiagnosticHandler quiet(operation->getContext(),
                                  [](Diagnostic &) { return success(); });
    pipeValid = pipe.verifyInvariants();
  }
  if (failed(pipeValid)) {
    operation->emitOpError("uses a pipe whose declaration is invalid");
    return {};
  }
  if (pipe.getOneShot() && op.getIteration()) {
    operation->emitOpError("on one_shot pipe '")
        << pipe.getName()
        << "' takes no iteration value; the pipe is written once";
    return {};
  }
  if (!pipe.getOneShot() && !op.getIteration()) {
    operation->emitOpError("on pipe '")
        << pipe.getName() << "' needs the logical iteration it works on";
    return {};
  }
  StringAttr reader = op.getReaderAttr();
  if (reader && !pipe.lookupReader(reader.getValue())) {
    SmallVector<StringRef> names;
    for (auto r : pipe.getReaders().getAsRange<ReaderAttr>())
      names.push_back(r.getName().getValue());
    operation->emitOpError("names reader '")
        << reader.getValue() << "' but pipe '" << pipe.getName()
        << "' declares readers: " << joinNames(names);
    return {};
  }
  return pipe;
}

/// Checks that `views` are the slots of `fields`, in order.
static LogicalResult verifyViews(Operation *op, PipeOp pipe,
                                 ArrayRef<unsigned> fields, TypeRange views,
                                 StringRef side) {
  if (views.size() != fields.size()) {
    SmallVector<StringRef> names;
    for (unsigned f : fields)
      names.push_back(pipe.getFieldName(f));
    return op->emitOpError("returns ")
           << views.size() << " views but the " << side << " of pipe '"
           << pipe.getName() << "' sees " << fields.size() << " fields ("
           << joinNames(names) << ")";
  }
  for (auto [field, view] : llvm::zip(fields, views)) {
    MemRefType expected = pipe.getSlotType(field);
    if (view != expected)
      return op->emitOpError("returns ")
             << view << " for field '" << pipe.getFieldName(field)
             << "' of pipe '" << pipe.getName() << "', whose slot type is "
             << expected;
  }
  return success();
}

LogicalResult AcquireOp::verify() {
  PipeOp pipe = verifyLifecycleOp(*this);
  if (!pipe)
    return failure();
  if (pipe.getOneShot())
    return emitOpError("on one_shot pipe '")
           << pipe.getName()
           << "': a pipe written once has no slot to wait for; write its "
              "buffer and tle.commit it";
  auto all = llvm::to_vector(llvm::seq<unsigned>(0, pipe.getNumFields()));
  return verifyViews(*this, pipe, all, getViews().getTypes(), "writer");
}

LogicalResult CommitOp::verify() {
  return success(static_cast<bool>(verifyLifecycleOp(*this)));
}

iterator_range<Block::iterator> WaitOp::getHoldRange() {
  Block::iterator begin = std::next(getOperation()->getIterator());
  Block::iterator end = getOperation()->getBlock()->end();
  for (Block::iterator it = begin; it != end; ++it) {
    auto release = dyn_cast<ReleaseOp>(&*it);
    if (release && release.getPipe() == getPipe() &&
        release.getReader() == getReader() &&
        release.getIteration() == getIteration())
      return {begin, it};
  }
  return {begin, end};
}

/// A reader that declared a field subset must not reach around its views to
/// the other fields' buffers while it holds the slot.
static LogicalResult verifyNoForeignFieldUse(WaitOp wait, PipeOp pipe,
                                             ReaderAttr reader) {
  auto range = wait.getHoldRange();
  llvm::SmallPtrSet<Operation *, 16> held;
  for (Operation &op : range)
    held.insert(&op);
  for (unsigned i = 0, e = pipe.getNumFields(); i < e; ++i) {
    if (reader.readsField(pipe.getFieldName(i)))
      continue;
    for (Operation *user : pipe.getBuffers()[i].getUsers()) {
      Operation *ancestor = wait->getBlock()->findAncestorOpInBlock(*user);
      if (!ancestor || !held.contains(ancestor))
        continue;
      SmallVector<StringRef> declared;
      for (unsigned f : pipe.getReaderFields(reader))
        declared.push_back(pipe.getFieldName(f));
      InFlightDiagnostic diag =
          user->emitOpError("touches field '")
          << pipe.getFieldName(i) << "' of pipe '" << pipe.getName()
          << "' while reader '" << reader.getName().getValue()
          << "' holds the slot, but that reader reads only: "
          << joinNames(declared);
      diag.attachNote(wait.getLoc()) << "slot held since this wait";
      return diag;
    }
  }
  return success();
}

LogicalResult WaitOp::verify() {
  PipeOp pipe = verifyLifecycleOp(*this);
  if (!pipe)
    return failure();
  ReaderAttr reader = pipe.lookupReader(getReader());
  if (failed(verifyViews(*this, pipe, pipe.getReaderFields(reader),
                         getViews().getTypes(),
                         ("reader '" + getReader() + "'").str())))
    return failure();
  return verifyNoForeignFieldUse(*this, pipe, reader);
}

LogicalResult SlotOp::verify() {
  MemRefType buffer = getBuffer().getType();
  if (buffer.getRank() < 1 || !buffer.hasStaticShape() ||
      !buffer.getLayout().isIdentity())
    return emitOpError("needs a statically shaped buffer with the identity "
                       "layout, got ")
           << buffer;
  auto expected =
      MemRefType::get(buffer.getShape().drop_front(), buffer.getElementType(),
                      MemRefLayoutAttrInterface(), buffer.getMemorySpace());
  if (getView().getType() != expected)
    return emitOpError("returns ") << getView().getType() << " but a slot of "
                                   << buffer << " is " << expected;
  return success();
}

/// Barrier arrays live in shared memory; a constant index must be in range.
static LogicalResult verifyBarrierAccess(Operation *op, MemRefType barriers,
                                         Value index) {
  if (!isSharedMemorySpace(barriers.getMemorySpace()))
    return op->emitOpError("needs mbarriers in shared memory, got ")
           << barriers;
  APInt constant;
  if (barriers.hasStaticShape() &&
      matchPattern(index, m_ConstantInt(&constant)) &&
      (constant.isNegative() ||
       constant.getSExtValue() >= barriers.getDimSize(0)))
    return op->emitOpError("index ")
           << constant.getSExtValue() << " is outside the "
           << barriers.getDimSize(0) << " mbarriers of " << barriers;
  return success();
}

LogicalResult MBarrierInitOp::verify() {
  return verifyBarrierAccess(*this, getBarriers().getType(), getIndex());
}

LogicalResult MBarrierWaitOp::verify() {
  return verifyBarrierAccess(*this, getBarriers().getType(), getIndex());
}

LogicalResult MBarrierArriveOp::verify() {
  if ((getForm() == ArriveForm::ExpectTx) != getTxBytes().has_value())
    return emitOpError("takes transaction bytes exactly when its form is "
                       "expect_tx");
  return verifyBarrierAccess(*this, getBarriers().getType(), getIndex());
}

LogicalResult ReleaseOp::verify() {
  PipeOp pipe = verifyLifecycleOp(*this);
  if (!pipe)
    return failure();
  if (pipe.getOneShot())
    return emitOpError("on one_shot pipe '")
           << pipe.getName()
           << "': a pipe written once is never refilled, so its readers do "
              "not release it";
  return success();
}

//===----------------------------------------------------------------------===//
// ReclaimOp
//===----------------------------------------------------------------------===//

void ReclaimOp::build(OpBuilder &builder, OperationState &state, Value pipe,
                      StringRef reader, Value part) {
  build(builder, state, part ? TypeRange(part.getType()) : TypeRange(), pipe,
        builder.getStringAttr(reader), part);
}

// %o = tle.reclaim %q reader "wg0" scratch %part : memref<...>
ParseResult ReclaimOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::UnresolvedOperand pipe, part;
  StringAttr reader;
  Type partType;
  bool hasPart = false;
  if (parser.parseOperand(pipe) || parser.parseKeyword("reader") ||
      parser.parseAttribute(reader, "reader", result.attributes))
    return failure();
  if (succeeded(parser.parseOptionalKeyword("scratch"))) {
    hasPart = true;
    if (parser.parseOperand(part) || parser.parseColonType(partType))
      return failure();
  }
  if (parser.parseOptionalAttrDict(result.attributes) ||
      parser.resolveOperand(pipe, PipeType::get(parser.getContext()),
                            result.operands))
    return failure();
  if (hasPart) {
    if (parser.resolveOperand(part, partType, result.operands))
      return failure();
    result.addTypes(partType);
  }
  return success();
}

void ReclaimOp::print(OpAsmPrinter &p) {
  p << " " << getPipe() << " reader ";
  p.printAttributeWithoutType(getReaderAttr());
  if (Value part = getPart())
    p << " scratch " << part << " : " << part.getType();
  p.printOptionalAttrDict((*this)->getAttrs(), {"reader"});
}

LogicalResult ReclaimOp::verify() {
  PipeOp pipe = getPipeOp();
  if (!pipe)
    return emitOpError("needs a pipe defined directly by tle.pipe");
  if (!pipe.lookupReader(getReader()))
    return emitOpError("names reader '")
           << getReader() << "', which pipe '" << pipe.getName()
           << "' does not declare";
  if (static_cast<bool>(getPart()) != static_cast<bool>(getScratch()) ||
      (getPart() && getPart().getType() != getScratch().getType()))
    return emitOpError("returns its scratch part, of the part's type");
  return success();
}
