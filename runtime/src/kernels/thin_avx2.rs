//! The kernel of many short blocks of few lanes ([`super::thin_blocks`]: blocks of `r` rows of
//! `c` lanes, the middle axis of `[n, r, c]`) in AVX2, for 1-, 2- and 4-byte integers, bool,
//! f16 and bf16 (by their order keys), rows of up to 16 bytes (32 in blocks of under 8 rows).
//!
//! The portable kernel reads each row of a block as a window of the few lanes from its start,
//! which fills an eighth of a vector for 5 bytes: here a block is read as windows of a whole
//! vector (32 bytes), each `q` whole rows (the rows a vector holds, at most `r`). The windows
//! step `q` rows down the block, the last one ending at the block's last row (overlapping the
//! one before where `q` does not divide `r`: max and min do not mind). Folded by the order
//! alone, the window's lanes hold the extreme of each lane over each of its `q` groups of rows;
//! shifts of the vector by whole groups then fold the groups into the first `c` lanes
//! ([`Plan`]). An arg-reduction copies those extremes over the groups and goes down the windows
//! again, the first (or with `LAST` the last) row of each lane that holds its extreme coming
//! from the bits of an equality. f16 and bf16: a NaN is noticed on the side and its block done
//! by the contract's rule lane by lane.
//!
//! For the CPUs [`available`] finds; the entries check.

use core::arch::x86_64::{
    __m256i, _mm256_add_epi16, _mm256_add_epi32, _mm256_add_epi8, _mm256_and_si256,
    _mm256_blendv_epi8, _mm256_cmpeq_epi8, _mm256_cmpgt_epi16, _mm256_loadu_si256,
    _mm256_movemask_epi8, _mm256_or_si256, _mm256_permute2x128_si256, _mm256_set1_epi16,
    _mm256_set1_epi32, _mm256_set1_epi8, _mm256_setzero_si256, _mm256_shuffle_epi8,
    _mm256_storeu_si256,
};

use super::arg_lanes::lane_by_lane;
use super::hardmax::hardmax_lanes;
use super::reduce_lanes_small_avx2::bytes_mut;
use super::shared::step;
use super::short_rows_avx2::lanes::{
    equal, key, load, pick, track, unkey, Halves, I16s, I32s, I8s, Lanes, U16s, U32s, U8s,
};
use super::short_rows_avx2::{available, bytes};
use crate::{DType, Direction, Element, Max};

/// The most shifts that fold a window's groups (up to 32 groups of one byte).
const MAX_STEPS: usize = 5;

/// How the blocks of one call are read: the windows and the shifts that fold their groups.
struct Plan {
    /// Rows a block has.
    r: usize,
    /// Rows a window holds (at most `r`).
    q: usize,
    /// Bytes a row has.
    row: usize,
    /// Each shift of the fold as its two byte shuffles (within the halves, and from the high
    /// half into the low), `steps` of them.
    folds: [(__m256i, __m256i); MAX_STEPS],
    steps: usize,
    /// The byte shuffle that copies the first group over the others (from the low half, which
    /// holds it where a window holds two rows or more).
    spread: __m256i,
    /// The movemask bits of every byte of the window's groups.
    used: u32,
    /// The row in the window of each byte of a window.
    row_of: [u8; 32],
}

impl Plan {
    /// The plan for blocks of `r` rows of `c` lanes of `size` bytes, if this kernel takes them:
    /// rows of up to 16 bytes, and of up to 32 in blocks of under eight rows; blocks of two rows
    /// or more.
    #[target_feature(enable = "avx2")]
    fn new(r: usize, c: usize, size: usize) -> Option<Plan> {
        let row = c * size;
        // One row a window (rows of 17 to 32 bytes) only in short blocks: `i32` `[n, r, 5]`
        // took 0.65-0.9x the portable kernel's time over 2 and 3 rows, 1.05-1.25x over 20 and
        // 80 (a window's second pass costs more than a row's share of the narrow windows).
        if c == 0 || row > 32 || (row > 16 && r >= 8) || r < 2 {
            return None;
        }
        let q = (32 / row).min(r);
        let (mut folds, mut steps, mut cover) = (
            [(_mm256_setzero_si256(), _mm256_setzero_si256()); MAX_STEPS],
            0,
            1,
        );
        // Groups `0..cover` folded into the first; the next shift adds as many more as there
        // are (overlapping ones again where fewer remain).
        while cover < q && steps < MAX_STEPS {
            let s = cover.min(q - cover);
            folds[steps] = shift_down(s * row);
            steps += 1;
            cover += s;
        }
        let (mut row_of, mut spread) = ([0u8; 32], [0u8; 32]);
        let mut used = 0u32;
        for p in 0..32 {
            let j = p / size;
            row_of[p] = (j / c) as u8;
            spread[p] = (p % row) as u8;
            if p < q * row {
                used |= 1 << p;
            }
        }
        Some(Plan {
            r,
            q,
            row,
            folds,
            steps,
            // SAFETY: 32 bytes.
            spread: unsafe { _mm256_loadu_si256(spread.as_ptr().cast()) },
            used,
            row_of,
        })
    }

