//! Hardmax of contiguous `f32` rows of eight elements or more one row at a time, in 32-byte
//! AVX2 vectors, for CPUs that have them (checked at run time): the rows the other kernels
//! leave (rows of 9 to 12 past the last whole group of eight or in a small model, a few rows
//! longer than 128, rows longer than [`hard_equal`](super::hard_equal) takes, and the groups it
//! hands over after rows with ties).
//!
//! Each row is read once while its outputs are zeroed. Rows of 16 to [`MAX_ROW`] go through
//! lanes that keep their maximum and its position ([`tracked`], zeros stored first); other rows
//! in parts of [`PART`](super::long::PART) elements, each part folded with NaN flagged while
//! its outputs are zeroed ([`avx2::fold_row`]), then the part that holds the first maximum
//! searched from L1 ([`long`](super::long)). Then the one; a row with a NaN is done again by the
//! exact rule. Against the tile of positions followed by the tile's zeros and ones that these
//! rows took before, this saves the second pass over the outputs and the tile's setup: a single
//! row of 20, 80 or 1000 in 0.45-0.56x of the time, many rows of 65 to 200 in 0.72-0.79x, of
//! 1000 to 100000 in 0.87-0.94x (AMD EPYC, Zen 3; see the README).

use super::avx2::load8;
use super::long::position_zeroing;
use super::{tracked, MAX_ROW};
use crate::kernels::hardmax::hardmax_row;
use crate::Max;

#[cfg(doc)]
use super::avx2;

/// Hardmax of each contiguous row of `n` (eight or more) of `x` into `y`; `false` (nothing
/// done) for shorter rows or where `y` is not as long as `x`. `N` is `n` where the caller has
/// it as a constant (a small model's few rows then cost about two thirds as much), 0
/// otherwise.
///
/// # Safety
/// The CPU must have the features [`super::avx2::available`] checks.
#[target_feature(enable = "avx2,bmi1,bmi2")]
pub(in crate::kernels) unsafe fn hardmax_rows_one<const N: usize>(
    x: &[f32],
    y: &mut [f32],
    n: usize,
) -> bool {
    crate::kernels::shared::align_frame();
    let n = if N == 0 { n } else { N };
    if n < 8 || x.len() != y.len() {
        return false;
    }
    // Zeros hidden from the optimizer, which turned their stores into calls of `memset`.
    let zero = load8(&core::hint::black_box([0.0; 8]));
    for (row, out) in x.chunks_exact(n).zip(y.chunks_exact_mut(n)) {
        let at = if (16..=MAX_ROW).contains(&n) {
            tracked::position_zeroing::<Max, false, true>(row, out, zero)
        } else {
            position_zeroing::<Max, false, true>(row, out, zero)
        };
        match at {
            Some(at) => {
                if let Some(o) = out.get_mut(at) {
                    *o = 1.0;
                }
            }
            None => exact(row, out),
        }
    }
    true
}

/// The exact rule for a row with a NaN, kept out of the kernel's loop (inlined, it made the
/// kernel's frame and setup larger than a short row's work).
#[cold]
#[inline(never)]
fn exact(row: &[f32], out: &mut [f32]) {
    hardmax_row(row, out);
}
