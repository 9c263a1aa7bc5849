//! ReduceMax and ReduceMin of contiguous rows of [`MIN_ROW`] to [`MAX_ROW`] elements of every
//! numeric type and bool (`u8`, `i8`, bool, `u16`, `i16`, f16 and bf16 by order keys, `f32`,
//! `i32`, `u32`, `f64`, `i64`, `u64`; 1- and 2-byte rows to 11), each row folded over planes
//! first (`[P, K, N]` over the first and the last axis), in 64-byte AVX-512 vectors, a block of
//! rows at a time (as many rows as a vector has lanes: 64, 32, 16 or 8), for CPUs that have
//! them (checked here; 1-byte lanes also need VBMI).
//!
//! A block of `L` rows of `N` (`L` the lanes of a vector) is `N` vectors. Each plane's `N`
//! vectors are loaded and folded into the first plane's by the order alone, `f32` and `f64`
//! with an unordered compare of every two into a mask looking for NaN (f16 and bf16 from their
//! keys folded both ways, once a block; a block with a NaN is left to the caller's exact path).
//! The extreme of each window of `N` elements is then built in place across the `N` vectors by
//! doubling (windows of 2, 4, 8: the vectors shifted by one lane-aligning instruction or
//! two-vector permute each, then the last window of `N` from two overlapping ones), and the
//! windows that start a row (lanes `0, N, 2N, ...`) are picked into one vector by two-vector
//! permutes, one per two vectors. No tile
//! in memory: the planes' loads and the rows' shuffles of one block overlap in the core, where
//! the `f32` tile of [`reduce_planes`](crate::kernels::reduce_planes) folded 4 KiB of planes and
//! then reduced its rows with the memory idle (`[2, 52428, 5]` 1.38-1.44x of the stream against
//! 1.15-1.19x here), and the 1- and 2-byte types went plane by plane into `y` (rows of three:
//! `y` read and written once a plane).

use core::arch::x86_64::{__m512i, _mm512_setzero_si512};

use crate::kernels::isa;
use crate::{DType, Direction, Element};

mod lanes;

use lanes::{
    blend, half_nan_flags, indexes, key, load, nans2, permute, pick, pick_other, settle, shifted,
    signs16, store, Bf16s, F16s, F32s, F64s, I16s, I32s, I64s, I8s, U16s, U32s, U64s, U8s, Wide,
};

/// The shortest rows this kernel takes.
pub(in crate::kernels) const MIN_ROW: usize = 2;

/// The longest rows this kernel takes (a block of rows in sixteen vectors).
pub(in crate::kernels) const MAX_ROW: usize = 16;

/// The longest rows of 1- and 2-byte types it takes: longer ones keep the AVX2 paths, as fast
/// or faster there (`u8` rows of 12 and 16 1.0-1.06x of the stream against 1.04-1.12x here,
/// f16 rows of 12 and 16 1.02-1.13x against 1.2-1.38x; rows of 9 to 11 1.21-1.46x there,
/// 1.18-1.31x here).
pub(in crate::kernels) const NARROW_MAX_ROW: usize = 11;

/// Whether the kernel takes rows of `n` elements of `size` bytes (the types aside).
pub(in crate::kernels) const fn takes(size: usize, n: usize) -> bool {
    n >= MIN_ROW && n <= if size <= 2 { NARROW_MAX_ROW } else { MAX_ROW }
}

/// The kernel's arguments: `y`, `x`, `planes`, `plane`, `at` (see [`fold_rows_planes`]).
type Entry<T> = unsafe fn(&mut [T], &[T], usize, usize, usize) -> usize;

