# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Stand-ins for a torch.Tensor and for libtle_runtime.so, for tests of
the Python binding that need neither torch nor a device."""

import tle.runtime as rt


class FakeTensor:
    """What the binding reads of a torch.Tensor (a dtype prints as
    "torch.float32")."""

    def __init__(self, address, shape, stride, dtype="torch.float32"):
        self.address, self.shape, self._stride = address, shape, stride
        self.dtype = dtype

    def data_ptr(self):
        return self.address

    def stride(self):
        return self._stride


class FakeLibrary:
    """Records the tle_rt_args_* and launch calls it gets, as plain Python
    values."""

    def __init__(self, code=rt.OK, error=b""):
        self.calls, self.code, self.error = [], code, error

    def tle_rt_args_create(self, handle):
        handle._obj.value = 1
        return rt.OK

    def tle_rt_args_free(self, handle):
        self.calls.append(("free",))

    def tle_rt_last_error(self):
        return self.error

    def _record(self, name, *values):
        self.calls.append((name,) + values)
        return self.code

    def tle_rt_args_add_memref(self, handle, address, element, rank, sizes, strides,
                               offset):
        return self._record("memref", address, element.decode(), list(sizes[:rank]),
                            list(strides[:rank]), offset)

    def tle_rt_args_add_tensor_map(self, handle, address, element, rank, sizes, strides):
        return self._record("tensor_map", address, element.decode(), list(sizes[:rank]),
                            list(strides[:rank]))

    def tle_rt_args_check(self, args, kernel):
        return self._record("check")

    def tle_rt_args_add_index(self, handle, value):
        return self._record("index", value)

    def tle_rt_args_add_i32(self, handle, value):
        return self._record("i32", value)

    def tle_rt_args_add_f32(self, handle, value):
        return self._record("f32", value)

    def tle_rt_kernel_name(self, handle):
        return b"k"

    def tle_rt_kernel_block(self, handle, block):
        block[0], block[1], block[2] = 128, 1, 1

    def tle_rt_kernel_shared_memory(self, handle):
        return 0

    def tle_rt_kernel_persistent(self, handle):
        return 0

    def tle_rt_kernel_num_args(self, handle):
        return -1

    def tle_rt_launch_on_stream(self, kernel, gx, gy, gz, args, stream):
        return self._record("launch_on_stream", (gx, gy, gz), stream)

    def tle_rt_plan_create(self, kernel, gx, gy, gz, args, handle):
        handle._obj.value = 2
        return self._record("plan_create", (gx, gy, gz))

    def tle_rt_plan_num_values(self, handle):
        return 3

    def tle_rt_plan_launch(self, handle, values, count, stream):
        return self._record("plan_launch", list(values[:count]), stream)

    def tle_rt_plan_free(self, handle):
        self.calls.append(("plan_free",))
