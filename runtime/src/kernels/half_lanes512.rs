//! The strided f16/bf16 arg-reductions and Hardmax ([`super::half_lanes::arg_tile_half`]) in
//! AVX-512: the pass of `half_lanes_avx2` with thirty-two lanes a vector (a whole cache line of
//! a row) and masks for its blends.
//!
//! Per vector of a row: the key (two instructions, see [`keys`]), a compare with the extreme
//! into a mask, a masked move of the row's number (a constant in the unrolled walk down a
//! group) into the lanes' rows, the new extreme and the other extreme (whose ends tell a NaN:
//! past an infinity's key). A Hardmax's zeros are written before (see
//! `half_lanes::zeros_first`). Rows go in groups of [`GROUP`]; a chunk of lanes goes down a
//! group in registers, then merges into the tile's running state (the best key and its row, as
//! `u16`). The keys tell `-0` from `+0`, which tie: lanes whose extreme is a zero find their
//! row again at the end ([`zeros`]).

use core::arch::x86_64::{
    __m512i, _mm512_add_epi16, _mm512_cmpeq_epi16_mask, _mm512_cmpge_epi16_mask,
    _mm512_cmpgt_epi16_mask, _mm512_cmple_epi16_mask, _mm512_cmplt_epi16_mask, _mm512_loadu_si512,
    _mm512_mask_mov_epi16, _mm512_maskz_mov_epi16, _mm512_max_epi16, _mm512_min_epi16,
    _mm512_set1_epi16, _mm512_setzero_si512, _mm512_srai_epi16, _mm512_storeu_si512,
    _mm512_ternarylogic_epi32, _mm512_testn_epi16_mask,
};

use super::half_lanes::{place, Out};

/// Lanes of a vector.
pub(super) const L: usize = 32;

/// The most chunks of lanes a tile holds: 1536 lanes, as `half_lanes_avx2`. Their state takes
/// 128 bytes a chunk (6 KiB) on the stack.
pub(super) const CHUNKS: usize = 48;

/// Rows of a group: a chunk's lines of a group stay in L1 for the chunk after it.
const GROUP: usize = 16;

/// A Hardmax over this many rows or more has its zeros written first, in one linear pass
/// (`half_lanes::zeros_first`), then its ones one by one; over fewer, each tile's output is
/// written row by row once its rows are known ([`one_hot`]), as most of its lines take a one.
/// AMD EPYC (Zen 4), 2 MiB of f16: over 1000 rows of 1048 lanes 61.8 us zeroed first against
/// 66.5 row by row, `[80, 6553]` 38.7 against 41.0, `[40, 26214]` alike; over 16 rows of 2048
/// lanes 203 against 174, `[8, 131072]` 294 against 196, `[12, 3072]` 215 against 154.
pub(super) const ZEROS_FIRST_ROWS: usize = 32;

/// The 64 bytes at `p`.
///
/// # Safety
/// `p` must point to 64 readable bytes.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn load(p: *const u16) -> __m512i {
    // SAFETY: the caller's; `loadu` has no alignment requirement.
    unsafe { _mm512_loadu_si512(p.cast()) }
}

/// Stores `v` at `p`.
///
/// # Safety
/// `p` must point to 64 writable bytes.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn store(p: *mut u16, v: __m512i) {
    // SAFETY: the caller's; `storeu` has no alignment requirement.
    unsafe { _mm512_storeu_si512(p.cast(), v) }
}

/// The order keys of thirty-two f16/bf16 bits in two instructions: the bits where the sign is
/// clear, else the bits with the magnitude's bits flipped (`-1 - magnitude`). They order every
/// value but the zeros, whose signs they tell apart (`-0` is -1, `+0` is 0):
/// [`arg_tile_keys`] reads the lanes whose extreme is a zero again ([`zeros`]).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn keys(v: __m512i) -> __m512i {
    // `v ^ (sign & 0x7fff)`: 0x78 is `a ^ (b & c)` in the truth table of three inputs.
    _mm512_ternarylogic_epi32::<0x78>(v, _mm512_srai_epi16::<15>(v), _mm512_set1_epi16(0x7fff))
}

/// The lanes where `a` is strictly more extreme than `b` (`MIN`: smaller).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn better<const MIN: bool>(a: __m512i, b: __m512i) -> u32 {
    if MIN {
        _mm512_cmpgt_epi16_mask(b, a)
    } else {
        _mm512_cmpgt_epi16_mask(a, b)
    }
}

