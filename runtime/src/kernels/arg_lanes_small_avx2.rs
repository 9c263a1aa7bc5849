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
//! For the CPUs [`available`] finds; [`arg_blocks`] checks.

use core::arch::x86_64::{
    __m256i, _mm256_movemask_epi8, _mm256_setzero_si256, _mm256_storeu_si256,
};

use super::shared::take;
use super::short_rows_avx2::lanes::{
    any_nan, count_up, equal, identity, key, load, load2, pick, track, Halves, I16s, I32s, I8s,
    Lanes, U16s, U32s, U8s,
};
use super::short_rows_avx2::{self, available, bytes, WIDE_ROW};
use crate::{DType, Direction, Element};

/// Vectors of lanes a tile keeps in registers, with as many of row numbers.
const TILE: usize = 4;

/// The fewest rows a block must have. Blocks of two and three rows were left to the portable
/// passes once, whose set-up per block cost more here: 2 MiB as `[n, 2, 16]` of f16 2.1 ms
/// there, 0.27 here (`i16` 1.9 -> 0.22 ms, `u8` 3.1 -> 0.57), f16 `[21845, 3, 16]` 557 -> 200
/// us; `u8` `[2, 1048576]` 465 -> 375 us against the kernel of two rows. 4-byte types from
/// three rows: the portable pass's build of `i32` `[16384, 2, 16]` was faster (146 us, 196
/// here).
pub(super) const MIN_ROWS: usize = 2;

/// The fewest super-rows of more than one row a block must have where the candidates are folded
/// one lane at a time, for that fold to pay.
const MIN_SUPER_ROWS: usize = 32;

/// The widest super-row, in bytes (eight vectors).
const MAX_PERIOD: usize = 256;

/// Whether this kernel reads blocks of `rows` rows of `row` bytes (elements of `size` bytes) by
/// tiles: [`short_rows_avx2::tiled`] with rows wide past [`WIDE_ROW`], of 1-byte types past twice
/// that (`[1000, 2097]` of `u8` over axis 0: 63 us in the grouped pass, 113 in the tiles;
/// `[5000, 209]` along axis 0, `i16` 0.75-0.82x and f16 0.59-0.64x of the tiles' time there,
/// `i32` `[5000, 100]` 0.74-0.78x; but `u8` rows of 150 and 200 bytes 1.2-1.5x slower there, as
/// it widens the row numbers, and 300-419 bytes 0.84-0.95x).
const fn tiled(rows: usize, row: usize, size: usize) -> bool {
    let wide = if size == 1 { 2 * WIDE_ROW } else { WIDE_ROW };
    short_rows_avx2::tiled(rows, row, wide)
}

/// How a block's rows are read.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Read {
    /// A row at a time (rows of 32 bytes or more), in tiles of up to four vectors.
    Rows,
    /// Rows of 16 to 31 bytes a row at a time, a vector of the row's first 16 bytes and its
    /// last 16.
    Halves,
    /// Two rows of 16 bytes a vector, the pair of candidates of each lane folded in the vector.
    Pairs,
    /// `k` rows at a time, each lane's `k` candidates folded lane by lane.
    Supers,
}

/// How a block's rows are read: super-rows of `k` rows, `p` bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Plan {
    read: Read,
    k: usize,
    p: usize,
}

impl Plan {
    /// The reading of `rows` rows of `row` bytes, if this kernel takes them: a row at a time
    /// from 32 bytes on; shorter rows `k` at a time, the `k` that wastes least of the vectors
    /// (the last vector of a super-row overlaps the one before where the super-row is not whole
    /// vectors), then the fewest; rows of 16 to 31 bytes in too few super-rows as halves (pairs of
    /// 16-byte rows of `size` 1, the bytes, fold in the vector).
    fn of(row: usize, rows: usize, size: usize) -> Option<Plan> {
        if rows < MIN_ROWS + usize::from(size == 4) || row == 0 || !tiled(rows, row, size) {
            return None;
        }
        if row >= 32 {
            return Some(Plan {
                read: Read::Rows,
                k: 1,
                p: row,
            });
        }
        let supers = Self::supers(row);
        if row == 16 && size == 1 && rows <= 256 {
            // Bytes in one group of row numbers: the pairs fold in the vector.
            return Some(Plan {
                read: Read::Pairs,
                ..supers
            });
        }
        if rows / supers.k >= MIN_SUPER_ROWS {
            return Some(supers);
        }
        (row >= 16).then_some(Plan {
            read: Read::Halves,
            k: 1,
            p: row,
        })
    }

