//===- CApiTest.cpp - The C interface without a GPU -----------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tle/Runtime/tle_runtime.h"

#include "gtest/gtest.h"

#include <cstdio>
#include <string>

namespace {

TEST(CApi, OpenReportsNoDeviceOrSucceeds) {
  tle_rt_device *device = nullptr;
  int code = tle_rt_device_open(0, &device);
  if (code == TLE_RT_OK) {
    EXPECT_NE(std::string(tle_rt_device_name(device)), "");
    tle_rt_device_close(device);
    return;
  }
  EXPECT_EQ(code, TLE_RT_NO_DEVICE);
  std::string message = tle_rt_last_error();
  EXPECT_TRUE(message.rfind("no CUDA", 0) == 0 ||
              message.find("CUDA driver") != std::string::npos)
      << message;
}

TEST(CApi, NullArguments) {
  EXPECT_EQ(tle_rt_device_open(0, nullptr), TLE_RT_ERROR);
  EXPECT_EQ(std::string(tle_rt_last_error()),
            "tle_rt_device_open: device is NULL");
  EXPECT_EQ(tle_rt_args_add_index(nullptr, 1), TLE_RT_ERROR);
  EXPECT_EQ(tle_rt_launch(nullptr, 1, 1, 1, nullptr), TLE_RT_ERROR);
}

TEST(CApi, Args) {
  tle_rt_args *args = nullptr;
  ASSERT_EQ(tle_rt_args_create(&args), TLE_RT_OK);
  const int64_t sizes[] = {64, 256};
  EXPECT_EQ(tle_rt_args_add_memref(args, 0x1000, "f32", 2, sizes, nullptr, 0),
            TLE_RT_OK);
  EXPECT_EQ(tle_rt_args_add_memref(args, 0x1000, "f32", -1, sizes, nullptr, 0),
            TLE_RT_ERROR);
  EXPECT_EQ(tle_rt_args_add_memref(args, 0x1000, "f32", 2, nullptr, nullptr, 0),
            TLE_RT_ERROR);
  EXPECT_EQ(tle_rt_args_add_memref(args, 0x1000, nullptr, 2, sizes, nullptr, 0),
            TLE_RT_ERROR);
  EXPECT_EQ(std::string(tle_rt_last_error()),
            "tle_rt_args_add_memref: args and element_type must not be NULL");
  const int64_t strides[] = {256, 1};
  EXPECT_EQ(tle_rt_args_add_tensor_map(args, 0x1000, "bf16", 2, sizes, strides),
            TLE_RT_OK);
  EXPECT_EQ(tle_rt_args_add_tensor_map(args, 0x1000, "bf16", 2, sizes, nullptr),
            TLE_RT_OK);
  EXPECT_EQ(tle_rt_args_add_tensor_map(args, 0x1000, "bf16", 0, sizes, nullptr),
            TLE_RT_ERROR);
  EXPECT_EQ(std::string(tle_rt_last_error()),
            "tle_rt_args_add_tensor_map: a tensor map needs a rank >= 1 and "
            "its sizes");
  EXPECT_EQ(tle_rt_args_add_i32(args, 1), TLE_RT_OK);
  EXPECT_EQ(tle_rt_args_add_f32(args, 1.0f), TLE_RT_OK);
  tle_rt_args_free(args);
}

TEST(CApi, LaunchOnStreamWithoutHandles) {
  EXPECT_EQ(tle_rt_launch_on_stream(nullptr, 1, 1, 1, nullptr, 0),
            TLE_RT_ERROR);
  EXPECT_EQ(std::string(tle_rt_last_error()),
            "tle_rt_launch_on_stream: kernel and args must not be NULL");
  tle_rt_args *args = nullptr;
  ASSERT_EQ(tle_rt_args_create(&args), TLE_RT_OK);
  EXPECT_EQ(tle_rt_launch_on_stream(nullptr, 1, 1, 1, args, 0), TLE_RT_ERROR);
  tle_rt_args_free(args);
}

/// A kernel that does nothing, taking (memref<?xf32>, index), for the
/// checks a launch makes once it has a kernel.
const char *noopPTX = R"(.version 7.0
.target sm_50
.address_size 64
.visible .entry noop(.param .u64 a, .param .u64 b, .param .u64 c,
                     .param .u64 d, .param .u64 e, .param .u64 n) {
  ret;
}
)";

const char *noopMetadata = R"({"kernels": [{"name": "noop",
  "block": [32, 1, 1], "dynamic_shared_memory": 0,
  "params": ["ptr", "ptr", "i64", "i64", "i64", "i64"],
  "args": [{"kind": "memref", "type": "memref<?xf32>", "element_type": "f32",
            "sizes": [-1], "layout": "identity"},
           {"kind": "index", "type": "index", "name": "n"}]}]})";

