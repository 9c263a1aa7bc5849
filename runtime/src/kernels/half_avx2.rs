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
    __m256i, _mm256_blendv_epi8, _mm256_cmpgt_epi16, _mm256_loadu_si256, _mm256_max_epi16,
    _mm256_max_epu16, _mm256_min_epi16, _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi16,
    _mm256_setzero_si256, _mm256_storeu_si256, _mm256_xor_si256,
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
