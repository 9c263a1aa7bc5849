//! The SSE2 search of a row for its extreme (rows of 4 to [`MAX_ROW`] elements, no NaN).

use core::arch::x86_64::__m128;

#[cfg(doc)]
use super::MAX_ROW;
use super::{eq, load4, mask, mask16};
use crate::kernels::shared::highest_bit;

/// The first (the last with `LAST`) position in `row` (4 to [`MAX_ROW`] elements, no NaN) of
/// the value `splat` holds in every lane; 0 if it is not there. Blocks of 32 elements give one
/// bit mask each, searched from the start (from the end with `LAST`). (Gathering a longer row's
/// bits first, to count them without early exits, measured slower: 113 -> 144 us over rows of
/// 80.)
#[inline(always)]
pub(super) fn position<const LAST: bool>(row: &[f32], splat: __m128) -> usize {
    let n = row.len();
    let hit = |at: usize| {
        row.get(at..)
            .and_then(<[f32]>::first_chunk::<4>)
            .map_or(0, |c| mask(eq(load4(c), splat)))
    };
    let sixteen = |at: usize| {
        row.get(at..)
            .and_then(<[f32]>::first_chunk::<16>)
            .map_or(0, |c| {
                let (v, _) = c.as_chunks::<4>();
                let [a, b, c, d] = v else { return 0 };
                let e = |v: &[f32; 4]| eq(load4(v), splat);
                mask16(e(a), e(b), e(c), e(d))
            })
    };
    let block = |b: usize| -> u32 {
        let (base, end) = (b * 32, (b * 32 + 32).min(n));
        let mut bits = 0u32;
        let mut k = base;
        while k + 16 <= end {
            bits |= sixteen(k) << (k - base);
            k += 16;
        }
        while k + 4 <= end {
            bits |= hit(k) << (k - base);
            k += 4;
        }
        if k < end {
            // The last four elements, some of them already seen (the same bits again).
            let at = end - 4;
            let m = hit(at);
            bits |= if at >= base {
                m << (at - base)
            } else {
                m >> (base - at)
            };
        }
        bits
    };
    let blocks = n.div_ceil(32);
    if LAST {
        for b in (0..blocks).rev() {
            let bits = block(b);
            if bits != 0 {
                return b * 32 + highest_bit(u64::from(bits));
            }
        }
    } else {
        for b in 0..blocks {
            let bits = block(b);
            if bits != 0 {
                return b * 32 + bits.trailing_zeros() as usize;
            }
        }
    }
    0
}
