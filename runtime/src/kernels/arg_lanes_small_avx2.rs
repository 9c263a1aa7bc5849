//! Arg-reductions down the rows of a block (ArgMax, ArgMin along an axis that is not the last)
//! for 1-, 2- and 4-byte types (`i8`, `u8`, `bool`, `i16`, `u16`, f16 and bf16 as order keys,
//! `i32`, `u32`) in AVX2, the block's lanes across the vectors.
//!
//! Each lane keeps its extreme and the row it came from in the element's own width, 32 bytes of
//! lanes a vector where the portable pass widens every row number to 32 bits: a load, a max (or
//! min), an equality and a blend a vector. Rows are counted in groups that width holds (256
//! for bytes, 65536 for 2-byte types); the lanes a later group wins take its rows, widened.
//! Rows of under 32 bytes (`u8` rows of 16 to 31 lanes) are read `k` at a time as one wider
//! super-row, and each lane's `k` candidates folded at the end. f16 and bf16: a NaN is noticed
//! on the side (a magnitude over infinity's) and the block left to the exact pass.
//!
//! For the CPUs [`available`] finds; [`arg_lanes`] checks.

use core::arch::x86_64::{
    __m256i, _mm256_add_epi64, _mm256_and_si256, _mm256_andnot_si256, _mm256_blendv_epi8,
    _mm256_cmpeq_epi8, _mm256_cvtepu16_epi64, _mm256_cvtepu32_epi64, _mm256_cvtepu8_epi64,
    _mm256_max_epu8, _mm256_movemask_epi8, _mm256_or_si256, _mm256_permute2x128_si256,
    _mm256_set1_epi8, _mm256_setzero_si256, _mm256_slli_epi64, _mm256_storeu_si256,
    _mm_loadl_epi64, _mm_loadu_si128,
};
use core::mem::size_of;

use super::shared::take;
use super::short_rows_avx2::lanes::{
    any_nan, count_up, equal, identity, key, load, pick, track, Halves, I16s, I32s, I8s, Lanes,
    U16s, U32s, U8s,
};
use super::short_rows_avx2::{available, bytes};
use crate::{DType, Direction, Element};

/// Vectors of lanes a tile keeps in registers, with as many of row numbers.
const TILE: usize = 4;

/// The fewest rows a block must have: fewer leave the setup and the widening of the rows most
/// of the work.
pub(super) const MIN_ROWS: usize = 4;

/// The fewest super-rows of more than one row a block must have where the candidates are folded
/// one lane at a time, for that fold to pay.
const MIN_SUPER_ROWS: usize = 32;

/// The widest super-row, in bytes (eight vectors).
const MAX_PERIOD: usize = 256;

/// How a block's rows are read: super-rows of `k` rows, `p` bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Plan {
    k: usize,
    p: usize,
}

impl Plan {
    /// The reading of rows of `row` bytes: one at a time from 32 bytes on; shorter rows `k` at a
    /// time, the `k` that wastes least of the vectors (the last vector of a super-row overlaps
    /// the one before where the super-row is not whole vectors), then the fewest.
    fn of(row: usize) -> Option<Plan> {
        if row >= 32 {
            return Some(Plan { k: 1, p: row });
        }
        if row == 0 {
            return None;
        }
        let mut best: Option<Plan> = None;
        for k in 32usize.div_ceil(row)..=MAX_PERIOD / row {
            let p = k * row;
            let fits_better = match best {
                // p / loaded(p) above the best's, in integers.
                Some(b) => p * b.p.div_ceil(32) > b.p * p.div_ceil(32),
                None => true,
            };
            if fits_better {
                best = Some(Plan { k, p });
            }
        }
        best
    }

    /// Whether the `k` candidates of each lane fold in one vector (two rows of 16 bytes).
    fn folds_in_vector(self) -> bool {
        self.k == 2 && self.p == 32
    }
}

