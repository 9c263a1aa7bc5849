//! ReduceMax and ReduceMin of contiguous rows of 8-byte elements (`i64`, `f64`) of [`MIN_ROW`] to
//! [`MAX_ROW`] elements in 32-byte AVX2 vectors, four rows at a time, for CPUs that have them
//! (checked at run time).
//!
//! The default x86-64 target has no 64-bit integer compare (SSE4.2 brings one), so the portable
//! kernels went element by element: ReduceMax of `i64` rows of 20 read 3.5-4x of a streaming read
//! and ran slower than ONNX Runtime. Here each row is folded into four lanes by the order alone
//! (the last four elements first, so that any length is covered: a max or min does not mind an
//! element seen twice), with `vpcmpgtq` and a blend for `i64` and `vmaxpd`/`vminpd` for `f64`;
//! the four rows' vectors are then reduced together by shuffles, row `k` into lane `k`. NaN
//! (`f64`) is looked for over the group's vectors first; a group that holds one is folded again
//! exactly.

use core::arch::x86_64::{
    __m256d, __m256i, _mm256_blendv_epi8, _mm256_castpd_si256, _mm256_castsi256_pd, _mm256_cmp_pd,
    _mm256_cmpgt_epi64, _mm256_loadu_si256, _mm256_max_pd, _mm256_min_pd, _mm256_movemask_pd,
    _mm256_or_pd, _mm256_permute2x128_si256, _mm256_setzero_pd, _mm256_storeu_si256,
    _mm256_unpackhi_epi64, _mm256_unpacklo_epi64, _CMP_UNORD_Q,
};
use core::mem::size_of;

use super::isa;
use super::reduce::fold;
use crate::{DType, Direction, Element};

/// The shortest rows taken (one vector).
const MIN_ROW: usize = 4;

/// The longest rows taken: generated code passes rows under 32 as constants; longer rows amortize
/// a row's setup in the portable fold.
const MAX_ROW: usize = 31;

/// Whether rows of `n` of `T` are this module's (`i64` and `f64` rows of [`MIN_ROW`] to
/// [`MAX_ROW`]).
#[inline(always)]
const fn fits<T: Element>(n: usize) -> bool {
    eight_byte::<T>() && n >= MIN_ROW && n <= MAX_ROW
}

/// Whether `T` is one of this module's types (`i64`, `f64`), eight bytes as the loads assume.
#[inline(always)]
const fn eight_byte<T: Element>() -> bool {
    matches!(T::DTYPE, DType::I64 | DType::F64) && size_of::<T>() == 8
}

/// Each contiguous row of `R` of `x` reduced into the matching element of `y` by the AVX2 kernel
/// where the CPU has it: with `FRESH` each element of `y` becomes its row's extreme, otherwise
/// the row is folded into it (NaN-propagating: a NaN there stays). `false` (nothing done) for
/// other types and lengths and on CPUs without AVX2.
#[inline(always)]
pub(super) fn reduce_rows<T: Element, D: Direction, const R: usize, const FRESH: bool>(
    y: &mut [T],
    x: &[T],
) -> bool {
    if !fits::<T>(R) || isa::level() < isa::AVX2 {
        return false;
    }
    // SAFETY: the CPU has AVX2; `T` is an 8-byte type.
    unsafe { rows::<T, D, R, FRESH>(y, x) };
    true
}

/// [`reduce_rows`] once checked.
///
/// # Safety
/// The CPU has AVX2; [`fits`] takes rows of `N` of `T`.
#[target_feature(enable = "avx2")]
unsafe fn rows<T: Element, D: Direction, const N: usize, const FRESH: bool>(y: &mut [T], x: &[T]) {
    let float = matches!(T::DTYPE, DType::F64);
    let (outs, _) = y.as_chunks_mut::<4>();
    let groups = x.chunks_exact(4 * N);
    let done = groups.len().min(outs.len()) * 4;
    for (g, o) in groups.zip(outs.iter_mut()) {
        if float && has_nan(g) {
            for (o, row) in o.iter_mut().zip(g.chunks_exact(N)) {
                *o = fold::<T, D>(start::<T, D, FRESH>(*o), row);
            }
            continue;
        }
        let mut m = [_mm256_castpd_si256(_mm256_setzero_pd()); 4];
        for (m, row) in m.iter_mut().zip(g.chunks_exact(N)) {
            *m = fold_row::<T, D>(row);
        }
        let [a, b, c, d] = m;
        let r = across::<T, D>(a, b, c, d);
        // An accumulator that is NaN stays (`pick` keeps `b` when either is NaN).
        let r = if FRESH { r } else { pick::<T, D>(r, load(o)) };
        // SAFETY: `o` holds four 8-byte elements; `storeu` has no alignment requirement.
        unsafe { _mm256_storeu_si256(o.as_mut_ptr().cast(), r) };
    }
    if let (Some(ys), Some(rs)) = (y.get_mut(done..), x.get(done * N..)) {
        for (o, row) in ys.iter_mut().zip(rs.chunks_exact(N)) {
            *o = fold::<T, D>(start::<T, D, FRESH>(*o), row);
        }
    }
}

