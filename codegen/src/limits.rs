//! The size limits every stage applies to what a model declares, so that a hostile or mistaken
//! file gets an error instead of generated code that rustc cannot build.

/// The largest tensor, in bytes, that generated code may declare as an array: rustc's object
/// size bound on 64-bit targets (smaller targets reject large arrays when the code compiles).
pub const MAX_TENSOR_BYTES: u128 = 1 << 61;

/// The highest rank a tensor may have (each dimension is one level of nested arrays).
pub const MAX_RANK: usize = 64;