    /// How many blocks at the start of `len` bytes this plan takes: those whose last window
    /// lies inside them.
    fn blocks(&self, len: usize) -> usize {
        let (size, last) = (self.r * self.row, (self.r - self.q) * self.row + 32);
        if len < last {
            return 0;
        }
        ((len - last) / size + 1).min(len / size)
    }
}

/// The two byte shuffles that move a vector's bytes `n` places down (0 < `n` < 32; the top `n`
/// bytes zero): within each half, and the high half's into the low.
#[target_feature(enable = "avx2")]
fn shift_down(n: usize) -> (__m256i, __m256i) {
    let (mut within, mut across) = ([0x80u8; 32], [0x80u8; 32]);
    for i in 0..16 {
        if i + n < 16 {
            within[i] = (i + n) as u8;
            within[16 + i] = (i + n) as u8;
        } else if i + n < 32 {
            across[i] = (i + n - 16) as u8;
        }
    }
    // SAFETY: 32 bytes each.
    unsafe {
        (
            _mm256_loadu_si256(within.as_ptr().cast()),
            _mm256_loadu_si256(across.as_ptr().cast()),
        )
    }
}

/// `v` shifted down by the shuffles of [`shift_down`].
#[inline]
#[target_feature(enable = "avx2")]
fn shifted(v: __m256i, (within, across): (__m256i, __m256i)) -> __m256i {
    let swapped = _mm256_permute2x128_si256::<0x01>(v, v);
    _mm256_or_si256(
        _mm256_shuffle_epi8(v, within),
        _mm256_shuffle_epi8(swapped, across),
    )
}

/// Calls `$f::<K, ...>($args)` with `K` the lanes of `T`; `$none` for other types.
macro_rules! by_lanes {
    ($t:ty, $f:ident::<$($g:tt),*>($($a:expr),*), $none:expr) => {
        by_dtype!($t {
            DType::U8 | DType::Bool => $f::<U8s, $($g),*>($($a),*),
            DType::I8 => $f::<I8s, $($g),*>($($a),*),
            DType::U16 => $f::<U16s, $($g),*>($($a),*),
            DType::I16 => $f::<I16s, $($g),*>($($a),*),
            DType::F16 => $f::<Halves<0x7c00>, $($g),*>($($a),*),
            DType::BF16 => $f::<Halves<0x7f80>, $($g),*>($($a),*),
            DType::U32 => $f::<U32s, $($g),*>($($a),*),
            DType::I32 => $f::<I32s, $($g),*>($($a),*),
        } else $none)
    };
}

/// Each of the `c` lanes of each block of `r` rows reduced into `y` (`c` a block;
/// NaN-propagating: the lane's first NaN; a zero extreme of f16 or bf16 as +0) for the blocks
/// at the start of `x` this kernel takes: their count (0 where it takes none: not its type,
/// rows over 16 bytes in blocks of eight rows or more, rows over 32 bytes, blocks of one row,
/// no AVX2).
#[inline(always)]
pub(super) fn reduce_blocks<T: Element, D: Direction>(
    y: &mut [T],
    x: &[T],
    r: usize,
    c: usize,
) -> usize {
    if !available() {
        return 0;
    }
    // SAFETY: `available` found AVX2; each arm's lanes are `T`'s.
    unsafe { by_lanes!(T, reduce_in::<D, T>(y, x, r, c), 0) }
}

