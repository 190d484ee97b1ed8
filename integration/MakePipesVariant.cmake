# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Writes examples/pipes at another ring capacity, and optionally with a
# reader that never releases its slot (a kernel that must deadlock), or
# with every pipe iteration written as SCALE x i (the rows stay i's; only
# the slots and parities change).
#   cmake -DINPUT=pipes.mlir -DOUTPUT=out.mlir -DCAPACITY=3 [-DDEADLOCK=ON]
#         [-DSCALE=2] -P MakePipesVariant.cmake
# Every edit must apply: if the example changes, this fails rather than
# writing a kernel that silently tests something else.

file(READ ${INPUT} text)

function(replace_required from to)
  string(FIND "${text}" "${from}" found)
  if(found EQUAL -1)
    message(FATAL_ERROR "${INPUT} no longer contains '${from}'; update "
                        "integration/MakePipesVariant.cmake")
  endif()
  string(REPLACE "${from}" "${to}" text "${text}")
  set(text "${text}" PARENT_SCOPE)
endfunction()

replace_required("capacity 2" "capacity ${CAPACITY}")
replace_required("memref<2x128xf32" "memref<${CAPACITY}x128xf32")
if(DEADLOCK)
  replace_required("tle.release %rows[%i : index] reader \"right\"" "")
endif()
if(SCALE)
  replace_required("%rows[%i : index]" "%rows[%it : index]")
  replace_required("%row = arith.addi %first_row, %i : index"
    "%row = arith.addi %first_row, %i : index\n      %it = arith.muli %i, %c_scale : index")
  replace_required("%c4 = arith.constant 4 : index"
    "%c4 = arith.constant 4 : index\n  %c_scale = arith.constant ${SCALE} : index")
endif()

file(WRITE ${OUTPUT} "${text}")
