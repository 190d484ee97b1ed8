# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Writes the version into the staged copy of tle/_version.py, run by the
# wheel's build (cmake -DSOURCE=... -DSTAGED=... -DGIT=... -P this file):
# VERSION = "BASE.N", N the number of commits of the checkout, or
# "BASE.0+unknown" where there is no git history. One rule, the one
# tle/_version.py states.
file(READ ${STAGED} text)
string(REGEX MATCH "BASE = \"([^\"]+)\"" _ "${text}")
set(base ${CMAKE_MATCH_1})
set(count "")
if(GIT)
  execute_process(COMMAND ${GIT} -C ${SOURCE} rev-list --count HEAD
    OUTPUT_VARIABLE count OUTPUT_STRIP_TRAILING_WHITESPACE
    RESULT_VARIABLE failed ERROR_QUIET)
  if(failed)
    set(count "")
  endif()
endif()
if(count MATCHES "^[0-9]+$")
  set(version "${base}.${count}")
else()
  set(version "${base}.0+unknown")
endif()
string(REPLACE "\nVERSION = None\n" "\nVERSION = \"${version}\"\n" text "${text}")
file(WRITE ${STAGED} "${text}")
message(STATUS "tle wheel version ${version}")
