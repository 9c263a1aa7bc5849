//! Strided Hardmax of f16 and bf16 (a node's blocks of two to [`MAX_ROWS`] rows of sixteen
//! lanes or more) in AVX2, by the order keys of their bits, sixteen lanes (32 bytes) at a time.
//!
//! The portable way finds each lane's row first (indices, eight bytes a lane) and then writes
//! the block's zeros and ones apart: 2 MiB as `[32768, 2, 16]` took 4x a pass that reads and
//! writes as much. Here a chunk of sixteen lanes goes down the block's rows for each lane's
//! maximum (a max of keys per row, NaN noticed on the side), then down again: each row's keys
//! compared with the maxima, a 1 where one is equal for the first time down the lane, 0
//! elsewhere, stored as the row goes (the second pass reads the chunk again from L1). The last
//! chunk of a row that is not whole chunks overlaps the one before (its lanes written twice,
//! alike). Over two to eight rows the chunk's vectors stay in registers for both ways down
//! ([`chunk_few`]): reloaded after the stores, as the compiler must, they cost most of the
//! time (2 MiB of f16 as `[2, 524288]` 101 -> 59 us, blocks of `[2, 1024]` 156 -> 66, `[3,
//! 300]` 160 -> 84, `[4, 1000]` 97 -> 71, `[6, 1000]` 87 -> 71, `[7, 40]` 97 -> 75, `[8,
//! 4000]` 84 -> 69, on an AMD EPYC, Zen 4, where a pass that reads and writes as much takes
//! 56). A block with a NaN is done by the portable pass and its rule.
//!
//! Contiguous rows of two ([`hardmax_pairs`]) and of three ([`hardmax_triples`]) go by their
//! own kernels: several rows a vector, each element's key against the others of its row.
//!
//! For the CPUs [`available`] finds; the entries check.

use core::arch::x86_64::{
    __m256i, _mm256_and_si256, _mm256_andnot_si256, _mm256_blendv_epi8, _mm256_cmpeq_epi16,
    _mm256_cmpgt_epi16, _mm256_or_si256, _mm256_set1_epi16, _mm256_set1_epi32,
    _mm256_setzero_si256, _mm256_slli_epi32, _mm256_srli_epi32, _mm256_storeu_si256,
};

use super::hardmax::{hardmax_lanes, hardmax_row};
use super::reduce_lanes_small_avx2::bytes_mut;
use super::short_rows_avx2::lanes::{any_nan, key, load, pick, track, Halves, Lanes};
use super::short_rows_avx2::{available, bytes};
use crate::{DType, Element, Max};

/// The most rows a block may have: a chunk's rows are read twice, the second time from L1
/// (64 rows of 32 bytes are 64 lines, whatever the stride); taller blocks take the lane
/// kernels.
pub(super) const MAX_ROWS: usize = 64;

/// Lanes of a chunk.
const LANES: usize = 16;

/// Blocks of this many rows or more and 32 lanes or more go to the lane kernels where the CPU
/// has AVX-512 (`half_lanes512`), whose walk down groups of rows beats this kernel's two passes
/// there: `[64, 512]` blocks 281 -> 87 us, `[64, 16384]` 872 -> 142, `[40, 26214]` 229 -> 100,
/// `[40, 1000]` and `[33, 100]` alike, on an AMD EPYC (Zen 4), 2 MiB of f16 each.
const LANES_ROWS: usize = 32;

/// Blocks of [`WIDE_ROWS`] rows or more of this many lanes or more go to the lane kernels too:
/// `[16, 1000]` 90 -> 75 us, `[16, 1984]` 86 -> 75, `[12, 520]` alike (as above). Under it, or
/// over fewer rows, this kernel was as fast or faster: `[8, 512]` 90 here against 95 there,
/// `[10, 600]` 84 against 86, `[8, 4000]` 80 against 84, `[10, 300]` 99 against 108, `[16, 64]`
/// 82 against 114, `[2, 512]` 113 against 176, `[3, 32]` 117 against 434.
const WIDE_LANES: usize = 512;

