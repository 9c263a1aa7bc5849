//! ReduceMax and ReduceMin of contiguous `f32` rows of [`MIN_ROW`] to [`MAX_ROW`] elements in
//! 32-byte AVX2 vectors, eight rows to a vector, for CPUs that have them (checked at run time).
//!
//! Rows of three: three loads per vector, each one element further on, give in every lane the
//! extreme of the three elements from there; the lanes where the eight rows start lie in three
//! vectors at different places (0, 3, 6 / 1, 4, 7 / 2, 5), so two blends and one permute put
//! the eight rows' extremes in order. Rows of 4 to 15: [`eight_extremes`], rows `k` and `k + 4`
//! sharing a vector. Either way NaN is looked for over the group's own vectors first (two per
//! compare), and a group that holds one is folded again exactly.
//!
//! Before these, rows of three went element by element (ReduceMax over 2 MiB 3.1-3.3x of a
//! streaming read) and rows of 4 to 15 four at a time in SSE2 vectors (rows of 7 2.0-2.1x).

use core::arch::x86_64::{__m256, _mm256_blend_ps, _mm256_permutevar8x32_ps, _mm256_setr_epi32};

use super::avx2::{eight_extremes, load8, mask, or, pick8, store8, unord, zero8};
use crate::kernels::reduce::fold;
use crate::{DType, Direction, Element};

/// The shortest rows these kernels take (rows of two have their own, [`super::pairs`]).
pub(in crate::kernels) const MIN_ROW: usize = 3;

/// The longest rows these kernels take (from 16, [`super::avx2::reduce_rows`]).
pub(in crate::kernels) const MAX_ROW: usize = 15;

/// Whether contiguous rows of `n` elements of `T` take the reductions of eight rows to a vector
/// (this module's) where the CPU has AVX2.
#[inline(always)]
pub(in crate::kernels) const fn fits<T: Element>(n: usize) -> bool {
    !cfg!(feature = "small-code") && matches!(T::DTYPE, DType::F32) && n >= MIN_ROW && n <= MAX_ROW
}

/// Whether contiguous rows of `n` elements of `T` take the AVX-512 reduction of eight rows
/// at a time ([`super::eights512::reduce_eights512`]) where the CPU has it.
#[cfg(not(feature = "small-code"))]
#[inline(always)]
pub(in crate::kernels) const fn fits512<T: Element>(n: usize) -> bool {
    matches!(T::DTYPE, DType::F32)
        && n >= super::eights512::MIN_ROW
        && n <= super::eights512::MAX_ROW
}

/// [`reduce_rows_const`](super::reduce_rows_const) of `f32` rows of 3 to 15 by the AVX2
/// kernels of eight rows to a vector (this module's) where the CPU has them, and of 17 to 64 by
/// the AVX-512 kernel of eight rows at a time where it has that; with `FRESH` each element of
/// `y` becomes its row's extreme (its previous value ignored). `false` (nothing done)
/// otherwise. Measured (ReduceMax over 2 MiB of rows, time per call against the streaming read
/// in the same process, 2-core Xeon, family 6 model 207): rows of 3 3.0-3.2x -> 1.75-1.9x, rows
/// of 7 1.8x -> 1.4x; rows of 4 to 15 1.24-1.42x faster than the SSE2 kernel of four rows.
#[inline(always)]
pub(in crate::kernels) fn reduce_short_avx2<
    T: Element,
    D: Direction,
    const R: usize,
    const FRESH: bool,
>(
    y: &mut [T],
    x: &[T],
) -> bool {
    #[cfg(not(feature = "small-code"))]
    if fits512::<T>(R)
        && crate::kernels::isa::level() >= crate::kernels::isa::AVX512
        && super::avx2::available()
    {
        let (Some(y), Some(x)) = (T::f32s_mut(y), T::f32s(x)) else {
            return false;
        };
        // SAFETY: `level` found AVX-512 F, BW, VL and DQ, `available` AVX2, BMI1 and BMI2.
        let done = unsafe { super::eights512::reduce_eights512::<D, FRESH, R>(y, x) };
        if let (Some(ys), Some(rs)) = (y.get_mut(done..), x.get(done * R..)) {
            for (o, row) in ys.iter_mut().zip(rs.chunks_exact(R)) {
                *o = fold::<f32, D>(start::<D, FRESH>(*o), row);
            }
        }
        return true;
    }
    if !fits::<T>(R) || !super::avx2::available() {
        return false;
    }
    let (Some(y), Some(x)) = (T::f32s_mut(y), T::f32s(x)) else {
        return false;
    };
    // SAFETY: `available` found the features the kernel is compiled for.
    unsafe { reduce_short::<D, R, FRESH>(y, x) };
    true
}

