//! Blocks whose rows fill one vector (rows of 32 bytes, or pairs of rows of 16) and whose rows
//! one group counts: block after block in one loop, each block's rows in two chains (the even
//! and the odd) merged at its end, without the tiles' bookkeeping, which costs as much as the
//! rows of a block of twenty.

use core::arch::x86_64::_mm256_setzero_si256;

use super::steps::{fold_pairs, merge, put_values, take_row, widen};
use super::{offer, Read};
use crate::kernels::short_rows_avx2::lanes::{
    any_nan, count_up, identity, key, load, track, Lanes,
};
use crate::{Direction, Element};

/// Whether blocks of `r` rows read by `read` in super-rows of `p` bytes, `group` super-rows a
/// group, are this module's.
pub(super) fn takes(read: Read, p: usize, r: usize, group: usize) -> bool {
    p == 32
        && match read {
            Read::Rows => r <= group,
            Read::Pairs => r / 2 <= group,
            _ => false,
        }
}

/// The first `blocks` blocks of `r` rows of `inner` lanes of `x` (`xb` its bytes) into `y`,
/// and with `v` not empty their extremes into `v`: rows of 16 bytes two a vector with `PAIRS`,
/// else rows of 32 bytes ([`takes`]). Blocks with a NaN go to the portable pass.
///
/// # Safety
/// The CPU has AVX2; `T` is `K`'s type; `xb` is `x`'s bytes; `takes` holds.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn blocks<K: Lanes, D: Direction, const LAST: bool, const PAIRS: bool, T>(
    x: &[T],
    xb: &[u8],
    y: &mut [i64],
    v: &mut [T],
    (r, inner, blocks): (usize, usize, usize),
) where
    T: Element,
{
    let supers = if PAIRS { r / 2 } else { r };
    let size = r * inner;
    let zero = _mm256_setzero_si256();
    for n in 0..blocks {
        let (Some(xs), Some(ys)) = (
            x.get(n * size..(n + 1) * size),
            y.get_mut(n * inner..(n + 1) * inner),
        ) else {
            break;
        };
        let vs = v.get_mut(n * inner..(n + 1) * inner).unwrap_or_default();
        let base = n * size * K::SIZE;
        if base + supers * 32 > xb.len() {
            break;
        }
        let (mut even, mut even_idx, mut even_count) = (identity::<K, D>(), zero, zero);
        let (mut odd, mut odd_idx, mut odd_count) = (identity::<K, D>(), zero, count_up::<K>(zero));
        let mut nan = zero;
        let mut s = 0;
        while s + 2 <= supers {
            // SAFETY: `base + (s + 2) · 32 <= base + supers · 32 <= xb.len()`.
            let (a, b) = unsafe { (load(xb, base + 32 * s), load(xb, base + 32 * s + 32)) };
            if K::INF != 0 {
                nan = track::<K>(track::<K>(nan, a), b);
            }
            (even, even_idx) = take_row::<K, D, LAST>(even, even_idx, key::<K>(a), even_count);
            (odd, odd_idx) = take_row::<K, D, LAST>(odd, odd_idx, key::<K>(b), odd_count);
            even_count = count_up::<K>(count_up::<K>(even_count));
            odd_count = count_up::<K>(count_up::<K>(odd_count));
            s += 2;
        }
        if s < supers {
            // SAFETY: `s < supers`.
            let a = unsafe { load(xb, base + 32 * s) };
            if K::INF != 0 {
                nan = track::<K>(nan, a);
            }
            (even, even_idx) = take_row::<K, D, LAST>(even, even_idx, key::<K>(a), even_count);
        }
        if any_nan::<K>(nan) {
            crate::kernels::arg_lanes::arg_lanes_tiles::<T, D, LAST, 64, false>(xs, ys, vs, inner);
            continue;
        }
        let (best, idx, _) = merge::<K, D, LAST>(even, even_idx, odd, odd_idx);
        let best = if PAIRS {
            // SAFETY: AVX2; pairs are bytes, 16 lanes.
            let best = unsafe { fold_pairs::<K, D, LAST>(best, idx, ys) };
            if r % 2 == 1 {
                for col in 0..inner {
                    offer::<T, D, LAST>(xs, ys, inner, col, r - 1);
                }
                for (col, (o, &at)) in vs.iter_mut().zip(ys.iter()).enumerate() {
                    if let Some(&e) = xs.get(at as usize * inner + col) {
                        *o = e;
                    }
                }
                continue;
            }
            best
        } else {
            let mut rows = [0u8; 40];
            // SAFETY: 32 bytes.
            unsafe { core::arch::x86_64::_mm256_storeu_si256(rows.as_mut_ptr().cast(), idx) };
            let half = 16 / K::SIZE;
            let (low, high) = ys.split_at_mut(half.min(ys.len()));
            // SAFETY: AVX2; `rows` holds 16 bytes past 0 and past 16.
            unsafe {
                widen::<K>(&rows, 0, low);
                widen::<K>(&rows, 16, high);
            }
            best
        };
        // SAFETY: AVX2; `T` is `K`'s type.
        unsafe { put_values::<K, T>(best, vs) };
    }
}