/// The index of the extreme of each of the `inner` lanes down the rows of `x` (`x.len() /
/// inner` rows) into `y`, the first or with `LAST` the last, and with `v` not empty the
/// extreme into `v`: `true` if done. `false` where this kernel does not take the block (not
/// one of its types, too few rows, no AVX2) or a NaN came up; then `y` and `v` hold nothing
/// meaningful and the caller does the block.
#[inline(always)]
pub(super) fn arg_lanes<T: Element, D: Direction, const LAST: bool>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    inner: usize,
) -> bool {
    if inner == 0
        || y.len() != inner
        || !(v.is_empty() || v.len() == inner)
        || x.len() / inner < MIN_ROWS
        || x.len() / inner > u32::MAX as usize
        || !available()
    {
        return false;
    }
    // SAFETY: `available` found AVX2; each arm's lanes are `T`'s.
    unsafe {
        match T::DTYPE {
            DType::U8 | DType::Bool => arg_in::<U8s, D, LAST, T>(x, y, v, inner),
            DType::I8 => arg_in::<I8s, D, LAST, T>(x, y, v, inner),
            DType::U16 => arg_in::<U16s, D, LAST, T>(x, y, v, inner),
            DType::I16 => arg_in::<I16s, D, LAST, T>(x, y, v, inner),
            DType::F16 => arg_in::<Halves<0x7c00>, D, LAST, T>(x, y, v, inner),
            DType::BF16 => arg_in::<Halves<0x7f80>, D, LAST, T>(x, y, v, inner),
            DType::U32 => arg_in::<U32s, D, LAST, T>(x, y, v, inner),
            DType::I32 => arg_in::<I32s, D, LAST, T>(x, y, v, inner),
            _ => false,
        }
    }
}

/// What a block's tiles share.
struct Block<'a, T> {
    xb: &'a [u8],
    x: &'a [T],
    inner: usize,
    plan: Plan,
    /// Super-rows in the block.
    supers: usize,
    /// Super-rows a group counts in the lanes' width.
    group: usize,
}

/// [`arg_lanes`] for lanes `K`.
///
/// # Safety
/// The CPU has AVX2; `T` is `K`'s type.
#[target_feature(enable = "avx2")]
unsafe fn arg_in<K: Lanes, D: Direction, const LAST: bool, T: Element>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    inner: usize,
) -> bool {
    let (Some(xb), Some(plan)) = (bytes(x), Plan::of(inner * K::SIZE)) else {
        return false;
    };
    let rows = x.len() / inner;
    let supers = rows / plan.k;
    let counts = match K::SIZE {
        1 => 1usize << 8,
        2 => 1 << 16,
        _ => usize::MAX,
    };
    let b = Block {
        xb,
        x,
        inner,
        plan,
        supers,
        group: counts / plan.k,
    };
    let in_vector = plan.folds_in_vector() && supers <= b.group;
    if plan.k > 1 && !in_vector {
        if supers < MIN_SUPER_ROWS {
            return false;
        }
        // Not yet seen: the first candidate of a lane takes it.
        y.fill(-1);
    }
    let mut top = _mm256_setzero_si256();
    let vectors = plan.p.div_ceil(32);
    let mut t = 0;
    while t < vectors {
        let n = (vectors - t).min(TILE);
        let at = |i: usize| (32 * (t + i)).min(plan.p - 32);
        // SAFETY: AVX2; every offset is within the super-row, 32 bytes before its end or less.
        unsafe {
            match n {
                1 => tile::<K, D, LAST, T, 1>(&b, [at(0)], y, &mut top),
                2 => tile::<K, D, LAST, T, 2>(&b, [at(0), at(1)], y, &mut top),
                3 => tile::<K, D, LAST, T, 3>(&b, [at(0), at(1), at(2)], y, &mut top),
                _ => tile::<K, D, LAST, T, 4>(&b, [at(0), at(1), at(2), at(3)], y, &mut top),
            }
        }
        t += n;
    }
    if any_nan::<K>(top) {
        return false;
    }
    // The rows after the last whole super-row.
    for row in supers * plan.k..rows {
        for col in 0..inner {
            offer::<T, D, LAST>(x, y, inner, col, row);
        }
    }
    if !v.is_empty() {
        for (col, (o, &at)) in v.iter_mut().zip(y.iter()).enumerate() {
            if let Some(&e) = x.get(at as usize * inner + col) {
                *o = e;
            }
        }
    }
    true
}

/// Offers row `row` of lane `col` to `y[col]` (-1 until a lane has a row): it takes the row if
/// the row's element is more extreme, or as extreme and first (last with `LAST`).
#[inline(always)]
fn offer<T: Element, D: Direction, const LAST: bool>(
    x: &[T],
    y: &mut [i64],
    inner: usize,
    col: usize,
    row: usize,
) {
    let Some(o) = y.get_mut(col) else {
        return;
    };
    let Ok(held) = usize::try_from(*o) else {
        *o = row as i64;
        return;
    };
    let (Some(&now), Some(&new)) = (x.get(held * inner + col), x.get(row * inner + col)) else {
        return;
    };
    let wins = if row > held {
        take::<T, D, LAST>(now, new)
    } else {
        row < held && !take::<T, D, LAST>(new, now)
    };
    if wins {
        *o = row as i64;
    }
}

