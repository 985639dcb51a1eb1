#!/bin/sh
# The embedding example (tools/examples/embed.cc) against a fresh store: it must exit 0, and show a bad
# filter refused with its position (the filter, the byte, and a caret under it).
#   embed_example_test.sh EXAMPLE STORE_DIR
example=$1
store=$2
rm -rf "$store"
out=$("$example" "$store")
status=$?
rm -rf "$store"
printf '%s\n' "$out"
if [ "$status" -ne 0 ]; then
  echo "embed_example_test: the example exited with $status" >&2
  exit 1
fi
if ! printf '%s\n' "$out" | grep -q '^bad filter: bad selector: sql filter 1, byte 9: '; then
  echo "embed_example_test: no 'bad filter: bad selector: sql filter 1, byte 9: ...' line" >&2
  exit 1
fi
if ! printf '%s\n' "$out" | grep -q '^           ^ (byte 9)$'; then
  echo "embed_example_test: no caret under byte 9" >&2
  exit 1
fi
