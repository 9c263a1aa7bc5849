//! Strided Hardmax of `f32` in 32-byte AVX2 vectors (checked at run time), for a node's blocks
//! of three rows or more of sixteen lanes or more, a chunk of 32 lanes (then one of sixteen for
//! the lanes left) at a time, in one of three forms by the number of rows and the row length:
//! - **compared** (under [`TRACK_ROWS`] rows, but wide rows from [`WIDE_ROWS`]): the chunk goes
//!   down the block's rows for each lane's maximum (a max per vector, NaN flagged on the way),
//!   then down again for the outputs: each row's elements compared with the maxima, a 1 where one
//!   is equal for the first time down the lane, a 0 elsewhere, stored as the row goes. The second
//!   pass reads the chunk again from L1, so it costs about a plain write.
//! - **tracked** (rows of 1 KiB and more from [`TRACK_ROWS`] rows, of 8 KiB and more from
//!   [`WIDE_ROWS`], not of a multiple of 512 bytes: `tracks`): the chunk goes down the rows once,
//!   keeping each lane's maximum and its row in registers (a compare, two blends, and a sum that
//!   turns NaN if the lane holds one: the row search's step, `rows_f32::tracked::track`, in
//!   `lane_walk_avx2`), storing zeros where it loads and fetching the rows 8 rows down ahead of
//!   time (into the next chunk near the end), then stores its lanes' ones. The prefetch is what
//!   makes it pay: a row's 128 bytes lie in another 4 KiB page from the row before once rows are
//!   4 KiB or more (or every other row from 2 KiB), and the hardware prefetchers do not cross
//!   pages, so without it each row waited on its load; the ones stored after each chunk made it
//!   worse (1.6-2.0x of read+write for the same walk that alone ran at 0.6x).
//! - **filled** (the other blocks from [`TRACK_ROWS`] rows, and strides of [`CONFLICT_LANES`]
//!   from [`CONFLICT_ROWS`] rows): the same walk over a block filled with zeros first, in one
//!   linear pass, with no prefetch: narrow rows are not worth it, and a conflicting stride's rows
//!   share a few L1 sets, which stores and prefetches down the rows evict.
//!
//! Measured against each other and the read-and-write fold in the README's Hardmax section.

use core::arch::x86_64::{
    _mm256_and_ps, _mm256_andnot_ps, _mm256_cmp_ps, _mm256_loadu_ps, _mm256_max_ps,
    _mm256_movemask_ps, _mm256_or_ps, _mm256_set1_ps, _mm256_setzero_ps, _mm256_storeu_ps,
    _CMP_EQ_OQ, _CMP_UNORD_Q,
};

use super::hardmax::hardmax_lanes;
use super::lane_walk_avx2::walk;
use super::shared::{far_rows, prefetch, AHEAD_BYTES};

/// Elements ahead of the compared form's loads down rows a page apart or more that each row
/// prefetches into L2 (`shared::far_rows`). AMD EPYC (Zen 4), matrix, `--ours`, three runs of
/// each build in turn: Hardmax along axis 0 of `[20, 26214]` 77-107 -> 67-68 us. Prefetching
/// the output's rows too (for the second pass's stores) made it slower again (67 -> 72-96 us).
const AHEAD: usize = AHEAD_BYTES / 4;

/// Lanes of the narrowest chunk (two vectors): blocks of fewer lanes take other kernels.
const MIN_LANES: usize = 16;

/// Blocks of fewer rows take other kernels: two rows have a one-pass kernel of their own
/// (`hardmax_lanes`), 1.4-1.6x faster than these two passes.
const MIN_ROWS: usize = 3;

/// Blocks of this many rows or more take the filled form, or the tracked one over wide rows
/// (see the module docs): from about here a chunk's rows (128 bytes each) no longer stay in L1
/// for the compared form's second pass. Measured (AMD EPYC, Zen 3, about 2 MiB, against the
/// compared form): 50 rows 0.9x as fast, 80 rows alike, 128 rows of blocks of 64 lanes alike,
/// 200 rows 1.14x, 1000 rows 1.15x, 4000 rows 1.5x faster.
const TRACK_ROWS: usize = 160;

/// Blocks of at least [`TRACK_ROWS`] rows of this many lanes or more (rows of 1 KiB) take the
/// tracked form. Measured (AMD EPYC, Zen 3, about 2 MiB, calls back to back, time against the
/// filled form): `[2000, 262]` 0.85x, `[1000, 524]` 0.83x, `[200, 2621]` 0.81x; rows of 160
/// lanes 1.05x.
const TRACK_LANES: usize = 256;