/// See [`WIDE_LANES`].
const WIDE_ROWS: usize = 12;

/// Blocks of this many rows or more whose rows crowd L1's sets ([`crowded_sets`]) go to the
/// lane kernels where the CPU has AVX-512: `[16, 2048]` blocks of f16 799 -> 121 us,
/// `[16, 2050]` 867 -> 124, `[8, 2048]` 538 -> 87, `[12, 3072]` 338 -> 81, `[24, 1024]` 495 ->
/// 74, `[6, 8192]` 276 -> 87, `[5, 2048]` 202 -> 94, `[5, 4096]` 197 -> 91 (as above). Not
/// crowded, `[8, 4000]` stays; so do fewer rows (`[4, 4096]`: 104 against 104).
const CROWDED_ROWS: usize = 5;

/// Whether `rows` rows `stride` bytes apart put four or more of their lines at one offset in a
/// 4 KiB page, so in one set of a 32 KiB, 8-way L1 (strides near a multiple of 4 KiB, of 2 KiB,
/// ...): a chunk read down the rows twice, its output's stores between, then misses L1 on the
/// second way down.
pub(super) fn crowded_sets(rows: usize, stride: usize) -> bool {
    const PAGE: usize = 4096;
    const LINE: usize = 64;
    let mut lines = [0u8; PAGE / LINE];
    for k in 0..rows.min(PAGE / LINE) {
        let set = (k * (stride % PAGE)) % PAGE / LINE;
        if let Some(n) = lines.get_mut(set) {
            *n += 1;
            if *n >= 4 {
                return true;
            }
        }
    }
    false
}

/// Whether blocks of `r` rows of `inner` lanes go to the lane kernels rather than to
/// [`hardmax_blocks`]: on a CPU with AVX-512, 32 lanes or more, and [`LANES_ROWS`] rows or more,
/// [`WIDE_ROWS`] or more of [`WIDE_LANES`] or more, or [`CROWDED_ROWS`] or more that crowd L1's
/// sets.
pub(super) fn lanes_take(r: usize, inner: usize) -> bool {
    inner >= 32
        && (r >= LANES_ROWS
            || (r >= WIDE_ROWS && inner >= WIDE_LANES)
            || (r >= CROWDED_ROWS && crowded_sets(r, inner * 2)))
        && super::isa::level() >= super::isa::AVX512
}

/// Hardmax of each block of `r` rows of `inner` lanes of `x` into `y` (along the rows; the
/// first maximum, NaN winning): `true` if done, `false` (nothing written) where this kernel does
/// not take the blocks (not f16 or bf16, fewer than sixteen lanes, fewer than two rows or more
/// than [`MAX_ROWS`], no AVX2).
#[inline(always)]
pub(super) fn hardmax_blocks<T: Element>(x: &[T], y: &mut [T], r: usize, inner: usize) -> bool {
    let size = r * inner;
    if !available()
        || !(2..=MAX_ROWS).contains(&r)
        || inner < LANES
        || x.len() != y.len()
        || !x.len().is_multiple_of(size)
    {
        return false;
    }
    // SAFETY: `available` found AVX2; each arm's lanes are `T`'s.
    unsafe {
        by_dtype!(T {
            DType::F16 => blocks_in::<Halves<0x7c00>, T>(x, y, r, inner, 0x3c00),
            DType::BF16 => blocks_in::<Halves<0x7f80>, T>(x, y, r, inner, 0x3f80),
        } else false)
    }
}

