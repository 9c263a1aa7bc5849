//! Strided Hardmax of `f32` in 32-byte AVX2 vectors (checked at run time), for a node's blocks
//! of rows of sixteen lanes or more: a chunk of 32 lanes (then one of sixteen for the lanes
//! left) goes down the block's rows twice, first for each lane's maximum (a max per vector,
//! NaN flagged on the way), then for the outputs: each row's elements compared with the
//! maxima, a 1 where one is equal for the first time down the lane, a 0 elsewhere, stored as the
//! row goes. The second pass reads the chunk again from L1 or L2 and writes the output row by
//! row, so it costs about a plain write; tracking each lane's row of the maximum during the
//! search instead (two more operations per vector) and writing afterwards was 1.2-1.7x slower.

use core::arch::x86_64::{
    _mm256_and_ps, _mm256_andnot_ps, _mm256_cmp_ps, _mm256_loadu_ps, _mm256_max_ps,
    _mm256_movemask_ps, _mm256_or_ps, _mm256_set1_ps, _mm256_setzero_ps, _mm256_storeu_ps,
    _CMP_EQ_OQ, _CMP_UNORD_Q,
};

use super::hardmax::hardmax_lanes;

/// Lanes of the narrowest chunk (two vectors): blocks of fewer lanes take other kernels.
const MIN_LANES: usize = 16;

/// Blocks of fewer rows take other kernels: two rows have a one-pass kernel of their own
/// (`hardmax_lanes`), 1.4-1.6x faster than these two passes.
const MIN_ROWS: usize = 3;

/// Blocks of four rows or more whose row length is a multiple of this (a stride of a multiple
/// of 2 KiB) take other kernels: a chunk's rows then share a few L1 sets, and where the output
/// lies at the same offset within a page as the input (two buffers of the same large size, or
/// tensors a multiple of 4 KiB apart in one struct), the second pass's stores evict the lines
/// it reads next and alias them by address: 2.0-2.3x slower than the search that keeps each
/// lane's row (`[8, 65536]`, `[20, 4096]` and the like; shifting the output by 1 KiB removed it).
const CONFLICT_LANES: usize = 512;

/// Whether blocks of `rows` rows of `inner` lanes take [`hardmax_blocks`]: the shapes where it
/// measured faster than the kernels that keep each lane's row.
pub(super) const fn takes(rows: usize, inner: usize) -> bool {
    inner >= MIN_LANES && rows >= MIN_ROWS && !(rows >= 4 && inner.is_multiple_of(CONFLICT_LANES))
}

/// Hardmax along the `rows` rows of each block of `rows * inner` elements of `x` into `y`
/// (`inner` at least [`MIN_LANES`]): 1 in the row of each lane's first maximum, 0 in its other
/// rows. A block whose lanes hold a NaN is done again by the exact kernel. Returns false,
/// nothing written, if the lengths do not fit.
///
/// # Safety
/// The CPU must have AVX2 (`rows_f32::avx2::available` checks it and more).
#[target_feature(enable = "avx2")]
pub(super) unsafe fn hardmax_blocks(x: &[f32], y: &mut [f32], rows: usize, inner: usize) -> bool {
    let Some(block) = rows.checked_mul(inner) else {
        return false;
    };
    if inner < MIN_LANES || rows == 0 || x.len() != y.len() || !x.len().is_multiple_of(block) {
        return false;
    }
    for (xb, yb) in x.chunks_exact(block).zip(y.chunks_exact_mut(block)) {
        if !hardmax_block(xb, yb, rows, inner) {
            hardmax_lanes(xb, yb, inner);
        }
    }
    true
}

/// One block of [`hardmax_blocks`] (`x` and `y` of `rows * inner`, `inner` at least
/// [`MIN_LANES`]): false, some outputs written, if a lane holds a NaN.
#[inline]
#[target_feature(enable = "avx2")]
fn hardmax_block(x: &[f32], y: &mut [f32], rows: usize, inner: usize) -> bool {
    let mut at = 0;
    while at + 32 <= inner {
        if !chunk::<4>(x, y, rows, inner, at) {
            return false;
        }
        at += 32;
    }
    // The lanes left: chunks of sixteen, the last one ending at the block's last lane
    // (overlapping the chunk before, whose outputs it writes again alike).
    while at < inner {
        let base = at.min(inner - MIN_LANES);
        if !chunk::<2>(x, y, rows, inner, base) {
            return false;
        }
        at = base + MIN_LANES;
    }
    true
}

