//! ArgMax and ArgMin (the first index or the last, with or without the best elements), and
//! ReduceMax and ReduceMin, of contiguous rows of [`MIN_ROW`] elements or more, of every type,
//! in 64-byte AVX-512 vectors: the best element first, then (the arg-reductions) its index by
//! equality.
//!
//! The first pass folds the row into four vectors of lane-wise bests (one operation a load for
//! integers; floats with a running max of their magnitudes beside, for NaN; f16 and bf16 as
//! signed order keys, two operations, with a running max of their raw bits that catches a NaN
//! of the sign that loses), the rest of the row (fewer than a vector's lanes) loaded masked and
//! filled with the row's first element, which changes no extreme. The four fold into one, and
//! that one across its lanes into every lane. The second pass looks for the first lane equal to
//! it (from the end with the last index), one compare a vector, and stops there: on average
//! half the row again, from the cache the first pass filled. A NaN makes the second pass look
//! for the first (last) NaN instead. Equality is the contract's: -0 and +0 tie (floats compare
//! as floats; f16 and bf16 where the best is a zero look for either zero).
//!
//! Rows of up to 16 vectors (of bytes 8) go by [`few`] instead: each row's vectors loaded once
//! into registers, and its index found in those without a branch.
//!
//! Against the kernels before it (the row kernels of `kernels::arg_row`, portable code built
//! for SSE2 or AVX2, and the `f32` row kernels), over 2 MiB on an AMD EPYC (Zen 4): see
//! [`prefers`].

use core::arch::x86_64::{
    __m512i, _mm512_castsi512_si128, _mm512_loadu_si512, _mm512_mask_loadu_epi16,
    _mm512_mask_loadu_epi32, _mm512_mask_loadu_epi64, _mm512_mask_loadu_epi8, _mm512_set1_epi16,
    _mm512_shuffle_epi32, _mm512_shuffle_epi8, _mm512_shuffle_i64x2, _mm512_testn_epi16_mask,
    _mm_cvtsi128_si64, _MM_PERM_ENUM,
};

use super::arg_shifted::low_lanes;
use super::byte_rows::{best_nan, sign_keys, sign_keys_of, watch, watched};
use super::lanes::{has_nan, magnitude, splat, widest};
use super::reduce::best;
use super::{kind_of, FLOAT, HALF, SIGNED, UNSIGNED};
use crate::kernels::index::{index, Index};
use crate::kernels::isa;
use crate::{Direction, Element};

/// The shortest rows taken.
pub(crate) const MIN_ROW: usize = 2;

/// Whether [`arg_rows`] takes rows of `c` elements of `T` on this CPU: any type, rows of
/// [`MIN_ROW`] or more, AVX-512 (F, BW, VL, DQ).
#[inline(always)]
pub(crate) fn takes<T: Element>(c: usize) -> bool {
    size_of::<T>() == kind_of::<T>().0 && c >= MIN_ROW && isa::level() >= isa::AVX512
}

