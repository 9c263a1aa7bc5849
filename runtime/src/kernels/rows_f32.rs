//! Short contiguous rows of `f32` on x86-64 in SSE2 vectors (always present there): reductions
//! and arg-reductions of rows of 2 and of 4 to [`MAX_ROW`] elements, four rows at a time.
//!
//! Each row is folded into one vector by the order alone (overlapping loads cover a length that
//! is not a multiple of four: a max or min may see an element twice), then the four rows'
//! vectors are reduced together by shuffles, so that one vector holds the four rows' extremes.
//! An arg-reduction then finds each row's extreme in its row by equality, as a bit mask whose
//! lowest (highest with `LAST`) set bit is the index. NaN is only flagged on the way; a group of
//! rows that holds one is done again by the exact rule. The unrolled element-by-element forms in
//! [`narrow`](super::narrow) ran across rows at about a third of the memory speed, and the row
//! kernels pay a setup and a horizontal step per row: LLVM does not find these shuffles itself.

use core::arch::x86_64::{
    __m128, _mm_castps_si128, _mm_cmpeq_ps, _mm_cmplt_ps, _mm_cmpunord_ps, _mm_loadu_ps,
    _mm_max_ps, _mm_min_ps, _mm_movehl_ps, _mm_movelh_ps, _mm_movemask_epi8, _mm_movemask_ps,
    _mm_or_ps, _mm_packs_epi16, _mm_packs_epi32, _mm_setzero_ps, _mm_shuffle_ps, _mm_storeu_ps,
    _mm_unpackhi_ps, _mm_unpacklo_ps,
};

use super::arg_row::arg_row;
use super::index::{index, Index};

pub(super) mod avx2;
mod columns;
mod eights;
#[cfg(not(feature = "small-code"))]
mod eights512;
mod fixed;
#[cfg_attr(feature = "small-code", allow(dead_code))]
mod hard_eights;
#[cfg_attr(feature = "small-code", allow(dead_code))]
mod hard_equal;
#[cfg_attr(any(debug_assertions, feature = "small-code"), allow(unused_imports))]
pub(super) use hard_equal::hardmax_rows_by_equality;
#[cfg_attr(feature = "small-code", allow(dead_code))]
mod hard_row;
mod long;
#[cfg_attr(feature = "small-code", allow(dead_code))]
mod ones;
mod pairs;
mod position;
mod reduce;
pub(super) mod short_reduce;
pub(super) mod tracked;
mod values;
mod widened;

#[cfg(not(any(feature = "small-code", debug_assertions)))]
pub(super) use pairs::reduce_pairs_fresh;
#[cfg_attr(debug_assertions, allow(unused_imports))]
pub(super) use pairs::{hardmax_pairs, two_rows};

use crate::{DType, Direction, Element, Max};
#[cfg_attr(not(debug_assertions), allow(unused_imports))]
pub(super) use fixed::{arg_short_fixed, arg_wide_dynamic, reduce_short_fixed};
use ones::Ones;
use position::position;
use reduce::reduce_sse;
#[cfg_attr(debug_assertions, allow(unused_imports))]
pub(super) use reduce::{
    fold_planes, reduce_rows, reduce_rows_const, reduce_rows_nan_free, row_extreme,
};
pub(super) use values::Values;
#[cfg_attr(debug_assertions, allow(unused_imports))]
pub(super) use widened::arg_rows_widened;

/// The longest rows this module takes: past them, the row kernels' sixteen lanes and early
/// exits do as well.
pub(super) const MAX_ROW: usize = 128;

/// The arg-reductions of rows from this length run in AVX2 vectors one row at a time where
/// the CPU has them ([`avx2`]), once [`eights`] has taken the whole groups of eight rows of up
/// to 64 elements: this sets the kernel of the rows left. Measured (2-core Xeon, family 6 model 207; 2 MiB of rows): ArgMax/ArgMin of rows
/// of 47 to 128 1.1-1.6x faster than the SSE2 kernel, which spends about one mispredicted branch
/// per row in its search by blocks; around 32 elements (one block) the SSE2 kernel is as fast or
/// faster, and over rows of 10 to 20 the AVX2 form, even with the length a constant, was
/// 1.1-1.6x slower.
pub(super) const AVX2_FROM: usize = 40;