/// Folds row `k` of every plane (`planes` planes of `plane` elements of `T`, row `k` from
/// element `at + k * N` of each) into `y[k]` (a NaN there stays) where this kernel takes them
/// (rows of 2 to 16 of the types the module names, to [`NARROW_MAX_ROW`] of 1- and 2-byte
/// ones, on a CPU with AVX-512, 1-byte types with VBMI): how many rows it did, from the
/// first, a multiple of the block (`64 / size_of::<T>()` rows), stopping before a block that
/// holds a NaN in any plane and before the rows under a block at the end; `None` (nothing
/// done) elsewhere. The caller's exact path does the rest.
#[inline(always)]
pub(in crate::kernels) fn fold_rows_planes<T: Element, D: Direction, const N: usize>(
    y: &mut [T],
    x: &[T],
    planes: usize,
    plane: usize,
    at: usize,
) -> Option<usize> {
    // The type and length first: known when compiling, so that other types' calls vanish.
    if !takes(size_of::<T>(), N) {
        return None;
    }
    let entry: Entry<T> = match T::DTYPE {
        DType::U8 | DType::Bool => fold_rows512_vbmi::<U8s, D, T, N>,
        DType::I8 => fold_rows512_vbmi::<I8s, D, T, N>,
        DType::U16 => fold_rows512::<U16s, D, T, N>,
        DType::I16 => fold_rows512::<I16s, D, T, N>,
        DType::F16 => fold_rows512::<F16s, D, T, N>,
        DType::BF16 => fold_rows512::<Bf16s, D, T, N>,
        DType::F32 => fold_rows512::<F32s, D, T, N>,
        DType::I32 => fold_rows512::<I32s, D, T, N>,
        DType::U32 => fold_rows512::<U32s, D, T, N>,
        DType::F64 => fold_rows512::<F64s, D, T, N>,
        DType::I64 => fold_rows512::<I64s, D, T, N>,
        DType::U64 => fold_rows512::<U64s, D, T, N>,
    };
    let bytes = size_of::<T>() == 1;
    if !crate::kernels::rows_f32::avx2::available()
        || isa::level() < isa::AVX512
        || (bytes && !isa::vbmi())
    {
        return None;
    }
    // SAFETY: `level` found AVX-512 F, BW, VL and DQ, `available` AVX2, BMI1 and BMI2, `vbmi`
    // VBMI for the 1-byte types' entry; each entry's lanes are `T`'s type.
    Some(unsafe { entry(y, x, planes, plane, at) })
}

/// The kernel's body, compiled into two entries: for 1-byte lanes with VBMI (their permutes),
/// for the others without.
macro_rules! entry {
    ($(#[$doc:meta])* $name:ident, $features:literal) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// The CPU has the entry's features; `T` is `K`'s type.
        #[target_feature(enable = $features)]
        unsafe fn $name<K: Wide, D: Direction, T: Element, const N: usize>(
            y: &mut [T],
            x: &[T],
            planes: usize,
            plane: usize,
            at: usize,
        ) -> usize {
            if !(MIN_ROW..=MAX_ROW).contains(&N) || planes == 0 || size_of::<T>() != K::SIZE {
                return 0;
            }
            let l = K::LANES;
            let picks = Picks::new::<K>(N);
            let shifts = Shifts::new::<K>();
            let mut done = 0;
            for o in y.chunks_exact_mut(l) {
                let Some(v) = block::<K, D, T, N>(x, planes, plane, at + done * N) else {
                    break;
                };
                // SAFETY: the caller's (VBMI where `K` has 1-byte lanes).
                let m = unsafe { picks.starts::<K, N>(&windows::<K, D, N>(v, &shifts)) };
                // SAFETY: `o` holds a vector of `T`.
                unsafe { store(o.as_mut_ptr(), settle::<K, D>(m, load(o.as_ptr()))) };
                done += l;
            }
            done
        }
    };
}
entry! {
    /// [`fold_rows_planes`] for lanes `K` of 2, 4 or 8 bytes.
    fold_rows512, "avx2,bmi1,bmi2,avx512f,avx512bw,avx512vl,avx512dq"
}
entry! {
    /// [`fold_rows_planes`] for lanes `K` of 1 byte.
    fold_rows512_vbmi, "avx2,bmi1,bmi2,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi"
}

/// The `N` vectors of a block of rows of `N` from element `from` of each plane, folded over
/// the planes (f16 and bf16 as keys); `None` if any holds a NaN or a plane ends before them.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn block<K: Wide, D: Direction, T, const N: usize>(
    x: &[T],
    planes: usize,
    plane: usize,
    from: usize,
) -> Option<[__m512i; N]> {
    let l = K::LANES;
    let mut v = [_mm512_setzero_si512(); N];
    // f16 and bf16: the keys folded the other way too, for their NaNs (`half_nan_flags`).
    let mut other = [_mm512_setzero_si512(); N];
    let mut bad = 0u64;
    for p in 0..planes {
        let start = p.checked_mul(plane)?.checked_add(from)?;
        let part = x.get(start..start.checked_add(l * N)?)?;
        let mut w = [_mm512_setzero_si512(); N];
        for (w, c) in w.iter_mut().zip(part.chunks_exact(l)) {
            // SAFETY: `c` holds a vector of `T` (64 bytes).
            *w = unsafe { load(c.as_ptr()) };
        }
        if K::FLOAT {
            for pair in w.chunks(2) {
                bad |= nans2::<K>(pair[0], *pair.last().unwrap_or(&pair[0]));
            }
        }
        for ((v, o), w) in v.iter_mut().zip(&mut other).zip(w) {
            let k = key::<K>(w);
            if p == 0 {
                (*v, *o) = (k, k);
            } else {
                *v = pick::<K, D>(k, *v);
                if K::HALF != 0 {
                    *o = pick_other::<K, D>(k, *o);
                }
            }
        }
    }
    if K::HALF != 0 {
        let mut flags = _mm512_setzero_si512();
        for (&v, &o) in v.iter().zip(&other) {
            let (high, low) = if D::IS_MIN { (o, v) } else { (v, o) };
            flags = half_nan_flags::<K>(high, low, flags);
        }
        bad |= signs16(flags);
    }
    (bad == 0).then_some(v)
}

