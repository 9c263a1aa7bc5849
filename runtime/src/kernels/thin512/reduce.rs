//! ReduceMax and ReduceMin of many short blocks of few lanes in AVX-512 ([`super`]'s windows),
//! and the folding plan that halves a vector's groups lane against lane.
//!
//! The pass keeps each lane's extreme by the order alone (unsigned and signed maxima or
//! minima, f16 and bf16 as keys, `f32`/`f64` by the float maximum or minimum: a zero's sign
//! is left open, as the contract allows); then each step takes, lane by lane, the better of a
//! lane and the one `next · c` lanes on, until one group is left. 1-byte lanes are widened to
//! two vectors of 16-bit lanes first (no byte shuffle across a vector without VBMI). A block
//! whose lanes hold a NaN is done by the contract's rule (each lane's first NaN).

use core::arch::x86_64::{
    __m512i, _mm256_loadu_si256, _mm256_mask_storeu_epi8, _mm512_castpd_si512, _mm512_castps_si512,
    _mm512_castsi512_pd, _mm512_castsi512_ps, _mm512_castsi512_si256, _mm512_cvtepi16_epi8,
    _mm512_cvtepi8_epi16, _mm512_cvtepu8_epi16, _mm512_cvtepu8_epi32, _mm512_cvtepu8_epi64,
    _mm512_extracti64x4_epi64, _mm512_max_epi16, _mm512_max_epi32, _mm512_max_epi64,
    _mm512_max_epi8, _mm512_max_epu16, _mm512_max_epu32, _mm512_max_epu64, _mm512_max_epu8,
    _mm512_max_pd, _mm512_max_ps, _mm512_min_epi16, _mm512_min_epi32, _mm512_min_epi64,
    _mm512_min_epi8, _mm512_min_epu16, _mm512_min_epu32, _mm512_min_epu64, _mm512_min_epu8,
    _mm512_min_pd, _mm512_min_ps, _mm512_permutex2var_epi16, _mm512_permutexvar_epi16,
    _mm512_permutexvar_epi32, _mm512_permutexvar_epi64, _mm512_setzero_si512, _mm_loadl_epi64,
    _mm_loadu_si128,
};

use super::lanes::{has_nan, load, magnitude, prep, store_lanes, unkey, widest};
use super::reduce_split::{reduce_split, rows_a_half};
use super::{by_kind, kind_of, takes, FLOAT, HALF, MAX_STEPS, SIGNED, UNSIGNED};
use crate::{Direction, Element};

/// Folding steps that halve the groups of `c` lanes of one vector (two for 1-byte lanes
/// widened), lane `t` against lane `t + next · c`.
pub(super) struct Halving {
    /// How many steps.
    pub(super) steps: usize,
    /// The lanes `lw` bytes wide that this step's pairs are of.
    lw: usize,
    /// Each step's partner of each lane `t` across the two vectors in (a byte each).
    idx: [[u8; 64]; MAX_STEPS],
}

impl Halving {
    /// The steps for `q` groups of `c` lanes of `w` bytes (1-byte lanes widened to 2).
    pub(super) fn new(w: usize, q: usize, c: usize) -> Self {
        Halving::regions(w, q, c, 64)
    }

    /// [`Halving::new`] for each run of `region` lanes on its own (a block each: the lanes of
    /// each run fold within it).
    pub(super) fn regions(w: usize, q: usize, c: usize, region: usize) -> Self {
        let mut plan = Halving {
            steps: 0,
            lw: w.max(2),
            idx: [[0; 64]; MAX_STEPS],
        };
        let mut items = q;
        while items > 1 && plan.steps < MAX_STEPS {
            let next = items.div_ceil(2);
            for (t, lane) in plan.idx[plan.steps].iter_mut().enumerate() {
                let (start, u) = (t / region * region, t % region);
                let other = u + next * c;
                let from = if u < next * c && other < items * c {
                    start + other
                } else {
                    t
                };
                *lane = from as u8;
            }
            plan.steps += 1;
            items = next;
        }
        plan
    }

    /// The indices as vectors, each step's for the first vector out then the second.
    #[inline]
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
    pub(super) fn vectors(&self) -> [[__m512i; 2]; MAX_STEPS] {
        let mut v = [[_mm512_setzero_si512(); 2]; MAX_STEPS];
        for (to, s) in v.iter_mut().zip(&self.idx).take(self.steps) {
            *to = [expand(s, self.lw, 0), expand(s, self.lw, 1)];
        }
        v
    }
}

/// The lane indices `lw` bytes wide of the `half`-th vector (64 bytes) of `lanes`, one byte a
/// lane.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) fn expand(lanes: &[u8; 64], lw: usize, half: usize) -> __m512i {
    let per = 64 / lw;
    let from = lanes.as_ptr().wrapping_add(half * per);
    // SAFETY: `per` bytes from `half · per`, at most 64 in all.
    unsafe {
        match lw {
            2 => _mm512_cvtepu8_epi16(_mm256_loadu_si256(from.cast())),
            4 => _mm512_cvtepu8_epi32(_mm_loadu_si128(from.cast())),
            _ => _mm512_cvtepu8_epi64(_mm_loadl_epi64(from.cast())),
        }
    }
}

