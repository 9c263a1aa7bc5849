//! # onnx-aot
//!
//! ONNX models of the max family (ArgMax, ArgMin, ReduceMax, ReduceMin, Hardmax) compiled ahead
//! of time into plain, allocation-free, panic-free Rust.
//!
//! ```ignore
//! onnx_aot::model!(pub mod top1 = "models/top1.onnx");
//!
//! let out = top1::run(&top1::Inputs { logits: [[0.1, 2.5, 0.3]] });
//! assert_eq!(out.label, [1]);
//! ```
//!
//! This crate is what generated code links against: the element types and their comparison
//! rules ([`Element`]), the inner kernels ([`kernels`]), the byte-level entry point's helpers
//! ([`bytes`]) and the [`Error`] type. It is `#![no_std]` and allocates nothing.
#![no_std]
#![deny(missing_docs)]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

pub mod bytes;
mod element;
mod error;
pub mod kernels;

pub use element::{DType, Direction, Element, Max, Min};
pub use error::Error;
pub use half;
pub use half::{bf16, f16};

#[cfg(feature = "macros")]
pub use onnx_aot_macros::model;
