//! ReduceMax and ReduceMin of contiguous rows of [`MIN_ROW`] to [`MAX_ROW`] elements of `f32`,
//! `f64` and the 32- and 64-bit integers, each row folded over planes first (`[P, K, N]` over
//! the first and the last axis), in 64-byte AVX-512 vectors, a block of rows at a time (sixteen
//! of 4-byte elements, eight of 8-byte), for CPUs that have them (checked here).
//!
//! A block of `L` rows of `N` (`L` the lanes of a vector) is `N` vectors. Each plane's `N`
//! vectors are loaded and folded into the first plane's by the order alone, floats with an
//! unordered compare of every two into a mask looking for NaN (a block with one is left to the
//! caller's exact path). The extreme of each window of `N` elements is then built in place
//! across the `N` vectors by doubling (windows of 2, 4, 8: the vectors shifted by one
//! lane-aligning instruction each, then the last window of `N` from two overlapping ones), and
//! the windows that start a row (lanes `0, N, 2N, ...`) are picked into one vector by
//! two-vector permutes, one per two vectors. No tile in memory: the planes' loads and the rows'
//! shuffles of one block overlap in the core, where the `f32` tile of
//! [`reduce_planes`](crate::kernels::reduce_planes) folded 4 KiB of planes and then reduced its
//! rows with the memory idle (`[2, 52428, 5]` 1.38-1.44x of the stream against 1.15-1.19x here).

use core::arch::x86_64::{
    __m512i, _mm512_alignr_epi32, _mm512_alignr_epi64, _mm512_castpd_si512, _mm512_castps_si512,
    _mm512_castsi512_pd, _mm512_castsi512_ps, _mm512_cmp_pd_mask, _mm512_cmp_ps_mask,
    _mm512_loadu_epi32, _mm512_loadu_epi64, _mm512_mask_blend_epi32, _mm512_mask_blend_epi64,
    _mm512_max_epi32, _mm512_max_epi64, _mm512_max_epu32, _mm512_max_epu64, _mm512_max_pd,
    _mm512_max_ps, _mm512_min_epi32, _mm512_min_epi64, _mm512_min_epu32, _mm512_min_epu64,
    _mm512_min_pd, _mm512_min_ps, _mm512_permutex2var_epi32, _mm512_permutex2var_epi64,
    _mm512_setzero_si512, _mm512_storeu_epi32, _mm512_storeu_epi64, _CMP_UNORD_Q,
};

use crate::kernels::isa;
use crate::{DType, Direction, Element};

/// The shortest rows this kernel takes.
pub(in crate::kernels) const MIN_ROW: usize = 2;

/// The longest rows this kernel takes (a block of rows in sixteen vectors).
pub(in crate::kernels) const MAX_ROW: usize = 16;

/// How the vectors hold a type's elements.
trait Wide {
    /// 8-byte elements (eight lanes), otherwise 4-byte (sixteen).
    const WIDE: bool;
    /// IEEE floats (NaN looked for), otherwise integers.
    const FLOAT: bool;
    /// Signed compares (integers).
    const SIGNED: bool;
    /// Elements (and rows of a block) in a vector.
    const LANES: usize = if Self::WIDE { 8 } else { 16 };
}

/// `f32`.
struct F32s;
/// `i32`.
struct I32s;
/// `u32`.
struct U32s;
/// `f64`.
struct F64s;
/// `i64`.
struct I64s;
/// `u64`.
struct U64s;

macro_rules! wide {
    ($($t:ident: $wide:literal $float:literal $signed:literal;)*) => {$(
        impl Wide for $t {
            const WIDE: bool = $wide;
            const FLOAT: bool = $float;
            const SIGNED: bool = $signed;
        }
    )*};
}
wide! {
    F32s: false true false;
    I32s: false false true;
    U32s: false false false;
    F64s: true true false;
    I64s: true false true;
    U64s: true false false;
}

