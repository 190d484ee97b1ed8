//===- KernelMetadataTest.cpp - parseKernelMetadata -----------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tle/Runtime/Runtime.h"

#include "gtest/gtest.h"

#include <cstdlib>

using namespace tle::runtime;
using tle::metadata::kDynamic;

namespace {

/// What tle-translate --tle-metadata writes for examples/pipes.
const char *pipesMetadata = R"({
  "chip": "sm_90a",
  "kernels": [
    {
      "block": [384, 1, 1],
      "dynamic_shared_memory": 2096,
      "grid": "(rows(in) / n, 1, 1): one CTA per n rows",
      "name": "pipes",
      "params": ["ptr", "ptr", "i64", "i64", "i64", "i64", "i64",
                 "ptr", "ptr", "i64", "i64", "i64", "i64", "i64", "i64"],
      "args": [
        {"element_type": "f32", "kind": "memref", "layout": "identity",
         "sizes": [-1, 256], "type": "memref<?x256xf32>"},
        {"element_type": "f32", "kind": "memref", "layout": "identity",
         "sizes": [-1, 256], "type": "memref<?x256xf32>"},
        {"kind": "index", "type": "index"}
      ]
    }
  ],
  "ptx_version": "8.0"
})";

void expectPipes(const std::vector<KernelInfo> &kernels) {
  ASSERT_EQ(kernels.size(), 1u);
  const KernelInfo &k = kernels[0];
  EXPECT_EQ(k.name, "pipes");
  EXPECT_EQ(k.block[0], 384);
  EXPECT_EQ(k.block[1], 1);
  EXPECT_EQ(k.block[2], 1);
  EXPECT_GT(k.dynamicSharedMemory, 2048);
  EXPECT_EQ(k.params.size(), 15u);
  ASSERT_EQ(k.args.size(), 3u);
  const KernelArgInfo &in = k.args[0];
  EXPECT_EQ(in.kind, KernelArgInfo::Kind::MemRef);
  EXPECT_EQ(in.type, "memref<?x256xf32>");
  EXPECT_EQ(in.elementType, "f32");
  EXPECT_EQ(in.sizes, (std::vector<int64_t>{kDynamic, 256}));
  EXPECT_TRUE(in.identityLayout);
  EXPECT_EQ(in.offset, 0);
  EXPECT_EQ(k.args[2].kind, KernelArgInfo::Kind::Index);
  EXPECT_EQ(k.args[2].type, "index");
  EXPECT_EQ(k.grid, "(rows(in) / n, 1, 1): one CTA per n rows");
}

TEST(KernelMetadata, PipesSample) {
  std::vector<KernelInfo> kernels;
  Status status = parseKernelMetadata(pipesMetadata, kernels);
  ASSERT_TRUE(status) << status.message;
  expectPipes(kernels);
}

/// The file tle-translate wrote in test/Runtime/metadata.test, when run
/// from there.
TEST(KernelMetadata, PipesFromTranslate) {
  const char *path = std::getenv("TLE_PIPES_METADATA");
  if (!path)
    GTEST_SKIP() << "TLE_PIPES_METADATA is not set";
  std::string text;
  ASSERT_TRUE(readFile(path, text));
  std::vector<KernelInfo> kernels;
  Status status = parseKernelMetadata(text, kernels);
  ASSERT_TRUE(status) << status.message;
  expectPipes(kernels);
}

std::string parseError(const std::string &text) {
  std::vector<KernelInfo> kernels;
  Status status = parseKernelMetadata(text, kernels);
  EXPECT_FALSE(status) << "accepted: " << text;
  return status.message;
}

TEST(KernelMetadata, OptionalKeys) {
  std::vector<KernelInfo> kernels;
  ASSERT_TRUE(parseKernelMetadata(
      R"({"kernels": [{"name": "k", "block": [128], "params": [],
          "dynamic_shared_memory": 0, "grid": "n / 128"}]})",
      kernels));
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels[0].block[0], 128);
  EXPECT_EQ(kernels[0].block[1], 1);
  EXPECT_TRUE(kernels[0].args.empty());
  EXPECT_EQ(kernels[0].grid, "n / 128");
  EXPECT_FALSE(kernels[0].persistent);

  kernels.clear();
  ASSERT_TRUE(parseKernelMetadata(
      R"({"kernels": [{"name": "k", "block": [128], "params": [],
          "dynamic_shared_memory": 0, "persistent": true}]})",
      kernels));
  EXPECT_TRUE(kernels[0].persistent);
}

