//! Test support of onnx-aot: reading the official test data, building models, and an
//! independent reference implementation of the contract (SEMANTICS.md).

pub mod builder;
pub mod reference;
pub mod testdata;
