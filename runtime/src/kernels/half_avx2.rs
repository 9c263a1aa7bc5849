//! The strided f16/bf16 reduction ([`super::half_lanes::reduce_lanes_half`]) in 32-byte AVX2
//! vectors, for CPUs that have them (checked at run time; the default x86-64 target has only
//! SSE2, where the unsigned 16-bit max the NaN check needs is two instructions and a register
//! holds eight lanes).
//!
//! Each chunk of 32 lanes (a cache line of each row) keeps its [`Summary`](super::half_rows)
//! (signed max, signed min, unsigned max of the bits) in six registers through a group of rows,
//! three instructions per 16 elements, and stores each lane's extreme back once per group. The
//! summary written with the autovectorizer in an AVX2 instance kept its lanes in memory and ran
//! 1.24x slower than SSE2; these are the instructions written out.

use core::arch::x86_64::{
    __m256i, _mm256_and_si256, _mm256_blendv_epi8, _mm256_cmpeq_epi16, _mm256_cmpgt_epi16,
    _mm256_cvtsi256_si32, _mm256_loadu_si256, _mm256_max_epi16, _mm256_max_epu16, _mm256_min_epi16,
    _mm256_movemask_epi8, _mm256_or_si256, _mm256_permute2x128_si256, _mm256_set1_epi16,
    _mm256_setzero_si256, _mm256_shuffle_epi32, _mm256_srai_epi16, _mm256_srli_si256,
    _mm256_storeu_si256, _mm256_sub_epi16, _mm256_testz_si256, _mm256_xor_si256,
};

use crate::Direction;

/// Lanes of a chunk: two vectors of sixteen.
pub(super) const LANES: usize = 32;

/// Rows folded while a chunk keeps its summary in registers (sixteen rows of a thousand lanes
/// stay in L1 for the next chunk, which reads the other half of the lines they share).
const ROWS: usize = 16;

/// The summary of one vector of lanes: the signed max, signed min and unsigned max of the bits.
#[derive(Clone, Copy)]
struct Sum {
    smax: __m256i,
    smin: __m256i,
    umax: __m256i,
}

impl Sum {
    /// Lane by lane, the summary of both sets.
    #[cfg_attr(feature = "small-code", allow(dead_code))]
    #[inline]
    #[target_feature(enable = "avx2")]
    fn merge(self, o: Sum) -> Self {
        Sum {
            smax: _mm256_max_epi16(self.smax, o.smax),
            smin: _mm256_min_epi16(self.smin, o.smin),
            umax: _mm256_max_epu16(self.umax, o.umax),
        }
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn of(v: __m256i) -> Self {
        Sum {
            smax: v,
            smin: v,
            umax: v,
        }
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn add(&mut self, v: __m256i) {
        self.smax = _mm256_max_epi16(self.smax, v);
        self.smin = _mm256_min_epi16(self.smin, v);
        self.umax = _mm256_max_epu16(self.umax, v);
    }

    /// Each lane's extreme (see `half_rows::extreme_of`: non-negative numbers order as their
    /// bits, negative ones as their magnitudes reversed), meaningless where the set holds a NaN.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn extremes<D: Direction>(&self) -> __m256i {
        if D::IS_MIN {
            // The largest `u16` if any is negative, else the smallest `i16`.
            let negative = _mm256_cmpgt_epi16(_mm256_setzero_si256(), self.umax);
            _mm256_blendv_epi8(self.smin, self.umax, negative)
        } else {
            // The largest `i16` if any is non-negative, else the smallest `i16`.
            let any_positive = _mm256_cmpgt_epi16(self.smax, _mm256_set1_epi16(-1));
            _mm256_blendv_epi8(self.smin, self.smax, any_positive)
        }
    }

    /// Lanes whose set holds a NaN: a positive one is above infinity as `i16`, a negative one
    /// above `0x8000 | inf` as `u16` (compared as `i16` with the sign bit flipped).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn nan_lanes(&self, inf: __m256i) -> __m256i {
        let flip = _mm256_xor_si256(self.umax, _mm256_set1_epi16(i16::MIN));
        _mm256_or_si256(
            _mm256_cmpgt_epi16(self.smax, inf),
            _mm256_cmpgt_epi16(flip, inf),
        )
    }
}

#[inline]
#[target_feature(enable = "avx2")]
fn load(x: &[u16; 16]) -> __m256i {
    // SAFETY: `x` holds 32 bytes; `loadu` has no alignment requirement.
    unsafe { _mm256_loadu_si256(x.as_ptr().cast()) }
}

