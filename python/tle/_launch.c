/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */

/* tle._launch: the hot path of a launch plan in C.

   LaunchPlan.launch (tle/runtime.py) enqueues a kernel with one 64-bit
   value per argument. Through ctypes every call builds a c_uint64 array and
   converts each argument of tle_rt_plan_launch; this module takes the
   values as Python ints and calls tle_rt_plan_launch directly.

   It uses only the limited API (abi3), so one build serves every Python
   3.9 and later on the platform. It does not link libtle_runtime.so: the
   caller passes the address of tle_rt_plan_launch in the library that
   ctypes loaded, so both use the same copy. Without this module
   tle.runtime launches through ctypes. */

#define Py_LIMITED_API 0x03090000
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>

/* Plans take at most this many values (the module's MAX_VALUES): more
   take the ctypes path. */
#define TLE_LAUNCH_MAX_VALUES 64

typedef int (*PlanLaunch)(void *plan, const uint64_t *values, int count,
                          uint64_t stream);

/* An int argument as a 64-bit unsigned value: addresses, f32 bits and
   non-negative scalars as they are, negative i32 or index values in two's
   complement, as ctypes' c_uint64 takes them. */
static int as_u64(PyObject *object, uint64_t *value) {
  unsigned long long bits = PyLong_AsUnsignedLongLongMask(object);
  if (bits == (unsigned long long)-1 && PyErr_Occurred())
    return -1;
  *value = (uint64_t)bits;
  return 0;
}

/* launch(function, plan, stream, values) -> the tle_rt_status code:
   function the address of tle_rt_plan_launch, plan that of a
   tle_rt_launch_plan, stream a CUstream as an int, values a tuple of ints,
   one per argument. */
static PyObject *launch(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *function_object, *plan_object, *stream_object, *values_object;
  if (!PyArg_UnpackTuple(args, "launch", 4, 4, &function_object, &plan_object,
                         &stream_object, &values_object))
    return NULL;
  PlanLaunch plan_launch = (PlanLaunch)PyLong_AsVoidPtr(function_object);
  if (!plan_launch) {
    if (!PyErr_Occurred())
      PyErr_SetString(
          PyExc_ValueError,
          "tle._launch.launch: tle_rt_plan_launch's address is NULL");
    return NULL;
  }
  if (!PyTuple_Check(values_object)) {
    PyErr_SetString(PyExc_TypeError,
                    "tle._launch.launch: values must be a tuple");
    return NULL;
  }
  Py_ssize_t count = PyTuple_Size(values_object);
  if (count > TLE_LAUNCH_MAX_VALUES) {
    PyErr_Format(PyExc_ValueError,
                 "tle._launch.launch takes at most %d values, not %zd",
                 TLE_LAUNCH_MAX_VALUES, count);
    return NULL;
  }
  uint64_t values[TLE_LAUNCH_MAX_VALUES];
  for (Py_ssize_t i = 0; i < count; ++i)
    if (as_u64(PyTuple_GetItem(values_object, i), &values[i]))
      return NULL;
  void *plan = PyLong_AsVoidPtr(plan_object);
  if (!plan && PyErr_Occurred())
    return NULL;
  uint64_t stream;
  if (as_u64(stream_object, &stream))
    return NULL;
  /* A launch into a full queue blocks until there is room: let other
     Python threads run meanwhile, as PyTorch's own launches do. */
  PyThreadState *state = PyEval_SaveThread();
  int code = plan_launch(plan, values, (int)count, stream);
  PyEval_RestoreThread(state);
  return PyLong_FromLong(code);
}

static PyMethodDef methods[] = {
    {"launch", launch, METH_VARARGS,
     "launch(function, plan, stream, values) -> status: tle_rt_plan_launch "
     "(at address function) with values, a tuple of ints."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    "tle._launch",
    "The hot path of tle.runtime.LaunchPlan.launch in C.",
    -1,
    methods,
    NULL,
    NULL,
    NULL,
    NULL};

PyMODINIT_FUNC PyInit__launch(void) {
  PyObject *m = PyModule_Create(&module);
  if (m && PyModule_AddIntConstant(m, "MAX_VALUES", TLE_LAUNCH_MAX_VALUES)) {
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