/// Each contiguous row of `N` ([`MIN_ROW`] to [`MAX_ROW`]; other lengths do nothing) of `x`
/// reduced into the matching element of `y`: with `FRESH` each element of `y` becomes its row's
/// extreme, otherwise the row is folded into it (a NaN there stays). NaN-propagating.
///
/// # Safety
/// The CPU must have the features [`super::avx2::available`] checks.
#[target_feature(enable = "avx2,bmi1,bmi2")]
pub(in crate::kernels) unsafe fn reduce_short<D: Direction, const N: usize, const FRESH: bool>(
    y: &mut [f32],
    x: &[f32],
) {
    if !(MIN_ROW..=MAX_ROW).contains(&N) {
        return;
    }
    let (outs, _) = y.as_chunks_mut::<8>();
    let done = if N == 3 {
        threes::<D, FRESH>(outs, x)
    } else {
        let groups = x.chunks_exact(8 * N);
        let done = groups.len().min(outs.len()) * 8;
        for (g, o) in groups.zip(outs.iter_mut()) {
            if has_nan(g) {
                exact::<D, FRESH>(o, g, N);
            } else {
                put::<D, FRESH>(o, eight_extremes::<D, N>(g));
            }
        }
        done
    };
    if let (Some(ys), Some(rs)) = (y.get_mut(done..), x.get(done * N..)) {
        for (o, row) in ys.iter_mut().zip(rs.chunks_exact(N)) {
            *o = fold::<f32, D>(start::<D, FRESH>(*o), row);
        }
    }
}

/// Rows of three, eight at a time, for the groups whose loads stay within `x` (a group reads
/// two elements past its last row); returns how many rows it did.
#[inline]
#[target_feature(enable = "avx2")]
fn threes<D: Direction, const FRESH: bool>(outs: &mut [[f32; 8]], x: &[f32]) -> usize {
    // Lane `k` of the blend holds row `order[k]`, and row `k` lies in lane `order[k]` (the
    // permutation is its own inverse): the permute gathers row `k` into lane `k`.
    let order = _mm256_setr_epi32(0, 3, 6, 1, 4, 7, 2, 5);
    let mut done = 0;
    for (i, o) in outs.iter_mut().enumerate() {
        let Some(g) = x.get(24 * i..).and_then(<[f32]>::first_chunk::<26>) else {
            break;
        };
        let (a, b, c) = (at(g, 0), at(g, 8), at(g, 16));
        if mask(or(unord(a, b), unord(c, c))) != 0 {
            exact::<D, FRESH>(o, &g[..24], 3);
        } else {
            // Lane by lane the extreme of the element there and the two after it.
            let window =
                |k: usize, v: __m256| pick8::<D>(at(g, k + 2), pick8::<D>(at(g, k + 1), v));
            let (a, b, c) = (window(0, a), window(8, b), window(16, c));
            // Row starts: lanes 0, 3, 6 of `a`, 1, 4, 7 of `b`, 2, 5 of `c`.
            let m = _mm256_blend_ps::<0b0010_0100>(_mm256_blend_ps::<0b1001_0010>(a, b), c);
            put::<D, FRESH>(o, _mm256_permutevar8x32_ps(m, order));
        }
        done += 8;
    }
    done
}

/// The eight elements of `g` from `k` (zeros past its end: callers pass constant offsets
/// inside it, so the check folds away).
#[inline]
#[target_feature(enable = "avx2")]
fn at(g: &[f32; 26], k: usize) -> __m256 {
    match g.get(k..).and_then(<[f32]>::first_chunk::<8>) {
        Some(v) => load8(v),
        None => zero8(),
    }
}

/// Whether the elements of `g` (a whole number of eights) hold a NaN.
#[inline]
#[target_feature(enable = "avx2")]
fn has_nan(g: &[f32]) -> bool {
    let (eights, _) = g.as_chunks::<8>();
    let (pairs, odd) = eights.as_chunks::<2>();
    let mut flags = zero8();
    for [v, w] in pairs {
        flags = or(flags, unord(load8(v), load8(w)));
    }
    for v in odd {
        flags = or(flags, unord(load8(v), load8(v)));
    }
    mask(flags) != 0
}

/// Eight rows' extremes `m` (no NaN among them) into `o`: written, or with the running values
/// (a NaN there stays: [`pick8`] keeps `acc` when either is NaN).
#[inline]
#[target_feature(enable = "avx2")]
fn put<D: Direction, const FRESH: bool>(o: &mut [f32; 8], m: __m256) {
    if FRESH {
        store8(o, m);
    } else {
        store8(o, pick8::<D>(m, load8(o)));
    }
}

/// The eight rows of `n` of `g`, one with a NaN among them, by the exact fold.
#[inline]
fn exact<D: Direction, const FRESH: bool>(o: &mut [f32; 8], g: &[f32], n: usize) {
    for (o, row) in o.iter_mut().zip(g.chunks_exact(n)) {
        *o = fold::<f32, D>(start::<D, FRESH>(*o), row);
    }
}

/// What a row is folded into: the identity with `FRESH`, otherwise the running value.
#[inline(always)]
fn start<D: Direction, const FRESH: bool>(o: f32) -> f32 {
    if FRESH {
        D::identity::<f32>()
    } else {
        o
    }
}
