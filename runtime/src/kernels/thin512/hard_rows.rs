//! Hardmax of contiguous float rows of two to [`MAX_LANES`] elements (`f32`, `f64`, f16, bf16)
//! by equality with the row's maximum, in 64-byte AVX-512 vectors: no positions found first and
//! no per-row branch. Its windows serve [`super::arg_rows`] too.
//!
//! Rows that fit a vector go `k` whole rows a window (one load of a vector, masked for the last
//! windows). The maximum of each row reaches every lane of the row by rotations within the row
//! (lane `i` of a row against lane `i + s` of the same row, modulo its length, for `s` = 1, 2,
//! 4, ... under `c`: one permute and one maximum each; one row a window halves the vector
//! instead), the lanes equal to it make a mask, and the lowest of each row's bits is kept by one
//! subtraction: `m & !(m - starts)`, with `starts` the rows' first bits (each row has at least
//! one bit, its maximum, so no borrow leaves its row). The window's zeros and ones go out in one
//! store. A longer row (up to eight vectors) is one window: its vectors folded lane against
//! lane, then the vector halved; its first equal lane found from the masks of all its vectors.
//!
//! f16 and bf16 are compared as signed order keys of their bits (-0 and +0 one key, so that the
//! first zero wins a row of zeros whatever its signs); `f32` and `f64` as floats (`max` returns
//! one of its operands, so the maximum equals an element of its row). A window holding a NaN has
//! its rows' positions found by the row kernel (`kernels::arg_row`), out of line.

use core::arch::x86_64::{
    __m128i, __m256i, __m512i, _mm256_castpd_si256, _mm256_castps_si256, _mm256_castsi256_pd,
    _mm256_castsi256_ps, _mm256_castsi256_si128, _mm256_extracti128_si256, _mm256_max_epi16,
    _mm256_max_pd, _mm256_max_ps, _mm512_broadcastd_epi32, _mm512_broadcastq_epi64,
    _mm512_broadcastw_epi16, _mm512_castpd_si512, _mm512_castps_si512, _mm512_castsi512_pd,
    _mm512_castsi512_ps, _mm512_castsi512_si256, _mm512_cmp_epu16_mask, _mm512_cmp_pd_mask,
    _mm512_cmp_ps_mask, _mm512_cmpeq_epi16_mask, _mm512_extracti64x4_epi64, _mm512_fpclass_pd_mask,
    _mm512_fpclass_ps_mask, _mm512_loadu_si512, _mm512_mask_loadu_epi16, _mm512_mask_loadu_epi32,
    _mm512_mask_loadu_epi64, _mm512_max_epi16, _mm512_set1_epi16, _mm512_set1_pd, _mm512_set1_ps,
    _mm512_setzero_si512, _mm512_srai_epi16, _mm512_storeu_si512, _mm512_sub_epi16,
    _mm512_ternarylogic_epi32, _mm512_xor_si512, _mm_castpd_si128, _mm_castps_si128,
    _mm_castsi128_pd, _mm_castsi128_ps, _mm_max_epi16, _mm_max_pd, _mm_max_ps, _mm_srli_si128,
    _CMP_EQ_OQ, _MM_CMPINT_NLE,
};

use super::lanes::{load, magnitude, mov, splat, store_lanes};
use super::reduce::{best, permute};
use super::{kind_of, FLOAT, HALF};
use crate::kernels::arg_row::arg_row;
use crate::kernels::isa;
use crate::{Direction, Element, Max};

/// The longest rows taken: eight vectors of the widest elements.
pub(crate) const MAX_LANES: usize = 64;

/// The most rotations a window needs (two rows or more a window: rows of up to 16 lanes).
const MAX_STEPS: usize = 4;

/// Whether [`hardmax_rows`] takes rows of `c` elements of `T` on this CPU: floats, two to
/// [`MAX_LANES`] elements (at most eight vectors), AVX-512.
#[inline(always)]
pub(crate) fn takes<T: Element>(c: usize) -> bool {
    let (w, kind, _) = kind_of::<T>();
    size_of::<T>() == w
        && matches!(kind, FLOAT | HALF)
        && (2..=MAX_LANES).contains(&c)
        && c.div_ceil(64 / w) <= 8
        && isa::level() >= isa::AVX512
}

