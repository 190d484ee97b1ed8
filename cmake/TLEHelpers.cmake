# Small wrappers over AddMLIR so that each CMakeLists states only what differs.

# Prefer a fast linker: the static MLIR libraries make bfd links slow.
include(CheckCXXSourceCompiles)
if(NOT DEFINED TLE_USE_LLD)
  set(CMAKE_REQUIRED_LINK_OPTIONS "-fuse-ld=lld")
  check_cxx_source_compiles("int main() { return 0; }" TLE_USE_LLD)
  unset(CMAKE_REQUIRED_LINK_OPTIONS)
endif()
if(TLE_USE_LLD)
  add_link_options("-fuse-ld=lld")
endif()

# Generates Markdown reference docs for a .td file into docs/generated/.
function(add_tle_doc td_file output_file command)
  set(LLVM_TARGET_DEFINITIONS ${td_file})
  tablegen(MLIR ${output_file}.md ${command} ${ARGN})
  set(generated ${CMAKE_CURRENT_BINARY_DIR}/${output_file}.md)
  set(dest ${PROJECT_SOURCE_DIR}/docs/generated/${output_file}.md)
  add_custom_command(OUTPUT ${dest}
    COMMAND ${CMAKE_COMMAND} -E copy ${generated} ${dest}
    DEPENDS ${generated})
  add_custom_target(${output_file}DocGen DEPENDS ${dest})
  add_dependencies(tle-doc ${output_file}DocGen)
endfunction()