#[inline]
#[target_feature(enable = "avx2")]
fn store(y: &mut [u16; 16], v: __m256i) {
    // SAFETY: `y` holds 32 bytes; `storeu` has no alignment requirement.
    unsafe { _mm256_storeu_si256(y.as_mut_ptr().cast(), v) }
}

/// Every row of `x` (rows as long as `acc`, at least [`LANES`]; a partial last row ignored)
/// folded into `acc` by the order of the bits' keys (`inf`: the magnitude of infinity), and
/// whether a NaN was met (in `x`, or in `acc`: then the lanes that met one hold meaningless bits,
/// which the caller mends). Whole chunks of lanes, then the lanes past them as one more chunk
/// that ends at the last lane (overlapping the one before: a max or min does not mind).
///
/// # Safety
/// The CPU must have AVX2 (`rows_f32::avx2::available` checks it and more).
#[target_feature(enable = "avx2")]
pub(super) unsafe fn reduce_lanes<D: Direction>(acc: &mut [u16], x: &[u16], inf: i16) -> bool {
    let n = acc.len();
    if n < LANES {
        return false;
    }
    let full = n / LANES;
    let chunks = n.div_ceil(LANES);
    let inf = _mm256_set1_epi16(inf);
    let mut nan = _mm256_setzero_si256();
    for group in x.chunks(ROWS * n) {
        let rows = group.len() / n;
        for c in 0..chunks {
            let off = if c < full { c * LANES } else { n - LANES };
            let Some(a) = acc
                .get_mut(off..)
                .and_then(|a| a.first_chunk_mut::<LANES>())
            else {
                break;
            };
            let ([a0, a1], _) = a.as_chunks_mut::<16>() else {
                break;
            };
            let (mut s0, mut s1) = (Sum::of(load(a0)), Sum::of(load(a1)));
            let lanes = group.get(off..).unwrap_or(&[]);
            for r in 0..rows {
                let Some(v) = lanes.get(r * n..).and_then(|v| v.first_chunk::<LANES>()) else {
                    break;
                };
                let ([v0, v1], _) = v.as_chunks::<16>() else {
                    break;
                };
                s0.add(load(v0));
                s1.add(load(v1));
            }
            store(a0, s0.extremes::<D>());
            store(a1, s1.extremes::<D>());
            nan = _mm256_or_si256(nan, _mm256_or_si256(s0.nan_lanes(inf), s1.nan_lanes(inf)));
        }
    }
    _mm256_movemask_epi8(nan) != 0
}

/// The summary of a contiguous row of f16 or bf16 bits across all its elements: its largest
/// and smallest bits as `i16` and its largest as `u16` (what `half_rows::Summary` keeps per
/// lane), in four chains of sixteen lanes, three instructions per sixteen elements; the
/// elements past the last whole sixteen are read as the row's last sixteen (overlapping: a max
/// or min does not mind). `None` for a row of fewer than sixteen. Against the portable fold
/// (SSE2, eight lanes a register and two instructions for the unsigned max) over rows of 1000.
///
/// # Safety
/// The CPU must have AVX2 (`rows_f32::avx2::available` checks it and more).
#[cfg_attr(feature = "small-code", allow(dead_code))]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn row_summary(x: &[u16]) -> Option<(i16, i16, u16)> {
    let t = load(x.last_chunk::<16>()?);
    let (mut a, mut b, mut c, mut d) = (Sum::of(t), Sum::of(t), Sum::of(t), Sum::of(t));
    let (quads, rest) = x.as_chunks::<64>();
    for q in quads {
        let ([v0, v1, v2, v3], _) = q.as_chunks::<16>() else {
            continue;
        };
        a.add(load(v0));
        b.add(load(v1));
        c.add(load(v2));
        d.add(load(v3));
    }
    for v in rest.as_chunks::<16>().0 {
        a.add(load(v));
    }
    let s = a.merge(b).merge(c.merge(d));
    // All three as signed maxima: `!v` reverses the signed order, the sign flip turns unsigned
    // order into signed.
    let flip = _mm256_set1_epi16(i16::MIN);
    let smin = !lanes_max(_mm256_xor_si256(s.smin, _mm256_set1_epi16(-1)));
    let umax = lanes_max(_mm256_xor_si256(s.umax, flip)) ^ i16::MIN;
    Some((lanes_max(s.smax), smin, umax.cast_unsigned()))
}