/// [`hardmax_blocks`] for lanes `K`, `one` the bits of 1.
///
/// # Safety
/// The CPU has AVX2; `T` is `K`'s type; `x` and `y` are whole blocks, as long.
#[target_feature(enable = "avx2")]
unsafe fn blocks_in<K: Lanes, T: Element>(
    x: &[T],
    y: &mut [T],
    r: usize,
    inner: usize,
    one: i16,
) -> bool {
    crate::kernels::shared::align_frame();
    let Some(xb) = bytes(x) else {
        return false;
    };
    let one = _mm256_set1_epi16(one);
    if inner == LANES {
        // One chunk a block: blocks of a few rows with their count known when compiling.
        // SAFETY: as the caller's.
        match r {
            2 => return unsafe { single_chunks::<K, T, 2>(x, y, xb, one) },
            3 => return unsafe { single_chunks::<K, T, 3>(x, y, xb, one) },
            4 => return unsafe { single_chunks::<K, T, 4>(x, y, xb, one) },
            _ => {}
        }
    }
    let (size, row) = (r * inner, inner * 2);
    let last = (inner - LANES) * 2;
    for (b, (xs, ys)) in x
        .chunks_exact(size)
        .zip(y.chunks_exact_mut(size))
        .enumerate()
    {
        let base = b * size * 2;
        // SAFETY: `T` is `K`'s type (f16 or bf16 bits).
        let yb = unsafe { bytes_mut(ys) };
        let mut at = 0;
        loop {
            // SAFETY: AVX2; the chunk's 32 bytes of each row lie inside the block.
            let done = unsafe {
                let at = (base + at, at);
                match r {
                    2 => chunk_few::<K, 2>(xb, yb, at, row, one),
                    3 => chunk_few::<K, 3>(xb, yb, at, row, one),
                    4 => chunk_few::<K, 4>(xb, yb, at, row, one),
                    5 => chunk_few::<K, 5>(xb, yb, at, row, one),
                    6 => chunk_few::<K, 6>(xb, yb, at, row, one),
                    7 => chunk_few::<K, 7>(xb, yb, at, row, one),
                    8 => chunk_few::<K, 8>(xb, yb, at, row, one),
                    _ => chunk::<K>(xb, yb, at, r, row, one),
                }
            };
            if !done {
                // A NaN: the whole block by the portable pass and its NaN rule.
                hardmax_lanes(xs, ys, inner);
                break;
            }
            if at == last {
                break;
            }
            at = (at + LANES * 2).min(last);
        }
    }
    true
}

/// [`blocks_in`] for blocks of `R` rows of sixteen lanes (one chunk each, the block's 32-byte
/// rows one after another): the rows of each block unrolled, no chunk arithmetic (2 MiB of
/// f16 as `[32768, 2, 16]` took 1.34x the time through the general loop on an Intel Xeon,
/// Ice Lake).
///
/// # Safety
/// The CPU has AVX2; `T` is `K`'s type; `x` and `y` are whole blocks of `R` rows of sixteen
/// lanes, as long; `xb` is `x`'s bytes.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn single_chunks<K: Lanes, T: Element, const R: usize>(
    x: &[T],
    y: &mut [T],
    xb: &[u8],
    one: __m256i,
) -> bool {
    let size = R * LANES;
    for (b, (xs, ys)) in x
        .chunks_exact(size)
        .zip(y.chunks_exact_mut(size))
        .enumerate()
    {
        let base = b * size * 2;
        // SAFETY: `T` is `K`'s type (f16 or bf16 bits).
        let yb = unsafe { bytes_mut(ys) };
        // SAFETY: AVX2; the block's `R` rows of 32 bytes lie inside `xb` from `base` and inside
        // `yb`.
        if !unsafe { chunk_few::<K, R>(xb, yb, (base, 0), LANES * 2, one) } {
            // A NaN: the whole block by the portable pass and its NaN rule.
            hardmax_lanes(xs, ys, LANES);
        }
    }
    true
}