/// Whether [`hardmax_rows`] is the kernel for rows of `c` elements of `T` (it [`takes`] them
/// and measured faster than the others there, over 2 MiB on an AMD EPYC, Zen 4): rows whose
/// windows use at least three quarters of their lanes, of f16 and bf16 two rows a window or
/// more (one row of 17 to 32 took 1.1-1.2x the time of `kernels::short_rows`), every such
/// `f64` row (0.44-0.96x); `f32` rows of 3 and 4 (0.8x) and of 48 to 64 (0.8-0.9x), the
/// others taking 1.0-2.4x the time of the `f32` row kernels.
#[inline(always)]
pub(crate) fn prefers<T: Element>(c: usize) -> bool {
    let (w, kind, _) = kind_of::<T>();
    let v = 64 / w;
    let (k, used) = if c <= v { (v / c, v / c * c) } else { (1, c) };
    let dense = 3 * used.div_ceil(v) * v <= 4 * used;
    let fits = match (kind, w) {
        (HALF, _) => k >= 2 && dense,
        (_, 8) => dense,
        _ => matches!(c, 3 | 4 | 48..),
    };
    fits && takes::<T>(c)
}

/// Hardmax of each contiguous row of `c` elements of `x` into `y` (a 1 at the row's first
/// maximum, or first NaN, 0 elsewhere): `true`, or `false` (nothing written) where this kernel
/// does not take them ([`takes`]) or `y` is not as long as `x`.
#[inline(always)]
pub(crate) fn hardmax_rows<T: Element>(x: &[T], y: &mut [T], c: usize) -> bool {
    if !takes::<T>(c) || x.len() != y.len() {
        return false;
    }
    let (w, kind, inf) = kind_of::<T>();
    let mut one = [0u8; 8];
    T::ONE.write_le(&mut one[..w]);
    let one = u64::from_le_bytes(one);
    // SAFETY: `takes` found AVX-512 F, BW, VL and DQ; `T` is a float of the width named.
    unsafe {
        match (w, kind) {
            (2, _) => rows_in::<T, 2, HALF>(x, y, c, inf, one),
            (4, _) => rows_in::<T, 4, FLOAT>(x, y, c, inf, one),
            _ => rows_in::<T, 8, FLOAT>(x, y, c, inf, one),
        }
    }
    true
}

/// [`hardmax_rows`] for elements of `W` bytes of kind `KIND`.
///
/// # Safety
/// The CPU has AVX-512 F, BW, VL and DQ; `T` is of width `W` and kind `KIND`; [`takes`] holds
/// and `x` and `y` are as long.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn rows_in<T: Element, const W: usize, const KIND: u8>(
    x: &[T],
    y: &mut [T],
    c: usize,
    inf: u64,
    one: u64,
) {
    crate::kernels::shared::align_frame();
    let v = 64 / W;
    // SAFETY: as the caller's.
    unsafe {
        if c <= v {
            hard_short::<T, W, KIND>(x, y, c, inf, one);
        } else {
            long::<T, W, KIND>(x, y, c, inf, one);
        }
    }
}

/// The rotations that bring each row's maximum to all its lanes, `k` rows of `c` lanes from
/// lane 0 (the lanes after them stay).
struct Rotations {
    /// The lowest key, for the lanes past a single row.
    low: __m512i,
    idx: [__m512i; MAX_STEPS],
    /// Step `t`'s lanes (of the window's rows) with a lane `2^t` after them in their row.
    after: [u64; MAX_STEPS],
}

impl Rotations {
    /// Rotations by 1, 2, 4, ... lanes (`W` bytes each) within each of `k` rows of `c` (`k · c`
    /// at most `64 / W`).
    #[inline]
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
    fn new<const W: usize, const KIND: u8>(k: usize, c: usize) -> Self {
        let mut rot = Rotations {
            low: lowest::<W, KIND>(),
            idx: [_mm512_setzero_si512(); MAX_STEPS],
            after: [0; MAX_STEPS],
        };
        // A row's first `c - 2^t` lanes, in each of the `k` rows (built a row at a time: every
        // call of a tiny model builds them).
        for (t, after) in rot.after.iter_mut().enumerate() {
            let row = (1u64 << c.saturating_sub(1 << t).min(63)) - 1;
            for j in 0..k.min(64 / c.max(1)) {
                *after |= row << (j * c);
            }
        }
        let (mut s, mut step) = (1, 0);
        while k > 1 && s < c && step < MAX_STEPS {
            let mut lanes = [0u8; 64];
            for (i, lane) in lanes.chunks_exact_mut(W).enumerate() {
                let from = if i < k * c {
                    i - i % c + (i % c + s) % c
                } else {
                    i
                };
                lane.copy_from_slice(&from.to_le_bytes()[..W]);
            }
            // SAFETY: 64 bytes.
            rot.idx[step] = unsafe { _mm512_loadu_si512(lanes.as_ptr().cast()) };
            step += 1;
            s *= 2;
        }
        rot
    }

