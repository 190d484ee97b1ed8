//===- TLEDialect.h - TLE dialect, types, attributes and ops ----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef TLE_DIALECT_TLE_IR_TLEDIALECT_H
#define TLE_DIALECT_TLE_IR_TLEDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tle/Dialect/TLE/IR/TLEDialect.h.inc"
#include "tle/Dialect/TLE/IR/TLEEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "tle/Dialect/TLE/IR/TLETypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tle/Dialect/TLE/IR/TLEAttrs.h.inc"

namespace mlir::tle {
class PipeOp;
class WarpSpecializeOp;
/// Whether `memorySpace` denotes the CTA's shared memory: either
/// `#gpu.address_space<workgroup>` or the NVPTX address space 3.
bool isSharedMemorySpace(Attribute memorySpace);
/// Bytes of a statically shaped buffer (a vector element type counted lane
/// by lane; INT64_MAX for more), or none for element types without a fixed
/// bit width. The
/// verifiers of tle.shared_alloc, pipe fields and tle.tma_load require it.
std::optional<int64_t> getBufferByteSize(MemRefType type);
/// The swizzle of a buffer in #tle.shared (32, 64 or 128 bytes), or 0 for a
/// row-major buffer.
int64_t getSwizzleBytes(MemRefType type);
/// Whether `name` is an identifier ([A-Za-z_][A-Za-z0-9_]*): names of pipe
/// fields, readers and tokens are, so that they print bare and can name
/// barriers (`kv.free.left`) in reports.
bool isIdentifier(StringRef name);
/// `mma#1`: the name --tle-expand-replicas gives replica `replica` of a
/// partition or reader called `name`. It is no identifier, so it cannot
/// collide with a name the author wrote.
std::string getReplicaName(StringRef name, unsigned replica);
/// Whether `name` is an identifier or the replica name of one.
bool isIdentifierOrReplicaName(StringRef name);
/// Fails, with an error at the op, when a tle.warp_specialize under `root`
/// still has a replicated partition: pass `pass` works on the partitions
/// --tle-expand-replicas writes out.
LogicalResult requireExpandedReplicas(Operation *root, StringRef pass);
/// Whether the readers of cp.async data in `op`'s kernel fence before the
/// async proxy reads it: false only under tle.cp_async_fence = "none".
bool readersFenceCpAsync(Operation *op);
} // namespace mlir::tle

#include "tle/Dialect/TLE/IR/TLEInterfaces.h.inc"

#define GET_OP_CLASSES
#include "tle/Dialect/TLE/IR/TLEOps.h.inc"

#endif // TLE_DIALECT_TLE_IR_TLEDIALECT_H
