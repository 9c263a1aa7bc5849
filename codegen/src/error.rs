//! Errors of the generator: collected, not stopped at the first, each saying what, where and how
//! to fix it, and pointing at the part of the user's request it concerns.

use core::fmt;

/// What part of the user's request an error concerns, so a macro can span it precisely.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Blame {
    /// The model file itself (the path literal in the macro).
    Model,
    /// The binding of a symbolic dimension, by name (`dims: { NAME = .. }`).
    Dim(String),
    /// The binding of a graph input, by ONNX name (`inputs: { NAME = .. }`).
    Input(String),
    /// A name in the list of freed inputs, by ONNX name (`free: [NAME]`).
    Free(String),
    /// A start tensor of a graph cut, by ONNX name (`start: [NAME]`).
    Start(String),
    /// A kept output, by ONNX name (`outputs: [NAME]`).
    Output(String),
}

/// One error found in a model or in the options given with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// The full message: what went wrong, where in the model, and how to fix it.
    pub message: String,
    /// What the error should be reported against.
    pub blame: Blame,
}

impl Error {
    /// An error about the model file.
    pub fn model(message: impl Into<String>) -> Self {
        Error {
            message: message.into(),
            blame: Blame::Model,
        }
    }

    /// An error about the same thing, with another message.
    pub fn with_blame(message: impl Into<String>, blame: Blame) -> Self {
        Error {
            message: message.into(),
            blame,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// The most errors kept: a hostile model can have one per node, and the first ones say what
/// is wrong; the rest are counted in a last error.
pub const MAX_ERRORS: usize = 50;

/// Several errors, in the order they were found (the first [`MAX_ERRORS`], then a count of the
/// others). Never empty when returned as an `Err`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Errors {
    list: Vec<Error>,
    /// Errors found beyond [`MAX_ERRORS`], counted only.
    dropped: usize,
}

impl Errors {
    /// No errors yet.
    pub fn new() -> Self {
        Errors::default()
    }

    /// Records one error (or counts it, beyond [`MAX_ERRORS`]).
    pub fn push(&mut self, error: Error) {
        if self.list.len() < MAX_ERRORS {
            self.list.push(error);
        } else {
            self.dropped += 1;
        }
    }

    /// Records an error about the model file.
    pub fn model(&mut self, message: impl Into<String>) {
        self.push(Error::model(message));
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The recorded errors.
    pub fn iter(&self) -> impl Iterator<Item = &Error> {
        self.list.iter()
    }

    /// How many errors were recorded.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Moves every error of `other` into `self`.
    pub fn extend(&mut self, other: Errors) {
        self.dropped += other.dropped;
        for e in other.list {
            self.push(e);
        }
    }

    /// `Ok(value)` when nothing was recorded, `Err(self)` otherwise (with the count of the
    /// errors beyond [`MAX_ERRORS`] as a last error).
    pub fn finish<T>(mut self, value: T) -> Result<T, Errors> {
        if self.list.is_empty() {
            return Ok(value);
        }
        if self.dropped > 0 {
            self.list.push(Error::model(format!(
                "... and {} more errors not shown (onnx-aot reports the first {MAX_ERRORS}); fix \
                 these and build again",
                self.dropped
            )));
            self.dropped = 0;
        }
        Err(self)
    }
}

impl From<Error> for Errors {
    fn from(error: Error) -> Self {
        Errors {
            list: vec![error],
            dropped: 0,
        }
    }
}

impl IntoIterator for Errors {
    type Item = Error;
    type IntoIter = std::vec::IntoIter<Error>;
    fn into_iter(self) -> Self::IntoIter {
        self.list.into_iter()
    }
}

impl fmt::Display for Errors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.list.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "error: {e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Errors {}