/// The `8 * V` lanes from `base` of a block (`x` and `y` of `rows * inner`): the maxima down
/// the rows, then each row's outputs. False if a lane holds a NaN (some outputs possibly
/// written) or the lanes do not lie within the block (nothing written).
#[inline]
#[target_feature(enable = "avx2")]
fn chunk<const V: usize>(x: &[f32], y: &mut [f32], rows: usize, inner: usize, base: usize) -> bool {
    // Every row's `8 * V` lanes from `base` lie within `x` and `y`: checked once here, so the
    // loads and stores down the rows go by a pointer.
    let end = rows
        .checked_sub(1)
        .and_then(|r| r.checked_mul(inner))
        .and_then(|o| o.checked_add(base + 8 * V));
    if end.is_none_or(|e| e > x.len() || e > y.len()) {
        return false;
    }
    // (Plain pointers, no closures: a closure does not take the function's target features,
    // and its calls stayed out of line, one per load.)
    let (src, dst) = (x.as_ptr(), y.as_mut_ptr());
    let mut max = [_mm256_setzero_ps(); V];
    for (k, m) in max.iter_mut().enumerate() {
        // SAFETY: `base + r * inner + 8 * V <= x.len(), y.len()` for every row `r < rows`
        // (checked above) and `k < V`, here and below; `loadu`/`storeu` need no alignment.
        *m = unsafe { _mm256_loadu_ps(src.add(base + 8 * k)) };
    }
    let mut nan = _mm256_setzero_ps();
    for r in 1..rows {
        for (k, m) in max.iter_mut().enumerate() {
            // SAFETY: as above.
            let e = unsafe { _mm256_loadu_ps(src.add(base + r * inner + 8 * k)) };
            nan = _mm256_or_ps(nan, _mm256_cmp_ps::<_CMP_UNORD_Q>(e, e));
            // The max keeps `m` where `e` is NaN; the flag above catches it.
            *m = _mm256_max_ps(e, *m);
        }
    }
    for m in &max {
        nan = _mm256_or_ps(nan, _mm256_cmp_ps::<_CMP_UNORD_Q>(*m, *m));
    }
    if _mm256_movemask_ps(nan) != 0 {
        return false;
    }
    // Each lane's maximum is one of its elements (no NaN), so some row equals it; the first
    // such row takes the 1 (-0 and +0 compare equal: the first of them, as the contract says).
    let one = _mm256_set1_ps(1.0);
    let mut found = [_mm256_setzero_ps(); V];
    for r in 0..rows {
        for (k, (m, f)) in max.iter().zip(found.iter_mut()).enumerate() {
            let at = base + r * inner + 8 * k;
            // SAFETY: as above.
            let equal = _mm256_cmp_ps::<_CMP_EQ_OQ>(unsafe { _mm256_loadu_ps(src.add(at)) }, *m);
            let first = _mm256_andnot_ps(*f, equal);
            *f = _mm256_or_ps(*f, equal);
            // SAFETY: as above.
            unsafe { _mm256_storeu_ps(dst.add(at), _mm256_and_ps(first, one)) };
        }
    }
    true
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use super::{hardmax_block, hardmax_blocks};
    use crate::kernels::rows_f32::avx2::available;
    use crate::kernels::test_util::{f32_pool, naive_arg, Lcg};
    use crate::Max;

    /// Every shape class of the kernel against the definition: lanes of one chunk, whole
    /// chunks of 32 and a tail of sixteen overlapping, one row to hundreds, several blocks;
    /// every output of every row written (the output starts as garbage); ties, ±0 and
    /// infinities from the pool; NaN of either sign in one lane of some blocks only (the
    /// chunks before it already written, then the exact kernel for that block).
    #[test]
    fn strided_f32_hardmax_matches_the_definition() {
        if !available() {
            std::eprintln!("no AVX2 on this CPU: the kernel is never called");
            return;
        }
        let mut g = Lcg(23);
        let shapes = [
            (1, 1, 16),
            (3, 2, 16),
            (5, 3, 17),
            (2, 8, 31),
            (1, 20, 32),
            (4, 20, 40),
            (2, 80, 48),
            (1, 3, 300),
            (3, 9, 100),
            (1, 255, 33),
            (2, 300, 20),
        ];
        for (blocks, rows, inner) in shapes {
            for nan in [0usize, 1, 2] {
                let len = blocks * rows * inner;
                let mut x: Vec<f32> = (0..len).map(|_| f32_pool(&mut g, false)).collect();
                if nan > 0 {
                    // One NaN in a late lane of a middle row of the last block.
                    let at = len - inner * (rows - rows / 2) + inner - 1 - g.next() as usize % 8;
                    x[at] = if nan == 1 { f32::NAN } else { -f32::NAN };
                }
                let mut y = std::vec![9f32; len];
                if nan == 0 {
                    // Every NaN-free block is done by the chunks, none left to the exact kernel.
                    for (xb, yb) in x.chunks(rows * inner).zip(y.chunks_mut(rows * inner)) {
                        // SAFETY: `available` found AVX2.
                        assert!(unsafe { hardmax_block(xb, yb, rows, inner) });
                    }
                    y.fill(9.0);
                }
                // SAFETY: `available` found AVX2.
                assert!(unsafe { hardmax_blocks(&x, &mut y, rows, inner) });
                for b in 0..blocks {
                    for j in 0..inner {
                        let at = |r: usize| b * rows * inner + r * inner + j;
                        let lane: Vec<f32> = (0..rows).map(|r| x[at(r)]).collect();
                        let want = naive_arg::<f32, Max>(&lane, false);
                        for r in 0..rows {
                            let ctx = std::format!(
                                "{blocks}x{rows}x{inner} block {b} lane {j} row {r} nan {nan}"
                            );
                            assert_eq!(
                                y[at(r)].to_bits(),
                                if r == want { 1f32 } else { 0f32 }.to_bits(),
                                "{ctx}"
                            );
                        }
                    }
                }
            }
        }
        // Lengths that do not fit: nothing written.
        let mut y = std::vec![9f32; 40];
        // SAFETY: as above.
        unsafe {
            assert!(!hardmax_blocks(&[0.0; 40], &mut y, 2, 15));
            assert!(!hardmax_blocks(&[0.0; 40], &mut y, 3, 16));
            assert!(!hardmax_blocks(&[0.0; 39], &mut y[..39], 0, 16));
        }
        assert!(y.iter().all(|&v| v == 9.0));
    }
}
