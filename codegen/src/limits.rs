//! The size limits every stage applies to what a model declares, so that a hostile or mistaken
//! file gets an error instead of generated code that rustc cannot build.

/// The largest tensor, in bytes, that generated code may declare as an array: rustc's object
/// size bound on 64-bit targets (smaller targets reject large arrays when the code compiles).
pub const MAX_TENSOR_BYTES: u128 = 1 << 61;

/// The highest rank a tensor may have (each dimension is one level of nested arrays).
pub const MAX_RANK: usize = 64;

/// The most nodes, run-time graph inputs or graph outputs a model may have after its cut and
/// folding: each is a few statements of generated code, and rustc needs about a quarter of a
/// megabyte of memory per node to build it (10,000 nodes: 2.5 GB and two minutes unoptimized;
/// see the README's Limits section). Beyond this a model is refused with a message to cut it.
pub const MAX_GRAPH_ITEMS: usize = 20_000;
