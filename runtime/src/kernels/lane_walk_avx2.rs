//! The tracked walk of the strided f32 Hardmax kernel in AVX2 (`hard_lanes_avx2`): a chunk of
//! 16 or 32 lanes goes down the rows of a block ([`walk`]), keeping each lane's maximum and its
//! row in registers (a compare, two blends, and a sum that turns NaN if the lane holds one: the
//! row search's step, `rows_f32::tracked::track`), storing zeros beside its loads and fetching
//! the rows ahead where asked.

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
