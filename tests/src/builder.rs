//! Building ONNX models programmatically for tests.