/// Whether [`arg_rows`] is the kernel for rows of `c` elements of `T`: it [`takes`] them and
/// measured faster than the kernels before it, over 2 MiB on an AMD EPYC (Zen 4), before and
/// after builds run in turn, the least of three runs each (a noisy machine).
///
/// Rows of a few vectors ([`few`]: up to 16, of bytes 8): 8-byte integers from rows of 7
/// (`i64` rows of 8, 16, 31, 64 and 128: 0.6x, 0.45x, 0.37x, 0.46x and 0.75x the time), `f64`
/// from 21 (rows of 25 and 31 0.8-0.9x; 0.33-0.45x over rows of 33 to 64, where the longer rows'
/// passes took them before, 0.75x over 100 and 128; rows of 16 and 20 0.95-1.1x, of 5 to 12
/// 1.15-1.3x), 4-byte integers from 25 (`i32` rows of 25 and 31 0.62-0.71x, of 33 to 128
/// 0.24-0.6x, of 256 0.8x; rows of 9 to 16 1.1-1.5x), `f32` rows of 33 to 160
/// (0.92x, 0.68x over 80, 0.56-0.65x over 128 and 160; rows
/// under 32 1.3-3.5x, over 160 1.05x the `f32` row kernels'), 2-byte integers from 80 (0.85x;
/// 128 to 256 0.35-0.69x; 16 to 48 1.3-4x), f16 and bf16 from 128 (0.56x, 256 0.8x; 100
/// 1.05x), `i8` and bool from 257 (`i8` rows of 400 and 512 0.47x and 0.75x; of 256 1.07x).
///
/// Longer rows: 4- and 8-byte integers and `f64` (`i32` rows of 1000 and 100000 0.4-0.6x and
/// 0.35-0.4x the time; `i64` 0.9-1.05x and 0.7x), 2-byte elements (`u16` rows of 1000 0.8-0.93x,
/// of 100000 0.62-0.7x; f16 0.9-0.95x and 0.45x), `i8` and bool (`i8` rows of 1000 0.42x, bool
/// 0.07-0.12x). Not `u8`, whose earlier kernel stops at the first 255 (0 for a Min), which
/// random bytes hold early (1.26-1.41x the time in the matrix over rows of 1000). Not `f32`,
/// whose row kernels (`kernels::rows_f32`) did as well or better, nor 8-byte integer rows of 512
/// or more: in the matrix's alternating builds (random bits, the best anywhere) 1.1-1.4x the
/// time of the one-pass AVX2 kernel over rows of 1000 and 100000, against 0.64-0.66x over rows
/// of 80.
#[inline(always)]
pub(crate) fn prefers<T: Element>(c: usize) -> bool {
    let (w, kind, _) = kind_of::<T>();
    let (from, to) = match (w, kind) {
        // `u8`: the earlier kernel stops its first pass at the first 255 (0 for a Min), which
        // random bytes hold early (1.26-1.41x the time here over rows of 1000).
        (1, UNSIGNED) if T::DTYPE == crate::DType::U8 => return false,
        (1, _) => (257, usize::MAX),
        (2, HALF) => (128, usize::MAX),
        (2, _) => (80, usize::MAX),
        (4, FLOAT) => (33, 160),
        (4, _) => (25, usize::MAX),
        (8, FLOAT) => (21, usize::MAX),
        // 8-byte integers: the one-pass AVX2 kernel did better over rows of 512 and more in the
        // matrix (random bits: the best anywhere, the second pass half the row).
        _ => (7, 511),
    };
    (from..=to).contains(&c) && takes::<T>(c)
}

/// Whether [`reduce_rows`] is the kernel for rows of `c` elements of `T`: it [`takes`] them and
/// measured faster than the kernels before it (as [`prefers`]): ReduceMax of rows of 1000
/// 0.43-0.9x the time (`i32` 49 us to 22, `i8` 54 to 23, `u16` 54 to 27, `f32` 30 to 23; the
/// stream 21), of 100000 0.45-1.05x; rows of 200 of 4- and 8-byte integers and 2-byte integers
/// 0.6-0.85x (`i32` 0.33x), of `f64` and `f32` about 1x; rows of one or two vectors of bytes
/// and halves 1.5-4x (the fold across lanes costs more than the row); f16 and bf16 rows of 262
/// to 511 0.57-0.7x the time of the AVX2 row summary before (1.5x a streaming read there),
/// of 200 and 256 0.95x. So: 4- and 8-byte integers and `f64` from rows of 32, 2-byte integers
/// from 128, f16 and bf16 from 200, bytes and `f32` from 512; not bool, whose ReduceMax the
/// earlier kernels end at the first `true` (rows of 100000 of random bools: 150x faster than
/// reading them).
#[inline(always)]
pub(crate) fn reduce_prefers<T: Element>(c: usize) -> bool {
    let (w, kind, _) = kind_of::<T>();
    let from = match (w, kind) {
        // bool: the earlier kernels stop at the first element no other beats.
        _ if T::DTYPE == crate::DType::Bool => return false,
        (2, HALF) => 200,
        (1, _) | (4, FLOAT) => 512,
        (2, _) => 128,
        _ => 32,
    };
    c >= from && takes::<T>(c)
}

