//! Reading the official ONNX test data (TensorProto files).