/// [`chunk`] over `R` rows (two to eight), each row's vector loaded once and kept in registers
/// for both ways down (the second pass of [`chunk`] loads them again after its stores, which
/// the compiler cannot tell apart from the loads).
///
/// # Safety
/// As [`chunk`]'s.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn chunk_few<K: Lanes, const R: usize>(
    xb: &[u8],
    yb: &mut [u8],
    (from, to): (usize, usize),
    row: usize,
    one: __m256i,
) -> bool {
    let mut keys = [_mm256_setzero_si256(); R];
    let mut top = _mm256_setzero_si256();
    for (k, kv) in keys.iter_mut().enumerate() {
        // SAFETY: as the caller's.
        let w = unsafe { load(xb, from + k * row) };
        top = track::<K>(top, w);
        *kv = key::<K>(w);
    }
    if any_nan::<K>(top) {
        return false;
    }
    let mut m = keys[0];
    for &kv in &keys[1..] {
        m = pick::<K, Max>(m, kv);
    }
    let mut found = _mm256_setzero_si256();
    for (k, &kv) in keys.iter().enumerate() {
        // SAFETY: as the caller's.
        found = unsafe { output_row(yb, to + k * row, kv, m, found, one) };
    }
    true
}

/// One row of a chunk's output at byte `at` of `yb`: `one` in the lanes whose key `kv` is the
/// maximum `m` for the first time down the chunk (not yet in `found`), 0 elsewhere. Returns
/// `found` with this row's hits.
///
/// # Safety
/// The CPU has AVX2; `at + 32 <= yb.len()`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn output_row(
    yb: &mut [u8],
    at: usize,
    kv: __m256i,
    m: __m256i,
    found: __m256i,
    one: __m256i,
) -> __m256i {
    let hit = _mm256_cmpeq_epi16(kv, m);
    let first = _mm256_andnot_si256(found, hit);
    debug_assert!(at + 32 <= yb.len());
    // SAFETY: the caller's.
    unsafe { _mm256_storeu_si256(yb.as_mut_ptr().add(at).cast(), _mm256_and_si256(first, one)) };
    _mm256_or_si256(found, hit)
}

/// One chunk of sixteen lanes from byte `from` of `xb` (a block's first row) into byte `to` of
/// `yb` (the block's output): `false`, nothing written, if it holds a NaN.
///
/// # Safety
/// The CPU has AVX2; the chunk's 32 bytes of each of the `r` rows (`row` bytes apart) lie
/// inside `xb` and `yb`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn chunk<K: Lanes>(
    xb: &[u8],
    yb: &mut [u8],
    (from, to): (usize, usize),
    r: usize,
    row: usize,
    one: __m256i,
) -> bool {
    let mut top = _mm256_setzero_si256();
    let mut m = _mm256_setzero_si256();
    for k in 0..r {
        // SAFETY: as the caller's.
        let w = unsafe { load(xb, from + k * row) };
        top = track::<K>(top, w);
        m = if k == 0 {
            key::<K>(w)
        } else {
            pick::<K, Max>(m, key::<K>(w))
        };
    }
    if any_nan::<K>(top) {
        return false;
    }
    let mut found = _mm256_setzero_si256();
    for k in 0..r {
        // SAFETY: as the caller's.
        let w = unsafe { load(xb, from + k * row) };
        // SAFETY: as the caller's.
        found = unsafe { output_row(yb, to + k * row, key::<K>(w), m, found, one) };
    }
    true
}

/// Hardmax of the contiguous rows of two of `x` (f16 or bf16) into `y`, eight rows a vector:
/// each element's key against its partner's, the first winning ties (NaN winning: a vector
/// with a NaN goes row by row by the contract). The rows done (whole vectors of them; 0 where
/// this kernel does not take them: not f16 or bf16, lengths that differ, no AVX2). Rows of two
/// went one at a time (2 MiB of f16 as `[524288, 2]`: 2.8x a pass that reads and writes as
/// much).
#[inline(always)]
pub(super) fn hardmax_pairs<T: Element>(x: &[T], y: &mut [T]) -> usize {
    if !available() || x.len() != y.len() {
        return 0;
    }
    // SAFETY: `available` found AVX2; each arm's lanes are `T`'s.
    unsafe {
        by_dtype!(T {
            DType::F16 => pairs_in::<Halves<0x7c00>, T>(x, y, 0x3c00),
            DType::BF16 => pairs_in::<Halves<0x7f80>, T>(x, y, 0x3f80),
        } else 0)
    }
}

