//! ReduceMax and ReduceMin of contiguous `f32` rows of [`MIN_ROW`] to [`MAX_ROW`] elements,
//! each row folded over planes first (`[P, K, N]` over the first and the last axis), in 64-byte
//! AVX-512 vectors, sixteen rows at a time, for CPUs that have them (checked by the caller).
//!
//! Sixteen rows of `N` are `N` vectors. Each plane's `N` vectors are loaded and folded into the
//! first plane's by the order alone, an unordered compare of every two into a mask looking for
//! NaN (a block with one is left to the caller's exact path). The extreme of each window of
//! `N` elements is then built in place across the `N` vectors by doubling (windows of 2, 4, 8:
//! the vectors shifted by one lane-aligning instruction each, then the last window of `N` from
//! two overlapping ones), and the windows that start a row (lanes `0, N, 2N, ...`) are picked
//! into one vector by two-vector permutes, one per two vectors. No tile in memory: the planes'
//! loads and the rows' shuffles of one block overlap in the core, where the tile of the AVX2
//! path ([`reduce_planes`](crate::kernels::reduce_planes)) folded 4 KiB of planes and then
//! reduced its rows with the memory idle.
#![cfg_attr(feature = "small-code", allow(dead_code, unused_imports))]

use core::arch::x86_64::{
    __m512, __m512i, _mm512_alignr_epi32, _mm512_castps_si512, _mm512_castsi512_ps,
    _mm512_cmp_ps_mask, _mm512_loadu_epi32, _mm512_loadu_ps, _mm512_mask_blend_ps, _mm512_max_ps,
    _mm512_min_ps, _mm512_permutex2var_ps, _mm512_setzero_ps, _mm512_storeu_ps, _CMP_UNORD_Q,
};

use crate::{Direction, Element};

/// The shortest rows this kernel takes.
pub(in crate::kernels) const MIN_ROW: usize = 2;

/// The longest rows this kernel takes (sixteen rows in sixteen vectors).
pub(in crate::kernels) const MAX_ROW: usize = 16;

/// Folds row `k` of every plane (`planes` planes of `plane` elements of `T`, row `k` from
/// element `at + k * N` of each) into `y[k]` by [`fold_rows512`] where it takes them (`f32`
/// rows of 2 to 16 on a CPU with AVX-512): how many rows it did, from the first, stopping before
/// a block of sixteen rows that holds a NaN; `None` (nothing done) elsewhere. The caller's exact
/// path does the rest.
#[inline(always)]
pub(in crate::kernels) fn fold_rows_planes<T: Element, D: Direction, const N: usize>(
    y: &mut [T],
    x: &[T],
    planes: usize,
    plane: usize,
    at: usize,
) -> Option<usize> {
    #[cfg(not(feature = "small-code"))]
    if let (Some(y), Some(x)) = (T::f32s_mut(y), T::f32s(x)) {
        use crate::kernels::isa;
        if (MIN_ROW..=MAX_ROW).contains(&N)
            && super::avx2::available()
            && isa::level() >= isa::AVX512
        {
            // SAFETY: `level` found AVX-512 F, BW, VL and DQ, `available` AVX2, BMI1 and BMI2.
            return Some(unsafe { fold_rows512::<D, N>(y, x, planes, plane, at) });
        }
    }
    let _ = (y, x, planes, plane, at, core::marker::PhantomData::<D>);
    None
}

/// Folds row `k` of every plane (`planes` planes of `plane` elements; row `k` from element
/// `at + k * N` of each) into `y[k]` (a NaN there stays), by the order alone, sixteen rows at a
/// time from the first.
/// Returns how many rows it did (a multiple of sixteen): it stops before the first block of
/// sixteen rows that holds a NaN in any plane, and before the rows under sixteen at the end,
/// which the caller does by its exact path. Rows of other lengths: none done.
///
/// # Safety
/// The CPU must have AVX-512 F, BW, VL and DQ ([`crate::kernels::isa::AVX512`]).
#[target_feature(enable = "avx2,bmi1,bmi2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(in crate::kernels) unsafe fn fold_rows512<D: Direction, const N: usize>(
    y: &mut [f32],
    x: &[f32],
    planes: usize,
    plane: usize,
    at: usize,
) -> usize {
    if !(MIN_ROW..=MAX_ROW).contains(&N) || planes == 0 {
        return 0;
    }
    let picks = Picks::new(N);
    let (outs, _) = y.as_chunks_mut::<16>();
    let mut done = 0;
    for o in outs {
        let Some(v) = block::<D, N>(x, planes, plane, at + done * N) else {
            break;
        };
        let m = picks.starts(&windows::<D, N>(v));
        // SAFETY: `o` holds sixteen `f32`s; `loadu`/`storeu` have no alignment requirement.
        unsafe {
            // An accumulator that is NaN stays (`pick` keeps `acc` when either is NaN).
            let m = pick::<D>(m, _mm512_loadu_ps(o.as_ptr()));
            _mm512_storeu_ps(o.as_mut_ptr(), m);
        }
        done += 16;
    }
    done
}

