//! The strided f16/bf16 arg-reductions and Hardmax ([`super::half_lanes::arg_tile_half`]) in
//! AVX2, on order keys, each lane's row kept as the rows are read: nothing is read again.
//!
//! Per vector of sixteen lanes of a row: the key (the magnitude, negated where the sign bit is
//! set: `-0` and `+0` both 0), the new extreme, the other extreme (whose ends tell a NaN: past
//! an infinity's key), an equality and a blend of the row number into the lanes' rows; for a
//! Hardmax also a store of zeros into the same lanes of the output. Rows go in groups of
//! [`GROUP`]; a chunk of lanes goes down a group in registers, then merges into the tile's running
//! state (the best key and its row, as `u16`). The portable form reads each
//! lane's winning group again at the end, scattered loads that took a fifth of its time.

use core::arch::x86_64::{
    __m256i, _mm256_add_epi16, _mm256_and_si256, _mm256_blendv_epi8, _mm256_cmpeq_epi16,
    _mm256_cmpgt_epi16, _mm256_loadu_si256, _mm256_max_epi16, _mm256_min_epi16, _mm256_or_si256,
    _mm256_set1_epi16, _mm256_setzero_si256, _mm256_sign_epi16, _mm256_storeu_si256,
    _mm256_testz_si256,
};

use super::half_lanes::{place, Out};

/// Lanes of a vector.
const L: usize = 16;

/// The most chunks of lanes a tile holds: 1536 lanes, more than the tiles of the callers
/// (`arg_tile` gives 16-bit types at most 1360, Hardmax takes 1024). Their state takes 64 bytes
/// a chunk (6 KiB) on the stack.
pub(super) const CHUNKS: usize = 96;

/// Rows of a group: a chunk's lines of a group stay in L1 for the chunk after it.
const GROUP: usize = 16;

/// The 32 bytes at `p`.
///
/// # Safety
/// `p` must point to 32 readable bytes.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn load(p: *const u16) -> __m256i {
    // SAFETY: the caller's; `loadu` has no alignment requirement.
    unsafe { _mm256_loadu_si256(p.cast()) }
}

/// Stores `v` at `p`.
///
/// # Safety
/// `p` must point to 32 writable bytes.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn store(p: *mut u16, v: __m256i) {
    // SAFETY: the caller's; `storeu` has no alignment requirement.
    unsafe { _mm256_storeu_si256(p.cast(), v) }
}

/// The order keys of sixteen f16/bf16 bits: the magnitude, negated where the sign is set.
#[inline]
#[target_feature(enable = "avx2")]
fn keys(v: __m256i) -> __m256i {
    _mm256_sign_epi16(_mm256_and_si256(v, _mm256_set1_epi16(0x7fff)), v)
}

/// `a` is strictly more extreme than `b` (`MIN`: smaller), per lane.
#[inline]
#[target_feature(enable = "avx2")]
fn better<const MIN: bool>(a: __m256i, b: __m256i) -> __m256i {
    if MIN {
        _mm256_cmpgt_epi16(b, a)
    } else {
        _mm256_cmpgt_epi16(a, b)
    }
}

/// A chunk of sixteen lanes down one group: the extreme keys, the row where each is first
/// (`LAST`: last) met, and the other extreme.
#[derive(Clone, Copy)]
struct Walk {
    best: __m256i,
    row: __m256i,
    other: __m256i,
}

/// Walks `rows` rows (at least one, `stride` elements apart) of the sixteen lanes at `p`, the
/// first of them row `first` (the rows' numbers, below 2^16, are what it keeps); with `h` not
/// null, stores zeros into the same lanes at `h`.
///
/// # Safety
/// Every row's sixteen lanes at `p` (and at `h`, if not null) must be within their slices.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn walk<const MIN: bool, const LAST: bool>(
    p: *const u16,
    h: *mut u16,
    stride: usize,
    rows: usize,
    first: u16,
) -> Walk {
    let zero = _mm256_setzero_si256();
    let one = _mm256_set1_epi16(1);
    // SAFETY: row 0 (the caller's).
    let k0 = keys(unsafe { load(p) });
    if !h.is_null() {
        // SAFETY: the caller's.
        unsafe { store(h, zero) };
    }
    let r0 = _mm256_set1_epi16(first as i16);
    let (mut best, mut other, mut row, mut r) = (k0, k0, r0, r0);
    for i in 1..rows {
        // SAFETY: row `i < rows` (the caller's).
        let k = keys(unsafe { load(p.add(i * stride)) });
        if !h.is_null() {
            // SAFETY: the caller's.
            unsafe { store(h.add(i * stride), zero) };
        }
        r = _mm256_add_epi16(r, one);
        let (n, o) = if MIN {
            (_mm256_min_epi16(best, k), _mm256_max_epi16(other, k))
        } else {
            (_mm256_max_epi16(best, k), _mm256_min_epi16(other, k))
        };
        row = if LAST {
            _mm256_blendv_epi8(row, r, _mm256_cmpeq_epi16(n, k))
        } else {
            _mm256_blendv_epi8(r, row, _mm256_cmpeq_epi16(n, best))
        };
        best = n;
        other = o;
    }
    Walk { best, row, other }
}