std::string writeTempFile(const std::string &name, const char *text) {
  std::string path = ::testing::TempDir() + name;
  FILE *file = std::fopen(path.c_str(), "w");
  EXPECT_NE(file, nullptr) << path;
  if (file) {
    std::fputs(text, file);
    std::fclose(file);
  }
  return path;
}

/// Reads `text` as metadata without a device.
tle_rt_metadata *readMetadata(const char *name, const char *text) {
  std::string path = writeTempFile(name, text);
  tle_rt_metadata *metadata = nullptr;
  EXPECT_EQ(tle_rt_metadata_read(path.c_str(), &metadata), TLE_RT_OK)
      << tle_rt_last_error();
  return metadata;
}

/// Every kind of argument, as tle-translate describes them.
const char *describedMetadata = R"({"kernels": [{"name": "k",
  "block": [128, 1, 1], "dynamic_shared_memory": 0, "params": [],
  "args": [
    {"kind": "tensor_map", "type": "!tle.tensor_map<128x64xbf16, swizzle = 128>",
     "element_type": "bf16", "box": [128, 64], "swizzle": 128},
    {"kind": "memref", "type": "memref<?x576xbf16, strided<[?, 1]>>",
     "name": "q", "element_type": "bf16", "sizes": [-1, 576],
     "layout": "strided", "strides": [-1, 1], "offset": 0},
    {"kind": "memref", "type": "memref<?xf32>", "element_type": "f32",
     "sizes": [-1], "layout": "identity"},
    {"kind": "f32", "type": "f32"}],
  "persistent": true}]})";

TEST(CApi, KernelArgumentsFromMetadata) {
  tle_rt_metadata *metadata =
      readMetadata("tle_capi_described.json", describedMetadata);
  ASSERT_NE(metadata, nullptr);
  tle_rt_kernel *kernel = nullptr;
  ASSERT_EQ(tle_rt_metadata_get_kernel(metadata, nullptr, &kernel), TLE_RT_OK);
  EXPECT_EQ(std::string(tle_rt_kernel_name(kernel)), "k");
  EXPECT_EQ(tle_rt_kernel_persistent(kernel), 1);
  EXPECT_EQ(tle_rt_kernel_persistent(nullptr), 0);
  ASSERT_EQ(tle_rt_kernel_num_args(kernel), 4);

  tle_rt_arg_info info;
  ASSERT_EQ(tle_rt_kernel_arg(kernel, 0, &info), TLE_RT_OK);
  EXPECT_EQ(info.kind, TLE_RT_ARG_TENSOR_MAP);
  EXPECT_EQ(std::string(info.element_type), "bf16");
  ASSERT_EQ(info.rank, 2);
  EXPECT_EQ(info.box[0], 128);
  EXPECT_EQ(info.box[1], 64);
  EXPECT_EQ(info.swizzle, 128);
  EXPECT_EQ(info.strides, nullptr);

  ASSERT_EQ(tle_rt_kernel_arg(kernel, 1, &info), TLE_RT_OK);
  EXPECT_EQ(info.kind, TLE_RT_ARG_MEMREF);
  EXPECT_EQ(std::string(info.name), "q");
  EXPECT_EQ(std::string(info.type), "memref<?x576xbf16, strided<[?, 1]>>");
  ASSERT_EQ(info.rank, 2);
  EXPECT_EQ(info.sizes[0], TLE_RT_DYNAMIC);
  EXPECT_EQ(info.sizes[1], 576);
  ASSERT_NE(info.strides, nullptr);
  EXPECT_EQ(info.strides[0], TLE_RT_DYNAMIC);
  EXPECT_EQ(info.strides[1], 1);
  EXPECT_EQ(info.offset, 0);
  EXPECT_EQ(info.box, nullptr);

  ASSERT_EQ(tle_rt_kernel_arg(kernel, 2, &info), TLE_RT_OK);
  EXPECT_EQ(std::string(info.name), "");
  EXPECT_EQ(info.strides, nullptr); // the identity layout
  ASSERT_EQ(tle_rt_kernel_arg(kernel, 3, &info), TLE_RT_OK);
  EXPECT_EQ(info.kind, TLE_RT_ARG_F32);
  EXPECT_EQ(info.rank, 0);
  EXPECT_EQ(std::string(info.element_type), "");

  EXPECT_EQ(tle_rt_kernel_arg(kernel, 4, &info), TLE_RT_ERROR);
  EXPECT_EQ(std::string(tle_rt_last_error()),
            "tle_rt_kernel_arg: kernel 'k' has 4 arguments, no argument 4");
  tle_rt_metadata_free(metadata);
}