/// [`hardmax_pairs`] for lanes `K`, `one` the bits of 1.
///
/// # Safety
/// The CPU has AVX2; `T` is `K`'s type; `y` is as long as `x`.
#[target_feature(enable = "avx2")]
unsafe fn pairs_in<K: Lanes, T: Element>(x: &[T], y: &mut [T], one: i16) -> usize {
    let Some(xb) = bytes(x) else {
        return 0;
    };
    let one = _mm256_set1_epi16(one);
    // The second element of each pair (odd 16-bit lanes).
    let second = _mm256_set1_epi32(-0x1_0000);
    let vectors = xb.len() / 32;
    for v in 0..vectors {
        // SAFETY: 32 bytes inside `xb`.
        let w = unsafe { load(xb, v * 32) };
        if any_nan::<K>(track::<K>(_mm256_setzero_si256(), w)) {
            for (xr, yr) in x[v * 16..(v + 1) * 16]
                .chunks_exact(2)
                .zip(y[v * 16..(v + 1) * 16].chunks_exact_mut(2))
            {
                hardmax_row(xr, yr);
            }
            continue;
        }
        let k = key::<K>(w);
        let partner = _mm256_or_si256(_mm256_slli_epi32::<16>(k), _mm256_srli_epi32::<16>(k));
        // The first of a pair wins unless its partner is greater; the second only if greater.
        let first = _mm256_cmpeq_epi16(_mm256_cmpgt_epi16(partner, k), _mm256_setzero_si256());
        let wins = _mm256_blendv_epi8(first, _mm256_cmpgt_epi16(k, partner), second);
        // SAFETY: `T` is `K`'s type; 32 bytes inside `y` (as long as `x`).
        unsafe {
            let yb = bytes_mut(y);
            _mm256_storeu_si256(
                yb.as_mut_ptr().add(v * 32).cast(),
                _mm256_and_si256(wins, one),
            );
        }
    }
    vectors * 8
}

/// Hardmax of the contiguous rows of three of `x` (f16 or bf16) into `y`, sixteen rows (three
/// vectors) at a time: each element's key against the keys of the elements one and two before
/// and after it (loads shifted by an element), the comparisons that decide its place in its row
/// picked by lane (the first of a row wins unless one after it is greater; the second if
/// greater than the first and not less than the third; the third if greater than both), a
/// group with a NaN row by row by the contract. The first group and the last ones (whose
/// shifted loads would reach past `x`) are done row by row too; the rows done are all of
/// `x`'s whole rows (0 where this kernel does not take them: not f16 or bf16, lengths that
/// differ, no AVX2, fewer than three groups). Rows of three went by a tile of positions and
/// then the tile's outputs (2 MiB of f16 as `[349525, 3]`: 2.7x a pass that reads and writes
/// as much).
#[inline(always)]
pub(super) fn hardmax_triples<T: Element>(x: &[T], y: &mut [T]) -> usize {
    if !available() || x.len() != y.len() || x.len() < 3 * GROUP {
        return 0;
    }
    // SAFETY: `available` found AVX2; each arm's lanes are `T`'s.
    unsafe {
        by_dtype!(T {
            DType::F16 => triples_in::<Halves<0x7c00>, T>(x, y, 0x3c00),
            DType::BF16 => triples_in::<Halves<0x7f80>, T>(x, y, 0x3f80),
        } else 0)
    }
}

/// Elements of a group of [`hardmax_triples`]: sixteen rows of three, three vectors.
const GROUP: usize = 48;