/// The shortest rows reduced by the AVX2 kernel ([`avx2::reduce_rows`]) where the CPU has it,
/// with the length known when compiling (shorter, SSE2 was faster: rows of 8 and 10 1.1x).
pub(super) const AVX2_REDUCE_FROM: usize = 16;

/// The shortest rows whose extreme [`row_extreme`] finds in AVX2 vectors (over rows of 1000
/// and 100000 1.1-1.2x faster than the sixteen SSE2 lanes of the portable fold).
pub(super) const LONG_ROW: usize = 256;

/// The shortest rows reduced by the AVX2 kernel with a length known only at run time
/// ([`avx2::reduce_rows_dyn`]; generated code passes rows under 32 as constants).
pub(super) const AVX2_REDUCE_DYN_FROM: usize = 32;

/// Whether contiguous rows of `n` elements of `T` take this module's kernels.
#[inline(always)]
pub(super) const fn fits<T: Element>(n: usize) -> bool {
    !cfg!(feature = "small-code")
        && matches!(T::DTYPE, DType::F32)
        && (n == 2 || (n >= 4 && n <= MAX_ROW))
}

/// Whether contiguous rows of `n` elements of `T` take the arg kernel of short rows turned into
/// columns ([`columns`]) where the CPU has AVX2 (rows of three only there: [`fits`] leaves them
/// to the portable kernels).
#[inline(always)]
pub(super) const fn columns_fit<T: Element>(n: usize) -> bool {
    !cfg!(feature = "small-code")
        && matches!(T::DTYPE, DType::F32)
        && n >= columns::MIN_ROW
        && n <= columns::MAX_ROW
}

/// Whether contiguous rows of `n` elements of `T` take the long-row arg kernel ([`long`]) where
/// the CPU has AVX2.
#[inline(always)]
pub(super) const fn long_fits<T: Element>(n: usize) -> bool {
    !cfg!(feature = "small-code") && matches!(T::DTYPE, DType::F32) && n > MAX_ROW
}

// Safe wrappers of the SSE/SSE2 intrinsics used here. SAFETY (every block below): this module
// is only compiled where `target_feature = "sse2"` is on (the x86-64 baseline), so the CPU has
// these instructions; they take and return values only.

#[inline(always)]
fn zero() -> __m128 {
    unsafe { _mm_setzero_ps() }
}

#[inline(always)]
fn or(a: __m128, b: __m128) -> __m128 {
    unsafe { _mm_or_ps(a, b) }
}

/// Lanes where `a` or `b` is NaN.
#[inline(always)]
fn unord(a: __m128, b: __m128) -> __m128 {
    unsafe { _mm_cmpunord_ps(a, b) }
}

/// Lanes where `a == b`.
#[inline(always)]
fn eq(a: __m128, b: __m128) -> __m128 {
    unsafe { _mm_cmpeq_ps(a, b) }
}

/// Lanes where `a < b`.
#[inline(always)]
fn lt(a: __m128, b: __m128) -> __m128 {
    unsafe { _mm_cmplt_ps(a, b) }
}

/// The sign bits of the four lanes.
#[inline(always)]
fn mask(a: __m128) -> u32 {
    unsafe { _mm_movemask_ps(a) as u32 }
}

/// `[a0, a2, b0, b2]` and `[a1, a3, b1, b3]`.
#[inline(always)]
fn deinterleave(a: __m128, b: __m128) -> (__m128, __m128) {
    unsafe {
        (
            _mm_shuffle_ps::<0b10_00_10_00>(a, b),
            _mm_shuffle_ps::<0b11_01_11_01>(a, b),
        )
    }
}

/// The extreme of the four lanes of `v`, in every lane (by the order alone).
#[inline(always)]
fn spread<D: Direction>(v: __m128) -> __m128 {
    // SAFETY: as for the wrappers above.
    unsafe {
        let v = pick::<D>(_mm_shuffle_ps::<0b10_11_00_01>(v, v), v);
        pick::<D>(_mm_shuffle_ps::<0b01_00_11_10>(v, v), v)
    }
}

