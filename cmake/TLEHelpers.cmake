# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
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

# Generates Markdown reference docs for a .td file. `tle-doc` copies them
# into docs/generated/; the lit suite checks that the copies are current
# (test/docs/generated.test), for which each file also gets a target that
# only generates it in the build tree, listed in TLE_GENERATED_DOCS.
function(add_tle_doc td_file output_file command)
  set(LLVM_TARGET_DEFINITIONS ${td_file})
  tablegen(MLIR ${output_file}.md ${command} ${ARGN})
  set(generated ${CMAKE_CURRENT_BINARY_DIR}/${output_file}.md)
  add_custom_target(${output_file}DocBuild DEPENDS ${generated})
  set_property(GLOBAL APPEND PROPERTY TLE_GENERATED_DOCS ${output_file}DocBuild)
  set(dest ${PROJECT_SOURCE_DIR}/docs/generated/${output_file}.md)
  add_custom_command(OUTPUT ${dest}
    COMMAND ${CMAKE_COMMAND} -E copy ${generated} ${dest}
    DEPENDS ${generated})
  add_custom_target(${output_file}DocGen DEPENDS ${dest})
  add_dependencies(tle-doc ${output_file}DocGen)
endfunction()

# Links `target` against LLVM's static archives so that it runs on machines
# without an LLVM installation (GPU machines). Debian's MLIR libraries link
# LLVM as libLLVM.so; with lld, LLVM's static archives placed before
# everything else provide every LLVM symbol (lld takes a symbol from an
# archive seen before a shared library that also defines it, wherever the
# reference comes from), and --as-needed then drops libLLVM.so. GNU ld only
# searches an archive for references made before it, so it would mix both
# copies of LLVM: without lld the target keeps the default dynamic link.
# A post-build check fails the build if libLLVM is still needed.
function(tle_link_llvm_statically target)
  if(NOT TLE_USE_LLD)
    return()
  endif()
  set(llvm_archives)
  foreach(lib ${LLVM_AVAILABLE_LIBS})
    set(archive "${LLVM_LIBRARY_DIR}/lib${lib}.a")
    if(lib MATCHES "^LLVM.+" AND EXISTS "${archive}")
      list(APPEND llvm_archives "${archive}")
    endif()
  endforeach()
  # Named by path: Debian's exported archive targets name packages (zstd,
  # curl, libedit) that its LLVMConfig does not look for. LLVMSupport needs
  # zlib and zstd, found by runtime name since their -dev packages may be
  # missing.
  find_library(TLE_ZLIB_LIBRARY NAMES z libz.so.1 REQUIRED)
  find_library(TLE_ZSTD_LIBRARY NAMES zstd libzstd.so.1 REQUIRED)
  # PRIVATE items keep their order ahead of the transitive libLLVM.so.
  get_target_property(linked ${target} LINK_LIBRARIES)
  set_target_properties(${target} PROPERTIES LINK_LIBRARIES
    "${llvm_archives};${linked};${TLE_ZLIB_LIBRARY};${TLE_ZSTD_LIBRARY}")
  target_link_options(${target} PRIVATE LINKER:--as-needed)
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${CMAKE_COMMAND}
      -DBINARY=$<TARGET_FILE:${target}>
      -DREADELF=${LLVM_TOOLS_BINARY_DIR}/llvm-readelf
      -P ${PROJECT_SOURCE_DIR}/cmake/CheckNoLibLLVM.cmake
    VERBATIM)
endfunction()