    /// Each row's maximum of `e` (as [`keys`] made it) in all its lanes of `lanes`: by the
    /// rotations, or for a single row by halving the vector (the lanes past it first set to
    /// the lowest key).
    #[inline]
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
    fn spread<const W: usize, const KIND: u8, const STEPS: usize>(
        &self,
        mut e: __m512i,
        lanes: u64,
    ) -> __m512i {
        if STEPS == 0 {
            return across::<W, KIND>(mov::<W>(self.low, lanes, e));
        }
        for &idx in &self.idx[..STEPS] {
            e = most::<W, KIND>(e, permute::<W>(idx, e));
        }
        e
    }
}

/// The windows of rows of at most a vector, `k` rows a window, the last window the rows left,
/// by the instance for their number of rotations (a loop with that count at run time spilled
/// its state and took up to 2x the time): `put(row, n, lanes, first, whole, raw)` for each,
/// with its first row, its rows, their lanes, the bits of each row's first best lane (`D`'s, a
/// NaN winning; with `LAST` the last), whether a vector from its first lane lies inside the
/// rows, and its elements.
///
/// # Safety
/// As [`rows_in`]'s, and `c` is at most `64 / W`.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) unsafe fn short<
    T: Element,
    D: Direction,
    const LAST: bool,
    const W: usize,
    const KIND: u8,
>(
    x: &[T],
    c: usize,
    inf: u64,
    put: impl FnMut(usize, usize, u64, u64, bool, __m512i),
) {
    let k = 64 / W / c;
    debug_assert!(!LAST || k > 1, "the last lane of one row a window");
    let steps = if k == 1 {
        0
    } else {
        (usize::BITS - (c - 1).leading_zeros()) as usize
    };
    // SAFETY: as the caller's.
    unsafe {
        match steps {
            0 => windows::<T, D, LAST, W, KIND, 0>(x, c, inf, put),
            1 => windows::<T, D, LAST, W, KIND, 1>(x, c, inf, put),
            2 => windows::<T, D, LAST, W, KIND, 2>(x, c, inf, put),
            3 => windows::<T, D, LAST, W, KIND, 3>(x, c, inf, put),
            _ => windows::<T, D, LAST, W, KIND, 4>(x, c, inf, put),
        }
    }
}

/// [`short`] with `STEPS` rotations (0: one row a window).
///
/// # Safety
/// As [`short`]'s; `STEPS` is [`Rotations::new`]'s count for these rows.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn windows<
    T: Element,
    D: Direction,
    const LAST: bool,
    const W: usize,
    const KIND: u8,
    const STEPS: usize,
>(
    x: &[T],
    c: usize,
    inf: u64,
    mut put: impl FnMut(usize, usize, u64, u64, bool, __m512i),
) {
    let k = 64 / W / c;
    let rows = x.len() / c;
    let rot = Rotations::new::<W, KIND>(k, c);
    let mut starts = 0u64;
    for j in 0..k {
        starts |= 1 << (j * c);
    }
    let src = x.as_ptr().cast::<u8>();
    let mut row = 0;
    // Whole-vector loads while a vector from the window's first row lies inside the rows.
    let full = u64::MAX >> (64 - k * c);
    while row * c + 64 / W <= rows * c {
        // SAFETY: a vector from row `row` lies inside `x`.
        let raw = unsafe { _mm512_loadu_si512(src.add(row * c * W).cast()) };
        let first = if nan_in::<W, KIND>(raw, inf, full) {
            by_rule::<T, D, LAST>(x, c, row, k)
        } else {
            firsts::<D, LAST, W, KIND, STEPS>(&rot, raw, full, starts)
        };
        put(row, k, full, first, true, raw);
        row += k;
    }
    while row < rows {
        let n = k.min(rows - row);
        let lanes = u64::MAX >> (64 - n * c);
        // SAFETY: rows `row` to `row + n` lie inside `x` (the mask covers `n · c` lanes).
        let raw = unsafe { load::<W>(src.add(row * c * W), lanes) };
        let first = if nan_in::<W, KIND>(raw, inf, lanes) {
            by_rule::<T, D, LAST>(x, c, row, n)
        } else {
            firsts::<D, LAST, W, KIND, STEPS>(&rot, raw, lanes, starts & lanes)
        };
        put(row, n, lanes, first, false, raw);
        row += n;
    }
}