/// The extremes of four rows' lanes `a`, `b`, `c`, `d` (one vector per row), as lanes 0..4.
#[inline(always)]
fn across<D: Direction>(a: __m128, b: __m128, c: __m128, d: __m128) -> __m128 {
    // Lanes (a0 a2 | b0 b2 | a1 a3 | b1 b3) against their other halves, then the two halves of
    // each row's pair: each row's four lanes become one.
    unsafe {
        let ab = pick::<D>(_mm_unpackhi_ps(a, b), _mm_unpacklo_ps(a, b));
        let cd = pick::<D>(_mm_unpackhi_ps(c, d), _mm_unpacklo_ps(c, d));
        pick::<D>(_mm_movehl_ps(cd, ab), _mm_movelh_ps(ab, cd))
    }
}

/// The four elements of `x` from `at` (zeros where `x` is shorter: callers pass constant
/// offsets inside their rows, so the check folds away).
#[inline(always)]
fn load(x: &[f32], at: usize) -> __m128 {
    match x.get(at..).and_then(<[f32]>::first_chunk::<4>) {
        // SAFETY: the chunk holds four `f32`s; `loadu` has no alignment requirement.
        Some(c) => unsafe { _mm_loadu_ps(c.as_ptr()) },
        None => zero(),
    }
}

/// One bit per lane of four masks, in order: lanes of `a` are bits 0 to 3, of `d` 12 to 15.
#[inline(always)]
fn mask16(a: __m128, b: __m128, c: __m128, d: __m128) -> u32 {
    // SAFETY: as for the wrappers above. Lanes are all ones or all zeros, which the saturating
    // packs keep as they are, in order.
    unsafe {
        let ab = _mm_packs_epi32(_mm_castps_si128(a), _mm_castps_si128(b));
        let cd = _mm_packs_epi32(_mm_castps_si128(c), _mm_castps_si128(d));
        _mm_movemask_epi8(_mm_packs_epi16(ab, cd)).cast_unsigned()
    }
}

/// The four elements of `x`.
#[inline(always)]
fn load4(x: &[f32; 4]) -> __m128 {
    // SAFETY: `x` holds four `f32`s; `loadu` has no alignment requirement.
    unsafe { _mm_loadu_ps(x.as_ptr()) }
}

/// Stores `v` into `y`.
#[inline(always)]
fn store(y: &mut [f32; 4], v: __m128) {
    // SAFETY: `y` holds four `f32`s; `storeu` has no alignment requirement.
    unsafe { _mm_storeu_ps(y.as_mut_ptr(), v) }
}

/// Lane by lane, `v` where it is strictly more extreme than `acc`, otherwise `acc` (NaN in `v`
/// never enters): the step the other kernels use, as one `maxps`/`minps`.
#[inline(always)]
fn pick<D: Direction>(v: __m128, acc: __m128) -> __m128 {
    // SAFETY: as for the wrappers above.
    unsafe {
        if D::IS_MIN {
            _mm_min_ps(v, acc)
        } else {
            _mm_max_ps(v, acc)
        }
    }
}

/// One row (at least four elements) folded into four lanes by the order alone, in two chains
/// (both start from the last four elements when the length is not a multiple of four, so any
/// length is covered); NaN flagged into `nan`, two vectors per compare.
#[inline(always)]
fn fold_row<D: Direction>(row: &[f32], nan: &mut __m128) -> __m128 {
    fold_row_flags::<D, true>(row, nan)
}

/// NaN in the elements of `g` (a whole number of fours; any others are not looked at), two
/// vectors per compare: the lanes that met one are set.
#[inline(always)]
fn nan_lanes(g: &[f32]) -> __m128 {
    let (fours, _) = g.as_chunks::<4>();
    let (pairs, rest) = fours.as_chunks::<2>();
    let mut flags = zero();
    for [v, w] in pairs {
        flags = or(flags, unord(load4(v), load4(w)));
    }
    for v in rest {
        let v = load4(v);
        flags = or(flags, unord(v, v));
    }
    flags
}