/// The index of the extreme of each of the `c` lanes of each block of `r` rows into `y` (the
/// first, or with `LAST` the last; a NaN beats every number), with `v` not empty the extreme
/// into `v`, for the blocks at the start of `x` this kernel takes: their count (as
/// [`reduce_blocks`]).
#[inline(always)]
pub(super) fn arg_blocks<T: Element, D: Direction, const LAST: bool>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    r: usize,
    c: usize,
) -> usize {
    if !available() {
        return 0;
    }
    // SAFETY: `available` found AVX2; each arm's lanes are `T`'s.
    unsafe { by_lanes!(T, arg_in::<D, LAST, T>(x, y, v, r, c), 0) }
}

/// Hardmax of each block of `r` rows of `c` lanes along the rows into `y` (a 1 in each lane's
/// row of its first maximum, NaN winning, 0 elsewhere; `y` as long as `x`), for the blocks at
/// the start of `x` this kernel takes: their count (as [`reduce_blocks`]). The rows of the
/// next block may be written too (the caller's kernel writes them after).
#[inline(always)]
pub(super) fn hardmax_blocks<T: Element>(x: &[T], y: &mut [T], r: usize, c: usize) -> usize {
    if !available() || x.len() != y.len() {
        return 0;
    }
    // SAFETY: `available` found AVX2; each arm's lanes are `T`'s.
    unsafe { by_lanes!(T, hardmax_in::<T>(x, y, r, c), 0) }
}

/// A block's extremes by the order alone, folded into the first group's lanes (keys), or
/// `None` if the block's lanes hold a NaN (f16, bf16).
///
/// # Safety
/// The CPU has AVX2; every window of the block lies inside `xb` from `base`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn extremes<K: Lanes, D: Direction>(p: &Plan, xb: &[u8], base: usize) -> Option<__m256i> {
    // SAFETY: as the caller's (the first window).
    let first = unsafe { load(xb, base) };
    let mut top = if K::INF != 0 {
        track::<K>(_mm256_setzero_si256(), first)
    } else {
        first
    };
    let mut acc = key::<K>(first);
    let (step, end) = (p.q * p.row, base + (p.r - p.q) * p.row);
    let mut at = base;
    while at < end {
        at = (at + step).min(end);
        // SAFETY: as the caller's.
        let w = unsafe { load(xb, at) };
        if K::INF != 0 {
            top = track::<K>(top, w);
        }
        acc = pick::<K, D>(acc, key::<K>(w));
    }
    if K::INF != 0 {
        let nan = _mm256_cmpgt_epi16(top, _mm256_set1_epi16(K::INF));
        if _mm256_movemask_epi8(nan) as u32 & p.used != 0 {
            return None;
        }
    }
    for &f in &p.folds[..p.steps] {
        acc = pick::<K, D>(acc, shifted(acc, f));
    }
    Some(acc)
}

/// [`reduce_blocks`] for lanes `K`.
///
/// # Safety
/// The CPU has AVX2; `T` is `K`'s type.
#[target_feature(enable = "avx2")]
unsafe fn reduce_in<K: Lanes, D: Direction, T: Element>(
    y: &mut [T],
    x: &[T],
    r: usize,
    c: usize,
) -> usize {
    let (Some(xb), Some(p)) = (bytes(x), Plan::new(r, c, K::SIZE)) else {
        return 0;
    };
    let n = p.blocks(xb.len()).min(y.len() / c);
    let size = r * c;
    for b in 0..n {
        // SAFETY: AVX2; block `b` is one `blocks` takes.
        let Some(m) = (unsafe { extremes::<K, D>(&p, xb, b * size * K::SIZE) }) else {
            nan_block::<T, D>(&mut y[b * c..(b + 1) * c], &x[b * size..(b + 1) * size]);
            continue;
        };
        let m = if K::INF != 0 { unkey(m) } else { m };
        // SAFETY: `T` is `K`'s type.
        let yb = unsafe { bytes_mut(&mut y[..n * c]) };
        let at = b * p.row;
        if at + 32 <= yb.len() {
            // The lanes past the block's are the next blocks', written after.
            // SAFETY: 32 bytes inside `yb`.
            unsafe { _mm256_storeu_si256(yb.as_mut_ptr().add(at).cast(), m) };
        } else {
            let mut out = [0u8; 32];
            // SAFETY: 32 bytes.
            unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), m) };
            yb[at..at + p.row].copy_from_slice(&out[..p.row]);
        }
    }
    n
}