/// Blocks of at least this many rows of [`WIDE_LANES`] lanes or more take the tracked form.
/// Measured (as for [`TRACK_LANES`], time against the compared form): 20 rows 1.0x, 40 rows
/// 0.80x, 80 rows 0.67x; rows of 1000 lanes 1.2x over 20 rows and alike over 80.
const WIDE_ROWS: usize = 32;

/// See [`WIDE_ROWS`]: rows of 8 KiB, whose next row is always in another page.
const WIDE_LANES: usize = 2048;

/// Rows of a multiple of this many lanes (512 bytes) keep the filled or compared form: their
/// rows fall in an eighth of the L1 sets or fewer, where the tracked form's stores down the rows
/// evict what it fetched ahead. Measured (as for [`TRACK_LANES`]): `[1000, 256]` 1.13-1.57x,
/// `[2000, 256]` 1.18x, `[1000, 384]` 1.05x, `[1000, 640]` 1.12x as slow as the filled form.
const SET_LANES: usize = 128;

/// Blocks of four rows or more whose row length is a multiple of this (a stride of a multiple
/// of 2 KiB) never take the compared form: a chunk's rows then share a few L1 sets, and where the
/// output lies at the same offset within a page as the input (two buffers of the same large
/// size, or tensors a multiple of 4 KiB apart in one struct), its stores evict the lines it
/// reads next and alias them by address: 2.0-2.3x slower than the search that keeps each lane's
/// row (`[8, 65536]`, `[20, 4096]` and the like; shifting the output by 1 KiB removed it). From
/// [`CONFLICT_ROWS`] rows they take the filled form (whose walk only loads), under it the other
/// kernels.
const CONFLICT_LANES: usize = 512;

/// See [`CONFLICT_LANES`]. Measured against the other kernels (AMD EPYC, Zen 3, about 2 MiB):
/// the filled form 1.4-1.5x slower over 8 and 20 rows, 0.93x over 24, 0.63-0.87x over 32 to
/// 256, alike over 1000.
const CONFLICT_ROWS: usize = 24;

/// Whether a block of `rows` rows of `inner` lanes has a stride of [`CONFLICT_LANES`].
const fn conflicts(rows: usize, inner: usize) -> bool {
    rows >= 4 && inner.is_multiple_of(CONFLICT_LANES)
}

/// Whether blocks of `rows` rows of `inner` lanes (not of a [`CONFLICT_LANES`] stride) take the
/// tracked form: rows of [`TRACK_LANES`] or more over [`TRACK_ROWS`] rows, or of [`WIDE_LANES`]
/// over [`WIDE_ROWS`], and not of a multiple of [`SET_LANES`].
pub(super) const fn tracks(rows: usize, inner: usize) -> bool {
    ((rows >= TRACK_ROWS && inner >= TRACK_LANES) || (rows >= WIDE_ROWS && inner >= WIDE_LANES))
        && !inner.is_multiple_of(SET_LANES)
}

/// Whether blocks of `rows` rows of `inner` lanes take [`hardmax_blocks`]: the shapes where it
/// measured faster than the kernels that keep each lane's row.
pub(super) const fn takes(rows: usize, inner: usize) -> bool {
    inner >= MIN_LANES && rows >= MIN_ROWS && !(conflicts(rows, inner) && rows < CONFLICT_ROWS)
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
    crate::kernels::shared::align_frame();
    let Some(block) = rows.checked_mul(inner) else {
        return false;
    };
    if inner < MIN_LANES || rows == 0 || x.len() != y.len() || !x.len().is_multiple_of(block) {
        return false;
    }
    // (Rows are counted in `i32` lanes by the tracked and filled forms.)
    let form = if rows > i32::MAX as usize {
        Form::Compared
    } else if conflicts(rows, inner) {
        Form::Filled
    } else if tracks(rows, inner) {
        Form::Tracked
    } else if rows >= TRACK_ROWS {
        Form::Filled
    } else {
        Form::Compared
    };
    for (xb, yb) in x.chunks_exact(block).zip(y.chunks_exact_mut(block)) {
        if !hardmax_block(xb, yb, rows, inner, form) {
            hardmax_lanes(xb, yb, inner);
        }
    }
    true
}

/// The forms of the kernel (see the module docs).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Form {
    /// Maxima down the rows, then the outputs by equality down them again.
    Compared,
    /// Each lane's row kept as the rows go, zeros stored beside the loads, rows fetched ahead.
    Tracked,
    /// The block filled with zeros first, then each lane's row kept as the rows go.
    Filled,
}