/// [`fold_row`], flagging NaN only with `FLAGS`.
#[inline(always)]
fn fold_row_flags<D: Direction, const FLAGS: bool>(row: &[f32], nan: &mut __m128) -> __m128 {
    let Some(tail) = row.last_chunk::<4>() else {
        return zero();
    };
    let (chunks, extra) = row.as_chunks::<4>();
    // A length that is a multiple of four starts from its first four (the last four would be
    // folded twice); another from its last four, which the whole fours then do not reach.
    let (start, chunks) = match chunks.split_first() {
        Some((first, others)) if extra.is_empty() => (first, others),
        _ => (tail, chunks),
    };
    let mut a = load4(start);
    let mut b = a;
    let mut flags = if FLAGS { unord(a, a) } else { zero() };
    let (pairs, rest) = chunks.as_chunks::<2>();
    for [v, w] in pairs {
        let (v, w) = (load4(v), load4(w));
        if FLAGS {
            flags = or(flags, unord(v, w));
        }
        a = pick::<D>(v, a);
        b = pick::<D>(w, b);
    }
    for v in rest {
        let v = load4(v);
        if FLAGS {
            flags = or(flags, unord(v, v));
        }
        a = pick::<D>(v, a);
    }
    if FLAGS {
        *nan = or(*nan, flags);
    }
    pick::<D>(b, a)
}

/// The extremes of the four rows of `n` (2, or 4 to [`MAX_ROW`]) that `g` holds, by the order
/// alone, one per lane, and whether they hold a NaN (then the extremes are not the contract's).
#[inline(always)]
fn group_extremes<D: Direction>(g: &[f32], n: usize) -> (__m128, bool) {
    let nan;
    let r = if n == 2 {
        let (a, b) = (load(g, 0), load(g, 4));
        nan = unord(a, b);
        let (even, odd) = deinterleave(a, b);
        pick::<D>(odd, even)
    } else {
        // The four rows are contiguous: under 32 elements (generated code passes those as
        // constants) their NaN is checked over the group's vectors (the rows' own folds
        // overlap where the length is not a multiple of four): rows of 5-13 1.05-1.15x faster
        // than checking each row; longer rows with a length known at run time check each row
        // (the extra loop measured 1.2x slower over rows of 80).
        let mut flags = zero();
        let short = n < 32;
        if short {
            flags = nan_lanes(g);
        }
        let mut rows = g.chunks_exact(n).map(|row| {
            if short {
                fold_row_flags::<D, false>(row, &mut flags)
            } else {
                fold_row::<D>(row, &mut flags)
            }
        });
        let mut next = || rows.next().unwrap_or_else(zero);
        let (a, b, c, d) = (next(), next(), next(), next());
        nan = flags;
        across::<D>(a, b, c, d)
    };
    (r, mask(nan) != 0)
}

/// The index of the extreme of each contiguous row of `n` of `x` into `y`, as
/// [`arg_row`] gives it row by row; `false` (nothing done) unless [`fits`].
#[inline(always)]
pub(super) fn arg_rows<T: Element, D: Direction, const LAST: bool, I: Index>(
    x: &[T],
    y: &mut [I],
    n: usize,
) -> bool {
    arg_rows_values::<T, D, LAST, false, I>(x, y, &mut [], n)
}

/// Hardmax of the whole groups of eight contiguous rows of `n` of `x` into `y` by the AVX2
/// kernels of eight rows at a time (rows of 3 to 64, where the CPU has them), which write each
/// group's outputs as soon as they find its positions; returns how many rows it did (0 where it
/// takes none), which the caller follows with the rest. `N` is `n` where the caller has it as a
/// constant (the kernels' loops then unroll whole), 0 otherwise.
#[cfg_attr(feature = "small-code", allow(dead_code))]
#[inline(always)]
pub(super) fn hardmax_groups<T: Element, const N: usize>(x: &[T], y: &mut [T], n: usize) -> usize {
    let columns = columns_fit::<T>(n);
    let eights = fits::<T>(n) && (eights::MIN_ROW..=eights::MAX_ROW).contains(&n);
    // (Fewer than eight rows, a tiny model's, do not ask the CPU.)
    if !(columns || eights) || (N != 0 && N != n) || x.len() < 8 * n || !avx2::available() {
        return 0;
    }
    let (Some(x), Some(y)) = (T::f32s(x), T::f32s_mut(y)) else {
        return 0;
    };
    let ones = Ones::new(y, n);
    // SAFETY: `available` found the features the kernels are compiled for.
    unsafe {
        if columns {
            columns::arg_columns::<Max, false, false, u32, true>(x, &mut [], &mut [], ones, n)
        } else {
            hard_eights::hardmax_eights::<N>(x, ones, n)
        }
    }
}