    /// Super-rows of rows of `row` bytes (under 32).
    fn supers(row: usize) -> Plan {
        if 32usize.is_multiple_of(row) {
            // Whole vectors of whole rows.
            return Plan {
                read: Read::Supers,
                k: 32 / row,
                p: 32,
            };
        }
        let mut best = Plan {
            read: Read::Supers,
            k: 32usize.div_ceil(row),
            p: 32usize.div_ceil(row) * row,
        };
        for k in best.k + 1..=MAX_PERIOD / row {
            let p = k * row;
            // p / loaded(p) above the best's, in integers.
            if p * best.p.div_ceil(32) > best.p * p.div_ceil(32) {
                best.k = k;
                best.p = p;
            }
        }
        best
    }

    /// The lanes of the vector at byte `at` of a super-row: the lane in the super-row of each.
    fn lane(self, at: usize, l: usize, size: usize) -> usize {
        let half = 16 / size;
        if self.read == Read::Halves && l >= half {
            (self.p - 16) / size + l - half
        } else {
            at / size + l
        }
    }
}

/// The index of the extreme of each of `inner` lanes down the `r` rows of each block of `x`
/// into `y` (`inner` indices a block), the first or with `LAST` the last, and with `v` not
/// empty the extreme into `v`: `true` if done, `false` (nothing written) where this kernel does
/// not take the blocks (not one of its types, rows it does not read, no AVX2). Blocks with a
/// NaN are done by the portable pass.
#[inline(always)]
pub(super) fn arg_blocks<T: Element, D: Direction, const LAST: bool>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    r: usize,
    inner: usize,
) -> bool {
    if r > u32::MAX as usize || !available() {
        return false;
    }
    // SAFETY: `available` found AVX2; each arm's lanes are `T`'s.
    unsafe {
        by_dtype!(T {
            DType::U8 | DType::Bool => arg_in::<U8s, D, LAST, T>(x, y, v, r, inner),
            DType::I8 => arg_in::<I8s, D, LAST, T>(x, y, v, r, inner),
            DType::U16 => arg_in::<U16s, D, LAST, T>(x, y, v, r, inner),
            DType::I16 => arg_in::<I16s, D, LAST, T>(x, y, v, r, inner),
            DType::F16 => arg_in::<Halves<0x7c00>, D, LAST, T>(x, y, v, r, inner),
            DType::BF16 => arg_in::<Halves<0x7f80>, D, LAST, T>(x, y, v, r, inner),
            DType::U32 => arg_in::<U32s, D, LAST, T>(x, y, v, r, inner),
            DType::I32 => arg_in::<I32s, D, LAST, T>(x, y, v, r, inner),
        } else false)
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

/// [`arg_blocks`] for lanes `K`.
///
/// # Safety
/// The CPU has AVX2; `T` is `K`'s type.
#[target_feature(enable = "avx2")]
unsafe fn arg_in<K: Lanes, D: Direction, const LAST: bool, T: Element>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    r: usize,
    inner: usize,
) -> bool {
    crate::kernels::shared::align_frame();
    let (Some(xb), Some(plan)) = (bytes(x), Plan::of(inner * K::SIZE, r, K::SIZE)) else {
        return false;
    };
    let counts = match K::SIZE {
        1 => 1usize << 8,
        2 => 1 << 16,
        _ => usize::MAX,
    };
    let (size, group) = (r * inner, counts / plan.k);
    let mut blocks = (x.len() / size).min(y.len() / inner);
    if !v.is_empty() {
        blocks = blocks.min(v.len() / inner);
    }
    if one_vector::takes(plan.read, plan.p, r, group) {
        // SAFETY: AVX2; `T` is `K`'s type, `xb` its bytes; `takes` holds.
        unsafe {
            if plan.read == Read::Pairs {
                one_vector::blocks::<K, D, LAST, true, T>(x, xb, y, v, (r, inner, blocks));
            } else {
                one_vector::blocks::<K, D, LAST, false, T>(x, xb, y, v, (r, inner, blocks));
            }
        }
        return true;
    }
    for n in 0..blocks {
        let (Some(xs), Some(xbs), Some(ys)) = (
            x.get(n * size..(n + 1) * size),
            xb.get(n * size * K::SIZE..(n + 1) * size * K::SIZE),
            y.get_mut(n * inner..(n + 1) * inner),
        ) else {
            break;
        };
        let vs = v.get_mut(n * inner..(n + 1) * inner).unwrap_or_default();
        let b = Block {
            xb: xbs,
            x: xs,
            inner,
            plan,
            supers: r / plan.k,
            group,
        };
        // SAFETY: AVX2; `b` is one block of `T`.
        if !unsafe { block::<K, D, LAST, T>(&b, ys, vs) } {
            // A NaN: the portable pass and its NaN rule.
            super::arg_lanes::arg_lanes_tiles::<T, D, LAST, 64, false>(xs, ys, vs, inner);
        }
    }
    true
}

/// One block: `false` if it holds a NaN (then `y` and `v` hold nothing meaningful).
///
/// # Safety
/// The CPU has AVX2; `T` is `K`'s type.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn block<K: Lanes, D: Direction, const LAST: bool, T: Element>(
    b: &Block<'_, T>,
    y: &mut [i64],
    v: &mut [T],
) -> bool {
    let (plan, inner) = (b.plan, b.inner);
    if plan.read == Read::Supers || (plan.read == Read::Pairs && b.supers > b.group) {
        // Not yet seen: the first candidate of a lane takes it.
        y.fill(-1);
    }
    let mut top = _mm256_setzero_si256();
    // Whether every tile wrote its extremes into `v`.
    let mut valued = true;
    if plan.read == Read::Halves {
        // SAFETY: AVX2; the halves read 16 bytes from 0 and from `p - 16`.
        valued = unsafe { tile::<K, D, LAST, T, 1>(b, [0], (y, v), &mut top) };
    } else {
        let vectors = plan.p.div_ceil(32);
        let mut t = 0;
        while t < vectors {
            let n = (vectors - t).min(TILE);
            let at = |i: usize| (32 * (t + i)).min(plan.p - 32);
            // SAFETY: AVX2; every offset is within the super-row, 32 bytes before its end or
            // less.
            valued &= unsafe {
                match n {
                    1 => tile::<K, D, LAST, T, 1>(b, [at(0)], (y, v), &mut top),
                    2 => tile::<K, D, LAST, T, 2>(b, [at(0), at(1)], (y, v), &mut top),
                    3 => tile::<K, D, LAST, T, 3>(b, [at(0), at(1), at(2)], (y, v), &mut top),
                    _ => {
                        tile::<K, D, LAST, T, 4>(b, [at(0), at(1), at(2), at(3)], (y, v), &mut top)
                    }
                }
            };
            t += n;
        }
    }
    if any_nan::<K>(top) {
        return false;
    }
    // The rows after the last whole super-row.
    let rows = b.x.len() / inner;
    for row in b.supers * plan.k..rows {
        for col in 0..inner {
            offer::<T, D, LAST>(b.x, y, inner, col, row);
        }
    }
    if !v.is_empty() && !valued {
        for (col, (o, &at)) in v.iter_mut().zip(y.iter()).enumerate() {
            if let Some(&e) = b.x.get(at as usize * inner + col) {
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
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn tile<K: Lanes, D: Direction, const LAST: bool, T: Element, const N: usize>(
    b: &Block<'_, T>,
    at: [usize; N],
    (y, v): (&mut [i64], &mut [T]),
    top: &mut __m256i,
) -> bool {
    crate::kernels::shared::align_frame();
    let lanes = 32 / K::SIZE;
    let groups = b.supers.div_ceil(b.group);
    if groups == 1 && b.plan.read != Read::Supers {
        // SAFETY: as this function's.
        let (best, idx) = unsafe { group::<K, D, LAST, T, N>(b, at, 0, top) };
        if b.plan.read == Read::Pairs {
            // SAFETY: AVX2; pairs are bytes in one vector.
            unsafe { fold_pairs::<K, D, LAST>(best[0], idx[0], y) };
            return false;
        }
        for i in 0..N {
            let mut rows = [0u8; 40];
            // SAFETY: 32 bytes.
            unsafe { _mm256_storeu_si256(rows.as_mut_ptr().cast(), idx[i]) };
            let half = 16 / K::SIZE;
            for h in [0, half] {
                let lane = b.plan.lane(at[i], h, K::SIZE);
                if let Some(y) = y.get_mut(lane..lane + half) {
                    // SAFETY: AVX2; `rows` holds 16 bytes past `16 · h`.
                    unsafe { widen::<K>(&rows, h * K::SIZE, y) };
                }
            }
        }
        if b.plan.read == Read::Rows && !v.is_empty() {
            // The extremes from the keys: no second visit to the rows found.
            for i in 0..N {
                let from = at[i] / K::SIZE;
                let Some(vs) = v.get_mut(from..from + lanes) else {
                    return false;
                };
                // SAFETY: AVX2; `T` is `K`'s type.
                unsafe { put_values::<K, T>(best[i], vs) };
            }
            return true;
        }
        return false;
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
    let count = (at[N - 1] - at[0]) / K::SIZE + lanes;
    for (l, &s) in rows.iter().take(count).enumerate() {
        let lane = b.plan.lane(at[0], l, K::SIZE);
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
    false
}

/// Group `g` of the super-rows: each lane's extreme (key) and its super-row within the group.
/// A tile of one vector runs two chains, the even super-rows and the odd, merged at the end: one
/// chain would wait on each blend of the lane's row before the next.
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
    let mut s = first;
    if N == 1 {
        let (mut odd_best, mut odd_idx) = (identity::<K, D>(), _mm256_setzero_si256());
        let mut odd = count_up::<K>(count);
        while s + 2 <= end {
            // SAFETY: as this function's; `s + 1 < supers`.
            let (r0, r1) = unsafe { (fetch(b, s, at[0]), fetch(b, s + 1, at[0])) };
            if K::INF != 0 {
                nan = track::<K>(track::<K>(nan, r0), r1);
            }
            (best[0], idx[0]) = take_row::<K, D, LAST>(best[0], idx[0], key::<K>(r0), count);
            (odd_best, odd_idx) = take_row::<K, D, LAST>(odd_best, odd_idx, key::<K>(r1), odd);
            count = count_up::<K>(count_up::<K>(count));
            odd = count_up::<K>(count_up::<K>(odd));
            s += 2;
        }
        let (m, i, _) = merge::<K, D, LAST>(best[0], idx[0], odd_best, odd_idx);
        (best[0], idx[0]) = (m, i);
    }
    for s in s..end {
        for i in 0..N {
            // SAFETY: as this function's; `s < supers`.
            let raw = unsafe { fetch(b, s, at[i]) };
            if K::INF != 0 {
                nan = track::<K>(nan, raw);
            }
            (best[i], idx[i]) = take_row::<K, D, LAST>(best[i], idx[i], key::<K>(raw), count);
        }
        count = count_up::<K>(count);
    }
    *top = nan;
    (best, idx)
}

/// The vector at byte `at` of super-row `s` (for halves, the row's first and last 16 bytes).
///
/// # Safety
/// `s < b.supers` and `at + 32 <= b.plan.p`.
#[inline(always)]
unsafe fn fetch<T>(b: &Block<'_, T>, s: usize, at: usize) -> __m256i {
    let base = s * b.plan.p;
    // SAFETY: `base + at + 32 <= supers · p <= xb.len()`; halves read 16 bytes from `base` and
    // `base + p - 16`, `p` at least 16.
    unsafe {
        if b.plan.read == Read::Halves {
            load2(b.xb, base, base + b.plan.p - 16)
        } else {
            load(b.xb, base + at)
        }
    }
}

mod one_vector;
mod steps;
#[cfg(test)]
mod tests;

use steps::{fold_pairs, merge, put_values, take_row, widen};