/// The index of the first element of `x` (the last, with `LAST`) whose bits under `mask` are
/// `want`: 64 elements a step (four compares joined, one test: a step of sixteen took half of
/// a Hardmax of an f16 row of 1000, in the loop's test and branch), then sixteen, then the
/// elements past the last whole sixteen one by one.
///
/// # Safety
/// The CPU must have AVX2 (`rows_f32::avx2::available` checks it and more).
#[cfg_attr(feature = "small-code", allow(dead_code))]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn find_bits<const LAST: bool>(x: &[u16], want: u16, mask: u16) -> Option<usize> {
    let (sixteens, rest) = x.as_chunks::<16>();
    let tail = x.len() - rest.len();
    let one = |b: &u16| *b & mask == want;
    #[allow(clippy::cast_possible_wrap)]
    let (w, m) = (
        _mm256_set1_epi16(want as i16),
        _mm256_set1_epi16(mask as i16),
    );
    // (Loops, not iterator closures over the chunks: a closure does not take the function's
    // target features.)
    if LAST {
        if let Some(i) = rest.iter().rposition(one) {
            return Some(tail + i);
        }
        let mut c = sixteens.len();
        while let Some([a, b, d, e]) = c
            .checked_sub(4)
            .and_then(|from| sixteens.get(from..c))
            .and_then(|q| q.first_chunk::<4>())
        {
            if any_hit([a, b, d, e], m, w) {
                break;
            }
            c -= 4;
        }
        while c > 0 {
            c -= 1;
            let bits = hit(sixteens.get(c)?, m, w);
            if bits != 0 {
                return Some(c * 16 + (31 - bits.leading_zeros() as usize) / 2);
            }
        }
        return None;
    }
    let mut c = 0;
    while let Some([a, b, d, e]) = sixteens.get(c..c + 4).and_then(|q| q.first_chunk::<4>()) {
        if any_hit([a, b, d, e], m, w) {
            break;
        }
        c += 4;
    }
    while let Some(v) = sixteens.get(c) {
        let bits = hit(v, m, w);
        if bits != 0 {
            return Some(c * 16 + bits.trailing_zeros() as usize / 2);
        }
        c += 1;
    }
    rest.iter().position(one).map(|i| tail + i)
}

/// Whether any lane of the four vectors has bits under `mask` equal to `want`'s.
#[cfg_attr(feature = "small-code", allow(dead_code))]
#[inline]
#[target_feature(enable = "avx2")]
fn any_hit([a, b, c, d]: [&[u16; 16]; 4], mask: __m256i, want: __m256i) -> bool {
    let any = _mm256_or_si256(
        _mm256_or_si256(equal(a, mask, want), equal(b, mask, want)),
        _mm256_or_si256(equal(c, mask, want), equal(d, mask, want)),
    );
    _mm256_testz_si256(any, any) == 0
}

/// All ones in each lane of `v` whose bits under `mask` are `want`'s.
#[cfg_attr(feature = "small-code", allow(dead_code))]
#[inline]
#[target_feature(enable = "avx2")]
fn equal(v: &[u16; 16], mask: __m256i, want: __m256i) -> __m256i {
    _mm256_cmpeq_epi16(_mm256_and_si256(load(v), mask), want)
}

/// The largest of the sixteen signed lanes of `v`.
#[cfg_attr(feature = "small-code", allow(dead_code))]
#[inline]
#[target_feature(enable = "avx2")]
fn lanes_max(v: __m256i) -> i16 {
    let v = _mm256_max_epi16(v, _mm256_permute2x128_si256::<1>(v, v));
    let v = _mm256_max_epi16(v, _mm256_shuffle_epi32::<0b01_00_11_10>(v));
    let v = _mm256_max_epi16(v, _mm256_shuffle_epi32::<0b10_11_00_01>(v));
    let v = _mm256_max_epi16(v, _mm256_srli_si256::<2>(v));
    #[allow(clippy::cast_possible_truncation)]
    let m = _mm256_cvtsi256_si32(v) as i16;
    m
}

