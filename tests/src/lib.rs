//! Test support of onnx-aot.