TEST(KernelMetadata, Errors) {
  EXPECT_EQ(parseError("{"),
            "kernel metadata is not valid JSON: line 1, column 2: syntax "
            "error while parsing object key - unexpected end of input; "
            "expected string literal");
  EXPECT_EQ(parseError(R"({"kernels": [], "kernels": []})"),
            "kernel metadata is not valid JSON: the key 'kernels' appears "
            "twice in one object");
  EXPECT_EQ(parseError("[]"), "kernel metadata must be a JSON object");
  EXPECT_EQ(parseError("{}"), "kernel metadata: missing key 'kernels'");
  EXPECT_EQ(parseError(R"({"kernels": {}})"),
            "kernel metadata: 'kernels' must be an array");
  EXPECT_EQ(parseError(R"({"kernels": [1]})"),
            "kernel metadata: kernels[0] must be an object");
  EXPECT_EQ(parseError(R"({"kernels": [{"block": [1]}]})"),
            "kernel metadata: kernels[0]: missing key 'name'");
  EXPECT_EQ(parseError(R"({"kernels": [{"name": "k", "params": []}]})"),
            "kernel metadata: kernels[0] ('k'): missing key 'block'");
  EXPECT_EQ(parseError(R"({"kernels": [{"name": "k", "block": [1],
                           "params": []}]})"),
            "kernel metadata: kernels[0] ('k'): missing key "
            "'dynamic_shared_memory'");
  EXPECT_EQ(parseError(R"({"kernels": [{"name": "k", "block": [1],
                           "dynamic_shared_memory": 0, "params": [],
                           "args": [3]}]})"),
            "kernel metadata: kernels[0] ('k'): args[0] must be an object");
  EXPECT_EQ(parseError(R"({"kernels": [{"name": "k", "block": [1],
                           "dynamic_shared_memory": 0}]})"),
            "kernel metadata: kernels[0] ('k'): missing key 'params'");
  EXPECT_EQ(parseError(R"({"kernels": [{"name": 3}]})"),
            "kernel metadata: kernels[0]: 'name' must be a string, not a "
            "number");
}