/// A chunk of thirty-two lanes down one group: the extreme keys, the row within the group
/// where each is first (`LAST`: last) met, and the other extreme.
#[derive(Clone, Copy)]
struct Walk {
    best: __m512i,
    row: __m512i,
    other: __m512i,
}

/// Walks `rows` rows (at least one, at most [`GROUP`], `stride` elements apart) of the
/// thirty-two lanes at `p`. Called with `GROUP` rows, the loop unrolls and the row numbers are
/// constants.
///
/// # Safety
/// Every row's thirty-two lanes at `p` must be within their slice; the CPU has AVX-512 F, BW,
/// VL and DQ.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn walk<const MIN: bool, const LAST: bool>(
    p: *const u16,
    stride: usize,
    rows: usize,
) -> Walk {
    let zero = _mm512_setzero_si512();
    // SAFETY: row 0 (the caller's).
    let k0 = keys(unsafe { load(p) });
    let (mut best, mut other, mut row) = (k0, k0, zero);
    for i in 1..rows.min(GROUP) {
        // SAFETY: row `i < rows` (the caller's).
        let k = keys(unsafe { load(p.add(i * stride)) });
        // `LAST`: every row at least as extreme; else only one strictly more.
        let take = match (MIN, LAST) {
            (false, false) => _mm512_cmpgt_epi16_mask(k, best),
            (false, true) => _mm512_cmpge_epi16_mask(k, best),
            (true, false) => _mm512_cmplt_epi16_mask(k, best),
            (true, true) => _mm512_cmple_epi16_mask(k, best),
        };
        row = _mm512_mask_mov_epi16(row, take, _mm512_set1_epi16(i as i16));
        (best, other) = if MIN {
            (_mm512_min_epi16(best, k), _mm512_max_epi16(other, k))
        } else {
            (_mm512_max_epi16(best, k), _mm512_min_epi16(other, k))
        };
    }
    Walk { best, row, other }
}

/// The rows of the lanes in `lanes` (whose extreme is a zero, of either sign) read again: the
/// first (`LAST`: last) of `rows` rows, `stride` elements apart, where the thirty-two lanes at
/// `p` hold a zero, into those lanes of `row`. It stops at the row where the last of them finds
/// its zero (at once where every row is zero).
///
/// # Safety
/// Every row's thirty-two lanes at `p` must be within their slice; the CPU has AVX-512 F, BW,
/// VL and DQ.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn zeros<const LAST: bool>(
    p: *const u16,
    stride: usize,
    rows: usize,
    lanes: u32,
    row: __m512i,
) -> __m512i {
    let magnitude = _mm512_set1_epi16(0x7fff);
    let (mut row, mut pending) = (row, lanes);
    // From the first row on, or from the last for `LAST`.
    for i in 0..rows {
        let r = if LAST { rows - 1 - i } else { i };
        // SAFETY: row `r < rows` (the caller's).
        let found =
            _mm512_testn_epi16_mask(unsafe { load(p.add(r * stride)) }, magnitude) & pending;
        row = _mm512_mask_mov_epi16(row, found, _mm512_set1_epi16(r as i16));
        pending &= !found;
        if pending == 0 {
            break;
        }
    }
    row
}

