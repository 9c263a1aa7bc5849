//! The inner kernels that generated loops call.
//!
//! Every kernel works on slices with iterators (`chunks_exact`, `zip`) or checked access, so
//! none can panic whatever the lengths; generated code always passes consistent lengths, and
//! after inlining the constant sizes let rustc drop the checks.
//!
//! Rules (see SEMANTICS.md): reductions propagate NaN; arg-reductions pick the first extreme
//! (the last with `LAST`), and a NaN beats every number (the first NaN, or the last with
//! `LAST`); `-0.0 == +0.0`.

mod arg_groups;
mod arg_lanes;
mod arg_row;
mod gather;
mod half_lanes;
mod half_rows;
mod hardmax;
mod index;
mod int_rows;
mod mid_rows;
mod narrow;
mod planes;
mod reduce;
mod rounded;
mod shared;
mod strided;
#[cfg(test)]
mod test_util;

pub use crate::cast::cast;
pub use arg_lanes::{arg_lanes, arg_lanes_values, arg_tile};
pub use arg_row::arg_row;
#[doc(hidden)]
pub use arg_row::arg_row_wide;
pub use gather::arg_values;
pub use hardmax::{hardmax_general, hardmax_lanes, hardmax_row};
pub use index::{cast_index, index, Index};
#[doc(hidden)]
pub use mid_rows::MID as ARG_ROW_MID;
pub use narrow::{
    arg_lanes_narrow, arg_rows_short, hardmax_lanes_narrow, hardmax_rows_short, narrow_period,
    reduce_lanes_narrow, reduce_rows_short,
};
pub use planes::reduce_planes;
pub use reduce::{fold, reduce_lanes_rows, reduce_rows};
pub use rounded::{arg_row_rounded, Narrowing};
pub use shared::{copy, fill, split2};
pub use strided::strided_copy;

// The run-time-sized cores the debug builds' entry points (`crate::node`) share with the
// constant-sized kernels above.
#[cfg(not(debug_assertions))]
pub(crate) use arg_lanes::arg_lanes_inlined;
#[cfg(debug_assertions)]
pub(crate) use narrow::{arg_lanes_narrow_in, reduce_lanes_narrow_in};
#[cfg(debug_assertions)]
pub(crate) use planes::reduce_planes_in;
#[cfg(debug_assertions)]
pub(crate) use shared::take;