/// [`hardmax_triples`] for lanes `K`, `one` the bits of 1.
///
/// # Safety
/// The CPU has AVX2; `T` is `K`'s type; `y` is as long as `x`, at least three groups.
#[target_feature(enable = "avx2")]
unsafe fn triples_in<K: Lanes, T: Element>(x: &[T], y: &mut [T], one: i16) -> usize {
    let Some(xb) = bytes(x) else {
        return 0;
    };
    let one = _mm256_set1_epi16(one);
    // Lane `j` of vector `c` of a group is element `16c + j`, at place `(16c + j) % 3` of its
    // row: the lanes at each place, for each vector.
    let place = |c: usize, p: usize| {
        let mut m = [0i16; 16];
        for (j, m) in m.iter_mut().enumerate() {
            *m = if (16 * c + j) % 3 == p { -1 } else { 0 };
        }
        // SAFETY: 32 bytes.
        unsafe { load(bytes(&m[..]).unwrap_or_default(), 0) }
    };
    let places = [0, 1, 2].map(|c| [place(c, 0), place(c, 1), place(c, 2)]);
    // Groups from the second whose loads (two elements before the group to two after, sixteen
    // elements from each) stay inside `x`: element 48g + 50 at most.
    let groups = (x.len() - 2) / GROUP;
    let by_rows = |x: &[T], y: &mut [T]| {
        for (xr, yr) in x.chunks_exact(3).zip(y.chunks_exact_mut(3)) {
            hardmax_row(xr, yr);
        }
    };
    by_rows(&x[..GROUP], &mut y[..GROUP]);
    for g in 1..groups {
        let at = g * GROUP;
        let (Some(xg), Some(yg)) = (x.get(at..at + GROUP), y.get_mut(at..at + GROUP)) else {
            return at / 3;
        };
        // SAFETY (each load): bytes `2(at + 16c + d)` to 32 past them, `c < 3`, `-2 <= d <=
        // 2`: from `2 · 48 - 4` to `2(48g + 50)`, inside `xb` (`g < groups`).
        let vectors = [0, 1, 2].map(|c| unsafe { load(xb, 2 * (at + 16 * c)) });
        let mut nan = _mm256_setzero_si256();
        for &w in &vectors {
            nan = track::<K>(nan, w);
        }
        if any_nan::<K>(nan) {
            by_rows(xg, yg);
            continue;
        }
        let mut out = [_mm256_setzero_si256(); 3];
        for (c, o) in out.iter_mut().enumerate() {
            let e = 2 * (at + 16 * c);
            // SAFETY: as above.
            let [l2, l1, k, r1, r2] =
                [e - 4, e - 2, e, e + 2, e + 4].map(|b| key::<K>(unsafe { load(xb, b) }));
            let [first, second, third] = places[c];
            let (over_l1, over_l2) = (_mm256_cmpgt_epi16(k, l1), _mm256_cmpgt_epi16(k, l2));
            let (r1_over, r2_over) = (_mm256_cmpgt_epi16(r1, k), _mm256_cmpgt_epi16(r2, k));
            let wins = _mm256_or_si256(
                _mm256_andnot_si256(_mm256_or_si256(r1_over, r2_over), first),
                _mm256_or_si256(
                    _mm256_and_si256(_mm256_andnot_si256(r1_over, over_l1), second),
                    _mm256_and_si256(_mm256_and_si256(over_l1, over_l2), third),
                ),
            );
            *o = _mm256_and_si256(wins, one);
        }
        // SAFETY: `T` is `K`'s type; 96 bytes inside `yg`.
        unsafe {
            let yb = bytes_mut(yg).as_mut_ptr();
            for (c, o) in out.iter().enumerate() {
                _mm256_storeu_si256(yb.add(32 * c).cast(), *o);
            }
        }
    }
    let done = groups.max(1) * GROUP;
    let (Some(xr), Some(yr)) = (x.get(done..), y.get_mut(done..)) else {
        return done / 3;
    };
    by_rows(xr, yr);
    x.len() / 3
}

#[cfg(test)]
mod tests;