/// The `N` vectors of sixteen rows of `N` from element `from` of each plane, folded over the
/// planes; `None` if any holds a NaN or a plane ends before them.
#[inline]
#[target_feature(enable = "avx512f")]
fn block<D: Direction, const N: usize>(
    x: &[f32],
    planes: usize,
    plane: usize,
    from: usize,
) -> Option<[__m512; N]> {
    let mut v = [_mm512_setzero_ps(); N];
    let mut bad = 0u16;
    for p in 0..planes {
        let start = p.checked_mul(plane)?.checked_add(from)?;
        let part = x.get(start..start.checked_add(16 * N)?)?;
        let (chunks, _) = part.as_chunks::<16>();
        let mut w = [_mm512_setzero_ps(); N];
        for (w, c) in w.iter_mut().zip(chunks) {
            // SAFETY: `c` holds sixteen `f32`s; `loadu` has no alignment requirement.
            *w = unsafe { _mm512_loadu_ps(c.as_ptr()) };
        }
        for pair in w.chunks(2) {
            let (a, b) = (pair[0], *pair.last().unwrap_or(&pair[0]));
            bad |= _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(a, b);
        }
        if p == 0 {
            v = w;
        } else {
            for (v, w) in v.iter_mut().zip(w) {
                *v = pick::<D>(w, *v);
            }
        }
    }
    (bad == 0).then_some(v)
}

/// In lane `i` of the `N` vectors (element `16 * j + i` in vector `j`), the extreme of the
/// elements `i` to `i + N - 1` wherever they lie in the vectors (lanes past the last vector's
/// end hold whatever; no window that starts a row reaches them).
#[inline]
#[target_feature(enable = "avx512f")]
fn windows<D: Direction, const N: usize>(mut w: [__m512; N]) -> [__m512; N] {
    let mut span = 1;
    while 2 * span <= N {
        w = widen::<D, N>(w, span);
        span *= 2;
    }
    if span < N {
        // [i, i + span) and [i + N - span, i + N) cover [i, i + N) since N < 2 * span.
        w = widen::<D, N>(w, N - span);
    }
    w
}

/// Each lane folded with the lane `by` further on (1 to 15) across the vectors.
#[inline]
#[target_feature(enable = "avx512f")]
fn widen<D: Direction, const N: usize>(w: [__m512; N], by: usize) -> [__m512; N] {
    let mut out = w;
    for (j, o) in out.iter_mut().enumerate() {
        let next = *w.get(j + 1).unwrap_or(&w[j]);
        *o = pick::<D>(shifted(w[j], next, by), w[j]);
    }
    out
}

/// Lanes `by..16` of `lo` then lanes `0..by` of `hi` (`by` from 1 to 15; a constant once
/// inlined, as the instruction needs).
#[inline]
#[target_feature(enable = "avx512f")]
fn shifted(lo: __m512, hi: __m512, by: usize) -> __m512 {
    let (lo, hi) = (_mm512_castps_si512(lo), _mm512_castps_si512(hi));
    let v = match by {
        1 => _mm512_alignr_epi32::<1>(hi, lo),
        2 => _mm512_alignr_epi32::<2>(hi, lo),
        3 => _mm512_alignr_epi32::<3>(hi, lo),
        4 => _mm512_alignr_epi32::<4>(hi, lo),
        5 => _mm512_alignr_epi32::<5>(hi, lo),
        6 => _mm512_alignr_epi32::<6>(hi, lo),
        7 => _mm512_alignr_epi32::<7>(hi, lo),
        8 => _mm512_alignr_epi32::<8>(hi, lo),
        9 => _mm512_alignr_epi32::<9>(hi, lo),
        10 => _mm512_alignr_epi32::<10>(hi, lo),
        11 => _mm512_alignr_epi32::<11>(hi, lo),
        12 => _mm512_alignr_epi32::<12>(hi, lo),
        13 => _mm512_alignr_epi32::<13>(hi, lo),
        14 => _mm512_alignr_epi32::<14>(hi, lo),
        _ => _mm512_alignr_epi32::<15>(hi, lo),
    };
    _mm512_castsi512_ps(v)
}

/// The permutes that gather lanes `0, N, ..., 15 * N` of `N` vectors into one: for each two
/// vectors (`2q` and `2q + 1`), the indexes of the rows that start in them and the mask of
/// those rows.
struct Picks {
    /// Per two vectors, each row's lane among their 32 (0 where the row starts elsewhere).
    index: [__m512i; 8],
    /// Per two vectors, the rows that start in them.
    rows: [u16; 8],
}

impl Picks {
    /// The permutes for rows of `n` (2 to 16).
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn new(n: usize) -> Self {
        let mut lanes = [[0i32; 16]; 8];
        let mut rows = [0u16; 8];
        for r in 0..16 {
            let start = r * n;
            let (q, lane) = (start / 32, start % 32);
            if let (Some(l), Some(m)) = (lanes.get_mut(q), rows.get_mut(q)) {
                l[r] = lane as i32;
                *m |= 1 << r;
            }
        }
        // SAFETY: each row of `lanes` holds sixteen `i32`s; `loadu` has no alignment requirement.
        let index = lanes.map(|l| unsafe { _mm512_loadu_epi32(l.as_ptr()) });
        Self { index, rows }
    }

    /// Lane `r` of the result: lane `r * N` of the vectors `w`.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn starts<const N: usize>(&self, w: &[__m512; N]) -> __m512 {
        let mut out = _mm512_setzero_ps();
        for (q, pair) in w.chunks(2).enumerate() {
            let (a, b) = (pair[0], *pair.last().unwrap_or(&pair[0]));
            let (Some(&index), Some(&rows)) = (self.index.get(q), self.rows.get(q)) else {
                break;
            };
            out = _mm512_mask_blend_ps(rows, out, _mm512_permutex2var_ps(a, index, b));
        }
        out
    }
}

/// `v` and `acc` folded by the order alone (`acc` where either is NaN).
#[inline]
#[target_feature(enable = "avx512f")]
fn pick<D: Direction>(v: __m512, acc: __m512) -> __m512 {
    if D::IS_MIN {
        _mm512_min_ps(v, acc)
    } else {
        _mm512_max_ps(v, acc)
    }
}