/// Folds row `k` of every plane (`planes` planes of `plane` elements of `T`, row `k` from
/// element `at + k * N` of each) into `y[k]` (a NaN there stays) where this kernel takes them
/// (`f32`, `f64`, `i32`, `u32`, `i64`, `u64` rows of 2 to 16 on a CPU with AVX-512): how many
/// rows it did, from the first, a multiple of the block (sixteen rows, eight for 8-byte types),
/// stopping before a block that holds a NaN in any plane and before the rows under a block at
/// the end; `None` (nothing done) elsewhere. The caller's exact path does the rest.
#[inline(always)]
pub(in crate::kernels) fn fold_rows_planes<T: Element, D: Direction, const N: usize>(
    y: &mut [T],
    x: &[T],
    planes: usize,
    plane: usize,
    at: usize,
) -> Option<usize> {
    // The type and length first: known when compiling, so that other types' calls vanish.
    let types = matches!(
        T::DTYPE,
        DType::F32 | DType::I32 | DType::U32 | DType::F64 | DType::I64 | DType::U64
    );
    if !types
        || !(MIN_ROW..=MAX_ROW).contains(&N)
        || !crate::kernels::rows_f32::avx2::available()
        || isa::level() < isa::AVX512
    {
        return None;
    }
    // SAFETY: `level` found AVX-512 F, BW, VL and DQ, `available` AVX2, BMI1 and BMI2; each
    // arm's lanes are `T`'s type.
    unsafe {
        Some(match T::DTYPE {
            DType::F32 => fold_rows512::<F32s, D, T, N>(y, x, planes, plane, at),
            DType::I32 => fold_rows512::<I32s, D, T, N>(y, x, planes, plane, at),
            DType::U32 => fold_rows512::<U32s, D, T, N>(y, x, planes, plane, at),
            DType::F64 => fold_rows512::<F64s, D, T, N>(y, x, planes, plane, at),
            DType::I64 => fold_rows512::<I64s, D, T, N>(y, x, planes, plane, at),
            DType::U64 => fold_rows512::<U64s, D, T, N>(y, x, planes, plane, at),
            _ => return None,
        })
    }
}

/// [`fold_rows_planes`] for lanes `K`.
///
/// # Safety
/// The CPU must have AVX-512 F, BW, VL and DQ ([`isa::AVX512`]); `T` is `K`'s type.
#[target_feature(enable = "avx2,bmi1,bmi2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn fold_rows512<K: Wide, D: Direction, T: Element, const N: usize>(
    y: &mut [T],
    x: &[T],
    planes: usize,
    plane: usize,
    at: usize,
) -> usize {
    if !(MIN_ROW..=MAX_ROW).contains(&N)
        || planes == 0
        || size_of::<T>() != if K::WIDE { 8 } else { 4 }
    {
        return 0;
    }
    let l = K::LANES;
    let picks = Picks::new::<K>(N);
    let mut done = 0;
    for o in y.chunks_exact_mut(l) {
        let Some(v) = block::<K, D, T, N>(x, planes, plane, at + done * N) else {
            break;
        };
        let m = picks.starts::<K, N>(&windows::<K, D, N>(v));
        // SAFETY: `o` holds a vector of `T` (`K`'s type); no alignment requirement.
        unsafe {
            // An accumulator that is NaN stays (`pick` keeps `acc` when either is NaN).
            let m = pick::<K, D>(m, load::<K, T>(o.as_ptr()));
            store::<K, T>(o.as_mut_ptr(), m);
        }
        done += l;
    }
    done
}

/// The vector at `p` (a vector of `K`'s elements).
///
/// # Safety
/// `p` points at `K::LANES` readable elements of `K`'s type.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn load<K: Wide, T>(p: *const T) -> __m512i {
    // SAFETY: as the caller says; `loadu` has no alignment requirement.
    unsafe {
        if K::WIDE {
            _mm512_loadu_epi64(p.cast())
        } else {
            _mm512_loadu_epi32(p.cast())
        }
    }
}

/// Stores `v` at `p`.
///
/// # Safety
/// `p` points at `K::LANES` writable elements of `K`'s type.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn store<K: Wide, T>(p: *mut T, v: __m512i) {
    // SAFETY: as the caller says; `storeu` has no alignment requirement.
    unsafe {
        if K::WIDE {
            _mm512_storeu_epi64(p.cast(), v);
        } else {
            _mm512_storeu_epi32(p.cast(), v);
        }
    }
}

