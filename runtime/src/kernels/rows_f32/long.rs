//! The arg-reductions of contiguous `f32` rows longer than [`MAX_ROW`](super::MAX_ROW), in
//! AVX2 vectors where the CPU has them (the check of [`avx2::available`]).
//!
//! A row is taken in parts of about [`PART`] elements. Each part's extreme comes from the
//! reduction kernel ([`avx2::row_extreme`], at the speed of a streaming read), which also flags
//! NaN; the parts' extremes are compared as they come, keeping the part that holds the row's
//! first (with `LAST`, last) extreme. Only that part is searched for its position, from L1,
//! by one bit mask per 32 elements. A row with a NaN is done again by the exact rule. The
//! portable parts kernel ([`arg_row`]) keeps each block's lanes to find the position without a
//! second look, which costs more than the second look at one part (AMD EPYC, Zen 3: ArgMax rows
//! of 1000 and 100000 about 2.2-2.5x of the stream with it).

use core::arch::x86_64::{__m256, _mm256_set1_ps};

use super::avx2::{self, eq, load8, mask, or};
use super::Values;
use crate::kernels::arg_row::arg_row;
use crate::kernels::index::{index, Index};
use crate::kernels::shared::highest_bit;
use crate::Direction;

/// The elements of a part: 4 KiB, in L1 when it is searched.
pub(in crate::kernels) const PART: usize = 1024;

/// The index of the extreme of each contiguous row of `n` (more than
/// [`MAX_ROW`](super::MAX_ROW)) of `x` into `y`, as [`arg_row`] gives it, and with `VALUES`
/// each row's extreme into `v`; shorter rows do nothing.
///
/// # Safety
/// The CPU must have the features [`avx2::available`] checks.
#[target_feature(enable = "avx2,bmi1,bmi2")]
pub(in crate::kernels) unsafe fn arg_long_rows<
    D: Direction,
    const LAST: bool,
    const VALUES: bool,
    I: Index,
>(
    x: &[f32],
    y: &mut [I],
    v: &mut [f32],
    n: usize,
) {
    crate::kernels::shared::align_frame();
    if n <= super::MAX_ROW {
        return;
    }
    let mut vals = Values::<VALUES>::new(v);
    for (o, row) in y.iter_mut().zip(x.chunks_exact(n)) {
        let at = match position::<D, LAST>(row) {
            Some(at) => at,
            None => arg_row::<f32, D, LAST>(row),
        };
        vals.put(row, at);
        *o = index::<I>(at);
    }
}

/// The position of the first (last, with `LAST`) extreme of `row` (at least eight elements) by
/// the order alone, or `None` if the row holds a NaN.
#[inline]
#[target_feature(enable = "avx2,bmi1,bmi2")]
fn position<D: Direction, const LAST: bool>(row: &[f32]) -> Option<usize> {
    position_zeroing::<D, LAST, false>(row, &mut [], avx2::zero8())
}

/// [`position`], and with `ZERO` the lanes of `zero` stored into `out` (as long as `row`) as
/// each part is read ([`avx2::fold_row`]: a Hardmax's outputs before its one; with a NaN, `out`
/// may be left partly written).
#[inline]
#[target_feature(enable = "avx2,bmi1,bmi2")]
pub(super) fn position_zeroing<D: Direction, const LAST: bool, const ZERO: bool>(
    row: &[f32],
    out: &mut [f32],
    zero: __m256,
) -> Option<usize> {
    let n = row.len();
    if ZERO && out.len() != n {
        return None;
    }
    // The part holding the extreme so far: its value and bounds.
    let mut best: Option<(f32, usize, usize)> = None;
    let mut start = 0;
    while start < n {
        // A part of PART elements, or the rest of the row when fewer than PART + 8 are left
        // (every part has at least eight, as the reduction kernel needs).
        let end = if n - start < PART + 8 {
            n
        } else {
            start + PART
        };
        let part = row.get(start..end)?;
        let zeros = if ZERO {
            out.get_mut(start..end)?
        } else {
            &mut []
        };
        let (e, nan) = avx2::fold_row::<D, ZERO>(part, zeros, zero);
        if nan {
            return None;
        }
        let take = match best {
            None => true,
            Some((b, _, _)) if LAST => !D::better(b, e),
            Some((b, _, _)) => D::better(e, b),
        };
        if take {
            best = Some((e, start, end));
        }
        start = end;
    }
    let (e, start, end) = best?;
    let part = row.get(start..end)?;
    Some(start + find::<LAST>(part, _mm256_set1_ps(e)))
}

/// The first (last, with `LAST`) position in `part` (at least eight elements) of the value
/// `splat` holds in every lane; 0 if it is not there. Blocks of 32 elements give one test each,
/// the block that holds the value one bit mask per eight elements; the last eight elements
/// (which may overlap the blocks and eights before them) are looked at last (with `LAST`
/// first).
#[inline]
#[target_feature(enable = "avx2,bmi1,bmi2")]
fn find<const LAST: bool>(part: &[f32], splat: __m256) -> usize {
    let n = part.len();
    let Some(tail) = part.last_chunk::<8>() else {
        return 0;
    };
    let tail_bits = mask(eq(load8(tail), splat));
    let (blocks, _) = part.as_chunks::<32>();
    let block_bits = |b: &[f32; 32]| -> u32 {
        let (q, _) = b.as_chunks::<8>();
        q.iter().enumerate().fold(0, |acc, (k, q)| {
            acc | (mask(eq(load8(q), splat)) << (8 * k))
        })
    };
    let any = |b: &[f32; 32]| -> bool {
        let (q, _) = b.as_chunks::<8>();
        let [a, b2, c, d] = q else { return false };
        let hit = or(
            or(eq(load8(a), splat), eq(load8(b2), splat)),
            or(eq(load8(c), splat), eq(load8(d), splat)),
        );
        mask(hit) != 0
    };
    let whole = blocks.len() * 32;
    // The eights past the last whole block.
    let (eights, _) = part.get(whole..).unwrap_or(&[]).as_chunks::<8>();
    if LAST {
        if tail_bits != 0 {
            return n - 8 + highest_bit(u64::from(tail_bits));
        }
        for (k, q) in eights.iter().enumerate().rev() {
            let bits = mask(eq(load8(q), splat));
            if bits != 0 {
                return whole + 8 * k + highest_bit(u64::from(bits));
            }
        }
        for (b, blk) in blocks.iter().enumerate().rev() {
            if any(blk) {
                return b * 32 + highest_bit(u64::from(block_bits(blk)));
            }
        }
    } else {
        for (b, blk) in blocks.iter().enumerate() {
            if any(blk) {
                return b * 32 + block_bits(blk).trailing_zeros() as usize;
            }
        }
        for (k, q) in eights.iter().enumerate() {
            let bits = mask(eq(load8(q), splat));
            if bits != 0 {
                return whole + 8 * k + bits.trailing_zeros() as usize;
            }
        }
        if tail_bits != 0 {
            return n - 8 + tail_bits.trailing_zeros() as usize;
        }
    }
    0
}