/// Hardmax of rows of at most a vector: each window's zeros and ones in one store (a whole
/// vector where it lies inside the rows, the lanes past the window then written again by the
/// next one: on Zen 4 masked loads behind masked stores took 1.4x the time).
///
/// # Safety
/// As [`rows_in`]'s, and `c` is at most `64 / W`.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn hard_short<T: Element, const W: usize, const KIND: u8>(
    x: &[T],
    y: &mut [T],
    c: usize,
    inf: u64,
    one: u64,
) {
    let one = splat::<W>(one);
    let dst = y.as_mut_ptr().cast::<u8>();
    let put = |row: usize, _: usize, lanes: u64, first: u64, whole: bool, _: __m512i| {
        let hot = mov::<W>(_mm512_setzero_si512(), first, one);
        let p = dst.wrapping_add(row * c * W);
        // SAFETY: the window's lanes (and with `whole` a vector from them) lie inside the rows,
        // as long in `y` as in `x`.
        unsafe {
            if whole {
                _mm512_storeu_si512(p.cast(), hot);
            } else {
                store_lanes::<W>(p, lanes, hot);
            }
        }
    };
    // SAFETY: as the caller's.
    unsafe { short::<T, Max, false, W, KIND>(x, c, inf, put) };
}

/// The first lane of each row of a window (`starts` their first lanes, `lanes` theirs) that
/// equals the row's best of `D` (with `LAST` the last such lane).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn firsts<D: Direction, const LAST: bool, const W: usize, const KIND: u8, const STEPS: usize>(
    rot: &Rotations,
    raw: __m512i,
    lanes: u64,
    starts: u64,
) -> u64 {
    let e = directed::<D, W, KIND>(keys::<W, KIND>(raw));
    let m = equal::<W, KIND>(e, rot.spread::<W, KIND, STEPS>(e, lanes)) & lanes;
    if LAST {
        // The lanes with an equal lane after them in their row (a lane further, then twice as
        // far each step: `STEPS` doublings cover a row of two or more a window; `short` is
        // never asked for the last lane of one row a window), left out.
        let mut later = (m >> 1) & rot.after[0];
        for (t, &after) in rot.after.iter().enumerate().take(STEPS) {
            later |= (later >> (1 << t)) & after;
        }
        m & !later
    } else {
        // Each row's first bit: the borrow of subtracting its first lane's bit stops there.
        m & !m.wrapping_sub(starts)
    }
}

/// Whether a lane of `lanes` of `raw` is a NaN.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn nan_in<const W: usize, const KIND: u8>(raw: __m512i, inf: u64, lanes: u64) -> bool {
    nans::<W, KIND>(raw, inf) & lanes != 0
}

/// The NaN lanes of `raw`.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn nans<const W: usize, const KIND: u8>(raw: __m512i, inf: u64) -> u64 {
    // Quiet and signalling NaN, in one classification of `f32` and `f64` lanes.
    const NAN: i32 = 0x81;
    match W {
        2 => u64::from(_mm512_cmp_epu16_mask::<_MM_CMPINT_NLE>(
            magnitude::<W, KIND>(raw),
            splat::<2>(inf),
        )),
        4 => u64::from(_mm512_fpclass_ps_mask::<NAN>(_mm512_castsi512_ps(raw))),
        _ => u64::from(_mm512_fpclass_pd_mask::<NAN>(_mm512_castsi512_pd(raw))),
    }
}

