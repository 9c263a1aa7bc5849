//! The tracked walk of the strided f32 Hardmax kernels in AVX2 (`hard_lanes_avx2` and
//! `hard_narrow_avx2`): a chunk of 16 or 32 lanes goes down the rows, keeping each lane's
//! maximum and its row in registers (a compare, two blends, and a sum that turns NaN if the
//! lane holds one: the row search's step, `rows_f32::tracked::track`), storing zeros beside
//! its loads and fetching the rows ahead where asked. In one walk down a block ([`walk`]) or,
//! resumable, a group of rows at a time with the state kept in memory between groups
//! ([`walk_group`]).

use core::arch::x86_64::{
    __m256, _mm256_add_epi32, _mm256_cmp_ps, _mm256_loadu_ps, _mm256_movemask_ps, _mm256_or_ps,
    _mm256_set1_epi32, _mm256_setzero_ps, _mm256_storeu_ps, _mm_prefetch, _CMP_UNORD_Q,
    _MM_HINT_ET0, _MM_HINT_T0,
};

use super::rows_f32::tracked::track;
use crate::Max;

/// How many rows ahead the tracked form fetches (8 and 12 alike; 4 a little slower over 1000
/// rows).
const AHEAD: usize = 8;

/// The walk of `hard_lanes_avx2`'s tracked and filled forms: the `8 * V` lanes from `base`
/// down the rows (`ZEROS`: zeros stored beside the loads; `FETCH`: the rows [`AHEAD`] below
/// fetched ahead), then the row of each lane's first maximum (the first `8 * V` of the 32).
/// None if a lane's sum is NaN (a NaN, both infinities, or an overflow before an infinity of
/// the other sign). The lanes are checked to lie within `x` and `y`, `rows` is at least 1 and
/// at most `i32::MAX`, `V` at most 4.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn walk<const V: usize, const ZEROS: bool, const FETCH: bool>(
    x: &[f32],
    y: &mut [f32],
    rows: usize,
    inner: usize,
    base: usize,
) -> Option<[u32; 32]> {
    let (src, dst) = (x.as_ptr(), y.as_mut_ptr());
    // SAFETY: `base + r * inner + 8 * V <= x.len(), y.len()` for every row `r < rows`
    // (checked by the callers).
    let mut t = unsafe { Track::<V>::first::<ZEROS>(src, dst, base) };
    // SAFETY: as above.
    unsafe { t.down::<ZEROS, FETCH>(src, dst, rows, inner, base, 1, rows) };
    let mut nan = _mm256_setzero_ps();
    for s in &t.sum {
        nan = _mm256_or_ps(nan, _mm256_cmp_ps::<_CMP_UNORD_Q>(*s, *s));
    }
    if _mm256_movemask_ps(nan) != 0 {
        return None;
    }
    let mut found = [0u32; 32];
    for (k, at) in t.row_of.iter().enumerate() {
        if let Some(r) = found.get_mut(8 * k..8 * k + 8) {
            // SAFETY: `r` holds eight lanes of four bytes; `storeu` needs no alignment.
            unsafe { _mm256_storeu_ps(r.as_mut_ptr().cast(), *at) };
        }
    }
    Some(found)
}

/// The tracked walk's state over the `8 * V` lanes of a chunk, in registers: each lane's
/// maximum, its row (an `i32` in the bits of a float lane, for the blends) and its sum (NaN
/// where the lane holds a NaN: one add per vector, cheaper than a compare and an or; it also
/// turns NaN where +inf and -inf meet, or the sum overflows before a -inf, and those lanes take
/// the exact kernel too, which is only slower).
pub(super) struct Track<const V: usize> {
    max: [__m256; V],
    row_of: [__m256; V],
    sum: [__m256; V],
}

/// The tracked walk's state of up to [`MAX_SAVED`] lanes kept between groups of rows (by
/// `hard_narrow_avx2`, which walks a few KiB of rows for every chunk before the next rows).
pub(super) struct Saved {
    /// Each lane's maximum.
    pub(super) max: [f32; MAX_SAVED],
    /// Each lane's row.
    pub(super) row: [u32; MAX_SAVED],
    /// Each lane's sum (NaN: see [`Track`]).
    pub(super) sum: [f32; MAX_SAVED],
}

