//! Hardmax of contiguous `f32` rows of [`MIN_ROW`] to [`MAX_ROW`] elements in 32-byte AVX2
//! vectors, eight rows at a time, for CPUs that have them (checked at run time): the search of
//! [`super::eights`] (NaN first, a fold per row, the eight rows' extremes together, each
//! position by equality), then the group's outputs at once ([`Ones::put8`]).
//!
//! With the row length a constant of the instance (where the shims of short rows reach
//! [`hardmax_eights`] with the node's length), the per-row loops unroll whole; rows whose length
//! is known only at run time take the instance of their number of vectors. Measured (AMD EPYC,
//! Zen 3; 2 MiB of rows of 20, against a tile of 64 rows' positions followed by their outputs):
//! see the README's Hardmax section.

use core::arch::x86_64::_mm256_broadcast_ss;

use super::avx2::store8;
use super::eights::{across8, equal_bits, fold, has_nan, MAX_ROW, MIN_ROW};
use super::Ones;
use crate::kernels::shared::lowest_bit;
use crate::Max;

/// Hardmax of the whole groups of eight rows of `n` ([`MIN_ROW`] to [`MAX_ROW`]) of `x` into
/// `y` (outputs of rows of `n`): the rows done (0 for other lengths), which the caller's kernel
/// follows with the rest. `N` is `n` where the caller has it as a constant (one arm is then
/// left, its loops unrolled whole), 0 otherwise.
///
/// # Safety
/// The CPU must have the features [`super::avx2::available`] checks.
#[target_feature(enable = "avx2,bmi1,bmi2")]
pub(in crate::kernels) unsafe fn hardmax_eights<const N: usize>(
    x: &[f32],
    y: Ones<'_, true>,
    n: usize,
) -> usize {
    let n = if N == 0 { n } else { N };
    match n.div_ceil(8) {
        1 => groups::<1, N>(x, y, n),
        2 => groups::<2, N>(x, y, n),
        3 => groups::<3, N>(x, y, n),
        4 => groups::<4, N>(x, y, n),
        5 => groups::<5, N>(x, y, n),
        6 => groups::<6, N>(x, y, n),
        7 => groups::<7, N>(x, y, n),
        8 => groups::<8, N>(x, y, n),
        _ => 0,
    }
}

/// Hardmax of whole groups of eight rows of `K` vectors (`n` from `8 * K - 7` to `8 * K`, at
/// least eight); `N` is `n` as a constant of the instance, or 0 (`n` known at run time: a
/// constant left to the optimizer did not reach this far, the function being large).
#[inline]
#[target_feature(enable = "avx2,bmi1,bmi2")]
fn groups<const K: usize, const N: usize>(x: &[f32], mut ones: Ones<'_, true>, n: usize) -> usize {
    crate::kernels::shared::align_frame();
    let n = if N == 0 { n } else { N };
    if !(MIN_ROW..=MAX_ROW).contains(&n) || n.div_ceil(8) != K || ones.n() != n {
        return 0;
    }
    let rows = (x.len() / n).min(ones.rows());
    let done = rows / 8 * 8;
    for (q, g) in x
        .get(..done * n)
        .unwrap_or(&[])
        .chunks_exact(8 * n)
        .enumerate()
    {
        if has_nan(g) {
            ones.exact(q, g.chunks_exact(n));
            continue;
        }
        let mut m = [super::avx2::zero8(); 8];
        for (r, m) in m.iter_mut().enumerate() {
            // SAFETY: the row `r < 8` of `g` (8n elements, `8 <= n`, `8(K - 1) < n`); the CPU
            // has AVX2.
            *m = unsafe { fold::<Max, K>(g, r * n, n) };
        }
        let mut extremes = [0.0f32; 8];
        store8(&mut extremes, across8::<Max>(m));
        let mut at = [0usize; 8];
        for (r, (at, e)) in at.iter_mut().zip(&extremes).enumerate() {
            // SAFETY: as for `fold` above.
            *at = lowest_bit(unsafe { equal_bits::<K>(g, r * n, n, _mm256_broadcast_ss(e)) });
        }
        ones.put8(q, &at);
    }
    done
}