/// The extreme of a contiguous row of `i64` or `f64` (eight elements or more) by the order alone,
/// and whether the row holds a NaN (then the extreme is not the contract's), by the AVX2 kernel
/// where the CPU has it: `None` (nothing done) for other types, shorter rows and CPUs without
/// AVX2. The portable fold keeps sixteen scalar lanes for these types (the baseline target has
/// no 64-bit integer compare) and spills them.
#[inline(always)]
pub(super) fn row_extreme<T: Element, D: Direction>(row: &[T]) -> Option<(T, bool)> {
    if !eight_byte::<T>() || row.len() < 8 || isa::level() < isa::AVX2 {
        return None;
    }
    // SAFETY: the CPU has AVX2; `T` is an 8-byte type.
    Some(unsafe { extreme::<T, D>(row) })
}

/// [`row_extreme`] once checked: four chains of four lanes (the compare and blend of `i64` take
/// several cycles), from the row's last four elements, so that any length is covered.
///
/// # Safety
/// The CPU has AVX2; `T` is `i64` or `f64`.
#[target_feature(enable = "avx2")]
unsafe fn extreme<T: Element, D: Direction>(row: &[T]) -> (T, bool) {
    let float = matches!(T::DTYPE, DType::F64);
    let Some(tail) = row.last_chunk::<4>() else {
        return (D::identity::<T>(), false);
    };
    let (fours, _) = row.as_chunks::<4>();
    let (quads, rest) = fours.as_chunks::<4>();
    let tail = load(tail);
    let mut acc = [tail; 4];
    let mut flags = if float {
        unord(tail, tail)
    } else {
        _mm256_setzero_pd()
    };
    for q in quads {
        let v = [load(&q[0]), load(&q[1]), load(&q[2]), load(&q[3])];
        if float {
            flags = _mm256_or_pd(flags, _mm256_or_pd(unord(v[0], v[1]), unord(v[2], v[3])));
        }
        for (a, v) in acc.iter_mut().zip(v) {
            *a = pick::<T, D>(v, *a);
        }
    }
    for c in rest {
        let v = load(c);
        if float {
            flags = _mm256_or_pd(flags, unord(v, v));
        }
        acc[0] = pick::<T, D>(v, acc[0]);
    }
    let m = pick::<T, D>(pick::<T, D>(acc[0], acc[1]), pick::<T, D>(acc[2], acc[3]));
    let mut lanes = [D::identity::<T>(); 4];
    // SAFETY: `lanes` holds four 8-byte elements; `storeu` has no alignment requirement.
    unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), m) };
    let e = lanes.into_iter().fold(
        D::identity::<T>(),
        |e, l| if D::better(l, e) { l } else { e },
    );
    (e, _mm256_movemask_pd(flags) != 0)
}

/// Folds the parts of `planes` planes of `plane` elements of `x` (each from element `at`, as long
/// as `tile`) element by element into `tile` (overwritten), by the order alone: whether they hold
/// a NaN (then the tile is not the contract's). `None` (nothing done) for other types than `i64`
/// and `f64`, tiles under four elements, CPUs without AVX2, and where `x` is shorter than the
/// planes.
#[inline(always)]
pub(super) fn fold_planes<T: Element, D: Direction>(
    tile: &mut [T],
    x: &[T],
    planes: usize,
    plane: usize,
    at: usize,
) -> Option<bool> {
    let reach = planes.checked_sub(1)?.checked_mul(plane)?.checked_add(at)?;
    if !eight_byte::<T>()
        || tile.len() < 4
        || reach.checked_add(tile.len())? > x.len()
        || isa::level() < isa::AVX2
    {
        return None;
    }
    // SAFETY: the CPU has AVX2; `T` is an 8-byte type.
    unsafe { planes_in::<T, D>(tile, x, planes, plane, at) }
}

/// [`fold_planes`] once checked: sixteen lanes (four vectors) at a time down the planes in
/// registers, then fours; the last sixteen (or four) overlap the ones before, folded the same.
/// `None` (the tile partly written) if a plane's part is not within `x`.
///
/// # Safety
/// The CPU has AVX2; `T` is `i64` or `f64`; `tile` holds four elements or more.
#[target_feature(enable = "avx2")]
unsafe fn planes_in<T: Element, D: Direction>(
    tile: &mut [T],
    x: &[T],
    planes: usize,
    plane: usize,
    at: usize,
) -> Option<bool> {
    let float = matches!(T::DTYPE, DType::F64);
    let len = tile.len();
    let mut flags = _mm256_setzero_pd();
    let part =
        |p: usize, c: usize| -> Option<&[T; 4]> { x.get(p * plane + at + c..)?.first_chunk::<4>() };
    let mut c = 0;
    while c < len {
        // Sixteen lanes where they fit, otherwise four (the last of either overlapping).
        let wide = len >= 16;
        let c0 = if wide {
            c.min(len - 16)
        } else {
            c.min(len - 4)
        };
        let k = if wide { 4 } else { 1 };
        let mut acc = [_mm256_castpd_si256(_mm256_setzero_pd()); 4];
        for p in 0..planes {
            for (j, a) in acc.iter_mut().enumerate().take(k) {
                let v = load(part(p, c0 + 4 * j)?);
                if float {
                    flags = _mm256_or_pd(flags, unord(v, v));
                }
                *a = if p == 0 { v } else { pick::<T, D>(v, *a) };
            }
        }
        for (j, a) in acc.iter().enumerate().take(k) {
            if let Some(o) = tile
                .get_mut(c0 + 4 * j..)
                .and_then(<[T]>::first_chunk_mut::<4>)
            {
                // SAFETY: `o` holds four 8-byte elements; `storeu` has no alignment requirement.
                unsafe { _mm256_storeu_si256(o.as_mut_ptr().cast(), *a) };
            }
        }
        c = c0 + 4 * k;
    }
    Some(_mm256_movemask_pd(flags) != 0)
}