TEST(KernelMetadata, BadValues) {
  auto kernel = [](const std::string &members) {
    return R"({"kernels": [{"name": "k", )" + members + "}]}";
  };
  const std::string valid = R"("params": [], "dynamic_shared_memory": 0, )";
  EXPECT_NE(parseError(kernel(valid + R"("block": [])")).find("1 to 3"),
            std::string::npos);
  EXPECT_NE(
      parseError(kernel(valid + R"("block": [1, 1, 1, 1])")).find("1 to 3"),
      std::string::npos);
  EXPECT_NE(parseError(kernel(valid + R"("block": [0])")).find("1 to 1024"),
            std::string::npos);
  EXPECT_NE(parseError(kernel(valid + R"("block": [1.5])")).find("1 to 1024"),
            std::string::npos);
  EXPECT_EQ(parseError(kernel(valid + R"("block": [32, 1, 65])")),
            "kernel metadata: kernels[0] ('k'): 'block' dimension 2 must be "
            "an integer from 1 to 64");
  EXPECT_EQ(parseError(kernel(valid + R"("block": [512, 4])")),
            "kernel metadata: kernels[0] ('k'): 'block' has 2048 threads; a "
            "CTA has at most 1024");
  EXPECT_EQ(parseError(kernel(R"("block": [1], "params": [],
                                 "dynamic_shared_memory": -1)")),
            "kernel metadata: kernels[0] ('k'): 'dynamic_shared_memory' must "
            "be an integer of at least 0");
  EXPECT_NE(parseError(kernel(R"("block": [1], "params": [1],
                                 "dynamic_shared_memory": 0)"))
                .find("only strings"),
            std::string::npos);
  EXPECT_EQ(parseError(kernel(valid + R"("block": [1], "persistent": 1)")),
            "kernel metadata: kernels[0] ('k'): 'persistent' must be a "
            "boolean, not a number");
}

TEST(KernelMetadata, ImagesAndPaths) {
  EXPECT_TRUE(isPTXImage("//\n.version 8.0\n"));
  EXPECT_FALSE(isPTXImage(std::string("\x7f"
                                      "ELF\x02\x01",
                                      6)));
  EXPECT_EQ(defaultMetadataPath("dir/k.ptx"), "dir/k.json");
  EXPECT_EQ(defaultMetadataPath("a.b/k.cubin"), "a.b/k.json");
  EXPECT_EQ(defaultMetadataPath("a.b/k"), "a.b/k.json");
}

TEST(KernelMetadata, ReadFileErrors) {
  std::string text;
  Status status = readFile("/nonexistent/k.json", text);
  EXPECT_FALSE(status);
  EXPECT_NE(status.message.find("cannot open '/nonexistent/k.json'"),
            std::string::npos);
}

//===----------------------------------------------------------------------===//
// Argument descriptors
//===----------------------------------------------------------------------===//

/// The arguments of a kernel whose "args" are `args` (a JSON array).
std::vector<KernelArgInfo> readArgs(const std::string &args) {
  std::vector<KernelInfo> kernels;
  Status status = parseKernelMetadata(
      R"({"kernels": [{"name": "k", "block": [1], "params": [],
          "dynamic_shared_memory": 0, "args": )" +
          args + "}]}",
      kernels);
  EXPECT_TRUE(status) << status.message;
  return status ? kernels[0].args : std::vector<KernelArgInfo>();
}

std::string argsError(const std::string &args) {
  return parseError(R"({"kernels": [{"name": "k", "block": [1], "params": [],
      "dynamic_shared_memory": 0, "args": )" +
                    args + "}]}");
}

TEST(KernelMetadata, ArgDescriptors) {
  std::vector<KernelArgInfo> args = readArgs(R"([
    {"kind": "memref", "type": "memref<?x4x576xbf16, strided<[?, ?, 1]>>",
     "name": "q", "element_type": "bf16", "sizes": [-1, 4, 576],
     "layout": "strided", "strides": [-1, -1, 1], "offset": 0},
    {"kind": "memref", "type": "memref<8xi32, strided<[2], offset: ?>>",
     "element_type": "i32", "sizes": [8], "layout": "strided",
     "strides": [2], "offset": -1},
    {"kind": "tensor_map", "type": "!tle.tensor_map<128x64xbf16, swizzle = 128>",
     "element_type": "bf16", "box": [128, 64], "swizzle": 128},
    {"kind": "i32", "type": "i32"},
    {"kind": "f32", "type": "f32", "name": "sm_scale"}])");
  ASSERT_EQ(args.size(), 5u);
  EXPECT_EQ(args[0].kind, KernelArgInfo::Kind::MemRef);
  EXPECT_EQ(args[0].name, "q");
  EXPECT_FALSE(args[0].identityLayout);
  EXPECT_EQ(args[0].sizes, (std::vector<int64_t>{kDynamic, 4, 576}));
  EXPECT_EQ(args[0].strides, (std::vector<int64_t>{kDynamic, kDynamic, 1}));
  EXPECT_EQ(args[0].offset, 0);
  EXPECT_EQ(args[0].describe(0),
            "argument 0 'q' (memref<?x4x576xbf16, strided<[?, ?, 1]>>)");
  EXPECT_EQ(args[1].offset, kDynamic);
  EXPECT_EQ(args[1].describe(1),
            "argument 1 (memref<8xi32, strided<[2], offset: ?>>)");
  EXPECT_EQ(args[2].kind, KernelArgInfo::Kind::TensorMap);
  EXPECT_EQ(args[2].elementType, "bf16");
  EXPECT_EQ(args[2].box, (std::vector<int64_t>{128, 64}));
  EXPECT_EQ(args[2].swizzle, 128);
  EXPECT_EQ(args[3].kind, KernelArgInfo::Kind::I32);
  EXPECT_EQ(args[4].kind, KernelArgInfo::Kind::F32);
  EXPECT_EQ(args[4].name, "sm_scale");
}