/// Rows longer than a vector, up to eight: one a window.
///
/// # Safety
/// As [`rows_in`]'s, and `c` is over `64 / W` and at most eight vectors.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn long<T: Element, const W: usize, const KIND: u8>(
    x: &[T],
    y: &mut [T],
    c: usize,
    inf: u64,
    one: u64,
) {
    let v = 64 / W;
    let (parts, tail) = (c.div_ceil(v), c % v);
    let all_lanes = u64::MAX >> (64 - v);
    let last = if tail == 0 {
        all_lanes
    } else {
        (1u64 << tail) - 1
    };
    let rot = Rotations::new::<W, KIND>(1, v);
    let one = splat::<W>(one);
    let (src, dst) = (x.as_ptr().cast::<u8>(), y.as_mut_ptr().cast::<u8>());
    for row in 0..x.len() / c {
        // SAFETY: the row's `c` elements lie inside `x`: its whole vectors, then the last
        // one's `tail` lanes.
        let all = unsafe {
            let p = src.add(row * c * W);
            let head = _mm512_loadu_si512(p.cast());
            // The last vector's lanes past the row repeat the first vector's: no new maximum.
            let end = load_or::<W>(head, p.add((parts - 1) * v * W), last);
            let (mut top, mut nan) = (keys::<W, KIND>(head), nans::<W, KIND>(head, inf));
            for q in 1..parts - 1 {
                let raw = _mm512_loadu_si512(p.add(q * v * W).cast());
                nan |= nans::<W, KIND>(raw, inf);
                top = most::<W, KIND>(top, keys::<W, KIND>(raw));
            }
            if nan | nans::<W, KIND>(end, inf) != 0 {
                by_rule::<T, Max, false>(x, c, row, 1)
            } else {
                let top = most::<W, KIND>(top, keys::<W, KIND>(end));
                let top = rot.spread::<W, KIND, 0>(top, u64::MAX);
                // The lanes equal to the maximum, vector after vector (at most 64 in all).
                let mut all = equal::<W, KIND>(keys::<W, KIND>(end), top) & last;
                for part in (0..parts - 1).rev() {
                    let raw = _mm512_loadu_si512(p.add(part * v * W).cast());
                    all = all << v | equal::<W, KIND>(keys::<W, KIND>(raw), top);
                }
                all & all.wrapping_neg()
            }
        };
        for part in 0..parts {
            let hot = mov::<W>(_mm512_setzero_si512(), all >> (part * v), one);
            let lanes = if part + 1 == parts { last } else { all_lanes };
            // SAFETY: the row's lanes lie inside `y`.
            unsafe { store_lanes::<W>(dst.add((row * c + part * v) * W), lanes, hot) };
        }
    }
}

/// A key no lane passes (under every key of either direction, [`directed`]).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn lowest<const W: usize, const KIND: u8>() -> __m512i {
    match W {
        2 => _mm512_set1_epi16(i16::MIN),
        4 => _mm512_castps_si512(_mm512_set1_ps(f32::NEG_INFINITY)),
        _ => _mm512_castpd_si512(_mm512_set1_pd(f64::NEG_INFINITY)),
    }
}

/// The maximum of all lanes of `e` in every lane: halved to 32 and 16 bytes, then within 16
/// bytes lane 0 gathers the others, then it is spread (narrow operations but the last).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn across<const W: usize, const KIND: u8>(e: __m512i) -> __m512i {
    let h = _mm512_extracti64x4_epi64::<1>(e);
    let h = most256::<W, KIND>(_mm512_castsi512_si256(e), h);
    let mut q = most128::<W, KIND>(_mm256_castsi256_si128(h), _mm256_extracti128_si256::<1>(h));
    q = most128::<W, KIND>(q, _mm_srli_si128::<8>(q));
    if W <= 4 {
        q = most128::<W, KIND>(q, _mm_srli_si128::<4>(q));
    }
    if W == 2 {
        q = most128::<W, KIND>(q, _mm_srli_si128::<2>(q));
    }
    match W {
        2 => _mm512_broadcastw_epi16(q),
        4 => _mm512_broadcastd_epi32(q),
        _ => _mm512_broadcastq_epi64(q),
    }
}

/// [`most`] of 32-byte vectors.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn most256<const W: usize, const KIND: u8>(a: __m256i, b: __m256i) -> __m256i {
    match (KIND, W) {
        (HALF, _) => _mm256_max_epi16(a, b),
        (_, 4) => _mm256_castps_si256(_mm256_max_ps(
            _mm256_castsi256_ps(a),
            _mm256_castsi256_ps(b),
        )),
        _ => _mm256_castpd_si256(_mm256_max_pd(
            _mm256_castsi256_pd(a),
            _mm256_castsi256_pd(b),
        )),
    }
}