/// A block with a NaN (`x`, rows of `y.len()` lanes): each lane by the contract, its first NaN.
#[inline(never)]
fn nan_block<T: Element, D: Direction>(y: &mut [T], x: &[T]) {
    let c = y.len();
    for (l, o) in y.iter_mut().enumerate() {
        let mut lane = x.iter().skip(l).step_by(c);
        let Some(&first) = lane.next() else { continue };
        *o = first;
        for &e in lane {
            if o.is_nan() {
                break;
            }
            *o = if e.is_nan() { e } else { step::<T, D>(*o, e) };
        }
    }
}

/// [`arg_blocks`] for lanes `K`: rows numbered in the lanes' own width (blocks of bytes up to
/// 256 rows).
///
/// # Safety
/// The CPU has AVX2; `T` is `K`'s type.
#[target_feature(enable = "avx2")]
unsafe fn arg_in<K: Lanes, D: Direction, const LAST: bool, T: Element>(
    x: &[T],
    y: &mut [i64],
    v: &mut [T],
    r: usize,
    c: usize,
) -> usize {
    let (Some(xb), Some(p)) = (bytes(x), Plan::new(r, c, K::SIZE)) else {
        return 0;
    };
    if K::SIZE == 1 && r > 256 {
        return 0;
    }
    let mut n = p.blocks(xb.len()).min(y.len() / c);
    if !v.is_empty() {
        n = n.min(v.len() / c);
    }
    let rows = row_numbers::<K>(&p);
    let size = r * c;
    for b in 0..n {
        let (xs, ys) = (&x[b * size..(b + 1) * size], &mut y[b * c..(b + 1) * c]);
        let base = b * size * K::SIZE;
        // SAFETY: AVX2; block `b` is one `blocks` takes.
        let Some(m) = (unsafe { extremes::<K, D>(&p, xb, base) }) else {
            let vs = v.get_mut(b * c..(b + 1) * c).unwrap_or_default();
            lane_by_lane::<T, D, LAST>(xs, ys, vs, c);
            continue;
        };
        // SAFETY: AVX2; block `b` is one `blocks` takes.
        let at = unsafe { rows_of::<K, LAST>(&p, xb, base, m, rows) };
        let mut out = [0u8; 32];
        // SAFETY: 32 bytes.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), at) };
        for (l, o) in ys.iter_mut().enumerate() {
            let mut le = [0u8; 4];
            le[..K::SIZE].copy_from_slice(&out[l * K::SIZE..(l + 1) * K::SIZE]);
            *o = i64::from(u32::from_le_bytes(le));
        }
        if let Some(vs) = v.get_mut(b * c..(b + 1) * c) {
            for (l, o) in vs.iter_mut().enumerate() {
                *o = xs[ys[l] as usize * c + l];
            }
        }
    }
    n
}

/// [`hardmax_blocks`] for lanes `K`: each lane's row as the arg-reduction finds it, then each
/// window's lanes compared with it.
///
/// # Safety
/// The CPU has AVX2; `T` is `K`'s type; `y` is as long as `x`.
#[target_feature(enable = "avx2")]
unsafe fn hardmax_in<K: Lanes, T: Element>(x: &[T], y: &mut [T], r: usize, c: usize) -> usize {
    let (Some(xb), Some(p)) = (bytes(x), Plan::new(r, c, K::SIZE)) else {
        return 0;
    };
    if K::SIZE == 1 && r > 256 {
        return 0;
    }
    let n = p.blocks(xb.len());
    let rows = row_numbers::<K>(&p);
    let mut one = [0u8; 4];
    T::ONE.write_le(&mut one[..K::SIZE]);
    let one = match K::SIZE {
        1 => _mm256_set1_epi8(one[0] as i8),
        2 => _mm256_set1_epi16(i16::from_le_bytes([one[0], one[1]])),
        _ => _mm256_set1_epi32(i32::from_le_bytes(one)),
    };
    let size = r * c;
    for b in 0..n {
        let base = b * size * K::SIZE;
        // SAFETY: AVX2; block `b` is one `blocks` takes.
        let Some(m) = (unsafe { extremes::<K, Max>(&p, xb, base) }) else {
            hardmax_lanes(
                &x[b * size..(b + 1) * size],
                &mut y[b * size..(b + 1) * size],
                c,
            );
            continue;
        };
        // SAFETY: AVX2; block `b` is one `blocks` takes.
        let at = spread::<K>(&p, unsafe { rows_of::<K, false>(&p, xb, base, m, rows) });
        // SAFETY: `T` is `K`'s type; `y` is as long as `x`.
        let yb = unsafe { bytes_mut(y) };
        let mut k = 0;
        loop {
            let ones = _mm256_and_si256(equal::<K>(plus::<K>(rows, k), at), one);
            // Past the window's rows: the next rows' own outputs (their lanes and rows are
            // those of `rows` and `at` too), or the next block's first, written again after.
            // SAFETY: AVX2; 32 bytes inside `yb` (as the window inside `xb`).
            unsafe { _mm256_storeu_si256(yb.as_mut_ptr().add(base + k * p.row).cast(), ones) };
            if k == r - p.q {
                break;
            }
            k = (k + p.q).min(r - p.q);
        }
    }
    n
}

