#!/usr/bin/env bash
# Installs the onnxruntime wheel from PyPI (it carries libonnxruntime.so) into a local folder,
# not into the system's Python, and prints the path of the shared library, for
#
#   export ORT_DYLIB_PATH="$(bash tests/benches/ort_dylib.sh)"
#   cargo bench -p onnx-aot-tests --bench peers --features peers
#
# The folder is `.ort/` at the workspace root (ignored by git), or $ORT_DIR. Set ORT_VERSION to
# pin another onnxruntime release (the `ort` crate 2.0.0-rc.15 loads any from 1.17 on).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
dir="${ORT_DIR:-$root/.ort}"
version="${ORT_VERSION:-1.31.1}"
if ! ls "$dir"/onnxruntime/capi/libonnxruntime.so* >/dev/null 2>&1; then
    # Only the shared library is needed: no numpy, protobuf or other dependencies.
    python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --no-deps \
        --target "$dir" "onnxruntime==$version" >&2
fi
so="$(ls "$dir"/onnxruntime/capi/libonnxruntime.so* | sort | head -n 1)"
echo "$so"
