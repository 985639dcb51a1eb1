# Checks that the embedding API stays what it says it is (run as `cmake -D... -P check_includes.cmake`
# by the build, see include/CMakeLists.txt):
#   MODE=public   DIR=<include/sift>: every header there includes only another header of that folder
#                 ("sift/x.h") or the C++ standard library (<name>, no folder, no extension).
#   MODE=embedder FILE=<source> DIRS_FILE=<file> SOURCE_DIR=<root>: the source of a program built on
#                 the API includes no project header but "sift/x.h" (other headers in <...> are
#                 third-party or system ones), and its include path (DIRS_FILE, the target's include
#                 directories as CMake computed them) holds nothing of the source tree but include/.
# Fails with one line per problem.
cmake_minimum_required(VERSION 3.25)

set(problems "")

# Appends to `problems` every include of `file` that does not match `allowed`.
function(check_file file allowed)
  file(STRINGS ${file} lines REGEX "^[ \t]*#[ \t]*include")
  set(found "")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*" "" header "${line}")
    string(REGEX REPLACE "[ \t]*//.*$" "" header "${header}")
    string(STRIP "${header}" header)
    if(NOT header MATCHES "${allowed}")
      list(APPEND found "${file}: includes ${header}")
    endif()
  endforeach()
  set(problems ${problems} ${found} PARENT_SCOPE)
endfunction()

if(MODE STREQUAL "public")
  file(GLOB headers ${DIR}/*.h)
  if(NOT headers)
    list(APPEND problems "${DIR}: no headers")
  endif()
  foreach(h IN LISTS headers)
    if(h MATCHES "/sift\\.h$")
      # The C API (sift/sift.h) is C: it includes C standard headers only.
      check_file(${h} "^<(stddef|stdint)\\.h>$")
    else()
      check_file(${h} "^(\"sift/[a-z0-9_]+\\.h\"|<[a-z0-9_]+>)$")
    endif()
  endforeach()
  set(rule "a public header may include only \"sift/...\" headers and the C++ standard library (sift.h: <stddef.h>, <stdint.h>)")
elseif(MODE STREQUAL "embedder")
  check_file(${FILE} "^(\"sift/[a-z0-9_]+\\.h\"|<[^>]+>)$")
  file(READ ${DIRS_FILE} dirs)
  string(STRIP "${dirs}" dirs)
  cmake_path(SET api NORMALIZE "${SOURCE_DIR}/include")
  foreach(dir IN LISTS dirs)
    cmake_path(SET normal NORMALIZE "${dir}")
    string(REGEX REPLACE "(.)/+$" "\\1" normal "${normal}")
    cmake_path(IS_PREFIX SOURCE_DIR "${normal}" NORMALIZE inside)
    if(inside AND NOT normal STREQUAL api)
      list(APPEND problems "${FILE}: its target has ${dir} on the include path")
    endif()
  endforeach()
  set(rule "a program built on the API includes only \"sift/...\" of this project, with only include/ on its path")
else()
  message(FATAL_ERROR "check_includes.cmake: MODE must be public or embedder")
endif()

if(problems)
  list(JOIN problems "\n" text)
  message(FATAL_ERROR "${text}\n(${rule})")
endif()
