//! ndarray interop (feature `ndarray`): what the generated `run_ndarray` uses.

use alloc::vec::Vec;
use core::fmt;

use ndarray::{ArrayD, ArrayView, CowArray, Dimension, IxDyn};

use crate::Element;

/// Why `run_ndarray` refused its arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShapeError {
    /// Position of the input among the run-time inputs.
    pub index: usize,
    /// The input's ONNX name.
    pub name: &'static str,
    /// The shape the model was compiled for.
    pub expected: &'static [usize],
    /// The shape given.
    pub found: Vec<usize>,
}

impl fmt::Display for ShapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "input {} ({:?}) must have shape {:?}, got {:?}",
            self.index, self.name, self.expected, self.found
        )
    }
}

impl core::error::Error for ShapeError {}

/// An input view in standard (row-major, contiguous) layout, copied only when it is not.
pub struct Contiguous<'a, T> {
    array: CowArray<'a, T, IxDyn>,
}

impl<'a, T: Element> Contiguous<'a, T> {
    /// Checks the view's shape and makes it contiguous.
    pub fn new<D: Dimension>(
        view: ArrayView<'a, T, D>,
        index: usize,
        name: &'static str,
        expected: &'static [usize],
    ) -> Result<Self, ShapeError> {
        if view.shape() != expected {
            return Err(ShapeError {
                index,
                name,
                expected,
                found: view.shape().to_vec(),
            });
        }
        let view = view.into_dyn();
        let array = if view.is_standard_layout() {
            CowArray::from(view)
        } else {
            CowArray::from(view.as_standard_layout().into_owned())
        };
        Ok(Contiguous { array })
    }

    /// The elements in row-major order.
    pub fn as_slice(&self) -> &[T] {
        self.array.as_slice().unwrap_or(&[])
    }
}

/// A zeroed output buffer of `n` elements.
pub fn buffer<T: Element>(n: usize) -> Vec<T> {
    alloc::vec![T::ZERO; n]
}

/// Shapes a filled buffer as an owned array (generated code always passes a matching length).
pub fn into_array<T: Element>(data: Vec<T>, shape: &'static [usize]) -> Result<ArrayD<T>, NdError> {
    ArrayD::from_shape_vec(IxDyn(shape), data).map_err(NdError::Layout)
}

/// What `run_ndarray` can fail with.
#[derive(Clone, Debug, PartialEq)]
pub enum NdError {
    /// An input has another shape than the model's.
    Shape(ShapeError),
    /// An output buffer could not be shaped (cannot happen with generated code).
    Layout(ndarray::ShapeError),
}

impl From<ShapeError> for NdError {
    fn from(e: ShapeError) -> Self {
        NdError::Shape(e)
    }
}

impl fmt::Display for NdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NdError::Shape(e) => e.fmt(f),
            NdError::Layout(e) => write!(f, "cannot shape an output: {e}"),
        }
    }
}

impl core::error::Error for NdError {}
