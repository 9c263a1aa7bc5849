//! The group pass of the grouped strided arg-reduction ([`super::arg_groups`]) for 1- and 2-byte
//! integer keys, written for AVX2: three instructions per 32 bytes of a row.
//!
//! Per vector of a row: the new extreme (`max`/`min`), an equality of it with the old extreme
//! (the first extreme: the row takes the lanes where the extreme moved) or with the element (with
//! `LAST`: where it is the extreme, ties too), and a byte blend of the row number into the lanes'
//! rows. The portable loop says the same, but the optimizer turns "the new maximum differs from
//! the old" into "the element is larger", for which AVX2 has no unsigned compare (a `min` and an
//! equality instead), and broadcasts the row number from a scalar every row.

use crate::{Direction, Element};
use core::arch::x86_64::{
    __m256i, _mm256_add_epi16, _mm256_add_epi8, _mm256_blendv_epi8, _mm256_cmpeq_epi16,
    _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_max_epi16, _mm256_max_epi8, _mm256_max_epu16,
    _mm256_max_epu8, _mm256_min_epi16, _mm256_min_epi8, _mm256_min_epu16, _mm256_min_epu8,
    _mm256_packus_epi16, _mm256_permute4x64_epi64, _mm256_set1_epi16, _mm256_set1_epi8,
    _mm256_setzero_si256, _mm256_storeu_si256, _mm256_xor_si256,
};
use core::arch::x86_64::{
    _mm256_cmpeq_epi16_mask, _mm256_cmpeq_epi8_mask, _mm256_mask_mov_epi16, _mm256_mask_mov_epi8,
};

/// The lanes' type: `u8` (and `bool`), `i8`, `u16`, `i16`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// Unsigned bytes (also `bool`: bytes 0 and 1).
    U8,
    /// Signed bytes, whose keys are the bytes with the sign bit flipped.
    I8,
    /// Unsigned words.
    U16,
    /// Signed words.
    I16,
}

impl Kind {
    /// Whether the lanes are bytes (32 a vector) rather than words (16).
    pub(super) const fn bytes(self) -> bool {
        matches!(self, Kind::U8 | Kind::I8)
    }
}

/// The more extreme of `a` and `b` per lane (`MIN`: the smaller).
#[inline]
#[target_feature(enable = "avx2")]
fn extreme<const K: u8, const MIN: bool>(a: __m256i, b: __m256i) -> __m256i {
    match (kind::<K>(), MIN) {
        (Kind::U8, false) => _mm256_max_epu8(a, b),
        (Kind::U8, true) => _mm256_min_epu8(a, b),
        (Kind::I8, false) => _mm256_max_epi8(a, b),
        (Kind::I8, true) => _mm256_min_epi8(a, b),
        (Kind::U16, false) => _mm256_max_epu16(a, b),
        (Kind::U16, true) => _mm256_min_epu16(a, b),
        (Kind::I16, false) => _mm256_max_epi16(a, b),
        (Kind::I16, true) => _mm256_min_epi16(a, b),
    }
}

/// All ones in the lanes where `a` and `b` are equal.
#[inline]
#[target_feature(enable = "avx2")]
fn equal<const K: u8>(a: __m256i, b: __m256i) -> __m256i {
    if kind::<K>().bytes() {
        _mm256_cmpeq_epi8(a, b)
    } else {
        _mm256_cmpeq_epi16(a, b)
    }
}

/// `k` plus one in every lane (the next row's number).
#[inline]
#[target_feature(enable = "avx2")]
fn next_row<const K: u8>(k: __m256i) -> __m256i {
    if kind::<K>().bytes() {
        _mm256_add_epi8(k, _mm256_set1_epi8(1))
    } else {
        _mm256_add_epi16(k, _mm256_set1_epi16(1))
    }
}

/// The kind a const parameter names (`Kind as u8`).
pub(super) const fn kind<const K: u8>() -> Kind {
    match K {
        0 => Kind::U8,
        1 => Kind::I8,
        2 => Kind::U16,
        _ => Kind::I16,
    }
}

/// The const parameter of [`chunk_keys`] for `kind`.
pub(super) const fn kind_param(kind: Kind) -> u8 {
    kind as u8
}

/// The 32 bytes at `p`.
///
/// # Safety
/// `p` must point to 32 readable bytes (no alignment needed).
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn load(p: *const u8) -> __m256i {
    // SAFETY: the caller's.
    unsafe { _mm256_loadu_si256(p.cast()) }
}

