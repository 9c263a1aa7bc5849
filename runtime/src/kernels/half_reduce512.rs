//! The strided f16/bf16 reduction ([`super::half_lanes::reduce_lanes_half`]) in AVX-512: the
//! pass of `half_avx2::reduce_lanes` with thirty-two lanes a vector.
//!
//! Each chunk of [`V`] vectors of lanes keeps its summary (signed max, signed min and unsigned
//! max of the bits: three instructions a vector, no keys) in registers through a group of
//! [`ROWS`] rows and stores each lane's extreme back once a group. Against the AVX2 pass,
//! ReduceMax/ReduceMin f16 and bf16 over `[1000, 1048]` along axis 0 took 0.79-0.86x of its
//! time (1.0-1.05x of a streaming read, from 1.2x).

use core::arch::x86_64::{
    __m512i, _mm512_cmpgt_epi16_mask, _mm512_loadu_si512, _mm512_mask_blend_epi16,
    _mm512_max_epi16, _mm512_max_epu16, _mm512_min_epi16, _mm512_set1_epi16, _mm512_storeu_si512,
    _mm512_xor_si512,
};

use crate::Direction;

/// Lanes of a vector.
const L: usize = 32;

/// Vectors of a chunk (a chunk of two or four vectors was 2% and 4% slower over
/// `[1000, 1048]`).
const V: usize = 1;

/// Lanes of a chunk: the fewest a row must have for [`reduce_lanes`].
pub(super) const LANES: usize = V * L;

/// Rows folded while a chunk keeps its summary in registers.
const ROWS: usize = 16;

/// The summary of one vector of lanes: the signed max, signed min and unsigned max of the bits.
#[derive(Clone, Copy)]
struct Sum {
    smax: __m512i,
    smin: __m512i,
    umax: __m512i,
}

impl Sum {
    #[inline]
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
    fn of(v: __m512i) -> Self {
        Sum {
            smax: v,
            smin: v,
            umax: v,
        }
    }

    #[inline]
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
    fn add(&mut self, v: __m512i) {
        self.smax = _mm512_max_epi16(self.smax, v);
        self.smin = _mm512_min_epi16(self.smin, v);
        self.umax = _mm512_max_epu16(self.umax, v);
    }

    /// Each lane's extreme (as `half_avx2`'s), meaningless where the set holds a NaN.
    #[inline]
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
    fn extremes<D: Direction>(&self) -> __m512i {
        if D::IS_MIN {
            // The largest `u16` if any is negative, else the smallest `i16`.
            let negative = _mm512_cmpgt_epi16_mask(_mm512_set1_epi16(0), self.umax);
            _mm512_mask_blend_epi16(negative, self.smin, self.umax)
        } else {
            // The largest `i16` if any is non-negative, else the smallest `i16`.
            let any_positive = _mm512_cmpgt_epi16_mask(self.smax, _mm512_set1_epi16(-1));
            _mm512_mask_blend_epi16(any_positive, self.smin, self.smax)
        }
    }

    /// Lanes whose set holds a NaN (see `half_avx2`).
    #[inline]
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
    fn nan_lanes(&self, inf: __m512i) -> u32 {
        let flip = _mm512_xor_si512(self.umax, _mm512_set1_epi16(i16::MIN));
        _mm512_cmpgt_epi16_mask(self.smax, inf) | _mm512_cmpgt_epi16_mask(flip, inf)
    }
}