/// A kernel of metadata alone checks arguments as a loaded one does, and
/// refuses to launch.
TEST(CApi, ArgsCheckWithoutADevice) {
  tle_rt_metadata *metadata = readMetadata("tle_capi_noop.json", noopMetadata);
  ASSERT_NE(metadata, nullptr);
  tle_rt_kernel *kernel = nullptr;
  EXPECT_EQ(tle_rt_metadata_get_kernel(metadata, "other", &kernel),
            TLE_RT_ERROR);
  EXPECT_EQ(std::string(tle_rt_last_error()), "no kernel 'other'");
  ASSERT_EQ(tle_rt_metadata_get_kernel(metadata, "noop", &kernel), TLE_RT_OK);
  // A memref of `element` and `n` as an index or an i32.
  auto makeArgs = [](const char *element, bool indexN) {
    tle_rt_args *args = nullptr;
    EXPECT_EQ(tle_rt_args_create(&args), TLE_RT_OK);
    const int64_t sizes[] = {4};
    EXPECT_EQ(tle_rt_args_add_memref(args, 0, element, 1, sizes, nullptr, 0),
              TLE_RT_OK);
    EXPECT_EQ(indexN ? tle_rt_args_add_index(args, 4)
                     : tle_rt_args_add_i32(args, 4),
              TLE_RT_OK);
    return args;
  };
  tle_rt_args *args = makeArgs("i32", true);
  EXPECT_EQ(tle_rt_args_check(args, kernel), TLE_RT_ERROR);
  EXPECT_EQ(std::string(tle_rt_last_error()),
            "kernel 'noop': argument 0 (memref<?xf32>): the element type is "
            "f32, the memref passed holds i32");
  tle_rt_args_free(args);
  args = makeArgs("f32", false);
  EXPECT_EQ(tle_rt_args_check(args, kernel), TLE_RT_ERROR);
  EXPECT_EQ(std::string(tle_rt_last_error()),
            "kernel 'noop': argument 1 'n' (index) was passed an i32");
  tle_rt_args_free(args);
  args = makeArgs("f32", true);
  EXPECT_EQ(tle_rt_args_check(args, kernel), TLE_RT_OK) << tle_rt_last_error();
  EXPECT_EQ(tle_rt_launch(kernel, 1, 1, 1, args), TLE_RT_ERROR);
  EXPECT_EQ(std::string(tle_rt_last_error()),
            "tle_rt_launch: kernel 'noop' comes from metadata read without a "
            "device; load its module with tle_rt_module_load to launch it");
  tle_rt_args_free(args);
  tle_rt_metadata_free(metadata);
}

TEST(CApi, PlansNeedALoadedKernel) {
  EXPECT_EQ(tle_rt_plan_create(nullptr, 1, 1, 1, nullptr, nullptr),
            TLE_RT_ERROR);
  EXPECT_EQ(std::string(tle_rt_last_error()),
            "tle_rt_plan_create: kernel and args must not be NULL");
  EXPECT_EQ(tle_rt_plan_launch(nullptr, nullptr, 0, 0), TLE_RT_ERROR);
  EXPECT_EQ(std::string(tle_rt_last_error()),
            "tle_rt_plan_launch: plan and values must not be NULL");
  EXPECT_EQ(tle_rt_plan_num_values(nullptr), 0);
  tle_rt_plan_free(nullptr);

  tle_rt_metadata *metadata =
      readMetadata("tle_capi_plan_noop.json", noopMetadata);
  ASSERT_NE(metadata, nullptr);
  tle_rt_kernel *kernel = nullptr;
  ASSERT_EQ(tle_rt_metadata_get_kernel(metadata, nullptr, &kernel), TLE_RT_OK);
  tle_rt_args *args = nullptr;
  ASSERT_EQ(tle_rt_args_create(&args), TLE_RT_OK);
  tle_rt_launch_plan *plan = nullptr;
  EXPECT_EQ(tle_rt_plan_create(kernel, 1, 1, 1, args, &plan), TLE_RT_ERROR);
  EXPECT_EQ(std::string(tle_rt_last_error()),
            "tle_rt_plan_create: kernel 'noop' comes from metadata read "
            "without a device; load its module with tle_rt_module_load to "
            "launch it");
  EXPECT_EQ(plan, nullptr);
  tle_rt_args_free(args);
  tle_rt_metadata_free(metadata);
}