/// The `N` vectors of a block of rows of `N` from element `from` of each plane, folded over
/// the planes; `None` if any holds a NaN or a plane ends before them.
#[inline]
#[target_feature(enable = "avx512f")]
fn block<K: Wide, D: Direction, T, const N: usize>(
    x: &[T],
    planes: usize,
    plane: usize,
    from: usize,
) -> Option<[__m512i; N]> {
    let l = K::LANES;
    let mut v = [_mm512_setzero_si512(); N];
    let mut bad = 0u16;
    for p in 0..planes {
        let start = p.checked_mul(plane)?.checked_add(from)?;
        let part = x.get(start..start.checked_add(l * N)?)?;
        let mut w = [_mm512_setzero_si512(); N];
        for (w, c) in w.iter_mut().zip(part.chunks_exact(l)) {
            // SAFETY: `c` holds a vector of `T`, `K`'s type.
            *w = unsafe { load::<K, T>(c.as_ptr()) };
        }
        if K::FLOAT {
            for pair in w.chunks(2) {
                bad |= unord::<K>(pair[0], *pair.last().unwrap_or(&pair[0]));
            }
        }
        if p == 0 {
            v = w;
        } else {
            for (v, w) in v.iter_mut().zip(w) {
                *v = pick::<K, D>(w, *v);
            }
        }
    }
    (bad == 0).then_some(v)
}

/// In lane `i` of the `N` vectors (element `L * j + i` in vector `j`), the extreme of the
/// elements `i` to `i + N - 1` wherever they lie in the vectors (lanes past the last vector's
/// end hold whatever; no window that starts a row reaches them).
#[inline]
#[target_feature(enable = "avx512f")]
fn windows<K: Wide, D: Direction, const N: usize>(mut w: [__m512i; N]) -> [__m512i; N] {
    let mut span = 1;
    while 2 * span <= N {
        w = widen::<K, D, N>(w, span);
        span *= 2;
    }
    if span < N {
        // [i, i + span) and [i + N - span, i + N) cover [i, i + N) since N < 2 * span.
        w = widen::<K, D, N>(w, N - span);
    }
    w
}

/// Each lane folded with the lane `by` further on (1 to 8) across the vectors.
#[inline]
#[target_feature(enable = "avx512f")]
fn widen<K: Wide, D: Direction, const N: usize>(w: [__m512i; N], by: usize) -> [__m512i; N] {
    let mut out = w;
    for (j, o) in out.iter_mut().enumerate() {
        let next = *w.get(j + 1).unwrap_or(&w[j]);
        *o = pick::<K, D>(shifted::<K>(w[j], next, by), w[j]);
    }
    out
}

/// Lanes `by..` of `lo` then the first `by` lanes of `hi` (`by` from 1 to 8, at most a vector;
/// a constant once inlined, as the instructions need).
#[inline]
#[target_feature(enable = "avx512f")]
fn shifted<K: Wide>(lo: __m512i, hi: __m512i, by: usize) -> __m512i {
    if K::WIDE {
        match by {
            1 => _mm512_alignr_epi64::<1>(hi, lo),
            2 => _mm512_alignr_epi64::<2>(hi, lo),
            3 => _mm512_alignr_epi64::<3>(hi, lo),
            4 => _mm512_alignr_epi64::<4>(hi, lo),
            5 => _mm512_alignr_epi64::<5>(hi, lo),
            6 => _mm512_alignr_epi64::<6>(hi, lo),
            7 => _mm512_alignr_epi64::<7>(hi, lo),
            _ => hi,
        }
    } else {
        match by {
            1 => _mm512_alignr_epi32::<1>(hi, lo),
            2 => _mm512_alignr_epi32::<2>(hi, lo),
            3 => _mm512_alignr_epi32::<3>(hi, lo),
            4 => _mm512_alignr_epi32::<4>(hi, lo),
            5 => _mm512_alignr_epi32::<5>(hi, lo),
            6 => _mm512_alignr_epi32::<6>(hi, lo),
            7 => _mm512_alignr_epi32::<7>(hi, lo),
            _ => _mm512_alignr_epi32::<8>(hi, lo),
        }
    }
}

/// The permutes that gather lanes `0, N, ..., (L - 1) * N` of `N` vectors into one: for each
/// two vectors (`2q` and `2q + 1`), the indexes of the rows that start in them and the mask of
/// those rows.
struct Picks {
    /// Per two vectors, each row's lane among their `2 L` (0 where the row starts elsewhere).
    index: [__m512i; 8],
    /// Per two vectors, the rows that start in them.
    rows: [u16; 8],
}