/// Every row of `x` (rows as long as `acc`, at least [`LANES`]; a partial last row ignored)
/// folded into `acc` by the order of the bits' keys (`inf`: the magnitude of infinity), and
/// whether a NaN was met (then the lanes that met one hold meaningless bits). The lanes past
/// the last whole chunk go as one more chunk that ends at the last lane (overlapping the one
/// before: a max or min does not mind).
///
/// # Safety
/// The CPU must have AVX-512 F, BW, VL and DQ (`isa::level` finds them).
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) unsafe fn reduce_lanes<D: Direction>(acc: &mut [u16], x: &[u16], inf: i16) -> bool {
    let n = acc.len();
    if n < LANES {
        return false;
    }
    let full = n / LANES;
    let chunks = n.div_ceil(LANES);
    let inf = _mm512_set1_epi16(inf);
    let mut nan = 0u32;
    let a = acc.as_mut_ptr();
    for group in x.chunks(ROWS * n) {
        let rows = group.len() / n;
        let g = group.as_ptr();
        for c in 0..chunks {
            let off = if c < full { c * LANES } else { n - LANES };
            // SAFETY: `off + LANES <= n`: the chunk's lanes of `acc` and of each of the group's
            // `rows` whole rows.
            unsafe {
                let mut s: [Sum; V] = core::array::from_fn(|i| {
                    Sum::of(_mm512_loadu_si512(a.add(off + i * L).cast()))
                });
                for r in 0..rows {
                    let p = g.add(r * n + off);
                    for (i, s) in s.iter_mut().enumerate() {
                        s.add(_mm512_loadu_si512(p.add(i * L).cast()));
                    }
                }
                for (i, s) in s.iter().enumerate() {
                    _mm512_storeu_si512(a.add(off + i * L).cast(), s.extremes::<D>());
                    nan |= s.nan_lanes(inf);
                }
            }
        }
    }
    nan != 0
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use crate::kernels::test_util::{bf16s, f16s, fold_definition, same, Lcg};
    use crate::{bf16, f16, Direction, Element, Max, Min};

    /// A pass: the bits of the accumulator, of the rows, and infinity's magnitude.
    type Pass = unsafe fn(&mut [u16], &[u16], i16) -> bool;

    /// The whole rows of `x` folded into `acc` by each pass this CPU has (AVX-512, AVX2: every
    /// lane without a NaN exact, a NaN reported) and by `reduce_lanes_half` (every lane exact,
    /// its first NaN where it has one); a partial last row is ignored.
    fn check<T: Element, D: Direction>(acc: &[T], x: &[T], inf: i16, what: &str) {
        let n = acc.len();
        let rows = x.len() / n;
        let want: Vec<T> = (0..n)
            .map(|j| {
                let lane = x[..rows * n].iter().skip(j).step_by(n).copied();
                fold_definition::<T, D>(acc[j], lane)
            })
            .collect();
        let xb = T::half_bits(x).expect("16-bit floats");
        let mut passes: Vec<(&str, Pass)> = Vec::new();
        if super::super::isa::level() >= super::super::isa::AVX512 {
            passes.push(("avx512", super::reduce_lanes::<D>));
        }
        if super::super::rows_f32::avx2::available() {
            passes.push(("avx2", super::super::half_avx2::reduce_lanes::<D>));
        }
        for (name, pass) in passes {
            let mut got = acc.to_vec();
            // SAFETY: the CPU has the pass's instructions (checked above).
            let met = unsafe { pass(T::half_bits_mut(&mut got).expect("bits"), xb, inf) };
            for (j, (&g, &w)) in got.iter().zip(&want).enumerate() {
                if w.is_nan() {
                    assert!(met, "{what} {name}: lane {j}'s NaN not reported");
                } else {
                    assert!(same(g, w), "{what} {name}: lane {j}");
                }
            }
        }
        let mut got = acc.to_vec();
        let b = T::half_bits_mut(&mut got).expect("bits");
        assert!(
            super::super::half_lanes::reduce_lanes_half::<D>(b, xb, inf),
            "{what}"
        );
        for (j, (&g, &w)) in got.iter().zip(&want).enumerate() {
            assert!(same(g, w), "{what}: lane {j}");
        }
    }

    /// Rows of 32 lanes (one vector) to 1048, over one group and across groups of sixteen rows,
    /// both directions, from the identity and from accumulated values; values with ties, both
    /// zeros and infinities, rows of negative numbers only, a NaN of either sign now and then.
    fn every_shape<T: Element>(make: fn(&mut Lcg, bool) -> T, inf: i16) {
        let mut g = Lcg(41);
        for n in [32, 33, 47, 63, 64, 65, 100, 1048] {
            for rows in [1, 15, 16, 17, 40] {
                for round in 0..4 {
                    let negative = round == 2;
                    let draw = |g: &mut Lcg, nan_ok: bool| loop {
                        let nan = nan_ok && g.next().is_multiple_of(5);
                        let v = make(g, nan);
                        if !negative || v.is_nan() || v.lt(T::ZERO) {
                            break v;
                        }
                    };
                    // Rows and half a row past them.
                    let x: Vec<T> = (0..rows * n + n / 2)
                        .map(|_| draw(&mut g, round == 3))
                        .collect();
                    let what = std::format!("{:?} {n}x{rows} round {round}", T::DTYPE);
                    let acc: Vec<T> = (0..n).map(|_| draw(&mut g, false)).collect();
                    check::<T, Max>(&acc, &x, inf, &what);
                    check::<T, Min>(&acc, &x, inf, &what);
                    let fresh = std::vec![Max::identity::<T>(); n];
                    check::<T, Max>(&fresh, &x, inf, &what);
                    let fresh = std::vec![Min::identity::<T>(); n];
                    check::<T, Min>(&fresh, &x, inf, &what);
                }
            }
        }
    }

    #[test]
    fn strided_half_reductions_match_the_contract() {
        every_shape::<f16>(f16s, 0x7c00);
        every_shape::<bf16>(bf16s, 0x7f80);
    }
}
