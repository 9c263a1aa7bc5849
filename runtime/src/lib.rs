#![cfg_attr(feature = "macros", doc = include_str!("../README.md"))]
#![cfg_attr(
    not(feature = "macros"),
    doc = "# onnx-aot\n\nThe runtime of onnx-aot. Its front page, the repository's README, \
           is built with the default feature `macros` on."
)]
//!
//! ## This crate
//!
//! `onnx-aot` is what generated code links against: the element types and their comparison
//! rules ([`Element`]), the inner kernels ([`kernels`]), the byte-level entry point's helpers
//! ([`bytes`]) and the [`Error`] type. It is `#![no_std]` and allocates nothing. The contract
//! every generated function follows is the module [`semantics`].
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
pub mod semantics;

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