/// The row of each lane's first extreme (with `LAST` its last) of the block from byte `base`
/// of `xb`, in the first group's lanes (unsigned, the lanes' width), `m` the block's extremes
/// from [`extremes`] and `rows` each lane's row in a window ([`row_numbers`]).
///
/// # Safety
/// The CPU has AVX2; every window of the block lies inside `xb` from `base`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn rows_of<K: Lanes, const LAST: bool>(
    p: &Plan,
    xb: &[u8],
    base: usize,
    m: __m256i,
    rows: __m256i,
) -> __m256i {
    let m = spread::<K>(p, m);
    // The row of no match: above every row for the first match, below for the last.
    let none = if LAST {
        _mm256_setzero_si256()
    } else {
        _mm256_cmpeq_epi8(rows, rows)
    };
    let mut at = none;
    let last = p.r - p.q;
    let mut k = 0;
    loop {
        // SAFETY: as the caller's.
        let w = unsafe { load(xb, base + k * p.row) };
        let here = _mm256_blendv_epi8(none, plus::<K>(rows, k), equal::<K>(key::<K>(w), m));
        at = first::<K, LAST>(at, here);
        if k == last {
            break;
        }
        k = (k + p.q).min(last);
    }
    for &f in &p.folds[..p.steps] {
        at = first::<K, LAST>(at, shifted(at, f));
    }
    at
}

/// The first group of `v` copied over the others (itself where a window holds one row).
#[inline]
#[target_feature(enable = "avx2")]
fn spread<K: Lanes>(p: &Plan, v: __m256i) -> __m256i {
    if p.q > 1 {
        _mm256_shuffle_epi8(_mm256_permute2x128_si256::<0x00>(v, v), p.spread)
    } else {
        v
    }
}

/// Each lane's row in a window, in the lanes' width.
#[target_feature(enable = "avx2")]
fn row_numbers<K: Lanes>(p: &Plan) -> __m256i {
    let mut rows = [0u8; 32];
    for (i, b) in rows.iter_mut().enumerate() {
        // The little-endian bytes of the lane's row (under 32).
        *b = if i % K::SIZE == 0 { p.row_of[i] } else { 0 };
    }
    // SAFETY: 32 bytes.
    unsafe { _mm256_loadu_si256(rows.as_ptr().cast()) }
}

/// `rows` plus `k` in every lane (`k` and the sums within the lanes' width).
#[inline]
#[target_feature(enable = "avx2")]
fn plus<K: Lanes>(rows: __m256i, k: usize) -> __m256i {
    match K::SIZE {
        1 => _mm256_add_epi8(rows, _mm256_set1_epi8(k as i8)),
        2 => _mm256_add_epi16(rows, _mm256_set1_epi16(k as i16)),
        _ => _mm256_add_epi32(rows, _mm256_set1_epi32(k as i32)),
    }
}

/// The earlier row of each pair of lanes (unsigned, the lanes' width), with `LAST` the later.
#[inline]
#[target_feature(enable = "avx2")]
fn first<K: Lanes, const LAST: bool>(a: __m256i, b: __m256i) -> __m256i {
    if LAST {
        pick::<K::Counts, crate::Max>(a, b)
    } else {
        pick::<K::Counts, crate::Min>(a, b)
    }
}

#[cfg(test)]
mod tests;
