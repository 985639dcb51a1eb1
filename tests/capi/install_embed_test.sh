#!/bin/sh
# What `cmake --install` of a build yields for a C++ program, staged with DESTDIR: every header of
# include/sift/, libsift.a, and the C++ embedding API exported by libsift.so.0 at SIFT_CXX_<version>
# with nothing of the engine's internals. Then the embedding example (tools/examples) built out of tree
# against the staged prefix, (a) through find_package(sift) (tools/examples/CMakeLists.txt: one binary
# on sift::sift, one on sift::sift_static) and (b) by hand with `pkg-config --cflags --libs` of sift
# and of sift-static; every binary is run on a fresh store and judged by embed_example_test.sh. Last, a
# C program linked with sift-static.
#   install_embed_test.sh SOURCE_DIR BUILD_DIR WORK_DIR VERSION CC CXX
set -eu
source=$1
build=$2
work=$3
version=$4
cc=$5
cxx=$6
rm -rf "$work"
mkdir -p "$work"
fail() {
  echo "install_embed_test: $*" >&2
  exit 1
}
DESTDIR="$work/stage" cmake --install "$build" >"$work/install.log" || fail "cmake --install failed"
prefix=$(find "$work/stage" -name sift.h -path '*/include/sift/*' | sed 's|/include/sift/sift.h$||')
[ -n "$prefix" ] || fail "no include/sift/sift.h staged"
lib="$prefix/lib"
for header in "$source"/include/sift/*.h; do
  name=$(basename "$header")
  cmp -s "$header" "$prefix/include/sift/$name" || fail "include/sift/$name not installed as it is"
done
for f in libsift.a libsift.so.0 pkgconfig/sift-static.pc cmake/sift/siftStaticTargets.cmake; do
  [ -e "$lib/$f" ] || fail "missing $lib/$f"
done

# libsift.so.0's C++ symbols: all at SIFT_CXX_<version>, all members of the API's classes or its free
# functions, none of a class's hidden parts.
objdump -T "$lib/libsift.so.0" | awk -v node="SIFT_CXX_$version" '$2 == "g" && $4 != "*UND*" && $(NF-1) == node && $NF != node {print $NF}' |
  c++filt >"$work/cxx-symbols"
[ -s "$work/cxx-symbols" ] || fail "no C++ symbol exported at SIFT_CXX_$version"
count=$(wc -l <"$work/cxx-symbols")
api='^sift::((StreamEngine|Consumer|Delivery|DeliveryBatch|CompiledFilter|FilterSpec)::|CompileFilterSet\(|FilterKindName\()'
grep -Ev "$api" "$work/cxx-symbols" && fail "C++ symbols exported beyond the embedding API"
grep -E '::(Impl|Rep|Sharing)::' "$work/cxx-symbols" && fail "a hidden part of an API class is exported"
grep -q '^sift::StreamEngine::Open(' "$work/cxx-symbols" || fail "StreamEngine::Open is not exported"
objdump -T "$lib/libsift.so.0" | c++filt | grep -E ' sift::(storage|selector|amqp|base|engine)::' &&
  fail "the engine's internals are exported"

# (a) find_package(sift): tools/examples on its own, warnings as errors.
cmake -S "$source/tools/examples" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS=-Wall -Wextra -Werror" >"$work/cmake.log" 2>&1 ||
  fail "tools/examples does not configure against the staged prefix (see $work/cmake.log)"
grep -q "^sift_DIR:PATH=$lib/cmake/sift\$" "$work/cmake/CMakeCache.txt" || fail "find_package(sift) found another sift"
cmake --build "$work/cmake" >>"$work/cmake.log" 2>&1 || fail "tools/examples does not build (see $work/cmake.log)"
# The example run through the test of the build's own (tests/tools): exit 0, the bad filter with a caret.
run() {
  sh "$source/tests/tools/embed_example_test.sh" "$1" "$work/store" >"$work/run.log" 2>&1 ||
    fail "$1 failed: $(cat "$work/run.log")"
}
shared=$work/cmake/sift_embed_example
static=$work/cmake/sift_embed_example_static
ldd "$shared" | grep -q "libsift.so.0 => $lib/libsift.so.0" || fail "$shared does not load the staged libsift.so.0"
objdump -p "$shared" | grep -q "SIFT_CXX_$version" || fail "$shared does not use the C++ API of libsift.so.0"
ldd "$static" | grep -q libsift && fail "$static loads libsift.so"
run "$shared"
run "$static"

# (b) pkg-config and the compiler, as docs/c-api.md and README.md show them.
export PKG_CONFIG_PATH="$lib/pkgconfig"
pkg-config --libs sift | grep -q -- "-L$lib/pkgconfig/.. " || fail "pkg-config --libs sift does not name the staged folder"
"$cxx" -std=c++20 -Wall -Wextra -Werror "$source/tools/examples/embed.cc" $(pkg-config --cflags --libs sift) \
  -lqpid-proton -o "$work/embed-pc" || fail "cannot build with pkg-config sift"
"$cxx" -std=c++20 -Wall -Wextra -Werror "$source/tools/examples/embed.cc" $(pkg-config --cflags --libs sift-static) \
  -lqpid-proton -o "$work/embed-pc-static" || fail "cannot build with pkg-config sift-static"
ldd "$work/embed-pc-static" | grep -q libsift && fail "$work/embed-pc-static loads libsift.so"
export LD_LIBRARY_PATH="$lib"
run "$work/embed-pc"
unset LD_LIBRARY_PATH
run "$work/embed-pc-static"

# A C program on libsift.a: sift-static brings the C++ runtime too.
cat >"$work/use.c" <<'C'
#include <sift/sift.h>
#include <stdio.h>
int main(void) {
  printf("sift %s\n", sift_version());
  return 0;
}
C
"$cc" -std=c11 -Wall -Werror "$work/use.c" $(pkg-config --cflags --libs sift-static) -o "$work/use-static" ||
  fail "cannot build a C program with pkg-config sift-static"
[ "$("$work/use-static")" = "sift $version" ] || fail "the static C program failed"

rm -rf "$work"
echo "install_embed_test: ok ($count C++ symbols exported)"