/// The index of the first best element of `D` (or first NaN; with `LAST` the last) of each
/// contiguous row of `c` of `x` into `y` (one a row), and with `v` not empty that element into
/// `v`: `true`, or `false` (nothing written) where this kernel does not take the rows
/// ([`takes`]), `x` holds fewer rows than `y` or `v` is neither empty nor as long as `y`.
#[inline(always)]
pub(crate) fn arg_rows<T: Element, D: Direction, const LAST: bool, I: Index>(
    x: &[T],
    y: &mut [I],
    v: &mut [T],
    c: usize,
) -> bool {
    let rows = y.len();
    if !takes::<T>(c) || x.len() / c < rows || !(v.is_empty() || v.len() == rows) {
        return false;
    }
    let (xp, vp, values) = (
        x.as_ptr().cast::<u8>(),
        v.as_mut_ptr().cast::<u8>(),
        !v.is_empty(),
    );
    let (w, kind, inf) = kind_of::<T>();
    macro_rules! go {
        ($w:literal, $kind:expr) => {
            // SAFETY: `takes` found AVX-512 F, BW, VL and DQ; `T` is `$w` bytes wide of the
            // kind named; `rows` rows of `c` are in `x`, and `v` is empty or holds `rows`.
            unsafe {
                if values {
                    arg_in::<D, LAST, I, $w, { $kind }, true>(xp, y, vp, c, inf)
                } else {
                    arg_in::<D, LAST, I, $w, { $kind }, false>(xp, y, vp, c, inf)
                }
            }
        };
    }
    by_kind!(w, kind, go);
    true
}

/// Calls `$go!(width, kind)` with the width and kind of the element (bool and the unsigned
/// integers `UNSIGNED`).
macro_rules! by_kind {
    ($w:expr, $kind:expr, $go:ident) => {
        match ($w, $kind) {
            (1, SIGNED) => $go!(1, SIGNED),
            (1, _) => $go!(1, UNSIGNED),
            (2, HALF) => $go!(2, HALF),
            (2, SIGNED) => $go!(2, SIGNED),
            (2, _) => $go!(2, UNSIGNED),
            (4, FLOAT) => $go!(4, FLOAT),
            (4, SIGNED) => $go!(4, SIGNED),
            (4, _) => $go!(4, UNSIGNED),
            (_, FLOAT) => $go!(8, FLOAT),
            (_, SIGNED) => $go!(8, SIGNED),
            _ => $go!(8, UNSIGNED),
        }
    };
}
use by_kind;

/// Each element of `y` (one a row of `c` of `x`) the extreme of `D` of its row (a NaN: the
/// row's first), or with `fresh` false that of itself and its row (itself where it is a NaN):
/// `true`, or `false` (nothing written) where this kernel does not take the rows ([`takes`]) or
/// `x` holds fewer rows than `y`.
#[inline(always)]
pub(crate) fn reduce_rows<T: Element, D: Direction>(
    y: &mut [T],
    x: &[T],
    c: usize,
    fresh: bool,
) -> bool {
    if !takes::<T>(c) || x.len() / c < y.len() {
        return false;
    }
    let (w, kind, inf) = kind_of::<T>();
    macro_rules! go {
        ($w:literal, $kind:expr) => {
            // SAFETY: as in `arg_rows`; `y.len()` rows of `c` are in `x`.
            unsafe { reduce_in::<T, D, $w, { $kind }>(y, x, c, fresh, inf) }
        };
    }
    by_kind!(w, kind, go);
    true
}

