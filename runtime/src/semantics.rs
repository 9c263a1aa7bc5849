//! The contract: what every generated function computes, op by op and opset by opset.
//!
//! This module has no items; it holds `docs/SEMANTICS.md` of the repository, the rules the
//! generator and the kernels are tested against.
#![doc = include_str!("../SEMANTICS.md")]
