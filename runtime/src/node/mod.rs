//! The calls generated code makes: one per node, over whole tensors.
//!
//! Every function here is a generic `#[inline(always)]` shim that generated code instantiates with its
//! element type, direction and constant sizes. What the shim runs depends on this crate's
//! build:
//! - **optimized builds** (no `debug_assertions`): the kernels of [`crate::kernels`], with the
//!   node's sizes as constants, inlined into the user's crate and specialized there; on x86-64
//!   CPUs with AVX2 or AVX-512, the strided kernels through such a build of the same shim
//!   (`wide`);
//! - **debug builds** (`debug_assertions`): one call into a non-generic entry point compiled in
//!   this crate ([`Thin`]), whose sizes are run-time values. A user's debug build then runs the
//!   kernels at this crate's own opt-level, which one profile line raises
//!   (`[profile.dev.package.onnx-aot] opt-level = 3`): the generated per-node code left in the
//!   user's unoptimized crate is a handful of calls.
//!
//! Both sides compute the same thing by the same rules (SEMANTICS.md); the debug side's
//! run-time-sized kernels are in `dynamic` and tested against the same reference.

mod arg;
mod data;
#[cfg(debug_assertions)]
mod dynamic;
mod hardmax;
mod reduce;
#[cfg(debug_assertions)]
mod small;
mod thin;
mod wide;

pub use crate::kernels::copy;
pub use arg::{
    arg_blocks, arg_blocks_narrow, arg_blocks_values, arg_blocks_values_narrow, arg_row, arg_rows,
    arg_rows_rounded, arg_rows_short, arg_rows_values, arg_values, cast_indices,
};
pub use data::{cast, fill, strided_copy};
pub use hardmax::{
    hardmax_blocks, hardmax_blocks_narrow, hardmax_general, hardmax_rows, hardmax_rows_few,
    hardmax_rows_short,
};
pub use reduce::{
    fold_lanes, fold_lanes_narrow, fold_planes, fold_rows, fold_rows_short, reduce_lanes,
    reduce_lanes_narrow, reduce_parts, reduce_planes, reduce_rows, reduce_rows_short,
};
pub use thin::{Thin, ThinIndex, ThinRounded};
pub use wide::cap_twins;