/// Hardmax of each contiguous row of `n` (eight or more) one row at a time by the AVX2 kernel
/// ([`hard_row`]) where the CPU has it: `false` (nothing done) otherwise.
#[cfg_attr(feature = "small-code", allow(dead_code))]
#[inline(always)]
pub(super) fn hardmax_rows_one<T: Element, const N: usize>(x: &[T], y: &mut [T], n: usize) -> bool {
    if N != 0 && N != n {
        return false;
    }
    if !(fits::<T>(n) || long_fits::<T>(n)) || n < avx2::MIN_ROW || !avx2::available() {
        return false;
    }
    let (Some(x), Some(y)) = (T::f32s(x), T::f32s_mut(y)) else {
        return false;
    };
    // SAFETY: `available` found the features the kernel is compiled for.
    unsafe { hard_row::hardmax_rows_one::<N>(x, y, n) }
}

/// [`arg_rows`], and with `VALUES` each row's extreme into `v` too (the element at its index:
/// a ReduceMax or ReduceMin fused into the arg-reduction, read while the row is in L1).
#[inline(always)]
pub(super) fn arg_rows_values<
    T: Element,
    D: Direction,
    const LAST: bool,
    const VALUES: bool,
    I: Index,
>(
    x: &[T],
    y: &mut [I],
    v: &mut [T],
    n: usize,
) -> bool {
    // Long rows: the kernel of parts, after the kernel of eight rows at a time up to its
    // longest rows.
    let long = long_fits::<T>(n) && avx2::available();
    if long && n > eights::ARG_MAX_ROW {
        let (Some(x), Some(v)) = (T::f32s(x), T::f32s_mut(v)) else {
            return false;
        };
        // SAFETY: `available` found the features the kernel is compiled for.
        unsafe { long::arg_long_rows::<D, LAST, VALUES, I>(x, y, v, n) };
        return true;
    }
    let columns = columns_fit::<T>(n) && avx2::available();
    if !fits::<T>(n) && !columns && !long {
        return false;
    }
    let (Some(x), Some(v)) = (T::f32s(x), T::f32s_mut(v)) else {
        return false;
    };
    let eights = (eights::MIN_ROW..=eights::ARG_MAX_ROW).contains(&n) && avx2::available();
    let (x, y, v) = if columns || eights {
        // Eight rows at a time, then the rows left (fewer than eight) by the kernels below.
        // SAFETY: `available` found the features the kernel is compiled for.
        let done = unsafe {
            if columns {
                columns::arg_columns::<D, LAST, VALUES, I, false>(x, y, v, Ones::none(), n)
            } else {
                eights::arg_eights::<D, LAST, VALUES, I>(x, y, v, n)
            }
        };
        let v = if VALUES {
            v.get_mut(done..).unwrap_or(&mut [])
        } else {
            v
        };
        match (x.get(done * n..), y.get_mut(done..)) {
            (Some(x), Some(y)) => (x, y, v),
            _ => return true,
        }
    } else {
        (x, y, v)
    };
    if long {
        // SAFETY: `available` found the features the kernel is compiled for.
        unsafe { long::arg_long_rows::<D, LAST, VALUES, I>(x, y, v, n) };
        return true;
    }
    if n >= AVX2_FROM && avx2::available() {
        // SAFETY: `available` found the features the kernel is compiled for.
        unsafe { avx2::arg_rows::<D, LAST, VALUES, I>(x, y, v, n) };
        return true;
    }
    if !fits::<T>(n) {
        // Rows of three past the columns' groups: one by one.
        let mut vals = Values::<VALUES>::new(v);
        vals.exact::<D, LAST, I>(y, x.chunks_exact(n));
        return true;
    }
    arg_f32::<D, LAST, VALUES, I>(x, y, v, n);
    true
}