/// Whether [`reduce_blocks`] takes blocks of `r` rows of `c` lanes of `T`: as [`takes`], and
/// for 1- and 2-byte types only blocks of over [`SHORT`] rows or those of split windows
/// ([`rows_a_half`]).
#[inline(always)]
pub(crate) fn reduces<T: Element>(r: usize, c: usize) -> bool {
    let w = size_of::<T>();
    takes::<T>(r, c) && (w >= 4 || r > SHORT || rows_a_half(w, r, c).is_some())
}

/// The tallest blocks of 1- and 2-byte types left to the AVX2 kernel (`thin_avx2`), which packs
/// them tighter: on an Intel Xeon (Emerald Rapids), blocks of 2, 3 and 20 rows of five lanes
/// took this kernel 1.3-1.6x its time (bytes) and 1.05-1.2x (f16, bf16); of 80 rows the same.
const SHORT: usize = 32;

/// Each of the `c` lanes of each block of `r` rows reduced into `y` (NaN-propagating: the
/// lane's first NaN), for the whole blocks of `x`: their count, 0 where this kernel does not
/// take them ([`reduces`]).
#[inline(always)]
pub(crate) fn reduce_blocks<T: Element, D: Direction>(
    y: &mut [T],
    x: &[T],
    r: usize,
    c: usize,
) -> usize {
    if !reduces::<T>(r, c) {
        return 0;
    }
    let inf = kind_of::<T>().2;
    // SAFETY: `takes` found AVX-512 F, BW, VL and DQ and the sizes fit; `T` is of the width and
    // kind named.
    unsafe { by_kind!(T, reduce_in::<T, D>(y, x, r, c, inf)) }
}

/// [`reduce_blocks`] for elements of `W` bytes of kind `KIND`.
///
/// # Safety
/// As for `arg_in`.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn reduce_in<T: Element, D: Direction, const W: usize, const KIND: u8>(
    y: &mut [T],
    x: &[T],
    r: usize,
    c: usize,
    inf: u64,
) -> usize {
    crate::kernels::shared::align_frame();
    // Two blocks a window where they take half a window or more, the rest one a window.
    // SAFETY: as the caller's.
    let done = unsafe { reduce_split::<T, D, W, KIND>(y, x, r, c, inf) };
    let size = r * c;
    let (Some(y), Some(x)) = (y.get_mut(done * c..), x.get(done * size..)) else {
        return done;
    };
    let n = (x.len() / size).min(y.len() / c);
    let q = (64 / W / c).min(r);
    let used = q * c;
    let mask = if used >= 64 {
        u64::MAX
    } else {
        (1u64 << used) - 1
    };
    let plan = Halving::new(W, q, c);
    let idx = plan.vectors();
    let (full, extra) = (r / q, !r.is_multiple_of(q));
    let base = x.as_ptr().cast::<u8>();
    let out = y.as_mut_ptr().cast::<u8>();
    for b in 0..n {
        let block = b * size;
        // SAFETY (the loads): every window lies in block `b`, inside `x`; lanes past `used` are
        // not read.
        let raw = unsafe { load::<W>(base.add(block * W), mask) };
        let mut nan = magnitude::<W, KIND>(raw);
        let mut m = pass::<D, W, KIND>(raw);
        for k in 1..full + usize::from(extra) {
            let row = if k < full { k * q } else { r - q };
            let raw = unsafe { load::<W>(base.add((block + row * c) * W), mask) };
            nan = widest::<W, KIND>(nan, magnitude::<W, KIND>(raw));
            m = best::<D, W, KIND>(m, pass::<D, W, KIND>(raw));
        }
        if KIND >= HALF && has_nan::<W>(nan, inf) {
            if let (Some(xb), Some(yb)) =
                (x.get(block..block + size), y.get_mut(b * c..(b + 1) * c))
            {
                exact::<T, D>(xb, yb);
            }
            continue;
        }
        // SAFETY (the stores): `y` holds block `b`'s `c` lanes.
        if W == 1 {
            // Lanes past the first 32 are never the first of a pair (a step's pairs lie within
            // its `q · c` lanes, at most 64): `hi` stays.
            let (mut lo, hi) = widen::<KIND>(m);
            for i in idx.iter().take(plan.steps) {
                lo = best16::<D, KIND>(lo, _mm512_permutex2var_epi16(lo, i[0], hi));
            }
            let bytes = _mm512_cvtepi16_epi8(lo);
            unsafe { _mm256_mask_storeu_epi8(out.add(b * c).cast(), (1u32 << c) - 1, bytes) };
        } else {
            for i in idx.iter().take(plan.steps) {
                m = best::<D, W, KIND>(m, permute::<W>(i[0], m));
            }
            let e = if KIND == HALF {
                unkey::<D, W, KIND>(m)
            } else {
                m
            };
            unsafe { store_lanes::<W>(out.add(b * c * W), (1u64 << c) - 1, e) };
        }
    }
    done + n
}

