//! The size limits every stage applies to what a model declares, so that a hostile or mistaken
//! file gets an error instead of generated code that rustc cannot build.

/// The largest tensor, in bytes, that generated code may declare as an array: rustc's object
/// size bound on 64-bit targets (smaller targets reject large arrays when the code compiles).
pub const MAX_TENSOR_BYTES: u128 = 1 << 61;

/// The highest rank a tensor may have (each dimension is one level of nested arrays).
pub const MAX_RANK: usize = 64;

/// The most nodes a model may have after its cut and folding: each is a function and a call
/// of generated code, and rustc needs about a quarter of a megabyte per node to build it
/// unoptimized (10,000 nodes: 2.7 GB and half a minute to two minutes; see the README's
/// Limits section).
pub const MAX_NODES: usize = 20_000;

/// The most run-time graph inputs, and the most graph outputs, a model may have: each is a
/// field of `Inputs` or `Outputs` and a parameter of the generated `compute`, all borrowed at
/// once where `run_into` and `run_bytes` call it, which rustc checks in time and memory that
/// grow faster than linearly (4,000 inputs: 1.9 GB; 10,000: beyond 8 GB).
pub const MAX_INTERFACE_TENSORS: usize = 4_000;

/// The most bytes of constants generated code may read at run time, all together: each is a
/// byte string decoded by rustc's constant evaluator, which takes about 13 s and 140 MB of
/// memory per megabyte unoptimized (10 MB: 130 s, 1.4 GB; see the README's Limits section).
pub const MAX_CONSTANT_BYTES: usize = 16 << 20;

/// Checks the size of a tensor the generator would compute while it generates code
/// (ConstantOfShape, broadcast shape arithmetic): at most [`MAX_CONSTANT_BYTES`], so that a small
/// file cannot make the generator build gigabytes in memory. `label` names the node.
pub fn check_folded(
    label: &str,
    what: &str,
    shape: &[usize],
    elem_bytes: usize,
) -> Result<(), String> {
    let bytes = shape
        .iter()
        .try_fold(elem_bytes as u128, |n, &d| n.checked_mul(d as u128));
    match bytes {
        Some(b) if b <= MAX_CONSTANT_BYTES as u128 => Ok(()),
        _ => Err(format!(
            "{label}: {what} would be a constant of shape {shape:?} ({} bytes), computed while \
             generating code; onnx-aot computes constants of at most {MAX_CONSTANT_BYTES} bytes \
             (16 MiB): check the shape, or start a graph cut after this node",
            bytes.map_or_else(|| "more than 2^128".to_string(), |b| b.to_string())
        )),
    }
}