/// The lanes of `N` vectors at byte offsets `at` of every super-row, down all the super-rows of
/// the block, group by group (the last group first with `LAST`, so that an earlier group only
/// wins a lane by a more extreme element); their rows into `y`.
///
/// # Safety
/// The CPU has AVX2; `at[i] + 32 <= b.plan.p`.
#[target_feature(enable = "avx2")]
unsafe fn tile<K: Lanes, D: Direction, const LAST: bool, T: Element, const N: usize>(
    b: &Block<'_, T>,
    at: [usize; N],
    y: &mut [i64],
    top: &mut __m256i,
) {
    let lanes = 32 / K::SIZE;
    let groups = b.supers.div_ceil(b.group);
    if groups == 1 && (b.plan.k == 1 || b.plan.folds_in_vector()) {
        // SAFETY: as this function's.
        let (best, idx) = unsafe { group::<K, D, LAST, T, N>(b, at, 0, top) };
        if b.plan.k > 1 {
            // SAFETY: AVX2; a vector fold means bytes and one vector.
            unsafe { fold_pairs::<K, D, LAST>(best[0], idx[0], y) };
            return;
        }
        for i in 0..N {
            let lane = at[i] / K::SIZE;
            if let Some(y) = y.get_mut(lane..lane + lanes) {
                // SAFETY: AVX2.
                unsafe { store_rows::<K>(idx[i], y) };
            }
        }
        return;
    }
    let mut held = [identity::<K, D>(); N];
    // Each lane's super-row, lanes numbered from `at[0]`.
    let mut rows = [0u32; TILE * 32];
    for gi in 0..groups {
        let g = if LAST { groups - 1 - gi } else { gi };
        // SAFETY: as this function's.
        let (best, idx) = unsafe { group::<K, D, LAST, T, N>(b, at, g, top) };
        // Lanes where this group is the first taken or beats the earlier ones.
        for i in 0..N {
            let wins = if gi == 0 {
                held[i] = best[i];
                u32::MAX
            } else {
                let m = pick::<K, D>(held[i], best[i]);
                let lost = equal::<K>(m, held[i]);
                held[i] = m;
                !(_mm256_movemask_epi8(lost) as u32)
            };
            if wins != 0 {
                let mut counts = [0u8; 32];
                // SAFETY: 32 bytes.
                unsafe { _mm256_storeu_si256(counts.as_mut_ptr().cast(), idx[i]) };
                let from = (at[i] - at[0]) / K::SIZE;
                for (l, c) in counts.chunks_exact(K::SIZE).enumerate() {
                    if wins & (1 << (l * K::SIZE)) != 0 {
                        let mut w = [0u8; 4];
                        w[..K::SIZE].copy_from_slice(c);
                        if let Some(r) = rows.get_mut(from + l) {
                            *r = (g * b.group + u32::from_le_bytes(w) as usize) as u32;
                        }
                    }
                }
            }
        }
    }
    // Each lane's row to its column.
    let start = at[0] / K::SIZE;
    let count = (at[N - 1] - at[0]) / K::SIZE + lanes;
    for (l, &s) in rows.iter().take(count).enumerate() {
        let lane = start + l;
        let (col, off) = (lane % b.inner, lane / b.inner);
        let row = s as usize * b.plan.k + off;
        if b.plan.k == 1 {
            if let Some(o) = y.get_mut(col) {
                *o = row as i64;
            }
        } else {
            offer::<T, D, LAST>(b.x, y, b.inner, col, row);
        }
    }
}

