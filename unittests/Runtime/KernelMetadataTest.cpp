//===- KernelMetadataTest.cpp - parseKernelMetadata -----------------------===//

#include "tle/Runtime/Runtime.h"

#include "gtest/gtest.h"

#include <cstdlib>

using namespace tle::runtime;

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
      "signature": ["memref<?x256xf32>", "memref<?x256xf32>", "index"]
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
  ASSERT_EQ(k.signature.size(), 3u);
  EXPECT_EQ(k.signature[0], "memref<?x256xf32>");
  EXPECT_EQ(k.signature[2], "index");
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
  EXPECT_TRUE(kernels[0].signature.empty());
  EXPECT_EQ(kernels[0].grid, "n / 128");
}

TEST(KernelMetadata, Errors) {
  EXPECT_EQ(parseError("{"), "kernel metadata is not valid JSON: line 1, "
                             "column 2: expected a string key in an object");
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
  EXPECT_NE(parseError(kernel(R"("block": [1], "params": [],
                                 "dynamic_shared_memory": -1)"))
                .find("non-negative"),
            std::string::npos);
  EXPECT_NE(parseError(kernel(R"("block": [1], "params": [1],
                                 "dynamic_shared_memory": 0)"))
                .find("only strings"),
            std::string::npos);
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

TEST(MemRefType, Ranks) {
  MemRefTypeInfo info;
  ASSERT_TRUE(parseMemRefType("memref<?x256xf32>", info));
  EXPECT_EQ(info.shape, (std::vector<int64_t>{-1, 256}));
  EXPECT_EQ(info.elementType, "f32");
  ASSERT_TRUE(parseMemRefType("memref<f16>", info));
  EXPECT_TRUE(info.shape.empty());
  EXPECT_EQ(info.elementType, "f16");
  ASSERT_TRUE(parseMemRefType("memref<4x?x8xbf16, strided<[?, 8, 1]>>", info));
  EXPECT_EQ(info.shape, (std::vector<int64_t>{4, -1, 8}));
  EXPECT_EQ(info.elementType, "bf16");
  ASSERT_TRUE(parseMemRefType("memref<2xvector<4xf32>>", info));
  EXPECT_EQ(info.shape, (std::vector<int64_t>{2}));
  EXPECT_EQ(info.elementType, "vector<4xf32>");
  ASSERT_TRUE(parseMemRefType("memref<16x128xi8, 3>", info));
  EXPECT_EQ(info.shape.size(), 2u);
  EXPECT_EQ(info.elementType, "i8");
}

TEST(MemRefType, NotAMemRef) {
  MemRefTypeInfo info;
  EXPECT_FALSE(parseMemRefType("index", info));
  EXPECT_FALSE(parseMemRefType("tensor<4xf32>", info));
  EXPECT_FALSE(parseMemRefType("memref<>", info));
}

} // namespace