/// One block of [`hardmax_blocks`] (`x` and `y` of `rows * inner`, `inner` at least
/// [`MIN_LANES`]) in the given form (`rows` at most `i32::MAX` but in the compared one): false,
/// some outputs written, if a lane holds a NaN.
#[inline]
#[target_feature(enable = "avx2")]
fn hardmax_block(x: &[f32], y: &mut [f32], rows: usize, inner: usize, form: Form) -> bool {
    if form == Form::Filled {
        y.fill(0.0);
    }
    let mut at = 0;
    while at + 32 <= inner {
        if !chunk::<4>(x, y, rows, inner, at, form) {
            return false;
        }
        at += 32;
    }
    // The lanes left: chunks of sixteen, the last one ending at the block's last lane
    // (overlapping the chunk before, whose outputs it writes again alike: in the tracked form
    // its zeros clear the ones of the lanes it shares, and its ones put them back).
    while at < inner {
        let base = at.min(inner - MIN_LANES);
        if !chunk::<2>(x, y, rows, inner, base, form) {
            return false;
        }
        at = base + MIN_LANES;
    }
    true
}

/// The `8 * V` lanes from `base` of a block (`x` and `y` of `rows * inner`) in the given form.
/// False if a lane holds a NaN (some outputs possibly written) or the lanes do not lie within
/// the block (nothing written).
#[inline]
#[target_feature(enable = "avx2")]
fn chunk<const V: usize>(
    x: &[f32],
    y: &mut [f32],
    rows: usize,
    inner: usize,
    base: usize,
    form: Form,
) -> bool {
    // Every row's `8 * V` lanes from `base` lie within `x` and `y`: checked once here, so the
    // loads and stores down the rows go by a pointer.
    let end = rows
        .checked_sub(1)
        .and_then(|r| r.checked_mul(inner))
        .and_then(|o| o.checked_add(base + 8 * V));
    if end.is_none_or(|e| e > x.len() || e > y.len()) {
        return false;
    }
    match form {
        Form::Compared => compared_chunk::<V>(x, y, rows, inner, base),
        Form::Tracked => tracked_chunk::<V, true>(x, y, rows, inner, base),
        Form::Filled => tracked_chunk::<V, false>(x, y, rows, inner, base),
    }
}