/// What a row is folded into: the identity with `FRESH`, otherwise the running value.
#[inline(always)]
fn start<T: Element, D: Direction, const FRESH: bool>(o: T) -> T {
    if FRESH {
        D::identity::<T>()
    } else {
        o
    }
}

/// The four elements of `x`.
#[inline]
#[target_feature(enable = "avx2")]
fn load<T: Element>(x: &[T; 4]) -> __m256i {
    debug_assert_eq!(size_of::<T>(), 8);
    // SAFETY: the callers' `T` is 8 bytes (`fits`): `x` holds 32 bytes; `loadu` has no alignment
    // requirement.
    unsafe { _mm256_loadu_si256(x.as_ptr().cast()) }
}

/// One row (at least four elements) folded into four lanes by the order alone: from its last
/// four when the length is not a multiple of four, otherwise from its first four.
#[inline]
#[target_feature(enable = "avx2")]
fn fold_row<T: Element, D: Direction>(row: &[T]) -> __m256i {
    let Some(tail) = row.last_chunk::<4>() else {
        return _mm256_castpd_si256(_mm256_setzero_pd());
    };
    let (chunks, extra) = row.as_chunks::<4>();
    let (first, chunks) = match chunks.split_first() {
        Some((first, others)) if extra.is_empty() => (first, others),
        _ => (tail, chunks),
    };
    let mut acc = load(first);
    for c in chunks {
        acc = pick::<T, D>(load(c), acc);
    }
    acc
}

/// The extremes of four rows' lanes `a`, `b`, `c`, `d` (one vector each), row `k` in lane `k`.
#[inline]
#[target_feature(enable = "avx2")]
fn across<T: Element, D: Direction>(a: __m256i, b: __m256i, c: __m256i, d: __m256i) -> __m256i {
    // Each 128-bit half: lanes (a0 b0 | a2 b2) against (a1 b1 | a3 b3), then the halves.
    let ab = pick::<T, D>(_mm256_unpacklo_epi64(a, b), _mm256_unpackhi_epi64(a, b));
    let cd = pick::<T, D>(_mm256_unpacklo_epi64(c, d), _mm256_unpackhi_epi64(c, d));
    pick::<T, D>(
        _mm256_permute2x128_si256::<0x20>(ab, cd),
        _mm256_permute2x128_si256::<0x31>(ab, cd),
    )
}

/// Lane by lane, `a` where it is strictly more extreme than `b`, otherwise `b` (for `f64`, `b`
/// where either is NaN).
#[inline]
#[target_feature(enable = "avx2")]
fn pick<T: Element, D: Direction>(a: __m256i, b: __m256i) -> __m256i {
    if matches!(T::DTYPE, DType::F64) {
        let (a, b) = (_mm256_castsi256_pd(a), _mm256_castsi256_pd(b));
        return _mm256_castpd_si256(if D::IS_MIN {
            _mm256_min_pd(a, b)
        } else {
            _mm256_max_pd(a, b)
        });
    }
    let better = if D::IS_MIN {
        _mm256_cmpgt_epi64(b, a)
    } else {
        _mm256_cmpgt_epi64(a, b)
    };
    _mm256_blendv_epi8(b, a, better)
}

/// Whether the `f64` elements of `g` (a whole number of fours) hold a NaN.
#[inline]
#[target_feature(enable = "avx2")]
fn has_nan<T: Element>(g: &[T]) -> bool {
    let (fours, _) = g.as_chunks::<4>();
    let (pairs, odd) = fours.as_chunks::<2>();
    let mut flags = _mm256_setzero_pd();
    for [a, b] in pairs {
        flags = _mm256_or_pd(flags, unord(load(a), load(b)));
    }
    for a in odd {
        flags = _mm256_or_pd(flags, unord(load(a), load(a)));
    }
    _mm256_movemask_pd(flags) != 0
}

/// The lanes where `a` or `b` (as `f64`) is NaN.
#[inline]
#[target_feature(enable = "avx2")]
fn unord(a: __m256i, b: __m256i) -> __m256d {
    _mm256_cmp_pd::<_CMP_UNORD_Q>(_mm256_castsi256_pd(a), _mm256_castsi256_pd(b))
}

#[cfg(test)]
mod tests;