/// One step down the rows for one vector of a chunk: the running extreme `m` and row `p` take
/// row `k` (its number in every lane) where element `v` is the new extreme (with `LAST`, where it
/// is the extreme).
#[inline]
#[target_feature(enable = "avx2")]
fn take<const K: u8, const MIN: bool, const LAST: bool>(
    m: &mut __m256i,
    p: &mut __m256i,
    v: __m256i,
    k: __m256i,
) {
    let n = extreme::<K, MIN>(*m, v);
    *p = if LAST {
        _mm256_blendv_epi8(*p, k, equal::<K>(n, v))
    } else {
        _mm256_blendv_epi8(k, *p, equal::<K>(n, *m))
    };
    *m = n;
}

/// [`take`] with the equality in a mask register and the rows moved under it (AVX-512 BW, VL).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl")]
fn take512<const K: u8, const MIN: bool, const LAST: bool>(
    m: &mut __m256i,
    p: &mut __m256i,
    v: __m256i,
    k: __m256i,
) {
    let n = extreme::<K, MIN>(*m, v);
    // Where the element is the new extreme (`LAST`), or where the extreme did not move.
    let (a, b) = if LAST { (n, v) } else { (n, *m) };
    *p = if kind::<K>().bytes() {
        let eq = _mm256_cmpeq_epi8_mask(a, b);
        if LAST {
            _mm256_mask_mov_epi8(*p, eq, k)
        } else {
            _mm256_mask_mov_epi8(k, eq, *p)
        }
    } else {
        let eq = _mm256_cmpeq_epi16_mask(a, b);
        if LAST {
            _mm256_mask_mov_epi16(*p, eq, k)
        } else {
            _mm256_mask_mov_epi16(k, eq, *p)
        }
    };
    *m = n;
}

/// Stores the row counters `p` (one per lane, in the lanes' width, each below 256) into `q`
/// as bytes, lane by lane (`q` holds `V * 32` bytes for byte lanes, `V * 16` for words).
#[inline]
#[target_feature(enable = "avx2")]
fn store_rows<const K: u8, const V: usize>(p: &[__m256i; V], q: &mut [u8]) {
    if kind::<K>().bytes() {
        for (i, &v) in p.iter().enumerate() {
            if let Some(d) = q.get_mut(i * 32..i * 32 + 32) {
                // SAFETY: `d` holds 32 bytes; `storeu` has no alignment requirement.
                unsafe { _mm256_storeu_si256(d.as_mut_ptr().cast(), v) };
            }
        }
        return;
    }
    // Words: the low bytes of two vectors, packed (which interleaves their halves) and put back
    // in order.
    for i in 0..V.div_ceil(2) {
        let a = p[2 * i];
        let whole = 2 * i + 1 < V;
        let b = if whole { p[2 * i + 1] } else { a };
        let packed = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi16(a, b));
        let mut bytes = [0u8; 32];
        // SAFETY: `bytes` holds 32 bytes.
        unsafe { _mm256_storeu_si256(bytes.as_mut_ptr().cast(), packed) };
        let n = if whole { 32 } else { 16 };
        if let (Some(d), Some(s)) = (q.get_mut(i * 32..i * 32 + n), bytes.get(..n)) {
            d.copy_from_slice(s);
        }
    }
}

