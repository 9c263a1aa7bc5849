//! The error of the byte-level entry point.

use core::fmt;

/// Why `run_bytes` refused its arguments. Nothing was written to the outputs.
///
/// ```
/// # #[cfg(feature = "macros")] {
/// onnx_aot::model!(mod top1 = "models/top1.onnx"); // logits: f32 [1, 10] -> label: i64 [1]
///
/// let logits = [0u8; 40];
/// let mut label = [0u8; 8];
/// assert_eq!(top1::run_bytes(&[&logits], &mut [&mut label]), Ok(()));
///
/// let err = top1::run_bytes(&[&logits[..39]], &mut [&mut label]).unwrap_err();
/// assert_eq!(
///     err,
///     onnx_aot::Error::InputLength { index: 0, name: "logits", expected: 40, found: 39 }
/// );
/// assert_eq!(err.to_string(), "input 0 (\"logits\") must be 40 bytes, got 39");
/// # }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Error {
    /// The number of input slices differs from the model's run-time inputs.
    InputCount {
        /// How many the model takes.
        expected: usize,
        /// How many were given.
        found: usize,
    },
    /// The number of output slices differs from the model's outputs.
    OutputCount {
        /// How many the model produces.
        expected: usize,
        /// How many were given.
        found: usize,
    },
    /// An input slice has the wrong number of bytes.
    InputLength {
        /// Position among the inputs.
        index: usize,
        /// The input's ONNX name.
        name: &'static str,
        /// Bytes the model expects (elements times element size).
        expected: usize,
        /// Bytes given.
        found: usize,
    },
    /// An output slice has the wrong number of bytes.
    OutputLength {
        /// Position among the outputs.
        index: usize,
        /// The output's ONNX name.
        name: &'static str,
        /// Bytes the model writes.
        expected: usize,
        /// Bytes given.
        found: usize,
    },
    /// A bool input holds a byte other than 0 or 1.
    InvalidBool {
        /// Position among the inputs.
        index: usize,
        /// The input's ONNX name.
        name: &'static str,
        /// Byte offset of the bad element.
        offset: usize,
    },
    /// The heap could not give `run_bytes` a temporary buffer (with the `alloc` feature, where
    /// inputs, outputs and scratch memory are copied to the heap); nothing was written.
    Allocation {
        /// Bytes of the buffer that could not be allocated.
        bytes: usize,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Error::InputCount { expected, found } => {
                write!(f, "expected {expected} input tensors, got {found}")
            }
            Error::OutputCount { expected, found } => {
                write!(f, "expected {expected} output buffers, got {found}")
            }
            Error::InputLength {
                index,
                name,
                expected,
                found,
            } => write!(
                f,
                "input {index} ({name:?}) must be {expected} bytes, got {found}"
            ),
            Error::OutputLength {
                index,
                name,
                expected,
                found,
            } => write!(
                f,
                "output {index} ({name:?}) must be {expected} bytes, got {found}"
            ),
            Error::InvalidBool {
                index,
                name,
                offset,
            } => write!(
                f,
                "input {index} ({name:?}) has a bool byte other than 0 or 1 at offset {offset}"
            ),
            Error::Allocation { bytes } => {
                write!(f, "could not allocate a temporary buffer of {bytes} bytes")
            }
        }
    }
}

impl core::error::Error for Error {}