TEST(CApi, MetadataErrors) {
  tle_rt_metadata *metadata = nullptr;
  EXPECT_EQ(tle_rt_metadata_read("/nonexistent/k.json", &metadata),
            TLE_RT_ERROR);
  EXPECT_NE(std::string(tle_rt_last_error()).find("cannot open"),
            std::string::npos);
  EXPECT_EQ(tle_rt_metadata_read(nullptr, &metadata), TLE_RT_ERROR);
}

/// The noop kernel loaded on device 0, and argument lists for it; without a
/// device, opening fails cleanly and the test is skipped.
class NoopOnADevice : public ::testing::Test {
protected:
  void SetUp() override {
    int code = tle_rt_device_open(0, &device);
    if (code != TLE_RT_OK) {
      EXPECT_EQ(code, TLE_RT_NO_DEVICE) << tle_rt_last_error();
      GTEST_SKIP() << "no CUDA device: " << tle_rt_last_error();
    }
    std::string ptx = writeTempFile("tle_capi_noop.ptx", noopPTX);
    std::string json = writeTempFile("tle_capi_noop.json", noopMetadata);
    ASSERT_EQ(tle_rt_module_load(device, ptx.c_str(), json.c_str(), &module),
              TLE_RT_OK)
        << tle_rt_last_error();
    ASSERT_EQ(tle_rt_module_get_kernel(module, nullptr, &kernel), TLE_RT_OK);
  }

  void TearDown() override {
    tle_rt_module_free(module);
    tle_rt_device_close(device);
  }

  /// (memref<?xf32>, index), or the index alone when `complete` is false.
  static tle_rt_args *makeArgs(bool complete) {
    tle_rt_args *args = nullptr;
    EXPECT_EQ(tle_rt_args_create(&args), TLE_RT_OK);
    const int64_t sizes[] = {4};
    if (complete) {
      EXPECT_EQ(tle_rt_args_add_memref(args, 0, "f32", 1, sizes, nullptr, 0),
                TLE_RT_OK);
    }
    EXPECT_EQ(tle_rt_args_add_index(args, 4), TLE_RT_OK);
    return args;
  }

  static constexpr const char *kMissingArgument =
      "kernel 'noop' takes 2 arguments (memref<?xf32>, index), 1 were passed";

  tle_rt_device *device = nullptr;
  tle_rt_module *module = nullptr;
  tle_rt_kernel *kernel = nullptr;
};

/// The checks of tle_rt_launch_on_stream.
TEST_F(NoopOnADevice, LaunchOnStreamChecksArguments) {
  tle_rt_args *args = makeArgs(false);
  EXPECT_EQ(tle_rt_launch_on_stream(kernel, 1, 1, 1, args, 0), TLE_RT_ERROR);
  EXPECT_EQ(std::string(tle_rt_last_error()), kMissingArgument);
  tle_rt_args_free(args);
  args = makeArgs(true);
  EXPECT_EQ(tle_rt_launch_on_stream(kernel, 1, 0, 1, args, 0), TLE_RT_ERROR);
  EXPECT_EQ(std::string(tle_rt_last_error()),
            "kernel 'noop': the grid has a zero dimension");
  EXPECT_EQ(tle_rt_launch_on_stream(kernel, 2, 1, 1, args, 0), TLE_RT_OK)
      << tle_rt_last_error();
  // The parameters were copied at launch: the list may go at once.
  tle_rt_args_free(args);
}

/// A plan: checked when made, launched with new values.
TEST_F(NoopOnADevice, Plan) {
  tle_rt_args *args = makeArgs(false);
  tle_rt_launch_plan *plan = nullptr;
  EXPECT_EQ(tle_rt_plan_create(kernel, 1, 1, 1, args, &plan), TLE_RT_ERROR);
  EXPECT_EQ(std::string(tle_rt_last_error()), kMissingArgument);
  tle_rt_args_free(args);
  args = makeArgs(true);
  ASSERT_EQ(tle_rt_plan_create(kernel, 2, 1, 1, args, &plan), TLE_RT_OK)
      << tle_rt_last_error();
  // The plan keeps its own copy of the list.
  tle_rt_args_free(args);
  EXPECT_EQ(tle_rt_plan_num_values(plan), 2);
  const uint64_t values[] = {0, 8};
  EXPECT_EQ(tle_rt_plan_launch(plan, values, 1, 0), TLE_RT_ERROR);
  EXPECT_EQ(std::string(tle_rt_last_error()),
            "kernel 'noop' takes 2 argument values (one per argument), 1 were "
            "given");
  EXPECT_EQ(tle_rt_plan_launch(plan, values, 2, 0), TLE_RT_OK)
      << tle_rt_last_error();
  tle_rt_plan_free(plan);
}

} // namespace