/// [`most`] of 16-byte vectors.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn most128<const W: usize, const KIND: u8>(a: __m128i, b: __m128i) -> __m128i {
    match (KIND, W) {
        (HALF, _) => _mm_max_epi16(a, b),
        (_, 4) => _mm_castps_si128(_mm_max_ps(_mm_castsi128_ps(a), _mm_castsi128_ps(b))),
        _ => _mm_castpd_si128(_mm_max_pd(_mm_castsi128_pd(a), _mm_castsi128_pd(b))),
    }
}

/// The lanes of `mask` from `p`, the others from `fill`.
///
/// # Safety
/// The CPU has AVX-512 F and BW; the lanes in `mask` are readable; `W` is 2, 4 or 8.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn load_or<const W: usize>(fill: __m512i, p: *const u8, mask: u64) -> __m512i {
    // SAFETY: as the caller's; masked lanes are not read.
    unsafe {
        match W {
            2 => _mm512_mask_loadu_epi16(fill, mask as u32, p.cast()),
            4 => _mm512_mask_loadu_epi32(fill, mask as u16, p.cast()),
            _ => _mm512_mask_loadu_epi64(fill, mask as u8, p.cast()),
        }
    }
}

/// Lanes as compared: f16 and bf16 as signed keys (the sign-magnitude bits as two's
/// complement: -0 and +0 both 0), floats as they are.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) fn keys<const W: usize, const KIND: u8>(raw: __m512i) -> __m512i {
    if KIND == HALF {
        // `raw ^ (s & 0x7fff)` in one ternary-logic operation (`a ^ (b & c)`: 0x78).
        let s = _mm512_srai_epi16::<15>(raw);
        let flipped = _mm512_ternarylogic_epi32::<0x78>(raw, s, _mm512_set1_epi16(0x7fff));
        _mm512_sub_epi16(flipped, s)
    } else {
        raw
    }
}

/// Keys (as [`keys`] made them) greater for the better of `D`: for ReduceMin's order f16/bf16
/// keys inverted (`!k` reverses the signed order) and floats negated (-0 and +0 still equal).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn directed<D: Direction, const W: usize, const KIND: u8>(k: __m512i) -> __m512i {
    if !D::IS_MIN {
        return k;
    }
    let flip = if KIND == HALF {
        u64::MAX
    } else {
        1u64 << (8 * W - 1)
    };
    _mm512_xor_si512(k, splat::<W>(flip))
}

/// The greater of each lane of `a` and `b` (keys, or floats without NaN).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn most<const W: usize, const KIND: u8>(a: __m512i, b: __m512i) -> __m512i {
    if KIND == HALF {
        _mm512_max_epi16(a, b)
    } else {
        best::<Max, W, KIND>(a, b)
    }
}

/// The lanes where `e` equals `m` (floats: -0 equals +0).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn equal<const W: usize, const KIND: u8>(e: __m512i, m: __m512i) -> u64 {
    match (KIND, W) {
        (HALF, _) => u64::from(_mm512_cmpeq_epi16_mask(e, m)),
        (_, 4) => u64::from(_mm512_cmp_ps_mask::<_CMP_EQ_OQ>(
            _mm512_castsi512_ps(e),
            _mm512_castsi512_ps(m),
        )),
        _ => u64::from(_mm512_cmp_pd_mask::<_CMP_EQ_OQ>(
            _mm512_castsi512_pd(e),
            _mm512_castsi512_pd(m),
        )),
    }
}

/// The first best of `D` (or first NaN; with `LAST` the last) of rows `row` to `row + n` as
/// bits, the first row's lanes from bit 0 (a window holding a NaN, by the row kernel).
#[cold]
#[inline(never)]
fn by_rule<T: Element, D: Direction, const LAST: bool>(
    x: &[T],
    c: usize,
    row: usize,
    n: usize,
) -> u64 {
    let mut bits = 0;
    if let Some(x) = x.get(row * c..(row + n) * c) {
        for (j, r) in x.chunks_exact(c).enumerate() {
            bits |= 1 << (j * c + arg_row::<T, D, LAST>(r));
        }
    }
    bits
}

#[cfg(test)]
mod tests;
