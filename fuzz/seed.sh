#!/bin/sh
# Seeds the corpus of the `generate` fuzz target with every model of the project: the ONNX node
# tests, the test and example models, the compile-fail models and the hostile corpus. The
# corpus is not checked in (fuzz/.gitignore); run this before the first `cargo fuzz run`.
#
#   fuzz/seed.sh && cd fuzz && nice cargo +nightly fuzz run generate -- -max_total_time=1800
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
corpus="$root/fuzz/corpus/generate"
mkdir -p "$corpus"
n=0
for f in "$root"/tests/data/node/*/model.onnx "$root"/tests/data/models/*.onnx \
    "$root"/examples/models/*.onnx "$root"/tests/ui/models/*.onnx \
    "$root"/tests/data/hostile/*.onnx; do
    [ -f "$f" ] || continue
    # Name seeds by content, as libFuzzer does, so reseeding never duplicates.
    sum=$(sha1sum "$f" | cut -d' ' -f1)
    cp "$f" "$corpus/$sum"
    n=$((n + 1))
done
echo "seeded $corpus with $n models ($(ls "$corpus" | wc -l) distinct files)"
