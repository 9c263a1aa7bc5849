//! # onnx-aot
//!
//! ONNX models of the max family (ArgMax, ArgMin, ReduceMax, ReduceMin, Hardmax) compiled ahead
//! of time into plain, allocation-free, panic-free Rust.
//!
//! ```
//! // The path is relative to the crate's CARGO_MANIFEST_DIR.
//! onnx_aot::model!(pub mod top1 = "../examples/models/top1.onnx");
//!
//! let logits = [[0.1, 2.5, 0.3, 2.5, -1.0, 0.0, 0.0, 0.0, 0.0, f32::NEG_INFINITY]];
//! let out = top1::run(&top1::Inputs { logits });
//! assert_eq!(out.label, [1]); // ties go to the first index
//!
//! // The erased entry point: little-endian bytes in graph order; wrong sizes are errors.
//! let bytes: Vec<u8> = logits[0].iter().flat_map(|v| v.to_le_bytes()).collect();
//! let mut label = [0u8; 8];
//! top1::run_bytes(&[&bytes], &mut [&mut label]).unwrap();
//! assert_eq!(i64::from_le_bytes(label), 1);
//! assert!(top1::run_bytes(&[&bytes[1..]], &mut [&mut label]).is_err());
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
mod cast;
mod element;
mod error;
pub mod kernels;

pub use cast::CastElement;
pub use element::{DType, Direction, Element, Max, Min};
pub use error::Error;
pub use half;
pub use half::{bf16, f16};

#[cfg(feature = "macros")]
pub use onnx_aot_macros::model;

#[cfg(feature = "ndarray")]
pub mod nd;
#[cfg(feature = "ndarray")]
pub use ndarray;

/// Keeps its tokens when the `ndarray` feature of this crate is on (generated code uses it for
/// `run_ndarray`, so users who leave the feature off pay nothing).
#[cfg(feature = "ndarray")]
#[doc(hidden)]
#[macro_export]
macro_rules! __if_ndarray {
    ($($t:tt)*) => { $($t)* };
}

/// Keeps its tokens when the `ndarray` feature of this crate is on (generated code uses it for
/// `run_ndarray`, so users who leave the feature off pay nothing).
#[cfg(not(feature = "ndarray"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __if_ndarray {
    ($($t:tt)*) => {};
}
