# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Fails the build when BINARY still needs libLLVM or an MLIR shared library,
# i.e. when the static LLVM link in CMakeLists.txt did not take.
execute_process(COMMAND ${READELF} --dynamic ${BINARY}
  OUTPUT_VARIABLE dynamic RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "cannot read the dynamic section of ${BINARY}")
endif()
if(dynamic MATCHES "\\[(lib(LLVM|MLIR)[^]]*)\\]")
  message(FATAL_ERROR "${BINARY} needs ${CMAKE_MATCH_1}; it must link LLVM "
                      "and MLIR statically")
endif()