/// [`arg_rows_values`] of `f32`s: rows of two four at a time, longer rows by [`arg_sse`].
#[inline(always)]
fn arg_f32<D: Direction, const LAST: bool, const VALUES: bool, I: Index>(
    x: &[f32],
    y: &mut [I],
    v: &mut [f32],
    n: usize,
) {
    if n != 2 {
        return arg_sse::<D, LAST, VALUES, I>(x, y, v, n);
    }
    let mut done = 0;
    if avx2::available() {
        if let Some(y) = I::as_int64(y) {
            // SAFETY: `available` found AVX2.
            done = unsafe { pairs::arg_pairs::<D, LAST, VALUES>(x, y, v) };
        }
    }
    let (Some(x), Some(y)) = (x.get(done * 2..), y.get_mut(done..)) else {
        return;
    };
    let v = if VALUES {
        v.get_mut(done..).unwrap_or(&mut [])
    } else {
        v
    };
    let mut vals = Values::<VALUES>::new(v);
    let (outs, _) = y.as_chunks_mut::<4>();
    let groups = x.chunks_exact(8);
    let done = groups.len().min(outs.len()) * 4;
    for (g, o) in groups.zip(outs.iter_mut()) {
        let (a, b) = (load(g, 0), load(g, 4));
        // Lane i: whether row i's second element is the pick (strictly better, or with `LAST`
        // not worse); a group with a NaN by the exact rule.
        let (even, odd) = deinterleave(a, b);
        let bits = if LAST {
            !mask(better::<D>(even, odd))
        } else {
            mask(better::<D>(odd, even))
        };
        if mask(unord(a, b)) != 0 {
            vals.exact::<D, LAST, I>(o, g.chunks_exact(2));
            continue;
        }
        // The extremes, each row's pick (of two equal values either: the sign of a zero
        // result is unspecified).
        vals.put4(pick::<D>(odd, even));
        for (i, o) in o.iter_mut().enumerate() {
            *o = index::<I>(((bits >> i) & 1) as usize);
        }
    }
    if let (Some(ys), Some(rs)) = (y.get_mut(done..), x.get(done * 2..)) {
        vals.exact::<D, LAST, I>(ys, rs.chunks_exact(2));
    }
}

/// [`arg_rows_values`] of `f32` rows of 4 or more. Rows under 32 elements four at a time:
/// their extremes reduced together ([`group_extremes`]), then each row searched for its own
/// (1.1-1.3x faster than row by row over rows of 16 to 31); longer rows one by one, the row's
/// vectors in registers from its fold to its search. A row (or group) with a NaN is done again
/// by the exact rule.
#[inline(always)]
fn arg_sse<D: Direction, const LAST: bool, const VALUES: bool, I: Index>(
    x: &[f32],
    y: &mut [I],
    v: &mut [f32],
    n: usize,
) {
    let mut vals = Values::<VALUES>::new(v);
    let mut done = 0;
    if n < 32 {
        let (outs, _) = y.as_chunks_mut::<4>();
        let groups = x.chunks_exact(4 * n);
        done = groups.len().min(outs.len()) * 4;
        for (g, o) in groups.zip(outs.iter_mut()) {
            let (m, nan) = group_extremes::<D>(g, n);
            // SAFETY: as for the wrappers above.
            let lanes = unsafe {
                [
                    _mm_shuffle_ps::<0x00>(m, m),
                    _mm_shuffle_ps::<0x55>(m, m),
                    _mm_shuffle_ps::<0xaa>(m, m),
                    _mm_shuffle_ps::<0xff>(m, m),
                ]
            };
            if nan {
                vals.exact::<D, LAST, I>(o, g.chunks_exact(n));
                continue;
            }
            vals.put4(m);
            for ((o, splat), row) in o.iter_mut().zip(lanes).zip(g.chunks_exact(n)) {
                *o = index::<I>(position::<LAST>(row, splat));
            }
        }
    }
    let (Some(y), Some(x)) = (y.get_mut(done..), x.get(done * n..)) else {
        return;
    };
    for (o, row) in y.iter_mut().zip(x.chunks_exact(n)) {
        let mut nan = zero();
        let m = fold_row::<D>(row, &mut nan);
        let at = if mask(nan) != 0 {
            arg_row::<f32, D, LAST>(row)
        } else {
            position::<LAST>(row, spread::<D>(m))
        };
        vals.put(row, at);
        *o = index::<I>(at);
    }
}

/// Lane by lane, whether `a` is strictly more extreme than `b` (false with a NaN), as a mask.
#[inline(always)]
fn better<D: Direction>(a: __m128, b: __m128) -> __m128 {
    if D::IS_MIN {
        lt(a, b)
    } else {
        lt(b, a)
    }
}

#[cfg(test)]
mod tests;
// (With `small-code` the kernels these test are off.)
#[cfg(all(test, not(feature = "small-code")))]
mod tests_long;
#[cfg(all(test, not(feature = "small-code")))]
mod tests_short;