/// [`reduce_rows`] once checked, for `W`-byte elements of `KIND`.
///
/// # Safety
/// AVX-512 F, BW, VL, DQ; `T` is `W` bytes of `KIND`; `y.len()` rows of `c` at `x`.
#[target_feature(enable = "avx2,bmi1,lzcnt,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn reduce_in<T: Element, D: Direction, const W: usize, const KIND: u8>(
    y: &mut [T],
    x: &[T],
    c: usize,
    fresh: bool,
    inf: u64,
) {
    crate::kernels::shared::align_frame();
    for (o, row) in y.iter_mut().zip(x.chunks_exact(c)) {
        let p = row.as_ptr().cast::<u8>();
        // SAFETY: the row's `c` elements are at `p`.
        let (target, mode) = unsafe { extreme::<D, W, KIND>(p, c, inf) };
        let e = if mode == NAN {
            // SAFETY: as above; the row holds a NaN.
            row[unsafe { find::<false, W, KIND, NAN>(p, c, target, inf) }]
        } else {
            let bits = _mm_cvtsi128_si64(_mm512_castsi512_si128(target)).to_le_bytes();
            T::read_le(&bits[..W]).unwrap_or(row[0])
        };
        if fresh || !(o.is_nan() || D::better(*o, e)) {
            *o = e;
        }
    }
}

/// What the second pass looks for: the best element itself.
const EQUAL: u8 = 0;
/// Either zero (f16 and bf16 whose best is a zero).
const ZERO: u8 = 1;
/// The first (last) NaN.
const NAN: u8 = 2;

/// [`arg_rows`] once checked, for `W`-byte elements of `KIND`.
///
/// # Safety
/// AVX-512 F, BW, VL, DQ; `y.len()` rows of `c` (at least [`MIN_ROW`]) at `x`, and with
/// `VALUES` as many elements at `v`.
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn arg_in<
    D: Direction,
    const LAST: bool,
    I: Index,
    const W: usize,
    const KIND: u8,
    const VALUES: bool,
>(
    x: *const u8,
    y: &mut [I],
    v: *mut u8,
    c: usize,
    inf: u64,
) {
    crate::kernels::shared::align_frame();
    let l = 64 / W;
    if c <= few::most_vectors(W) * l {
        // SAFETY: as the caller's; the rows are of `c.div_ceil(l)` vectors.
        unsafe {
            match c.div_ceil(l) {
                1 => few::arg_in::<D, LAST, I, W, KIND, VALUES, 1>(x, y, v, c, inf),
                2 => few::arg_in::<D, LAST, I, W, KIND, VALUES, 2>(x, y, v, c, inf),
                3 => few::arg_in::<D, LAST, I, W, KIND, VALUES, 3>(x, y, v, c, inf),
                4 => few::arg_in::<D, LAST, I, W, KIND, VALUES, 4>(x, y, v, c, inf),
                5 => few::arg_in::<D, LAST, I, W, KIND, VALUES, 5>(x, y, v, c, inf),
                6 => few::arg_in::<D, LAST, I, W, KIND, VALUES, 6>(x, y, v, c, inf),
                7 => few::arg_in::<D, LAST, I, W, KIND, VALUES, 7>(x, y, v, c, inf),
                8 => few::arg_in::<D, LAST, I, W, KIND, VALUES, 8>(x, y, v, c, inf),
                9 => few::arg_in::<D, LAST, I, W, KIND, VALUES, 9>(x, y, v, c, inf),
                10 => few::arg_in::<D, LAST, I, W, KIND, VALUES, 10>(x, y, v, c, inf),
                11 => few::arg_in::<D, LAST, I, W, KIND, VALUES, 11>(x, y, v, c, inf),
                12 => few::arg_in::<D, LAST, I, W, KIND, VALUES, 12>(x, y, v, c, inf),
                13 => few::arg_in::<D, LAST, I, W, KIND, VALUES, 13>(x, y, v, c, inf),
                14 => few::arg_in::<D, LAST, I, W, KIND, VALUES, 14>(x, y, v, c, inf),
                15 => few::arg_in::<D, LAST, I, W, KIND, VALUES, 15>(x, y, v, c, inf),
                _ => few::arg_in::<D, LAST, I, W, KIND, VALUES, 16>(x, y, v, c, inf),
            }
        }
        return;
    }
    for (r, o) in y.iter_mut().enumerate() {
        let p = x.wrapping_add(r * c * W);
        // SAFETY: row `r` is the `c` elements at `p`.
        let at = unsafe {
            let (target, mode) = extreme::<D, W, KIND>(p, c, inf);
            match mode {
                EQUAL => find::<LAST, W, KIND, EQUAL>(p, c, target, inf),
                ZERO => find::<LAST, W, KIND, ZERO>(p, c, target, inf),
                _ => find::<LAST, W, KIND, NAN>(p, c, target, inf),
            }
        };
        *o = index::<I>(at);
        if VALUES {
            // SAFETY: element `at` of the row, to element `r` of `v`.
            unsafe { core::ptr::copy_nonoverlapping(p.add(at * W), v.add(r * W), W) };
        }
    }
}

