#!/bin/sh
# What `cmake --install` of a build yields, staged with DESTDIR: libsift with its SONAME, the C API's
# sift_* exported, each at version SIFT_0, and nothing else but the C++ API at SIFT_CXX_<release>
# (install_embed_test.sh); sift/sift.h, pkg-config and CMake files; a C program built
# against the staged header and library, by hand and through find_package(sift); and the Python package importable from the staged
# dist-packages, finding the staged library by its run path (nothing set).
#   install_test.sh BUILD_DIR WORK_DIR PYTHON
set -eu
build=$1
work=$2
python=$3
rm -rf "$work"
mkdir -p "$work"
fail() {
  echo "install_test: $*" >&2
  exit 1
}
DESTDIR="$work/stage" cmake --install "$build" >"$work/install.log" || fail "cmake --install failed"
prefix=$(find "$work/stage" -name sift.h -path '*/include/sift/*' | sed 's|/include/sift/sift.h$||')
[ -n "$prefix" ] || fail "no include/sift/sift.h staged"
lib="$prefix/lib"
for f in libsift.so libsift.so.0 pkgconfig/sift.pc cmake/sift/siftConfig.cmake cmake/sift/siftTargets.cmake; do
  [ -e "$lib/$f" ] || fail "missing $lib/$f"
done
objdump -p "$lib/libsift.so.0" | grep -q 'SONAME *libsift.so.0$' || fail "SONAME is not libsift.so.0"
# The C++ embedding API, at SIFT_CXX_<release>, is install_embed_test.sh's to check.
exported=$(objdump -T "$lib/libsift.so.0" | awk '$2 == "g" && $4 != "*UND*" && $NF != $(NF-1) && $(NF-1) !~ /^SIFT_CXX_/ {print $(NF-1), $NF}')
[ -n "$exported" ] || fail "nothing exported"
echo "$exported" | awk '$1 != "SIFT_0" || $2 !~ /^sift_/' | grep . && fail "exports beyond sift_* at SIFT_0"
count=$(echo "$exported" | wc -l)
declared=$(grep -c '^SIFT_API' "$prefix/include/sift/sift.h")
[ "$count" -eq "$declared" ] || fail "$count symbols exported, $declared declared in sift.h"

cat >"$work/use.c" <<'C'
#include <sift/sift.h>
#include <stdio.h>
int main(void) {
  sift_store* store = NULL;
  sift_error* error = NULL;
  if (sift_store_open("", NULL, &store, &error) != SIFT_INVALID_ARGUMENT) return 1;
  printf("%s %s\n", sift_version(), sift_error_message(error));
  sift_error_free(error);
  return 0;
}
C
cc -std=c11 -Wall -Werror -I"$prefix/include" "$work/use.c" -L"$lib" -lsift -o "$work/use" || fail "cannot build against it"
LD_LIBRARY_PATH="$lib" "$work/use" || fail "the C program failed"

# The same program through the CMake package: find_package(sift), target sift::sift.
mkdir -p "$work/cmake"
cp "$work/use.c" "$work/cmake/use.c"
cat >"$work/cmake/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(use C)
find_package(sift 0.1 REQUIRED)
add_executable(use use.c)
target_link_libraries(use PRIVATE sift::sift)
CMAKE
cmake -S "$work/cmake" -B "$work/cmake/build" -DCMAKE_PREFIX_PATH="$prefix" >"$work/cmake.log" 2>&1 ||
  fail "find_package(sift) failed (see $work/cmake.log)"
cmake --build "$work/cmake/build" >>"$work/cmake.log" 2>&1 || fail "cannot build with sift::sift"
LD_LIBRARY_PATH="$lib" "$work/cmake/build/use" || fail "the CMake-built program failed"

site=$(find "$lib" -type d -name dist-packages | head -n 1)
if [ -n "$site" ]; then
  env -i PATH=/usr/bin:/bin "$python" -c "
import sys
sys.path.insert(0, '$site')
import sift
assert sift.__file__.startswith('$site'), sift.__file__
print('python', sift.__version__)
" || fail "the staged Python package does not import"
fi
rm -rf "$work"
echo "install_test: ok ($count symbols)"