/// The lanes [`Saved`] holds.
pub(super) const MAX_SAVED: usize = 128;

impl<const V: usize> Track<V> {
    /// The state after row 0 of the lanes at `src + base` (zeros stored at `dst + base` with
    /// `ZEROS`).
    ///
    /// # Safety
    /// `base + 8 * V` elements must lie within `src` (and `dst`, with `ZEROS`).
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn first<const ZEROS: bool>(src: *const f32, dst: *mut f32, base: usize) -> Self {
        let zero = _mm256_setzero_ps();
        let mut max = [zero; V];
        for (k, m) in max.iter_mut().enumerate() {
            // SAFETY: the caller's; `loadu`/`storeu` need no alignment.
            *m = unsafe { _mm256_loadu_ps(src.add(base + 8 * k)) };
            if ZEROS {
                // SAFETY: as above.
                unsafe { _mm256_storeu_ps(dst.add(base + 8 * k), zero) };
            }
        }
        Track {
            max,
            row_of: [zero; V],
            sum: max,
        }
    }

    /// Goes down the rows `from..to` (below `rows`) of the lanes at `src + base`, rows `inner`
    /// elements apart, numbering them from `from` (`ZEROS`: zeros stored beside the loads at
    /// `dst`; `FETCH`: the rows [`AHEAD`] below `rows` ahead fetched, past the last row the next
    /// chunk's).
    ///
    /// # Safety
    /// `base + r * inner + 8 * V` must lie within `src` (and `dst`, with `ZEROS`) for every row
    /// `r < to`; `to` at most `i32::MAX`.
    #[inline]
    #[target_feature(enable = "avx2")]
    #[allow(clippy::too_many_arguments)]
    unsafe fn down<const ZEROS: bool, const FETCH: bool>(
        &mut self,
        src: *const f32,
        dst: *mut f32,
        rows: usize,
        inner: usize,
        base: usize,
        from: usize,
        to: usize,
    ) {
        let zero = _mm256_setzero_ps();
        let step = _mm256_set1_epi32(1);
        // The row before `from` (the counter is stepped before each row).
        let mut row = _mm256_set1_epi32(from as i32 - 1);
        for r in from..to {
            if FETCH {
                fetch_ahead::<V, false>(src, rows, inner, base, r);
                fetch_ahead::<V, true>(dst.cast_const(), rows, inner, base, r);
            }
            row = _mm256_add_epi32(row, step);
            let lanes = self.max.iter_mut().zip(&mut self.row_of).zip(&mut self.sum);
            for (k, ((m, at), s)) in lanes.enumerate() {
                let i = base + r * inner + 8 * k;
                // SAFETY: the caller's; `loadu`/`storeu` need no alignment.
                let e = unsafe { _mm256_loadu_ps(src.add(i)) };
                if ZEROS {
                    // SAFETY: as above.
                    unsafe { _mm256_storeu_ps(dst.add(i), zero) };
                }
                // A row strictly above the lane's maximum takes it (equal rows, -0 and +0
                // too, leave the first); the sum catches a NaN.
                track::<Max, false>(e, row, m, at, s);
            }
        }
    }