/// Defines a group pass (`$name`, built for `$features`, stepping with `$take`): the AVX2 and
/// the AVX-512 builds of one loop.
macro_rules! chunk_keys {
    ($(#[$doc:meta])* $name:ident, $features:literal, $take:ident) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// The CPU must have the features of its `target_feature`.
        #[target_feature(enable = $features)]
        pub(super) unsafe fn $name<const K: u8, const MIN: bool, const LAST: bool, const V: usize>(
            group: &[u8],
            stride: usize,
            rows: usize,
            off: usize,
            out: &mut [u8],
            rows_at: &mut [u8],
        ) -> usize {
            let w = V * 32;
            let lanes = if kind::<K>().bytes() { w } else { w / 2 };
            let chunks = (out.len() / w).min(rows_at.len() / lanes);
            // Every chunk's bytes in the last row lie within the group: checked once.
            let need = rows
                .checked_sub(1)
                .and_then(|r| r.checked_mul(stride))
                .and_then(|o| o.checked_add(off + chunks * w));
            if chunks == 0 || rows > 256 || need.is_none_or(|n| n > group.len()) {
                return 0;
            }
            let flip = if kind::<K>() == Kind::I8 {
                _mm256_set1_epi8(i8::MIN)
            } else {
                _mm256_setzero_si256()
            };
            for c in 0..chunks {
                // SAFETY: `off + (c + 1) * w + (rows - 1) * stride <= group.len()` (checked above
                // for the last chunk), so every load below, of row `r < rows`, lies within
                // `group`.
                let base = unsafe { group.as_ptr().add(off + c * w) };
                let mut m = [_mm256_setzero_si256(); V];
                let mut p = [_mm256_setzero_si256(); V];
                for (i, mi) in m.iter_mut().enumerate() {
                    // SAFETY: row 0 (see above).
                    *mi = unsafe { load(base.add(i * 32)) };
                }
                let mut k = _mm256_setzero_si256();
                for r in 1..rows {
                    k = next_row::<K>(k);
                    for (i, (mi, pi)) in m.iter_mut().zip(p.iter_mut()).enumerate() {
                        // SAFETY: row `r < rows` (see above).
                        let v = unsafe { load(base.add(r * stride + i * 32)) };
                        $take::<K, MIN, LAST>(mi, pi, v, k);
                    }
                }
                if let Some(o) = out.get_mut(c * w..c * w + w) {
                    for (i, &mi) in m.iter().enumerate() {
                        // SAFETY: `o` holds `32 V` bytes; `storeu` has no alignment requirement.
                        unsafe {
                            _mm256_storeu_si256(
                                o.as_mut_ptr().add(i * 32).cast(),
                                _mm256_xor_si256(mi, flip),
                            )
                        };
                    }
                }
                if let Some(q) = rows_at.get_mut(c * lanes..c * lanes + lanes) {
                    store_rows::<K, V>(&p, q);
                }
            }
            chunks
        }
    };
}

chunk_keys! {
    /// The group pass in AVX2, `V` vectors of lanes at a time: each whole chunk of `V` vectors of
    /// lanes (from byte `off` of the group's first row, rows `stride` bytes apart, `rows` of them)
    /// gets its lanes' extreme keys into `out` (bytes, `32 V` per chunk) and the row within the
    /// group where each is first (with `LAST`, last) met into `rows_at` (a byte per lane).
    /// Returns the chunks done: every whole chunk `out` and `rows_at` hold, or none if the group's
    /// rows do not hold them or are more than 256 (generated code never passes such a group).
    chunk_keys, "avx2", take
}

chunk_keys! {
    /// [`chunk_keys`] on CPUs with AVX-512 (BW and VL): the same 32-byte vectors, but the rows
    /// taken through a mask register ([`take512`]), one operation where AVX2's byte blend is
    /// three on Intel cores. There it takes the single vectors after the 64-byte vectors'
    /// chunks (`arg_groups512`).
    chunk_keys512, "avx2,avx512f,avx512bw,avx512vl", take512
}

/// The group pass of `super::arg_groups` (`group_lanes`) for 1- and 2-byte integer keys (and
/// `bool`) in AVX2 ([`super::arg_groups_avx2`]): the whole chunks of 128 byte lanes, then of 32
/// (words: 32, then 16); with AVX-512, chunks of 128 bytes in 64-byte vectors
/// ([`super::arg_groups512`]), then single 32-byte vectors. Returns the lanes done (a multiple of
/// sixteen), 0 for other types.
///
/// # Safety
/// The CPU must have AVX2.
#[inline(always)]
pub(super) unsafe fn group_keys<T: Element, D: Direction, const LAST: bool>(
    group: &[T],
    inner: usize,
    start: usize,
    out: &mut [T::Key],
    rows_at: &mut [u8],
) -> usize {
    use crate::DType;
    let kind = match T::DTYPE {
        DType::U8 | DType::Bool => Kind::U8,
        DType::I8 => Kind::I8,
        DType::U16 => Kind::U16,
        DType::I16 => Kind::I16,
        _ => return 0,
    };
    let size = core::mem::size_of::<T>();
    if core::mem::size_of::<T::Key>() != size || inner == 0 {
        return 0;
    }
    // SAFETY: these types are plain bytes and words (bool bytes are 0 or 1), as are their keys
    // (`u8`, `u16`, `i16`): the same memory seen as bytes.
    let (g, o) = unsafe {
        (
            core::slice::from_raw_parts(group.as_ptr().cast::<u8>(), core::mem::size_of_val(group)),
            core::slice::from_raw_parts_mut(
                out.as_mut_ptr().cast::<u8>(),
                core::mem::size_of_val(out),
            ),
        )
    };
    let (rows, stride, off) = (group.len() / inner, inner * size, start * size);
    // Big chunks (four vectors of bytes, two of words; with AVX-512 two 64-byte vectors of
    // either), then single 32-byte vectors.
    let mut done = 0;
    macro_rules! pass {
        ($f:ident, $v:literal, $width:literal) => {{
            let (Some(o), Some(q)) = (o.get_mut(done * size..), rows_at.get_mut(done..)) else {
                return done;
            };
            let at = off + done * size;
            // SAFETY: the caller's (AVX2), and `level` found AVX-512 for the AVX-512 passes.
            let chunks = unsafe {
                match (kind, D::IS_MIN) {
                    (Kind::U8, false) => {
                        $f::<{ kind_param(Kind::U8) }, false, LAST, $v>(g, stride, rows, at, o, q)
                    }
                    (Kind::U8, true) => {
                        $f::<{ kind_param(Kind::U8) }, true, LAST, $v>(g, stride, rows, at, o, q)
                    }
                    (Kind::I8, false) => {
                        $f::<{ kind_param(Kind::I8) }, false, LAST, $v>(g, stride, rows, at, o, q)
                    }
                    (Kind::I8, true) => {
                        $f::<{ kind_param(Kind::I8) }, true, LAST, $v>(g, stride, rows, at, o, q)
                    }
                    (Kind::U16, false) => {
                        $f::<{ kind_param(Kind::U16) }, false, LAST, $v>(g, stride, rows, at, o, q)
                    }
                    (Kind::U16, true) => {
                        $f::<{ kind_param(Kind::U16) }, true, LAST, $v>(g, stride, rows, at, o, q)
                    }
                    (Kind::I16, false) => {
                        $f::<{ kind_param(Kind::I16) }, false, LAST, $v>(g, stride, rows, at, o, q)
                    }
                    (Kind::I16, true) => {
                        $f::<{ kind_param(Kind::I16) }, true, LAST, $v>(g, stride, rows, at, o, q)
                    }
                }
            };
            done += chunks * $v * ($width / size);
        }};
    }
    if super::isa::level() >= super::isa::AVX512 {
        use super::arg_groups512::chunk_keys as chunk_keys_zmm;
        pass!(chunk_keys_zmm, 2, 64);
        pass!(chunk_keys512, 1, 32);
    } else {
        if size == 1 {
            pass!(chunk_keys, 4, 32);
        } else {
            pass!(chunk_keys, 2, 32);
        }
        pass!(chunk_keys, 1, 32);
    }
    done
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use super::super::arg_lanes::{arg_lanes_wide, arg_tile};
    use super::super::isa;
    use super::super::test_util::Lcg;
    use crate::{Direction, Element, Max, Min};

    /// The first (with `last`, the last) row of each lane's extreme, on plain integers.
    fn reference(x: &[i64], inner: usize, min: bool, last: bool) -> Vec<i64> {
        let rows = x.len() / inner;
        (0..inner)
            .map(|j| {
                let mut at = 0;
                for r in 1..rows {
                    let (v, b) = (x[r * inner + j], x[at * inner + j]);
                    let better = if min { v < b } else { v > b };
                    if better || (last && v == b) {
                        at = r;
                    }
                }
                at as i64
            })
            .collect()
    }

    /// Each lane's index without values, with values, and the values.
    type Found<T> = (Vec<i64>, Vec<i64>, Vec<T>);

    /// Runs the AVX2 twins' form of the strided arg-reduction (`WIDE`, whose grouped pass takes
    /// `chunk_keys` for these types) for one direction and tie rule, with and without values.
    fn run<T: Element, D: Direction, const LAST: bool, const TILE: usize>(
        x: &[T],
        inner: usize,
    ) -> Found<T> {
        let mut y = std::vec![-1i64; inner];
        arg_lanes_wide::<T, D, LAST, TILE>(x, &mut y, &mut [], inner);
        let (mut y2, mut v) = (std::vec![-1i64; inner], std::vec![T::ONE; inner]);
        arg_lanes_wide::<T, D, LAST, TILE>(x, &mut y2, &mut v, inner);
        (y, y2, v)
    }

    fn check<T: Element + core::fmt::Debug>(make: fn(i64) -> T, lo: i64, hi: i64) {
        let mut g = Lcg(29);
        // Rows: one group and less, partial last groups, past 256 groups of sixteen rows (the
        // byte group counters' end); lanes: chunks of 128 and 32 bytes, words' 32 and 16, the
        // sixteen-lane chunk and the tail after them, and several tiles.
        let shapes = [
            (2, 16),
            (3, 33),
            (15, 64),
            (16, 160),
            (17, 129),
            (33, 100),
            (64, 200),
            (100, 257),
            (257, 48),
            (300, 2097),
            (1000, 40),
            (4200, 35),
        ];
        for (rows, inner) in shapes {
            for spread in [hi - lo + 1, 3] {
                // Full-range values, or only the lowest, the highest and one between (ties).
                let vals: Vec<i64> = (0..rows * inner)
                    .map(|_| {
                        let r = (g.next() % spread as u64) as i64;
                        if spread == 3 {
                            [lo, hi, (lo + hi) / 2][r as usize]
                        } else {
                            lo + r
                        }
                    })
                    .collect();
                let x: Vec<T> = vals.iter().map(|&v| make(v)).collect();
                let cases: [(bool, bool, Found<T>); 4] = [
                    (false, false, run::<T, Max, false, 1632>(&x, inner)),
                    (false, true, run::<T, Max, true, 64>(&x, inner)),
                    (true, false, run::<T, Min, false, 1360>(&x, inner)),
                    (true, true, run::<T, Min, true, 16>(&x, inner)),
                ];
                for (min, last, (y, y2, v)) in cases {
                    let want = reference(&vals, inner, min, last);
                    let what = std::format!("{:?} {rows}x{inner} min {min} last {last}", T::DTYPE);
                    assert_eq!(y, want, "{what}");
                    assert_eq!(y2, want, "{what}, with values");
                    for (j, (&at, &b)) in want.iter().zip(&v).enumerate() {
                        assert_eq!(b, x[at as usize * inner + j], "{what}, value of lane {j}");
                    }
                }
            }
        }
    }

    /// Bytes and words through the AVX2 group pass, and where the CPU has it the AVX-512 one,
    /// against the definition: every direction and tie rule, the values too, full-range and
    /// three-valued data (ties, both ends). Where the CPU lacks AVX2 the twins never run, and
    /// neither does this check.
    #[test]
    fn avx2_group_pass_matches_the_definition() {
        if !std::is_x86_feature_detected!("avx2") {
            return;
        }
        assert_eq!(arg_tile(2097, 1), 1632);
        assert_eq!(arg_tile(100_000, 2), 1360);
        let builds = crate::kernels::test_util::vector_builds();
        for &build in builds {
            isa::HERE.with(|c| c.set(Some(build)));
            check::<u8>(|v| v as u8, 0, 255);
            check::<i8>(|v| v as i8, -128, 127);
            check::<bool>(|v| v != 0, 0, 1);
            check::<u16>(|v| v as u16, 0, 65535);
            check::<i16>(|v| v as i16, -32768, 32767);
        }
        isa::HERE.with(|c| c.set(None));
    }

    /// Bytes down more rows than their group counters count (256 groups: 4096 rows in groups of
    /// sixteen, 16384 in the AVX-512 pass's groups of 64), and down just as many: each lane's
    /// extremes in the last groups (twice in some lanes, so that first and last differ), rows
    /// wide enough for the grouped pass (not the tiles of `arg_lanes_small_avx2`). A counter that
    /// wrapped would put them 4096 (16384) rows early.
    #[test]
    fn byte_group_counters_reach_the_last_rows() {
        if !std::is_x86_feature_detected!("avx2") {
            return;
        }
        let inner = 300;
        let builds = crate::kernels::test_util::vector_builds();
        let mut g = Lcg(31);
        for &build in builds {
            isa::HERE.with(|c| c.set(Some(build)));
            let limit = if build >= isa::AVX512 { 16384 } else { 4096 };
            for rows in [limit, limit + 1, limit + 70] {
                // Background strictly between the ends; the ends placed near the bottom.
                let mut vals: Vec<i64> = (0..rows * inner)
                    .map(|_| 1 + (g.next() % 254) as i64)
                    .collect();
                for j in 0..inner {
                    let top = rows - 1 - (j * 37) % 90;
                    let bottom = rows - 1 - (j * 53) % 90;
                    vals[top * inner + j] = 255;
                    vals[bottom * inner + j] = 0;
                    if j % 3 == 0 {
                        vals[(top - 5) * inner + j] = 255;
                        vals[(bottom - 7) * inner + j] = 0;
                    }
                }
                let x: Vec<u8> = vals.iter().map(|&v| v as u8).collect();
                let cases: [(bool, bool, Found<u8>); 4] = [
                    (false, false, run::<u8, Max, false, 1632>(&x, inner)),
                    (false, true, run::<u8, Max, true, 64>(&x, inner)),
                    (true, false, run::<u8, Min, false, 1360>(&x, inner)),
                    (true, true, run::<u8, Min, true, 16>(&x, inner)),
                ];
                for (min, last, (y, y2, _)) in cases {
                    let want = reference(&vals, inner, min, last);
                    let what = std::format!("build {build} {rows}x{inner} min {min} last {last}");
                    assert_eq!(y, want, "{what}");
                    assert_eq!(y2, want, "{what}, with values");
                }
            }
        }
        isa::HERE.with(|c| c.set(None));
    }
}