impl Picks {
    /// The permutes for rows of `n` (2 to 16) of lanes `K`.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn new<K: Wide>(n: usize) -> Self {
        let l = K::LANES;
        let mut lanes32 = [[0i32; 16]; 8];
        let mut lanes64 = [[0i64; 8]; 8];
        let mut rows = [0u16; 8];
        for r in 0..l {
            let start = r * n;
            let (q, lane) = (start / (2 * l), start % (2 * l));
            if let (Some(a), Some(b), Some(m)) =
                (lanes32.get_mut(q), lanes64.get_mut(q), rows.get_mut(q))
            {
                if let Some(a) = a.get_mut(r) {
                    *a = lane as i32;
                }
                if let Some(b) = b.get_mut(r) {
                    *b = lane as i64;
                }
                *m |= 1 << r;
            }
        }
        let mut index = [_mm512_setzero_si512(); 8];
        for (i, (a, b)) in index.iter_mut().zip(lanes32.iter().zip(&lanes64)) {
            // SAFETY: `a` holds sixteen `i32`s, `b` eight `i64`s; no alignment requirement.
            *i = unsafe {
                if K::WIDE {
                    _mm512_loadu_epi64(b.as_ptr())
                } else {
                    _mm512_loadu_epi32(a.as_ptr())
                }
            };
        }
        Self { index, rows }
    }

    /// Lane `r` of the result: lane `r * N` of the vectors `w`.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn starts<K: Wide, const N: usize>(&self, w: &[__m512i; N]) -> __m512i {
        let mut out = _mm512_setzero_si512();
        for (q, pair) in w.chunks(2).enumerate() {
            let (a, b) = (pair[0], *pair.last().unwrap_or(&pair[0]));
            let (Some(&index), Some(&rows)) = (self.index.get(q), self.rows.get(q)) else {
                break;
            };
            out = if K::WIDE {
                _mm512_mask_blend_epi64(rows as u8, out, _mm512_permutex2var_epi64(a, index, b))
            } else {
                _mm512_mask_blend_epi32(rows, out, _mm512_permutex2var_epi32(a, index, b))
            };
        }
        out
    }
}

/// Lanes where `a` or `b` is NaN (floats).
#[inline]
#[target_feature(enable = "avx512f")]
fn unord<K: Wide>(a: __m512i, b: __m512i) -> u16 {
    if K::WIDE {
        let (a, b) = (_mm512_castsi512_pd(a), _mm512_castsi512_pd(b));
        u16::from(_mm512_cmp_pd_mask::<_CMP_UNORD_Q>(a, b))
    } else {
        _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(_mm512_castsi512_ps(a), _mm512_castsi512_ps(b))
    }
}

/// `v` and `acc` folded by the order alone (floats: `acc` where either is NaN).
#[inline]
#[target_feature(enable = "avx512f")]
fn pick<K: Wide, D: Direction>(v: __m512i, acc: __m512i) -> __m512i {
    match (K::WIDE, K::FLOAT, K::SIGNED, D::IS_MIN) {
        (false, true, _, false) => {
            let m = _mm512_max_ps(_mm512_castsi512_ps(v), _mm512_castsi512_ps(acc));
            _mm512_castps_si512(m)
        }
        (false, true, _, true) => {
            let m = _mm512_min_ps(_mm512_castsi512_ps(v), _mm512_castsi512_ps(acc));
            _mm512_castps_si512(m)
        }
        (true, true, _, false) => {
            let m = _mm512_max_pd(_mm512_castsi512_pd(v), _mm512_castsi512_pd(acc));
            _mm512_castpd_si512(m)
        }
        (true, true, _, true) => {
            let m = _mm512_min_pd(_mm512_castsi512_pd(v), _mm512_castsi512_pd(acc));
            _mm512_castpd_si512(m)
        }
        (false, false, true, false) => _mm512_max_epi32(v, acc),
        (false, false, true, true) => _mm512_min_epi32(v, acc),
        (false, false, false, false) => _mm512_max_epu32(v, acc),
        (false, false, false, true) => _mm512_min_epu32(v, acc),
        (true, false, true, false) => _mm512_max_epi64(v, acc),
        (true, false, true, true) => _mm512_min_epi64(v, acc),
        (true, false, false, false) => _mm512_max_epu64(v, acc),
        (true, false, false, true) => _mm512_min_epu64(v, acc),
    }
}