/// The file tle-translate wrote for test/Target/PTX/metadata-args.mlir in
/// test/Runtime/metadata.test, when run from there: the writer's
/// descriptors of every kind, as the reader sees them.
TEST(KernelMetadata, EveryKindFromTranslate) {
  const char *path = std::getenv("TLE_ARGS_METADATA");
  if (!path)
    GTEST_SKIP() << "TLE_ARGS_METADATA is not set";
  std::string text;
  ASSERT_TRUE(readFile(path, text));
  std::vector<KernelInfo> kernels;
  Status status = parseKernelMetadata(text, kernels);
  ASSERT_TRUE(status) << status.message;
  ASSERT_EQ(kernels.size(), 1u);
  const std::vector<KernelArgInfo> &args = kernels[0].args;
  ASSERT_EQ(args.size(), 7u);
  EXPECT_EQ(args[0].kind, KernelArgInfo::Kind::MemRef);
  EXPECT_TRUE(args[0].identityLayout);
  EXPECT_EQ(args[0].sizes, (std::vector<int64_t>{kDynamic, 256}));
  EXPECT_EQ(args[1].elementType, "bf16");
  EXPECT_FALSE(args[1].identityLayout);
  EXPECT_EQ(args[1].strides, (std::vector<int64_t>{kDynamic, kDynamic, 1}));
  EXPECT_EQ(args[1].offset, 0);
  EXPECT_EQ(args[2].type, "memref<8xi32, strided<[2], offset: ?>>");
  EXPECT_EQ(args[2].offset, kDynamic);
  EXPECT_EQ(args[3].kind, KernelArgInfo::Kind::TensorMap);
  EXPECT_EQ(args[3].box, (std::vector<int64_t>{128, 64}));
  EXPECT_EQ(args[3].swizzle, 128);
  EXPECT_EQ(args[4].kind, KernelArgInfo::Kind::Index);
  EXPECT_EQ(args[5].kind, KernelArgInfo::Kind::I32);
  EXPECT_EQ(args[6].kind, KernelArgInfo::Kind::F32);
}

TEST(KernelMetadata, BadArgDescriptors) {
  const std::string at = "kernel metadata: kernels[0] ('k'): args[0]: ";
  EXPECT_EQ(argsError(R"([{"type": "index"}])"), at + "missing key 'kind'");
  EXPECT_EQ(argsError(R"([{"kind": "index"}])"), at + "missing key 'type'");
  EXPECT_EQ(argsError(R"([{"kind": "i64", "type": "i64"}])"),
            at + "unknown kind 'i64' (known: memref, tensor_map, index, i32, "
                 "f32)");
  EXPECT_EQ(argsError(R"([{"kind": "memref", "type": "m", "sizes": [1],
                          "layout": "identity"}])"),
            at + "missing key 'element_type'");
  EXPECT_EQ(argsError(R"([{"kind": "memref", "type": "m",
                          "element_type": "f32", "sizes": [-2],
                          "layout": "identity"}])"),
            at + "'sizes' must hold integers of at least -1");
  EXPECT_EQ(argsError(R"([{"kind": "memref", "type": "m",
                          "element_type": "f32", "sizes": [1],
                          "layout": "affine"}])"),
            at + "'layout' must be 'identity' or 'strided', not 'affine'");
  EXPECT_EQ(argsError(R"([{"kind": "memref", "type": "m",
                          "element_type": "f32", "sizes": [1, 2],
                          "layout": "strided", "strides": [1],
                          "offset": 0}])"),
            at + "'strides' must have one entry per size");
  EXPECT_EQ(argsError(R"([{"kind": "memref", "type": "m",
                          "element_type": "f32", "sizes": [1],
                          "layout": "strided", "strides": [1]}])"),
            at + "missing key 'offset'");
  EXPECT_EQ(argsError(R"([{"kind": "tensor_map", "type": "t",
                          "element_type": "bf16", "box": [0, 64],
                          "swizzle": 128}])"),
            at + "'box' must hold integers of at least 1");
  EXPECT_EQ(argsError(R"([{"kind": "tensor_map", "type": "t",
                          "element_type": "bf16", "box": [64]}])"),
            at + "missing key 'swizzle'");
}

} // namespace