/// The pass of `half_lanes_avx2::arg_tile_keys` with thirty-two lanes a vector, for tiles of
/// thirty-two lanes or more and at most [`CHUNKS`] chunks of them: see
/// [`super::half_lanes::arg_tile_half`]. Returns false, `y` and `v` untouched, if a NaN
/// occurred, the tile is not so, the rows are more than its 16-bit row numbers count, or a
/// Hardmax's output does not hold its zeros yet (`half_lanes::zeros_first` has them written
/// wherever this kernel runs): the caller's exact pass then decides.
///
/// # Safety
/// The CPU must have AVX-512 F, BW, VL and DQ.
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
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
    let zero = _mm512_setzero_si512();
    let mut best = [zero; CHUNKS];
    let mut row = [zero; CHUNKS];
    let (Some(best), Some(row)) = (best.get_mut(..chunks), row.get_mut(..chunks)) else {
        return false;
    };
    let mut nan = 0u32;
    // The keys of the infinities (`-inf` as [`keys`] has it); a NaN's are further out.
    let (hi, lo) = (_mm512_set1_epi16(inf), _mm512_set1_epi16(-inf - 1));
    let whole = n / L;
    for first in (0..rows).step_by(GROUP) {
        let count = GROUP.min(rows - first);
        for (c, (b, w)) in best.iter_mut().zip(row.iter_mut()).enumerate() {
            let lane = start + if c < whole { c * L } else { n - L };
            let at = first * inner + lane;
            // SAFETY: `at + (count - 1) * inner + L <= rows * inner <= x.len()` (lanes end by
            // `end <= inner`).
            let mut s = unsafe {
                let p = x.as_ptr().add(at);
                if count == GROUP {
                    walk::<MIN, LAST>(p, inner, GROUP)
                } else {
                    walk::<MIN, LAST>(p, inner, count)
                }
            };
            s.row = _mm512_add_epi16(s.row, _mm512_set1_epi16(first as i16));
            // A NaN's key is past an infinity's: above the maximum or below the minimum.
            let (max, min) = if MIN {
                (s.other, s.best)
            } else {
                (s.best, s.other)
            };
            nan |= _mm512_cmpgt_epi16_mask(max, hi) | _mm512_cmpgt_epi16_mask(lo, min);
            if first == 0 {
                (*b, *w) = (s.best, s.row);
                continue;
            }
            // The group takes the lanes where its extreme is strictly better (with `LAST`, where
            // the running one is not).
            let t = if LAST {
                !better::<MIN>(*b, s.best)
            } else {
                better::<MIN>(s.best, *b)
            };
            *b = _mm512_mask_mov_epi16(*b, t, s.best);
            *w = _mm512_mask_mov_epi16(*w, t, s.row);
        }
    }
    if nan != 0 {
        return false;
    }
    // The key of the zero an extreme of zeros takes (`+0` for a maximum, `-0` for a minimum):
    // the lanes with it read their rows again, as the keys tell the zeros apart.
    let zero_key = _mm512_set1_epi16(if MIN { -1 } else { 0 });
    for (c, (&b, w)) in best.iter().zip(row.iter_mut()).enumerate() {
        let lane0 = if c < whole { c * L } else { n - L };
        let lanes = _mm512_cmpeq_epi16_mask(b, zero_key);
        if lanes != 0 {
            // SAFETY: the chunk's lanes of every row are within `x` (as above).
            *w = unsafe { zeros::<LAST>(x.as_ptr().add(start + lane0), inner, rows, lanes, *w) };
        }
        // The ones of a Hardmax one by one where its zeros are written (else below, row by row).
        let h = if zeroed { &mut *h } else { &mut [] };
        if !(y.is_empty() && v.is_empty() && h.is_empty()) {
            let mut wa = [0u16; L];
            // SAFETY: `wa` holds 64 bytes.
            unsafe { store(wa.as_mut_ptr(), *w) };
            place(&wa, lane0, (x, inner, start), (&mut *y, &mut *v, h, one));
        }
    }
    if !h.is_empty() && !zeroed {
        // SAFETY: `h` is as long as `x` (checked above), so holds the tile's lanes of each row.
        unsafe { one_hot(h, inner, start, n, row, one) };
    }
    true
}

/// A Hardmax's tile of `n` lanes from lane `start` of each row of `h` (`inner` lanes), row after
/// row: `one` in the lanes whose row (of the chunks of thirty-two lanes in `row`, the last one
/// ending at lane `n`) is that row, 0 in the others. Whole lines in the order they lie, so
/// nothing is zeroed before and no line is written twice but the overlap of the last chunk.
///
/// # Safety
/// `h` holds whole rows; `start + n <= inner`, `n >= L`, `row` holds `n.div_ceil(L)` chunks; the
/// CPU has AVX-512 F, BW, VL and DQ.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn one_hot(h: &mut [u16], inner: usize, start: usize, n: usize, row: &[__m512i], one: u16) {
    let (one, whole) = (_mm512_set1_epi16(one as i16), n / L);
    for (k, out) in h.chunks_exact_mut(inner).enumerate() {
        let at = _mm512_set1_epi16(k as i16);
        let out = out.as_mut_ptr();
        for (c, &w) in row.iter().enumerate() {
            let lane0 = if c < whole { c * L } else { n - L };
            let v = _mm512_maskz_mov_epi16(_mm512_cmpeq_epi16_mask(w, at), one);
            // SAFETY: `start + lane0 + L <= start + n <= inner` (the caller's).
            unsafe { store(out.add(start + lane0), v) };
        }
    }
}
