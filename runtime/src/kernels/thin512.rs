//! The arg-reductions of many short blocks of few lanes ([`super::thin_blocks`]: blocks of `r`
//! rows of `c` lanes, the middle axis of `[n, r, c]`) in 64-byte AVX-512 vectors, for 1-, 2- and
//! 4-byte elements, for CPUs that have them (checked at run time, [`super::isa`]).
//!
//! A block is read as windows of `q` whole rows (a masked load of `q·c` lanes: nothing read past
//! them), `q` rows apart, the last one ending at the block's last row (over the one before where
//! `q` does not divide `r`). One pass keeps each lane's best element and its row: a compare into
//! a mask and two masked moves a window. Then each lane's element as an order key (greater is
//! better: Min and signed types flipped; f16, bf16 and `f32` as two's complement of their
//! sign-magnitude bits, so that -0 and +0 are one key) and its row (flipped where the first row
//! wins a tie) are interleaved into one unsigned number twice as wide, so that a plain maximum
//! picks the better element and, among equals, the row the tie rule wants: the `q` groups of
//! each lane fold by two-vector shuffles and maxima ([`Plan`]). Floats: the largest magnitude is
//! kept on the side, and a block holding a NaN is done by the contract's rule lane by lane.

use core::arch::x86_64::{
    __m512i, _mm512_add_epi16, _mm512_add_epi32, _mm512_add_epi8, _mm512_and_si512,
    _mm512_castsi512_ps, _mm512_castsi512_si128, _mm512_castsi512_si256, _mm512_cmp_epu16_mask,
    _mm512_cmp_epu32_mask, _mm512_cmp_epu8_mask, _mm512_cmp_ps_mask, _mm512_cvtepu16_epi64,
    _mm512_cvtepu32_epi64, _mm512_extracti32x4_epi32, _mm512_extracti64x4_epi64,
    _mm512_loadu_si512, _mm512_mask_mov_epi16, _mm512_mask_mov_epi32, _mm512_mask_mov_epi8,
    _mm512_mask_storeu_epi64, _mm512_maskz_loadu_epi16, _mm512_maskz_loadu_epi32,
    _mm512_maskz_loadu_epi8, _mm512_max_epu16, _mm512_max_epu32, _mm512_max_epu64,
    _mm512_permutex2var_epi16, _mm512_permutex2var_epi32, _mm512_permutex2var_epi64,
    _mm512_set1_epi16, _mm512_set1_epi32, _mm512_set1_epi64, _mm512_set1_epi8, _mm512_srai_epi16,
    _mm512_srai_epi32, _mm512_sub_epi16, _mm512_sub_epi32, _mm512_unpackhi_epi16,
    _mm512_unpackhi_epi32, _mm512_unpackhi_epi8, _mm512_unpacklo_epi16, _mm512_unpacklo_epi32,
    _mm512_unpacklo_epi8, _mm512_xor_si512, _CMP_GE_OQ, _CMP_GT_OQ, _CMP_LE_OQ, _CMP_LT_OQ,
    _MM_CMPINT_NLE, _MM_CMPINT_NLT,
};

use super::arg_lanes::lane_by_lane;
use super::isa;
use super::thin_blocks::MAX_ROWS;
use crate::{DType, Direction, Element};

/// Unsigned integers and bool: compared as they are.
const UNSIGNED: u8 = 0;
/// Signed integers: their sign bit flipped.
const SIGNED: u8 = 1;
/// f16 and bf16: order keys of their bits, NaN on the side.
const HALF: u8 = 2;
/// `f32`: compared as floats in the pass, keys of their bits for the fold, NaN on the side.
const FLOAT: u8 = 3;

/// The most folding steps (64 groups of one byte: six).
const MAX_STEPS: usize = 7;

/// The windows of one call and the shuffles that fold their groups.
struct Plan {
    /// Rows a window holds.
    q: usize,
    /// The folding steps: `steps` of them, each with `outs` (1 or 2) vectors out, each the
    /// maximum of two two-vector shuffles (lane indices in elements twice as wide).
    steps: usize,
    outs: [usize; MAX_STEPS],
    idx: [[[[u8; 64]; 2]; 2]; MAX_STEPS],
}

