# Writes examples/pipes at another ring capacity, and optionally with a
# reader that never releases its slot (a kernel that must deadlock).
#   cmake -DINPUT=pipes.mlir -DOUTPUT=out.mlir -DCAPACITY=3 [-DDEADLOCK=ON]
#         -P MakePipesVariant.cmake
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

file(WRITE ${OUTPUT} "${text}")