/// A window's lanes as the pass compares them: f16 and bf16 as keys (greater better), the
/// others as they are.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) fn pass<D: Direction, const W: usize, const KIND: u8>(raw: __m512i) -> __m512i {
    if KIND == HALF {
        prep::<D, W, KIND>(raw)
    } else {
        raw
    }
}

/// The better of each lane of `a` and `b` as [`pass`] left them.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) fn best<D: Direction, const W: usize, const KIND: u8>(
    a: __m512i,
    b: __m512i,
) -> __m512i {
    let min = D::IS_MIN;
    match (KIND, W) {
        (HALF, _) => _mm512_max_epu16(a, b),
        (FLOAT, 4) => {
            let (a, b) = (_mm512_castsi512_ps(a), _mm512_castsi512_ps(b));
            _mm512_castps_si512(if min {
                _mm512_min_ps(a, b)
            } else {
                _mm512_max_ps(a, b)
            })
        }
        (FLOAT, _) => {
            let (a, b) = (_mm512_castsi512_pd(a), _mm512_castsi512_pd(b));
            _mm512_castpd_si512(if min {
                _mm512_min_pd(a, b)
            } else {
                _mm512_max_pd(a, b)
            })
        }
        (SIGNED, 1) if min => _mm512_min_epi8(a, b),
        (SIGNED, 1) => _mm512_max_epi8(a, b),
        (SIGNED, 2) if min => _mm512_min_epi16(a, b),
        (SIGNED, 2) => _mm512_max_epi16(a, b),
        (SIGNED, 4) if min => _mm512_min_epi32(a, b),
        (SIGNED, 4) => _mm512_max_epi32(a, b),
        (SIGNED, _) if min => _mm512_min_epi64(a, b),
        (SIGNED, _) => _mm512_max_epi64(a, b),
        (_, 1) if min => _mm512_min_epu8(a, b),
        (_, 1) => _mm512_max_epu8(a, b),
        (_, 2) if min => _mm512_min_epu16(a, b),
        (_, 2) => _mm512_max_epu16(a, b),
        (_, 4) if min => _mm512_min_epu32(a, b),
        (_, 4) => _mm512_max_epu32(a, b),
        _ if min => _mm512_min_epu64(a, b),
        _ => _mm512_max_epu64(a, b),
    }
}

/// 1-byte lanes widened to 16 bits (signed kinds by sign), the first 32 then the others.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) fn widen<const KIND: u8>(m: __m512i) -> (__m512i, __m512i) {
    let (lo, hi) = (_mm512_castsi512_si256(m), _mm512_extracti64x4_epi64::<1>(m));
    if KIND == SIGNED {
        (_mm512_cvtepi8_epi16(lo), _mm512_cvtepi8_epi16(hi))
    } else {
        (_mm512_cvtepu8_epi16(lo), _mm512_cvtepu8_epi16(hi))
    }
}

/// [`best`] of widened 1-byte lanes.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) fn best16<D: Direction, const KIND: u8>(a: __m512i, b: __m512i) -> __m512i {
    match (KIND == SIGNED, D::IS_MIN) {
        (true, true) => _mm512_min_epi16(a, b),
        (true, false) => _mm512_max_epi16(a, b),
        (false, true) => _mm512_min_epu16(a, b),
        (false, false) => _mm512_max_epu16(a, b),
    }
}

/// The lanes of `a` (`W` bytes wide) that `idx` names.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) fn permute<const W: usize>(idx: __m512i, a: __m512i) -> __m512i {
    match W {
        2 => _mm512_permutexvar_epi16(idx, a),
        4 => _mm512_permutexvar_epi32(idx, a),
        _ => _mm512_permutexvar_epi64(idx, a),
    }
}

/// One block by the contract's rule: each lane's first NaN, else its extreme.
#[inline(never)]
pub(super) fn exact<T: Element, D: Direction>(xb: &[T], yb: &mut [T]) {
    let c = yb.len();
    for (j, o) in yb.iter_mut().enumerate() {
        let mut lane = xb.iter().skip(j).step_by(c.max(1)).copied();
        let Some(first) = lane.next() else { continue };
        *o = lane
            .try_fold(first, |best, e| {
                if best.is_nan() {
                    Err(best)
                } else if e.is_nan() || D::better(e, best) {
                    Ok(e)
                } else {
                    Ok(best)
                }
            })
            .unwrap_or_else(|nan| nan);
    }
}