impl Plan {
    /// The plan for rows of `c` lanes of `w` bytes, blocks of `r` rows.
    fn new(w: usize, r: usize, c: usize) -> Self {
        let v = 64 / w;
        let q = (v / c).min(r);
        // Interleaving puts the low half of each 16-byte chunk into the first vector and the
        // high half into the second, as elements twice as wide.
        let (chunk, half) = (16 / w, 8 / w);
        let per = v / 2;
        let unpacked = |j: usize| {
            let (k, i) = (j / chunk, j % chunk);
            if i < half {
                k * half + i
            } else {
                per + k * half + i - half
            }
        };
        let mut plan = Plan {
            q,
            steps: 0,
            outs: [1; MAX_STEPS],
            idx: [[[[0; 64]; 2]; 2]; MAX_STEPS],
        };
        let mut items = q;
        loop {
            let next = items.div_ceil(2);
            let lanes = next * c;
            let step = plan.steps;
            plan.outs[step] = lanes.div_ceil(per);
            for t in 0..lanes {
                let (k, col) = (t / c, t % c);
                let pair = [2 * k, (2 * k + 1).min(items - 1)];
                for (which, &item) in pair.iter().enumerate() {
                    let at = item * c + col;
                    let from = if step == 0 { unpacked(at) } else { at };
                    let lane = &mut plan.idx[step][t / per][which];
                    let bytes = (from as u64).to_le_bytes();
                    let (s, e) = ((t % per) * 2 * w, (t % per + 1) * 2 * w);
                    if let (Some(d), Some(b)) = (lane.get_mut(s..e), bytes.get(..2 * w)) {
                        d.copy_from_slice(b);
                    }
                }
            }
            plan.steps += 1;
            items = next;
            if items == 1 || plan.steps == MAX_STEPS {
                break;
            }
        }
        plan
    }
}

/// The index of the extreme of each of the `c` lanes of each block of `r` rows into `y` (the
/// first, or with `LAST` the last; a NaN beats every number), with `v` not empty the extreme
/// into `v`, for the whole blocks of `x`: their count, 0 where this kernel does not take them
/// (no AVX-512, 8-byte types, `c` 0 or over 15, `r` 0 or over `MAX_ROWS`, 1-byte types over
/// 256 rows).
#[inline(always)]
pub(super) fn arg_blocks<T: Element, D: Direction, const LAST: bool>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    r: usize,
    c: usize,
) -> usize {
    let (w, kind, inf) = match T::DTYPE {
        DType::U8 | DType::Bool => (1, UNSIGNED, 0),
        DType::I8 => (1, SIGNED, 0),
        DType::U16 => (2, UNSIGNED, 0),
        DType::I16 => (2, SIGNED, 0),
        DType::F16 => (2, HALF, 0x7c00),
        DType::BF16 => (2, HALF, 0x7f80),
        DType::U32 => (4, UNSIGNED, 0),
        DType::I32 => (4, SIGNED, 0),
        DType::F32 => (4, FLOAT, 0x7f80_0000),
        _ => return 0,
    };
    if size_of::<T>() != w
        || !(1..16).contains(&c)
        || !(1..=MAX_ROWS).contains(&r)
        || (w == 1 && r > 256)
        || isa::level() < isa::AVX512
    {
        return 0;
    }
    // SAFETY: `isa` found AVX-512 F, BW, VL and DQ; `T` is `w` bytes of the kind named.
    unsafe {
        match (w, kind) {
            (1, UNSIGNED) => arg_in::<T, D, LAST, 1, UNSIGNED>(x, y, v, r, c, inf),
            (1, _) => arg_in::<T, D, LAST, 1, SIGNED>(x, y, v, r, c, inf),
            (2, UNSIGNED) => arg_in::<T, D, LAST, 2, UNSIGNED>(x, y, v, r, c, inf),
            (2, SIGNED) => arg_in::<T, D, LAST, 2, SIGNED>(x, y, v, r, c, inf),
            (2, _) => arg_in::<T, D, LAST, 2, HALF>(x, y, v, r, c, inf),
            (_, UNSIGNED) => arg_in::<T, D, LAST, 4, UNSIGNED>(x, y, v, r, c, inf),
            (_, SIGNED) => arg_in::<T, D, LAST, 4, SIGNED>(x, y, v, r, c, inf),
            _ => arg_in::<T, D, LAST, 4, FLOAT>(x, y, v, r, c, inf),
        }
    }
}

