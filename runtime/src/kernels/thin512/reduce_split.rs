//! ReduceMax and ReduceMin of blocks of 1- and 2-byte elements over half a vector, two blocks a
//! window, as the arg-reductions' split windows (`Plan::split`): `q` whole rows of each block in
//! a 32-byte half, the windows `q` rows apart (the last ending at the blocks' last row); then
//! each block's groups halve lane against lane (1-byte lanes widened to 16 bits, a vector a
//! block; 2-byte lanes both blocks in one vector) and both blocks' lanes go out in one store. A
//! pair whose windows hold a NaN is done by the contract's rule, block by block.

use core::arch::x86_64::{
    _mm256_mask_storeu_epi8, _mm512_cvtepi16_epi8, _mm512_permutex2var_epi16,
    _mm512_permutexvar_epi16,
};

use super::lanes::{has_nan, magnitude, store_lanes, unkey, widest};
use super::reduce::{best, best16, exact, expand, pass, widen, Halving};
use super::{window, HALF, SPLIT, SPLIT_ROWS};
use crate::{Direction, Element};

/// The rows of `c` lanes of `w` bytes a half holds where this kernel takes blocks of `r` rows
/// of them: 1- and 2-byte elements, two rows a half or more, blocks longer than a half and of
/// at most [`SPLIT_ROWS`] rows.
#[inline(always)]
pub(super) fn rows_a_half(w: usize, r: usize, c: usize) -> Option<usize> {
    let q = (32 / w).checked_div(c).unwrap_or(0);
    (w <= 2 && q >= 2 && r > q && r <= SPLIT_ROWS).then_some(q)
}

/// The blocks of `r` rows of `c` lanes from the start of `x` reduced into `y` (NaN-propagating)
/// two at a time: their count (even; none where [`rows_a_half`] does not take them). The last
/// pair is left where its second half would read past `x`.
///
/// # Safety
/// The CPU has AVX-512 F, BW, VL and DQ; `T` is `W` bytes of kind `KIND`; `c` is 1 to 15.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) unsafe fn reduce_split<T: Element, D: Direction, const W: usize, const KIND: u8>(
    y: &mut [T],
    x: &[T],
    r: usize,
    c: usize,
    inf: u64,
) -> usize {
    let Some(q) = rows_a_half(W, r, c) else {
        return 0;
    };
    let (size, half) = (r * c, 32 / W);
    let n = (x.len() / size).min(y.len() / c);
    let mut pairs = n / 2;
    // The second half of a pair's last window reads past its block by the rest of the half.
    if pairs * 2 * size + half - q * c > x.len() {
        pairs = pairs.saturating_sub(1);
    }
    // The folded vectors' lanes are 16 bits wide; a block's lanes start every `region` of them.
    let region = if W == 1 { 32 } else { half };
    let plan = Halving::regions(W, q, c, region);
    let (idx, steps) = (plan.vectors().map(|[first, _]| first), plan.steps);
    // Both blocks' lanes side by side: block `b`'s lane `j` from lane `b · region + j` (the
    // second vector's lanes from 32 on, for 1-byte lanes).
    let mut pack = [0u8; 64];
    for (t, lane) in pack.iter_mut().enumerate().take(2 * c) {
        *lane = if t < c { t } else { region + t - c } as u8;
    }
    let pack = expand(&pack, 2, 0);
    let (full, extra) = (r / q, !r.is_multiple_of(q));
    let base = x.as_ptr().cast::<u8>();
    let out = y.as_mut_ptr().cast::<u8>();
    for u in 0..pairs {
        let block = 2 * u * size;
        // SAFETY (the loads): each half lies in `x` (the last pair's checked above).
        let raw = unsafe { window::<W, SPLIT>(base.add(block * W), size * W, 0) };
        let mut nan = magnitude::<W, KIND>(raw);
        let mut m = pass::<D, W, KIND>(raw);
        for k in 1..full + usize::from(extra) {
            let row = if k < full { k * q } else { r - q };
            let raw = unsafe { window::<W, SPLIT>(base.add((block + row * c) * W), size * W, 0) };
            nan = widest::<W, KIND>(nan, magnitude::<W, KIND>(raw));
            m = best::<D, W, KIND>(m, pass::<D, W, KIND>(raw));
        }
        if KIND >= HALF && has_nan::<W>(nan, inf) {
            let blocks = x.get(block..block + 2 * size).unwrap_or_default();
            let outs = y.get_mut(2 * u * c..2 * (u + 1) * c).unwrap_or_default();
            for (xb, yb) in blocks.chunks_exact(size).zip(outs.chunks_exact_mut(c)) {
                exact::<T, D>(xb, yb);
            }
            continue;
        }
        // SAFETY (the stores): `y` holds the pair's `2 · c` lanes.
        if W == 1 {
            let (mut a, mut b) = widen::<KIND>(m);
            for i in idx.iter().take(steps) {
                a = best16::<D, KIND>(a, _mm512_permutexvar_epi16(*i, a));
                b = best16::<D, KIND>(b, _mm512_permutexvar_epi16(*i, b));
            }
            let bytes = _mm512_cvtepi16_epi8(_mm512_permutex2var_epi16(a, pack, b));
            unsafe {
                _mm256_mask_storeu_epi8(out.add(2 * u * c).cast(), (1u32 << (2 * c)) - 1, bytes)
            };
        } else {
            for i in idx.iter().take(steps) {
                m = best::<D, W, KIND>(m, _mm512_permutexvar_epi16(*i, m));
            }
            let e = _mm512_permutexvar_epi16(pack, m);
            let e = if KIND == HALF {
                unkey::<D, W, KIND>(e)
            } else {
                e
            };
            unsafe { store_lanes::<W>(out.add(2 * u * c * W), (1u64 << (2 * c)) - 1, e) };
        }
    }
    2 * pairs
}