/// Hardmax of a contiguous f16 or bf16 row `x` (at least sixteen elements; `inf`: the magnitude
/// of infinity, `one`: the bits of 1) into `y` (as long): one pass folds the row's summary in two
/// chains while it stores the zeros of `y`, then the first element equal to the maximum (either
/// zero, for a maximum of zero) is searched for and gets the one. `false` (`y` partly written)
/// where the row holds a NaN or is shorter: the caller takes the exact rule. Against the
/// portable kernel (SSE2, the order keys of eight elements per step) over rows of 1000 elements
/// this reads each vector with three instructions instead of about eight.
///
/// # Safety
/// The CPU must have AVX2 (`rows_f32::avx2::available` checks it and more).
#[cfg_attr(feature = "small-code", allow(dead_code))]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn hardmax_row(x: &[u16], y: &mut [u16], inf: i16, one: u16) -> bool {
    let (Some(tail), true) = (x.last_chunk::<16>(), x.len() == y.len()) else {
        return false;
    };
    // Zeros hidden from the optimizer, which turns a loop of zeros stored into `memset`.
    let zero = load(&core::hint::black_box([0; 16]));
    if let Some(o) = y.last_chunk_mut::<16>() {
        store(o, zero);
    }
    let t = load(tail);
    let (mut a, mut b) = (Sum::of(t), Sum::of(t));
    let (pairs, rest) = x.as_chunks::<32>();
    let (out_pairs, out_rest) = y.as_chunks_mut::<32>();
    for (v, o) in pairs.iter().zip(out_pairs) {
        let ([v0, v1], _) = v.as_chunks::<16>() else {
            continue;
        };
        a.add(load(v0));
        b.add(load(v1));
        let ([o0, o1], _) = o.as_chunks_mut::<16>() else {
            continue;
        };
        store(o0, zero);
        store(o1, zero);
    }
    if let (Some(v), Some(o)) = (rest.first_chunk::<16>(), out_rest.first_chunk_mut::<16>()) {
        a.add(load(v));
        store(o, zero);
    }
    let s = a.merge(b);
    let inf_v = _mm256_set1_epi16(inf);
    if _mm256_movemask_epi8(s.nan_lanes(inf_v)) != 0 {
        return false;
    }
    // Each lane's maximum as an order key (sign-magnitude to two's complement: both zeros 0),
    // then the largest key across the lanes.
    let e = s.extremes::<crate::Max>();
    let sign = _mm256_srai_epi16::<15>(e);
    let mag = _mm256_and_si256(e, _mm256_set1_epi16(0x7fff));
    let key = lanes_max(_mm256_sub_epi16(_mm256_xor_si256(mag, sign), sign));
    // The maximum's bits (for a key of 0, either zero: compared by magnitude).
    let (want, mask) = super::half_rows::equal_bits(super::half_rows::bits_of(key));
    // SAFETY: the caller's CPU has AVX2.
    let at = unsafe { find_bits::<false>(x, want, mask) };
    match at.and_then(|at| y.get_mut(at)) {
        Some(o) => {
            *o = one;
            true
        }
        None => false,
    }
}