/// [`arg_blocks`] for elements of `W` bytes of kind `KIND` (`inf` the magnitude bits of
/// infinity for floats).
///
/// # Safety
/// The CPU has AVX-512 F, BW, VL and DQ; `T` is `W` bytes of kind `KIND`; `c` is 1 to 15 and
/// at most `64 / W`, `r` at least 1 (at most 256 for one byte).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn arg_in<T: Element, D: Direction, const LAST: bool, const W: usize, const KIND: u8>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    r: usize,
    c: usize,
    inf: u32,
) -> usize {
    let size = r * c;
    let mut n = (x.len() / size).min(y.len() / c);
    if !v.is_empty() {
        n = n.min(v.len() / c);
    }
    let plan = Plan::new(W, r, c);
    let q = plan.q;
    let used = q * c;
    let mask = if used >= 64 {
        u64::MAX
    } else {
        (1u64 << used) - 1
    };
    let mut groups = [0u8; 64];
    for (j, g) in groups.chunks_exact_mut(W).enumerate() {
        g[0] = (j / c) as u8;
    }
    // SAFETY (loads of the plan): 64-byte arrays.
    let gvec = unsafe { _mm512_loadu_si512(groups.as_ptr().cast()) };
    let step = splat::<W>(q as u64);
    let lastv = add::<W>(gvec, splat::<W>((r - q) as u64));
    let (full, extra) = (r / q, !r.is_multiple_of(q));
    let mut idx = [[[gvec; 2]; 2]; MAX_STEPS];
    for (to, from) in idx
        .iter_mut()
        .flatten()
        .flatten()
        .zip(plan.idx.iter().flatten().flatten())
    {
        // SAFETY: 64 bytes.
        *to = unsafe { _mm512_loadu_si512(from.as_ptr().cast()) };
    }
    let base = x.as_ptr().cast::<u8>();
    for b in 0..n {
        let block = b * size;
        // SAFETY (the loads): every window lies in block `b`, inside `x`; lanes past `used` are
        // not read.
        let raw = unsafe { load::<W>(base.add(block * W), mask) };
        let mut nan = magnitude::<W, KIND>(raw);
        let mut m = prep::<D, W, KIND>(raw);
        let (mut rows, mut cur) = (gvec, gvec);
        for k in 1..full + usize::from(extra) {
            let row = if k < full { k * q } else { r - q };
            let raw = unsafe { load::<W>(base.add((block + row * c) * W), mask) };
            cur = if k < full { add::<W>(cur, step) } else { lastv };
            nan = widest::<W, KIND>(nan, magnitude::<W, KIND>(raw));
            let e = prep::<D, W, KIND>(raw);
            let better = better::<D, LAST, W, KIND>(e, m);
            m = mov::<W>(m, better, e);
            rows = mov::<W>(rows, better, cur);
        }
        let (Some(yb), Some(xb)) = (
            y.get_mut(b * c..(b + 1) * c),
            x.get(b * size..(b + 1) * size),
        ) else {
            return b;
        };
        if KIND >= HALF && has_nan::<W>(nan, inf) {
            let vb = v.get_mut(b * c..(b + 1) * c).unwrap_or_default();
            lane_by_lane::<T, D, LAST>(xb, yb, vb, c);
            continue;
        }
        let key = key::<D, W, KIND>(m);
        let tie = if LAST {
            rows
        } else {
            _mm512_xor_si512(rows, splat::<W>(u64::MAX))
        };
        let (mut lo, mut hi) = (unpack_lo::<W>(tie, key), unpack_hi::<W>(tie, key));
        for (s, outs) in plan.outs.iter().enumerate().take(plan.steps) {
            let [first, second] = idx[s];
            let a = max::<W>(perm::<W>(lo, first[0], hi), perm::<W>(lo, first[1], hi));
            hi = if *outs > 1 {
                max::<W>(perm::<W>(lo, second[0], hi), perm::<W>(lo, second[1], hi))
            } else {
                a
            };
            lo = a;
        }
        // SAFETY: `yb` holds `c` lanes.
        unsafe { store::<W, LAST>(lo, hi, yb.as_mut_ptr(), c) };
        if let Some(vb) = v.get_mut(b * c..(b + 1) * c) {
            for (j, (o, &i)) in vb.iter_mut().zip(yb.iter()).enumerate() {
                if let Some(&e) = xb.get(i as usize * c + j) {
                    *o = e;
                }
            }
        }
    }
    n
}

/// `c` lanes of `W` bytes from `p` (the others zero).
///
/// # Safety
/// The CPU has AVX-512 F and BW; the lanes in `mask` are readable.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn load<const W: usize>(p: *const u8, mask: u64) -> __m512i {
    // SAFETY: as the caller's; masked lanes are not read.
    unsafe {
        match W {
            1 => _mm512_maskz_loadu_epi8(mask, p.cast()),
            2 => _mm512_maskz_loadu_epi16(mask as u32, p.cast()),
            _ => _mm512_maskz_loadu_epi32(mask as u16, p.cast()),
        }
    }
}

/// Every lane `W` bytes wide set to `e`.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn splat<const W: usize>(e: u64) -> __m512i {
    match W {
        1 => _mm512_set1_epi8(e as i8),
        2 => _mm512_set1_epi16(e as i16),
        _ => _mm512_set1_epi32(e as i32),
    }
}