/// Group `g` of the super-rows: each lane's extreme (key) and its super-row within the group.
///
/// # Safety
/// The CPU has AVX2; `at[i] + 32 <= b.plan.p`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn group<K: Lanes, D: Direction, const LAST: bool, T: Element, const N: usize>(
    b: &Block<'_, T>,
    at: [usize; N],
    g: usize,
    top: &mut __m256i,
) -> ([__m256i; N], [__m256i; N]) {
    let first = g * b.group;
    let end = (first + b.group).min(b.supers);
    let mut best = [identity::<K, D>(); N];
    let mut idx = [_mm256_setzero_si256(); N];
    let mut count = _mm256_setzero_si256();
    let mut nan = *top;
    for s in first..end {
        let base = s * b.plan.p;
        for i in 0..N {
            // SAFETY: `base + at[i] + 32 <= supers · p <= xb.len()`.
            let raw = unsafe { load(b.xb, base + at[i]) };
            if K::INF != 0 {
                nan = track::<K>(nan, raw);
            }
            let e = key::<K>(raw);
            let m = pick::<K, D>(best[i], e);
            idx[i] = if LAST {
                _mm256_blendv_epi8(idx[i], count, equal::<K>(m, e))
            } else {
                _mm256_blendv_epi8(count, idx[i], equal::<K>(m, best[i]))
            };
            best[i] = m;
        }
        count = count_up::<K>(count);
    }
    *top = nan;
    (best, idx)
}

/// The row numbers in `idx` (lanes of `K`, unsigned) into `y`, as `i64`.
///
/// # Safety
/// The CPU has AVX2.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn store_rows<K: Lanes>(idx: __m256i, y: &mut [i64]) {
    // Eight bytes past the vector: each 8-byte load of the last `u8` chunk stays inside.
    let mut buf = [0u8; 40];
    // SAFETY: 32 bytes.
    unsafe { _mm256_storeu_si256(buf.as_mut_ptr().cast(), idx) };
    let step = 4 * K::SIZE;
    for (c, o) in y.chunks_exact_mut(4).take(32 / step).enumerate() {
        // SAFETY: the loads read 8 or 16 bytes from `c · step`, inside `buf`; `o` is 32 bytes.
        unsafe {
            let from = buf.as_ptr().add(c * step).cast();
            let w = match K::SIZE {
                1 => _mm256_cvtepu8_epi64(_mm_loadl_epi64(from)),
                2 => _mm256_cvtepu16_epi64(_mm_loadl_epi64(from)),
                _ => _mm256_cvtepu32_epi64(_mm_loadu_si128(from)),
            };
            _mm256_storeu_si256(o.as_mut_ptr().cast(), w);
        }
    }
}

/// The two candidates of each of 16 byte lanes (row `2s` in the low half of `best`, row `2s +
/// 1` in the high half, `s` in `idx`) folded into one row per lane, into `y`.
///
/// # Safety
/// The CPU has AVX2; `K` is a byte type.
#[target_feature(enable = "avx2")]
unsafe fn fold_pairs<K: Lanes, D: Direction, const LAST: bool>(
    best: __m256i,
    idx: __m256i,
    y: &mut [i64],
) {
    let ones = _mm256_cmpeq_epi8(best, best);
    let high = _mm256_permute2x128_si256::<0x01>(best, best);
    let high_idx = _mm256_permute2x128_si256::<0x01>(idx, idx);
    // The high row wins where more extreme, or as extreme and earlier (later with `LAST`).
    let more = _mm256_andnot_si256(equal::<K>(pick::<K, D>(best, high), best), ones);
    let tied = equal::<K>(best, high);
    let high_not_before = equal::<K>(_mm256_max_epu8(idx, high_idx), high_idx);
    let order = if LAST {
        high_not_before
    } else {
        _mm256_andnot_si256(high_not_before, ones)
    };
    let wins = _mm256_or_si256(more, _mm256_and_si256(tied, order));
    let s = _mm256_blendv_epi8(idx, high_idx, wins);
    let odd = _mm256_and_si256(wins, _mm256_set1_epi8(1));
    let (mut sb, mut ob) = ([0u8; 32], [0u8; 32]);
    // SAFETY: 32 bytes each; the loads below read 8 of them.
    unsafe {
        _mm256_storeu_si256(sb.as_mut_ptr().cast(), s);
        _mm256_storeu_si256(ob.as_mut_ptr().cast(), odd);
        for (c, o) in y.chunks_exact_mut(4).take(4).enumerate() {
            let s = _mm256_cvtepu8_epi64(_mm_loadl_epi64(sb.as_ptr().add(4 * c).cast()));
            let odd = _mm256_cvtepu8_epi64(_mm_loadl_epi64(ob.as_ptr().add(4 * c).cast()));
            let row = _mm256_add_epi64(_mm256_slli_epi64::<1>(s), odd);
            _mm256_storeu_si256(o.as_mut_ptr().cast(), row);
        }
    }
}

#[cfg(test)]
mod tests;