/// [`chunk`] in the compared form (the lanes checked to lie within the block).
#[inline]
#[target_feature(enable = "avx2")]
fn compared_chunk<const V: usize>(
    x: &[f32],
    y: &mut [f32],
    rows: usize,
    inner: usize,
    base: usize,
) -> bool {
    // (Plain pointers, no closures: a closure does not take the function's target features,
    // and its calls stayed out of line, one per load.)
    let (src, dst) = (x.as_ptr(), y.as_mut_ptr());
    let mut max = [_mm256_setzero_ps(); V];
    for (k, m) in max.iter_mut().enumerate() {
        // SAFETY: `base + r * inner + 8 * V <= x.len(), y.len()` for every row `r < rows`
        // (checked by `chunk`) and `k < V`, here and below; `loadu`/`storeu` need no
        // alignment.
        *m = unsafe { _mm256_loadu_ps(src.add(base + 8 * k)) };
    }
    let mut nan = _mm256_setzero_ps();
    let far = far_rows::<f32>(inner);
    for r in 1..rows {
        if far {
            prefetch(src.wrapping_add(base + r * inner + AHEAD), true);
            prefetch(src.wrapping_add(base + r * inner + AHEAD + 16), true);
        }
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

/// [`chunk`] in the tracked form (`ZEROS`: zeros stored beside the loads, rows fetched ahead)
/// or the filled one (`y` filled with zeros before): the walk, then each lane's one. The lanes
/// are checked to lie within the block, `rows` is at most `i32::MAX`, `V` at most 4.
#[inline]
#[target_feature(enable = "avx2")]
fn tracked_chunk<const V: usize, const ZEROS: bool>(
    x: &[f32],
    y: &mut [f32],
    rows: usize,
    inner: usize,
    base: usize,
) -> bool {
    let Some(found) = walk::<V, ZEROS, ZEROS>(x, y, rows, inner, base) else {
        return false;
    };
    for (l, &r) in found.iter().take(8 * V).enumerate() {
        if let Some(o) = (r as usize)
            .checked_mul(inner)
            .and_then(|i| y.get_mut(i + base + l))
        {
            *o = 1.0;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use super::{hardmax_block, hardmax_blocks, Form};
    use crate::kernels::rows_f32::avx2::available;
    use crate::kernels::test_util::{f32_pool, naive_arg, Lcg};
    use crate::Max;

    /// `y` against the definition for every output of every block (NaN of any sign first).
    fn check(x: &[f32], y: &[f32], blocks: usize, rows: usize, inner: usize, ctx: &str) {
        for b in 0..blocks {
            for j in 0..inner {
                let at = |r: usize| b * rows * inner + r * inner + j;
                let lane: Vec<f32> = (0..rows).map(|r| x[at(r)]).collect();
                let want = naive_arg::<f32, Max>(&lane, false);
                for r in 0..rows {
                    assert_eq!(
                        y[at(r)].to_bits(),
                        if r == want { 1f32 } else { 0f32 }.to_bits(),
                        "{blocks}x{rows}x{inner} block {b} lane {j} row {r} {ctx}"
                    );
                }
            }
        }
    }

    /// Every shape class of the kernel against the definition: lanes of one chunk, whole
    /// chunks of 32 and a tail of sixteen overlapping, one row to hundreds, several blocks,
    /// blocks in the compared, tracked and filled forms (each form forced on every shape too);
    /// every output of every row written (the output starts as garbage); ties, ±0 and
    /// infinities from the pool; NaN of either sign in one lane of the last block only, in its
    /// first, a middle or its last row (the blocks before it already written, then the exact
    /// kernel for that block).
    #[test]
    fn strided_f32_hardmax_matches_the_definition() {
        if !available() {
            std::eprintln!("no AVX2 on this CPU: the kernel is never called");
            return;
        }
        let mut g = Lcg(23);
        // (blocks, rows, inner): compared under 160 rows (or 32 over rows of 2048 lanes or
        // more), tracked over wide rows from there, filled over narrow rows from there and over
        // rows of a multiple of 512 lanes (from four rows); fewer rows than the prefetch reaches
        // ahead, and more.
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
            (1, 9, 600),
            (1, 255, 33),
            (2, 300, 20),
            (2, 40, 130),
            (1, 160, 16),
            (2, 1000, 72),
            (1, 30, 512),
            (3, 15, 48),
            (2, 16, 48),
            (3, 17, 40),
            (1, 40, 2100),
            (2, 170, 260),
            (1, 170, 256),
        ];
        for (i, (blocks, rows, inner)) in shapes.into_iter().enumerate() {
            for nan in [0usize, 1, 2, 3] {
                let len = blocks * rows * inner;
                let mut x: Vec<f32> = (0..len).map(|_| f32_pool(&mut g, false)).collect();
                if nan > 0 {
                    // One NaN in a late lane of the last block: a middle, the last or the first
                    // row.
                    let row = [rows / 2, rows - 1, 0][nan - 1];
                    let lane = inner - 1 - g.next() as usize % 8;
                    let at = len - inner * rows + row * inner + lane;
                    x[at] = if nan == 2 { -f32::NAN } else { f32::NAN };
                }
                let mut y = std::vec![9f32; len];
                if nan == 0 {
                    // Every NaN-free block is done by the chunks, none left to the exact kernel,
                    // in each form (the output starting as garbage each time: the filled form
                    // fills its block first, the tracked one stores its zeros as it goes), where
                    // no lane holds both infinities (whose sum, the kernel's NaN check, is NaN):
                    // one of them becomes a large finite value of its sign (whose sums do not
                    // overflow), by turns.
                    let (inf, finite) = if i % 2 == 0 {
                        (f32::NEG_INFINITY, -1e30)
                    } else {
                        (f32::INFINITY, 1e30)
                    };
                    let x: Vec<f32> = x
                        .iter()
                        .map(|&v| if v == inf { finite } else { v })
                        .collect();
                    for form in [Form::Compared, Form::Tracked, Form::Filled] {
                        for (xb, yb) in x.chunks(rows * inner).zip(y.chunks_mut(rows * inner)) {
                            // SAFETY: `available` found AVX2.
                            assert!(unsafe { hardmax_block(xb, yb, rows, inner, form) });
                        }
                        check(&x, &y, blocks, rows, inner, &std::format!("{form:?}"));
                        y.fill(9.0);
                    }
                }
                // SAFETY: `available` found AVX2.
                assert!(unsafe { hardmax_blocks(&x, &mut y, rows, inner) });
                check(&x, &y, blocks, rows, inner, &std::format!("nan {nan}"));
            }
        }
        // A lane whose sum overflows to +inf before a -inf (NaN-free: the tracked form leaves
        // the block to the exact kernel), and lanes of both infinities: still the first maximum.
        let mut x = std::vec![0f32; 160 * 16];
        x[..32].fill(f32::MAX);
        x[32] = f32::NEG_INFINITY;
        x[17] = f32::INFINITY;
        x[1] = f32::NEG_INFINITY;
        x[100 * 16 + 5] = f32::INFINITY;
        let mut y = std::vec![9f32; x.len()];
        for form in [Form::Tracked, Form::Filled] {
            // SAFETY: as above.
            assert!(!unsafe { hardmax_block(&x, &mut y, 160, 16, form) });
        }
        assert!(unsafe { hardmax_blocks(&x, &mut y, 160, 16) });
        check(&x, &y, 1, 160, 16, "overflow");
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
