//! Examples of onnx-aot live in `examples/`.