#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn add<const W: usize>(a: __m512i, b: __m512i) -> __m512i {
    match W {
        1 => _mm512_add_epi8(a, b),
        2 => _mm512_add_epi16(a, b),
        _ => _mm512_add_epi32(a, b),
    }
}

/// `a` with the lanes of `m` from `b`.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn mov<const W: usize>(a: __m512i, m: u64, b: __m512i) -> __m512i {
    match W {
        1 => _mm512_mask_mov_epi8(a, m, b),
        2 => _mm512_mask_mov_epi16(a, m as u32, b),
        _ => _mm512_mask_mov_epi32(a, m as u16, b),
    }
}

/// The magnitude bits of float lanes (for the NaN check; zero for integers).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn magnitude<const W: usize, const KIND: u8>(raw: __m512i) -> __m512i {
    match (KIND, W) {
        (HALF, _) => _mm512_and_si512(raw, _mm512_set1_epi16(0x7fff)),
        (FLOAT, _) => _mm512_and_si512(raw, _mm512_set1_epi32(0x7fff_ffff)),
        _ => raw,
    }
}

/// The larger magnitudes of `a` and `b` (floats only).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn widest<const W: usize, const KIND: u8>(a: __m512i, b: __m512i) -> __m512i {
    match KIND {
        HALF => _mm512_max_epu16(a, b),
        FLOAT => _mm512_max_epu32(a, b),
        _ => a,
    }
}

/// Whether a magnitude of `m` is over infinity's (a NaN).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn has_nan<const W: usize>(m: __m512i, inf: u32) -> bool {
    if W == 2 {
        _mm512_cmp_epu16_mask(m, _mm512_set1_epi16(inf as i16), _MM_CMPINT_NLE) != 0
    } else {
        _mm512_cmp_epu32_mask(m, _mm512_set1_epi32(inf as i32), _MM_CMPINT_NLE) != 0
    }
}

/// The unsigned order key of two's complement sign-magnitude lanes (-0 and +0 one key), greater
/// for the better element of `D`.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn sign_magnitude<D: Direction, const W: usize>(raw: __m512i) -> __m512i {
    let flip = if D::IS_MIN { u64::MAX >> 1 } else { 1 << 63 };
    if W == 2 {
        let s = _mm512_srai_epi16::<15>(raw);
        let m = _mm512_and_si512(raw, _mm512_set1_epi16(0x7fff));
        let k = _mm512_sub_epi16(_mm512_xor_si512(m, s), s);
        _mm512_xor_si512(k, _mm512_set1_epi16((flip >> 48) as i16))
    } else {
        let s = _mm512_srai_epi32::<31>(raw);
        let m = _mm512_and_si512(raw, _mm512_set1_epi32(0x7fff_ffff));
        let k = _mm512_sub_epi32(_mm512_xor_si512(m, s), s);
        _mm512_xor_si512(k, _mm512_set1_epi32((flip >> 32) as i32))
    }
}

/// A window's lanes as the pass compares them: unsigned keys, greater better (floats `f32` as
/// they are).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn prep<D: Direction, const W: usize, const KIND: u8>(raw: __m512i) -> __m512i {
    let top = 1u64 << (8 * W - 1);
    match KIND {
        UNSIGNED if D::IS_MIN => _mm512_xor_si512(raw, splat::<W>(u64::MAX)),
        SIGNED if D::IS_MIN => _mm512_xor_si512(raw, splat::<W>(top - 1)),
        SIGNED => _mm512_xor_si512(raw, splat::<W>(top)),
        HALF => sign_magnitude::<D, W>(raw),
        _ => raw,
    }
}

/// The lanes where `e` beats `m` (strictly, or with `LAST` at least ties).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn better<D: Direction, const LAST: bool, const W: usize, const KIND: u8>(
    e: __m512i,
    m: __m512i,
) -> u64 {
    if KIND == FLOAT {
        let (e, m) = (_mm512_castsi512_ps(e), _mm512_castsi512_ps(m));
        return u64::from(match (D::IS_MIN, LAST) {
            (false, false) => _mm512_cmp_ps_mask::<_CMP_GT_OQ>(e, m),
            (false, true) => _mm512_cmp_ps_mask::<_CMP_GE_OQ>(e, m),
            (true, false) => _mm512_cmp_ps_mask::<_CMP_LT_OQ>(e, m),
            (true, true) => _mm512_cmp_ps_mask::<_CMP_LE_OQ>(e, m),
        });
    }
    match (W, LAST) {
        (1, false) => _mm512_cmp_epu8_mask::<_MM_CMPINT_NLE>(e, m),
        (1, true) => _mm512_cmp_epu8_mask::<_MM_CMPINT_NLT>(e, m),
        (2, false) => u64::from(_mm512_cmp_epu16_mask::<_MM_CMPINT_NLE>(e, m)),
        (2, true) => u64::from(_mm512_cmp_epu16_mask::<_MM_CMPINT_NLT>(e, m)),
        (_, false) => u64::from(_mm512_cmp_epu32_mask::<_MM_CMPINT_NLE>(e, m)),
        (_, true) => u64::from(_mm512_cmp_epu32_mask::<_MM_CMPINT_NLT>(e, m)),
    }
}