/// In lane `i` of the `N` vectors (element `L * j + i` in vector `j`), the extreme of the
/// elements `i` to `i + N - 1` wherever they lie in the vectors (lanes past the last vector's
/// end hold whatever; no window that starts a row reaches them). This and the functions under
/// it are inlined always, without features of their own: an entry's features reach the
/// permutes (a function with fewer features is not inlined into it, and the 1-byte permutes of
/// rows of ten went out of line at eight times the stream).
///
/// # Safety
/// As [`permute`].
#[inline(always)]
unsafe fn windows<K: Wide, D: Direction, const N: usize>(
    mut w: [__m512i; N],
    shifts: &Shifts,
) -> [__m512i; N] {
    let mut span = 1;
    while 2 * span <= N {
        // SAFETY: the caller's.
        w = unsafe { widen::<K, D, N>(w, span, shifts) };
        span *= 2;
    }
    if span < N {
        // [i, i + span) and [i + N - span, i + N) cover [i, i + N) since N < 2 * span.
        // SAFETY: the caller's.
        w = unsafe { widen::<K, D, N>(w, N - span, shifts) };
    }
    w
}

/// Each lane folded with the lane `by` further on (1 to 8) across the vectors.
///
/// # Safety
/// As [`permute`].
#[inline(always)]
unsafe fn widen<K: Wide, D: Direction, const N: usize>(
    w: [__m512i; N],
    by: usize,
    shifts: &Shifts,
) -> [__m512i; N] {
    let mut out = w;
    let index = shifts.0.get(by.wrapping_sub(1)).copied();
    for (j, o) in out.iter_mut().enumerate() {
        let next = *w.get(j + 1).unwrap_or(&w[j]);
        // SAFETY: the caller's (AVX-512 F and BW for `pick`).
        *o = unsafe {
            let index = index.unwrap_or(w[j]);
            pick::<K, D>(shifted::<K>(w[j], next, by, index), w[j])
        };
    }
    out
}

/// The permutes' indexes for the shifts of 1- and 2-byte lanes by 1 to 8 lanes (lane `i`:
/// `i + by` of two vectors); unused for wider lanes, which have aligning instructions.
struct Shifts([__m512i; 8]);

impl Shifts {
    /// The indexes for lanes `K`.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn new<K: Wide>() -> Self {
        let mut all = [_mm512_setzero_si512(); 8];
        if K::SIZE <= 2 {
            for (by, v) in (1..).zip(all.iter_mut()) {
                *v = indexes::<K>(|i| i + by);
            }
        }
        Self(all)
    }
}

/// The permutes that gather lanes `0, N, ..., (L - 1) * N` of `N` vectors into one: for each
/// two vectors (`2q` and `2q + 1`), the indexes of the rows that start in them and the mask of
/// those rows.
struct Picks {
    /// Per two vectors, each row's lane among their `2 L` (0 where the row starts elsewhere).
    index: [__m512i; 8],
    /// Per two vectors, the rows that start in them.
    rows: [u64; 8],
}

impl Picks {
    /// The permutes for rows of `n` (2 to 16) of lanes `K`.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn new<K: Wide>(n: usize) -> Self {
        let l = K::LANES;
        let mut index = [_mm512_setzero_si512(); 8];
        let mut rows = [0u64; 8];
        for (q, (index, rows)) in index.iter_mut().zip(&mut rows).enumerate() {
            // Rows `r` that start in vectors `2q` and `2q + 1`: `r * n` in `[2qL, 2(q + 1)L)`.
            let starts = |r: usize| (r * n).checked_sub(2 * q * l).filter(|&s| s < 2 * l);
            *index = indexes::<K>(|r| starts(r).unwrap_or(0));
            for r in 0..l {
                if starts(r).is_some() {
                    *rows |= 1 << r;
                }
            }
        }
        Self { index, rows }
    }

    /// Lane `r` of the result: lane `r * N` of the vectors `w`.
    ///
    /// # Safety
    /// As [`permute`].
    #[inline(always)]
    unsafe fn starts<K: Wide, const N: usize>(&self, w: &[__m512i; N]) -> __m512i {
        // SAFETY: the caller's (AVX-512 F for the zeros).
        let mut out = unsafe { _mm512_setzero_si512() };
        for ((pair, &index), &rows) in w.chunks(2).zip(&self.index).zip(&self.rows) {
            let (a, b) = (pair[0], *pair.last().unwrap_or(&pair[0]));
            // SAFETY: the caller's.
            out = unsafe { blend::<K>(rows, out, permute::<K>(a, index, b)) };
        }
        out
    }
}
