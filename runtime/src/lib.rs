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

#[doc(hidden)]
pub mod boxed;
pub mod bytes;
mod cast;
mod element;
mod error;
#[doc(hidden)]
pub mod flat;
pub mod kernels;
mod model;
#[doc(hidden)]
pub mod node;
pub mod semantics;

pub use cast::CastElement;
pub use element::{DType, Direction, Element, Max, Min};
pub use error::Error;
pub use half;
pub use half::{bf16, f16};
pub use model::{Model, Tensors};

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

/// Keeps its tokens when the `alloc` feature of this crate is on (generated code uses it for
/// `new_boxed` and `run_boxed`).
#[cfg(feature = "alloc")]
#[doc(hidden)]
#[macro_export]
macro_rules! __if_alloc {
    ($($t:tt)*) => { $($t)* };
}

/// Keeps its tokens when the `alloc` feature of this crate is on (generated code uses it for
/// `new_boxed` and `run_boxed`).
#[cfg(not(feature = "alloc"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __if_alloc {
    ($($t:tt)*) => {};
}

/// A version of this crate as a type: generated code states the version of the generator
/// that wrote it as `Version<MAJOR, MINOR, PATCH>` and checks it against [`__private::VERSION`],
/// so that a macro or Builder of one version used with a runtime of another is a type error
/// naming both versions.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Version<const MAJOR: u32, const MINOR: u32, const PATCH: u32>;

/// A decimal number at compile time (the parts of `CARGO_PKG_VERSION_*`).
const fn parse_u32(s: &str) -> u32 {
    let b = s.as_bytes();
    let mut n = 0u32;
    let mut i = 0;
    while i < b.len() {
        n = n * 10 + (b[i] - b'0') as u32;
        i += 1;
    }
    n
}

/// What generated code reaches, and nothing else: the paths here are not part of the public API
/// and change with every version (the generator and this crate pin each other's exact version).
#[doc(hidden)]
pub mod __private {
    #[cfg(feature = "alloc")]
    pub use crate::boxed::zeroed_box;
    pub use crate::boxed::ZeroValid;
    pub use crate::flat::{flat, flat_mut, Nested};
    #[cfg(feature = "ndarray")]
    pub use crate::nd;
    pub use crate::{__if_alloc, __if_ndarray, __tensors};
    pub use crate::{bf16, bytes, f16, kernels, DType, Direction, Element, Error, Max, Min};
    pub use crate::{node, Model, Tensors, Version};
    #[cfg(feature = "alloc")]
    pub use alloc::boxed::Box;
    #[cfg(feature = "ndarray")]
    pub use ndarray;

    /// This crate's version, checked by generated code against the generator's.
    pub const VERSION: crate::Version<
        { crate::parse_u32(env!("CARGO_PKG_VERSION_MAJOR")) },
        { crate::parse_u32(env!("CARGO_PKG_VERSION_MINOR")) },
        { crate::parse_u32(env!("CARGO_PKG_VERSION_PATCH")) },
    > = crate::Version;
}