/// The `W`-byte lanes of `mask` loaded from `p`, the others `src`'s.
///
/// # Safety
/// AVX-512 F and BW; the lanes in `mask` are readable.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn load_or<const W: usize>(src: __m512i, p: *const u8, mask: u64) -> __m512i {
    // SAFETY: as the caller's; masked lanes are not read.
    unsafe {
        match W {
            1 => _mm512_mask_loadu_epi8(src, mask, p.cast()),
            2 => _mm512_mask_loadu_epi16(src, mask as u32, p.cast()),
            4 => _mm512_mask_loadu_epi32(src, mask as u16, p.cast()),
            _ => _mm512_mask_loadu_epi64(src, mask as u8, p.cast()),
        }
    }
}

/// The better of `a` and `b` in `D`, lane by lane: elements of `KIND`, f16 and bf16 as their
/// signed keys ([`sign_keys`]).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn better<D: Direction, const W: usize, const KIND: u8>(a: __m512i, b: __m512i) -> __m512i {
    if KIND == HALF {
        best::<D, W, SIGNED>(a, b)
    } else {
        best::<D, W, KIND>(a, b)
    }
}

/// The key [`better`] compares: f16 and bf16 their signed keys, others their bits.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn key<const KIND: u8>(raw: __m512i) -> __m512i {
    if KIND == HALF {
        sign_keys(raw)
    } else {
        raw
    }
}

/// The vector of the row at `p` from element `k` (of `c`): whole, or its lanes past the row
/// `fill`'s.
///
/// # Safety
/// AVX-512 F and BW; `c` readable elements at `p`, `k` under `c`.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn row_vector<const W: usize>(p: *const u8, k: usize, c: usize, fill: __m512i) -> __m512i {
    let n = c - k;
    // SAFETY: as the caller's; masked lanes are not read.
    unsafe {
        if n >= 64 / W {
            _mm512_loadu_si512(p.add(k * W).cast())
        } else {
            load_or::<W>(fill, p.add(k * W), low_lanes(n))
        }
    }
}

/// The best of `D` of the row of `c` at `p`, in every lane, as the second pass compares it
/// (the element's bits), and what that pass looks for.
///
/// # Safety
/// AVX-512 F, BW, VL, DQ; `c` (at least one) readable elements at `p`.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn extreme<D: Direction, const W: usize, const KIND: u8>(
    p: *const u8,
    c: usize,
    inf: u64,
) -> (__m512i, u8) {
    let l = 64 / W;
    // SAFETY: the row's first element.
    let first = splat::<W>(unsafe { read_bits::<W>(p) });
    let watch0 = if KIND == FLOAT {
        magnitude::<W, KIND>(first)
    } else {
        first
    };
    let (mut a, mut seen) = ([key::<KIND>(first); 4], [watch0; 2]);
    let mut k = 0;
    while k + 4 * l <= c {
        for (j, a) in a.iter_mut().enumerate() {
            // SAFETY: a whole vector within the row.
            let raw = unsafe { _mm512_loadu_si512(p.add((k + j * l) * W).cast()) };
            seen[j % 2] = look::<D, W, KIND>(seen[j % 2], raw);
            *a = better::<D, W, KIND>(*a, key::<KIND>(raw));
        }
        k += 4 * l;
    }
    while k < c {
        // SAFETY: `k` is under `c`.
        let raw = unsafe { row_vector::<W>(p, k, c, first) };
        seen[0] = look::<D, W, KIND>(seen[0], raw);
        a[0] = better::<D, W, KIND>(a[0], key::<KIND>(raw));
        k += l;
    }
    let b = better::<D, W, KIND>(
        better::<D, W, KIND>(a[0], a[1]),
        better::<D, W, KIND>(a[2], a[3]),
    );
    settle::<D, W, KIND>(b, join::<D, W, KIND>(seen[0], seen[1]), inf)
}