/// Two bits for each lane of `v` whose bits under `mask` are `want`'s.
#[cfg_attr(feature = "small-code", allow(dead_code))]
#[inline]
#[target_feature(enable = "avx2")]
fn hit(v: &[u16; 16], mask: __m256i, want: __m256i) -> u32 {
    _mm256_movemask_epi8(equal(v, mask, want)).cast_unsigned()
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use crate::kernels::rows_f32::avx2::available;
    use crate::kernels::test_util::{f32_pool, naive_arg, Lcg};
    use crate::{bf16, f16, Element, Max};

    /// The row's Hardmax by the kernel against the definition (`naive_arg` on the values):
    /// `true` when the kernel took the row (it must, unless the row holds a NaN).
    fn check<T: Element>(x: &[T], inf: i16, one: u16, ctx: &str) {
        let bits = T::half_bits(x).expect("a 16-bit float");
        let mut y = std::vec![0x5555u16; x.len()];
        // SAFETY: the caller found AVX2.
        let took = unsafe { super::hardmax_row(bits, &mut y, inf, one) };
        let nan = x.iter().any(|v| v.is_nan());
        assert_eq!(took, !nan, "{ctx}: taken");
        if took {
            let at = naive_arg::<T, Max>(x, false);
            for (j, &o) in y.iter().enumerate() {
                let want = if j == at { one } else { 0 };
                assert_eq!(o, want, "{ctx}: output {j} of {x:?}");
            }
        }
    }

    /// The search by bits, every length to past two steps of 64 and every place of the wanted
    /// bits (alone, or twice: the first and the last differ), both directions, against a plain
    /// search; bits outside the mask must not matter.
    #[test]
    fn bits_are_found_where_a_plain_search_finds_them() {
        if !available() {
            return;
        }
        let (want, mask) = (0x1234u16, 0x7fffu16);
        for n in 0..=150 {
            for at in 0..=n {
                for second in [None, Some(n - at)] {
                    let mut x: Vec<u16> = (0..n).map(|i| 0x0100 + (i as u16 % 7)).collect();
                    if let Some(v) = x.get_mut(at) {
                        *v = want | 0x8000;
                    }
                    if let Some(v) = second.and_then(|s| x.get_mut(s)) {
                        *v = want;
                    }
                    let first = x.iter().position(|&b| b & mask == want);
                    let last = x.iter().rposition(|&b| b & mask == want);
                    // SAFETY: AVX2 found above.
                    let got = unsafe { super::find_bits::<false>(&x, want, mask) };
                    assert_eq!(got, first, "first: n={n} at={at} second={second:?}");
                    // SAFETY: as above.
                    let got = unsafe { super::find_bits::<true>(&x, want, mask) };
                    assert_eq!(got, last, "last: n={n} at={at} second={second:?}");
                }
            }
        }
    }

    #[test]
    fn half_hardmax_rows_match_the_definition() {
        if !available() {
            return;
        }
        let mut g = Lcg(31);
        // Every length from one vector to past four pairs, and longer rows; values from the
        // shared pool (ties, both zeros, both infinities), a NaN of either sign in about one row
        // in five, and rows of negative numbers only.
        for n in (16..=140).chain([255, 256, 1000, 1031]) {
            for round in 0..6 {
                let nan = round == 5;
                let negative = round == 4;
                let v: Vec<f32> = (0..n)
                    .map(|_| {
                        let v = f32_pool(&mut g, nan);
                        if negative {
                            -v.abs() - 1.0
                        } else if v.is_nan() && g.next().is_multiple_of(2) {
                            -v
                        } else {
                            v
                        }
                    })
                    .collect();
                let h: Vec<f16> = v.iter().map(|&v| f16::from_f32(v)).collect();
                let b: Vec<bf16> = v.iter().map(|&v| bf16::from_f32(v)).collect();
                check(
                    &h,
                    0x7c00,
                    f16::ONE.to_bits(),
                    &std::format!("f16 n={n} round={round}"),
                );
                check(
                    &b,
                    0x7f80,
                    bf16::ONE.to_bits(),
                    &std::format!("bf16 n={n} round={round}"),
                );
            }
        }
        // Rows of any bits but NaN's (few ties: the maximum in one place, in either chain of
        // the summary pass, in the last chunk or the chunk before).
        for n in (16..=200).chain([1000, 1031]) {
            for _ in 0..4 {
                let bits: Vec<u16> = (0..n)
                    .map(|_| loop {
                        let b = (g.next() >> 8) as u16;
                        if b & 0x7fff <= 0x7c00 {
                            break b;
                        }
                    })
                    .collect();
                let h: Vec<f16> = bits.iter().map(|&b| f16::from_bits(b)).collect();
                check(
                    &h,
                    0x7c00,
                    f16::ONE.to_bits(),
                    &std::format!("f16 bits n={n}"),
                );
                let b: Vec<bf16> = bits.iter().map(|&b| bf16::from_bits(b >> 1)).collect();
                check(
                    &b,
                    0x7f80,
                    bf16::ONE.to_bits(),
                    &std::format!("bf16 bits n={n}"),
                );
            }
        }
        // Maxima of zero only: the first zero of either sign; a NaN in the overlapping tail.
        let z = [-0.0f32, 0.0, -1.0].repeat(11);
        let h: Vec<f16> = z.iter().map(|&v| f16::from_f32(v)).collect();
        check(&h, 0x7c00, f16::ONE.to_bits(), "zeros");
        let mut h: Vec<f16> = (0..37).map(|i| f16::from_f32(i as f32)).collect();
        h[36] = f16::NAN;
        check(&h, 0x7c00, f16::ONE.to_bits(), "NaN last");
        // Too short, or outputs of another length: not taken.
        let mut y = [0u16; 15];
        // SAFETY: AVX2 was found above.
        assert!(!unsafe { super::hardmax_row(&[0; 15], &mut y, 0x7c00, 0x3c00) });
        let mut y = [0u16; 17];
        // SAFETY: as above.
        assert!(!unsafe { super::hardmax_row(&[0; 16], &mut y, 0x7c00, 0x3c00) });
    }
}
