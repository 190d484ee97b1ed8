//===- CApiTest.cpp - The C interface without a GPU -----------------------===//

#include "tle/Runtime/tle_runtime.h"

#include "gtest/gtest.h"

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

} // namespace