/// The pass's best lanes as unsigned keys, greater better.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn key<D: Direction, const W: usize, const KIND: u8>(m: __m512i) -> __m512i {
    if KIND == FLOAT {
        sign_magnitude::<D, W>(m)
    } else {
        m
    }
}

/// The low halves of each 16-byte chunk of `tie` and `key` interleaved: lanes twice as wide,
/// the key above the row.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn unpack_lo<const W: usize>(tie: __m512i, key: __m512i) -> __m512i {
    match W {
        1 => _mm512_unpacklo_epi8(tie, key),
        2 => _mm512_unpacklo_epi16(tie, key),
        _ => _mm512_unpacklo_epi32(tie, key),
    }
}

/// [`unpack_lo`] of the high halves.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn unpack_hi<const W: usize>(tie: __m512i, key: __m512i) -> __m512i {
    match W {
        1 => _mm512_unpackhi_epi8(tie, key),
        2 => _mm512_unpackhi_epi16(tie, key),
        _ => _mm512_unpackhi_epi32(tie, key),
    }
}

/// The lanes (twice `W` wide) of `a` then `b` that `idx` names.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn perm<const W: usize>(a: __m512i, idx: __m512i, b: __m512i) -> __m512i {
    match W {
        1 => _mm512_permutex2var_epi16(a, idx, b),
        2 => _mm512_permutex2var_epi32(a, idx, b),
        _ => _mm512_permutex2var_epi64(a, idx, b),
    }
}

/// Unsigned maxima of lanes twice `W` wide.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn max<const W: usize>(a: __m512i, b: __m512i) -> __m512i {
    match W {
        1 => _mm512_max_epu16(a, b),
        2 => _mm512_max_epu32(a, b),
        _ => _mm512_max_epu64(a, b),
    }
}

/// The rows in the low `W` bytes of the first `c` lanes (twice `W` wide) of `lo` then `hi`,
/// unflipped, as `i64` into `y`.
///
/// # Safety
/// The CPU has AVX-512 F, BW, VL and DQ; `y` holds `c` (1 to 15) lanes.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn store<const W: usize, const LAST: bool>(lo: __m512i, hi: __m512i, y: *mut i64, c: usize) {
    let t = unflip::<W, LAST>(lo);
    let (first, second) = match W {
        1 => (
            _mm512_cvtepu16_epi64(_mm512_castsi512_si128(t)),
            _mm512_cvtepu16_epi64(_mm512_extracti32x4_epi32::<1>(t)),
        ),
        2 => (
            _mm512_cvtepu32_epi64(_mm512_castsi512_si256(t)),
            _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64::<1>(t)),
        ),
        _ => (t, unflip::<W, LAST>(hi)),
    };
    let m = (1u32 << c.min(8)) - 1;
    // SAFETY: as the caller's: the first `c` lanes of `y`.
    unsafe {
        _mm512_mask_storeu_epi64(y, m as u8, first);
        if c > 8 {
            _mm512_mask_storeu_epi64(y.add(8), ((1u32 << (c - 8)) - 1) as u8, second);
        }
    }
}

/// The rows in the low `W` bytes of lanes twice as wide, the others cleared, unflipped.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn unflip<const W: usize, const LAST: bool>(t: __m512i) -> __m512i {
    let low = wide_splat::<W>(if W == 4 {
        u32::MAX.into()
    } else {
        (1u64 << (8 * W)) - 1
    });
    let t = _mm512_and_si512(t, low);
    if LAST {
        t
    } else {
        _mm512_xor_si512(t, low)
    }
}

/// Every lane twice `W` bytes wide set to `e`.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn wide_splat<const W: usize>(e: u64) -> __m512i {
    match W {
        1 => _mm512_set1_epi16(e as i16),
        2 => _mm512_set1_epi32(e as i32),
        _ => _mm512_set1_epi64(e as i64),
    }
}

#[cfg(test)]
mod tests;