    /// The state of the lanes `base..base + 8 * V` of `saved` (None if they do not fit).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn load(saved: &Saved, base: usize) -> Option<Self> {
        let zero = _mm256_setzero_ps();
        let mut t = Track {
            max: [zero; V],
            row_of: [zero; V],
            sum: [zero; V],
        };
        for k in 0..V {
            let l = base + 8 * k;
            let (m, r, s) = (
                saved.max.get(l..l + 8)?,
                saved.row.get(l..l + 8)?,
                saved.sum.get(l..l + 8)?,
            );
            // SAFETY: each slice holds eight lanes of four bytes; `loadu` needs no alignment.
            unsafe {
                t.max[k] = _mm256_loadu_ps(m.as_ptr());
                t.row_of[k] = _mm256_loadu_ps(r.as_ptr().cast());
                t.sum[k] = _mm256_loadu_ps(s.as_ptr());
            }
        }
        Some(t)
    }

    /// Saves the state into the lanes `base..base + 8 * V` of `saved` (nothing if they do not
    /// fit).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn save(&self, saved: &mut Saved, base: usize) {
        for k in 0..V {
            let l = base + 8 * k;
            let (Some(m), Some(r), Some(s)) = (
                saved.max.get_mut(l..l + 8),
                saved.row.get_mut(l..l + 8),
                saved.sum.get_mut(l..l + 8),
            ) else {
                return;
            };
            // SAFETY: each slice holds eight lanes of four bytes; `storeu` needs no alignment.
            unsafe {
                _mm256_storeu_ps(m.as_mut_ptr(), self.max[k]);
                _mm256_storeu_ps(r.as_mut_ptr().cast(), self.row_of[k]);
                _mm256_storeu_ps(s.as_mut_ptr(), self.sum[k]);
            }
        }
    }
}

/// The tracked walk (zeros stored beside the loads, no fetching ahead) of the `8 * V` lanes
/// from `base` (`V` 2 or 4) down the rows `from..to` of `inner` lanes of `x`, from and into
/// the lanes `base..` of `saved` (from row 0's own values where `from` is 0). False, nothing
/// written, if the rows or lanes do not lie within `x`, `y` and `saved`, or `to` is over
/// `i32::MAX`.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn walk_group<const V: usize>(
    x: &[f32],
    y: &mut [f32],
    inner: usize,
    base: usize,
    (from, to): (usize, usize),
    saved: &mut Saved,
) -> bool {
    let end = to
        .checked_sub(1)
        .and_then(|r| r.checked_mul(inner))
        .and_then(|o| o.checked_add(base + 8 * V));
    if V > 4
        || from >= to
        || to > i32::MAX as usize
        || base + 8 * V > MAX_SAVED
        || end.is_none_or(|e| e > x.len() || e > y.len())
    {
        return false;
    }
    let (src, dst) = (x.as_ptr(), y.as_mut_ptr());
    let (mut t, start) = if from == 0 {
        // SAFETY: row 0's lanes lie within `x` and `y` (checked above).
        (unsafe { Track::<V>::first::<true>(src, dst, base) }, 1)
    } else {
        match Track::<V>::load(saved, base) {
            Some(t) => (t, from),
            None => return false,
        }
    };
    // SAFETY: rows below `to` lie within `x` and `y` (checked above), `to <= i32::MAX`.
    unsafe { t.down::<true, false>(src, dst, to, inner, base, start, to) };
    t.save(saved, base);
    true
}

/// Asks for the lines of the chunk's row [`AHEAD`] rows below row `r`, or past the block's last
/// row, of the next chunk's rows from its first (which may lie past the block, or past `x`: a
/// prefetch never faults, and the address is only formed, not read).
#[inline]
#[target_feature(enable = "avx2")]
fn fetch_ahead<const V: usize, const W: bool>(
    src: *const f32,
    rows: usize,
    inner: usize,
    base: usize,
    r: usize,
) {
    let t = r + AHEAD;
    let at = if t < rows {
        base + t * inner
    } else {
        base + 8 * V + (t - rows) * inner
    };
    let p = src.wrapping_add(at).cast::<i8>();
    // The chunk's `32 * V` bytes lie in at most `V / 2 + 1` lines: their first and last bytes,
    // and for four vectors the middle.
    if W {
        _mm_prefetch::<_MM_HINT_ET0>(p);
        _mm_prefetch::<_MM_HINT_ET0>(p.wrapping_add(32 * V - 1));
        if V > 2 {
            _mm_prefetch::<_MM_HINT_ET0>(p.wrapping_add(64));
        }
    } else {
        _mm_prefetch::<_MM_HINT_T0>(p);
        _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(32 * V - 1));
        if V > 2 {
            _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(64));
        }
    }
}