/// The best of the lane-wise bests `b` (keys) in every lane, as the second pass compares it,
/// and what that pass looks for, `seen` the row's NaN watch ([`look`]).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn settle<D: Direction, const W: usize, const KIND: u8>(
    b: __m512i,
    seen: __m512i,
    inf: u64,
) -> (__m512i, u8) {
    let b = spread::<D, W, KIND>(b);
    match KIND {
        HALF => {
            if watched::<D>(seen, inf) || best_nan::<D>(b, u32::MAX, sign_keys_of(inf)) {
                (b, NAN)
            } else {
                let bits = sign_keys(b);
                let zero = _mm512_testn_epi16_mask(bits, _mm512_set1_epi16(0x7fff)) != 0;
                (bits, if zero { ZERO } else { EQUAL })
            }
        }
        FLOAT if has_nan::<W>(seen, inf) => (b, NAN),
        _ => (b, EQUAL),
    }
}

/// Two NaN watches ([`look`]) joined into one.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn join<D: Direction, const W: usize, const KIND: u8>(a: __m512i, b: __m512i) -> __m512i {
    match KIND {
        HALF => watch::<D>(a, b),
        FLOAT => widest::<W, KIND>(a, b),
        _ => a,
    }
}

/// The NaN watch of one load: f16 and bf16 their raw bits ([`watch`]), floats their magnitude
/// ([`widest`]); nothing for integers.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn look<D: Direction, const W: usize, const KIND: u8>(seen: __m512i, raw: __m512i) -> __m512i {
    match KIND {
        HALF => watch::<D>(seen, raw),
        FLOAT => widest::<W, KIND>(seen, magnitude::<W, KIND>(raw)),
        _ => seen,
    }
}

/// The `W` bytes at `p`, as an integer.
///
/// # Safety
/// `W` readable bytes at `p`.
#[inline(always)]
unsafe fn read_bits<const W: usize>(p: *const u8) -> u64 {
    // SAFETY: as the caller's.
    unsafe {
        match W {
            1 => u64::from(p.read()),
            2 => u64::from(p.cast::<u16>().read_unaligned()),
            4 => u64::from(p.cast::<u32>().read_unaligned()),
            _ => p.cast::<u64>().read_unaligned(),
        }
    }
}

/// The best of `D` of `v`'s lanes (`W` bytes, of `KIND`) in every lane: halves swapped and
/// folded, down to single lanes.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn spread<D: Direction, const W: usize, const KIND: u8>(v: __m512i) -> __m512i {
    let v = better::<D, W, KIND>(v, _mm512_shuffle_i64x2::<0b0100_1110>(v, v));
    let mut v = better::<D, W, KIND>(v, _mm512_shuffle_i64x2::<0b1011_0001>(v, v));
    v = better::<D, W, KIND>(
        v,
        _mm512_shuffle_epi32::<{ 0b0100_1110 as _MM_PERM_ENUM }>(v),
    );
    if W <= 4 {
        v = better::<D, W, KIND>(
            v,
            _mm512_shuffle_epi32::<{ 0b1011_0001 as _MM_PERM_ENUM }>(v),
        );
    }
    if W == 1 {
        // Bytes 2k and 2k + 1 swapped, then bytes 4k..4k+1 with 4k+2..4k+3.
        let swap = splat::<8>(0x0607_0405_0203_0001);
        let v2 = better::<D, W, KIND>(v, _mm512_shuffle_epi8(v, swap));
        let swap = splat::<8>(0x0504_0706_0100_0302);
        better::<D, W, KIND>(v2, _mm512_shuffle_epi8(v2, swap))
    } else if W == 2 {
        let swap = splat::<8>(0x0504_0706_0100_0302);
        better::<D, W, KIND>(v, _mm512_shuffle_epi8(v, swap))
    } else {
        v
    }
}

mod few;
mod search;

use search::find;

#[cfg(test)]
mod tests;