/// The fast pass of [`super::half_lanes::arg_tile_half`] for tiles of sixteen lanes or more
/// and at most [`CHUNKS`] chunks of sixteen: see there. Returns false, `y` and `v` untouched,
/// if a NaN occurred, the tile is not so, or the rows are more than its 16-bit row numbers
/// count (the caller's exact pass then decides).
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn arg_tile_keys<const MIN: bool, const LAST: bool>(
    x: &[u16],
    out: Out<'_>,
    inner: usize,
    start: usize,
    end: usize,
    inf: i16,
) -> bool {
    let Out {
        y,
        v,
        h,
        one,
        zeroed,
    } = out;
    let n = end.saturating_sub(start);
    let rows = x.len().checked_div(inner).unwrap_or(0);
    let chunks = n.div_ceil(L);
    if n < L
        || chunks > CHUNKS
        || end > inner
        || rows == 0
        || rows > usize::from(u16::MAX) + 1
        || !(h.is_empty() || h.len() == x.len())
    {
        return false;
    }
    // The running state of each chunk of lanes (the last chunk ends at `end`, overlapping the
    // one before where the lanes are not whole chunks).
    let zero = _mm256_setzero_si256();
    let mut best = [zero; CHUNKS];
    let mut row = [zero; CHUNKS];
    let (Some(best), Some(row)) = (best.get_mut(..chunks), row.get_mut(..chunks)) else {
        return false;
    };
    let mut nan = zero;
    let (hi, lo) = (_mm256_set1_epi16(inf), _mm256_set1_epi16(-inf));
    // The zeros as the rows are read, unless `h` holds them already.
    let hp = if h.is_empty() || zeroed {
        core::ptr::null_mut()
    } else {
        h.as_mut_ptr()
    };
    let whole = n / L;
    for first in (0..rows).step_by(GROUP) {
        let count = GROUP.min(rows - first);
        for (c, (b, w)) in best.iter_mut().zip(row.iter_mut()).enumerate() {
            let lane = start + if c < whole { c * L } else { n - L };
            let at = first * inner + lane;
            // SAFETY: `at + (count - 1) * inner + L <= rows * inner <= x.len()` (lanes end by
            // `end <= inner`), and `h`, when used, is as long as `x`.
            let s = unsafe {
                walk::<MIN, LAST>(
                    x.as_ptr().add(at),
                    if hp.is_null() { hp } else { hp.add(at) },
                    inner,
                    count,
                    first as u16,
                )
            };
            nan = _mm256_or_si256(
                nan,
                _mm256_or_si256(
                    _mm256_or_si256(
                        _mm256_cmpgt_epi16(s.best, hi),
                        _mm256_cmpgt_epi16(lo, s.best),
                    ),
                    _mm256_or_si256(
                        _mm256_cmpgt_epi16(s.other, hi),
                        _mm256_cmpgt_epi16(lo, s.other),
                    ),
                ),
            );
            if first == 0 {
                (*b, *w) = (s.best, s.row);
                continue;
            }
            // The group takes the lanes where its extreme is strictly better (with `LAST`, where
            // the running one is not).
            let (t, take_where_set) = if LAST {
                (better::<MIN>(*b, s.best), false)
            } else {
                (better::<MIN>(s.best, *b), true)
            };
            (*b, *w) = if take_where_set {
                (
                    _mm256_blendv_epi8(*b, s.best, t),
                    _mm256_blendv_epi8(*w, s.row, t),
                )
            } else {
                (
                    _mm256_blendv_epi8(s.best, *b, t),
                    _mm256_blendv_epi8(s.row, *w, t),
                )
            };
        }
    }
    if _mm256_testz_si256(nan, nan) == 0 {
        return false;
    }
    for (c, &w) in row.iter().enumerate() {
        let lane0 = if c < whole { c * L } else { n - L };
        let mut wa = [0u16; L];
        // SAFETY: `wa` holds 32 bytes.
        unsafe { store(wa.as_mut_ptr(), w) };
        place(
            &wa,
            lane0,
            (x, inner, start),
            (&mut *y, &mut *v, &mut *h, one),
        );
    }
    true
}
