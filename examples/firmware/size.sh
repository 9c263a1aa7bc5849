#!/usr/bin/env bash
# Prints the .text bytes of the firmware example's own code at opt-level "s" and 3: fat LTO and
# panic=abort leave only what the extern "C" entry points reach, in one object of the archive
# (the other members are compiler_builtins). Every function is listed: entry points (T) and the
# local functions they share (t).
set -euo pipefail
cd "$(dirname "$0")"
target=${CARGO_TARGET_DIR:-target}
case $target in /*) ;; *) target="$PWD/$target" ;; esac
for opt in s 3; do
  CARGO_PROFILE_RELEASE_OPT_LEVEL=$opt cargo build --release --quiet --target-dir "$target/opt-$opt"
  lib="$target/opt-$opt/release/libonnx_aot_firmware.a"
  member=$(ar t "$lib" | grep '^onnx_aot_firmware')
  dir=$(mktemp -d)
  (cd "$dir" && ar x "$lib" "$member")
  echo "opt-level $opt:"
  nm -S --size-sort -t d -C "$dir/$member" | awk '$3 ~ /^[tT]$/ { n = $2 + 0; total += n; $1 = ""; $2 = ""; printf "  %6d  %s\n", n, $0 } END { printf "  %6d  total .text of the crate'"'"'s own code\n", total }'
  rm -rf "$dir"
done
