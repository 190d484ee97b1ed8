//===- CApiTest.cpp - The C interface without a GPU -----------------------===//

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
  EXPECT_EQ(tle_rt_args_add_memref(args, 0x1000, 2, sizes, nullptr, 0),
            TLE_RT_OK);
  EXPECT_EQ(tle_rt_args_add_memref(args, 0x1000, -1, sizes, nullptr, 0),
            TLE_RT_ERROR);
  EXPECT_EQ(tle_rt_args_add_memref(args, 0x1000, 2, nullptr, nullptr, 0),
            TLE_RT_ERROR);
  const int64_t strides[] = {256, 1};
  EXPECT_EQ(tle_rt_args_add_tensor_map(args, 0x1000, 2, sizes, strides),
            TLE_RT_OK);
  EXPECT_EQ(tle_rt_args_add_tensor_map(args, 0x1000, 2, sizes, nullptr),
            TLE_RT_OK);
  EXPECT_EQ(tle_rt_args_add_tensor_map(args, 0x1000, 0, sizes, nullptr),
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
  "signature": ["memref<?xf32>", "index"]}]})";

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

/// The checks of tle_rt_launch_on_stream on a device; without one, opening
/// fails cleanly and the rest is skipped.
TEST(CApi, LaunchOnStreamChecksArguments) {
  tle_rt_device *device = nullptr;
  int code = tle_rt_device_open(0, &device);
  if (code != TLE_RT_OK) {
    EXPECT_EQ(code, TLE_RT_NO_DEVICE) << tle_rt_last_error();
    GTEST_SKIP() << "no CUDA device: " << tle_rt_last_error();
  }
  std::string ptx = writeTempFile("tle_capi_noop.ptx", noopPTX);
  std::string json = writeTempFile("tle_capi_noop.json", noopMetadata);
  tle_rt_module *module = nullptr;
  tle_rt_kernel *kernel = nullptr;
  tle_rt_args *args = nullptr;
  ASSERT_EQ(tle_rt_module_load(device, ptx.c_str(), json.c_str(), &module),
            TLE_RT_OK)
      << tle_rt_last_error();
  ASSERT_EQ(tle_rt_module_get_kernel(module, nullptr, &kernel), TLE_RT_OK);
  ASSERT_EQ(tle_rt_args_create(&args), TLE_RT_OK);
  EXPECT_EQ(tle_rt_args_add_index(args, 4), TLE_RT_OK);
  EXPECT_EQ(tle_rt_launch_on_stream(kernel, 1, 1, 1, args, 0), TLE_RT_ERROR);
  EXPECT_EQ(std::string(tle_rt_last_error()),
            "kernel 'noop' takes 2 arguments (memref<?xf32>, index), 1 were "
            "passed");
  tle_rt_args_free(args);
  ASSERT_EQ(tle_rt_args_create(&args), TLE_RT_OK);
  const int64_t sizes[] = {4};
  EXPECT_EQ(tle_rt_args_add_memref(args, 0, 1, sizes, nullptr, 0), TLE_RT_OK);
  EXPECT_EQ(tle_rt_args_add_index(args, 4), TLE_RT_OK);
  EXPECT_EQ(tle_rt_launch_on_stream(kernel, 1, 0, 1, args, 0), TLE_RT_ERROR);
  EXPECT_EQ(std::string(tle_rt_last_error()),
            "kernel 'noop': the grid has a zero dimension");
  EXPECT_EQ(tle_rt_launch_on_stream(kernel, 2, 1, 1, args, 0), TLE_RT_OK)
      << tle_rt_last_error();
  // The parameters were copied at launch: the list may go at once.
  tle_rt_args_free(args);
  tle_rt_module_free(module);
  tle_rt_device_close(device);
}

} // namespace
