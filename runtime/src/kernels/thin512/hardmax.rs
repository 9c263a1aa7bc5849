//! Hardmax of [`super`]'s blocks: blocks of a few rows of floats by [`super::shifted`], the
//! others by the rows of a tile of blocks (found by [`super::arg_in`]), then the tile's zeros
//! and ones.

use core::arch::x86_64::{
    _mm512_castsi128_si512, _mm512_castsi256_si512, _mm512_cvtepi64_epi16, _mm512_cvtepi64_epi32,
    _mm512_loadu_si512, _mm512_maskz_loadu_epi64, _mm512_setzero_si512,
};

use super::lanes::{equal_lanes, mov, splat, store_lanes};
use super::reduce::permute;
use super::{arg_in, shifted, Plan, FLOAT, HALF};
use crate::Element;

/// [`super::hardmax_blocks`] for elements of `W` bytes of kind `KIND`: blocks of a few rows
/// of floats by [`shifted`] where it takes them, the others (and those after its last group)
/// by [`hardmax_in`].
///
/// # Safety
/// As for [`super::arg_in`].
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) unsafe fn hardmax_all<T: Element, const W: usize, const KIND: u8>(
    x: &[T],
    y: &mut [T],
    r: usize,
    c: usize,
    inf: u64,
) -> usize {
    crate::kernels::shared::align_frame();
    let done = if KIND == HALF || KIND == FLOAT {
        // SAFETY: as the caller's.
        unsafe { shifted::hardmax_shifted::<T, W, KIND>(x, y, r, c, inf) }
    } else {
        0
    };
    let size = r * c;
    let (Some(x), Some(y)) = (x.get(done * size..), y.get_mut(done * size..)) else {
        return done;
    };
    // SAFETY: as the caller's.
    done + unsafe { hardmax_in::<T, W, KIND>(x, y, r, c, inf) }
}

/// [`super::hardmax_blocks`] for elements of `W` bytes of kind `KIND`: the rows of a tile of blocks
/// found by [`super::arg_in`], then the tile's zeros and ones.
///
/// # Safety
/// As for [`super::arg_in`].
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) unsafe fn hardmax_in<T: Element, const W: usize, const KIND: u8>(
    x: &[T],
    y: &mut [T],
    r: usize,
    c: usize,
    inf: u64,
) -> usize {
    let size = r * c;
    let n = x.len() / size;
    // Several blocks a window where they fit, else two in split windows where those take them.
    let packed = Plan::new(W, r, c, true);
    let one = Plan::new(W, r, c, false);
    let first = if packed.p > 1 {
        Some(packed)
    } else {
        Plan::split(W, r, c)
    };
    // The zeros and ones by vectors where a block is at most `CHUNKS` of them.
    let vectored = W >= 2 && c <= 8 && size * W <= 64 * CHUNKS;
    let mut rows = [0i64; 512];
    let p = first.as_ref().map_or(1, |plan| plan.p);
    let tile = rows.len() / c / p * p;
    let mut done = 0;
    while done < n {
        let count = tile.min(n - done);
        let (Some(yt), Some(at)) = (
            y.get_mut(done * size..(done + count) * size),
            rows.get_mut(..count * c),
        ) else {
            break;
        };
        // Whole packed (or split) windows, then (the last tile) the blocks after them one a
        // window. A split window may read into the next tile's rows: the rest of `x` goes along
        // (the tile's blocks are as many as `at` holds).
        let mut got = 0;
        for plan in first.iter().chain([&one]) {
            let (Some(xp), Some(ap)) = (x.get((done + got) * size..), at.get_mut(got * c..)) else {
                break;
            };
            // SAFETY: as the caller's.
            got += unsafe {
                arg_in::<T, crate::Max, false, W, KIND>(plan, xp, ap, &mut [], r, c, inf)
            };
        }
        if vectored {
            if let (Some(ys), Some(rs)) = (yt.get_mut(..got * size), at.get(..got * c)) {
                // SAFETY: as the caller's; a block is one vector, its rows one.
                unsafe { one_hot_windows::<T, W>(ys, rs, r, c) };
            }
        } else if let Some(zeros) = yt.get_mut(..got * size) {
            zeros.fill(T::ZERO);
        }
        let scalar = if vectored { 0 } else { got };
        for (yb, rb) in yt
            .chunks_exact_mut(size)
            .zip(at.chunks_exact(c))
            .take(scalar)
        {
            for (j, &k) in rb.iter().enumerate() {
                if let Some(o) = yb.get_mut(k as usize * c + j) {
                    *o = T::ONE;
                }
            }
        }
        done += got;
        if got < count {
            break;
        }
    }
    done
}

/// The most vectors a block spans for [`one_hot_windows`].
const CHUNKS: usize = 4;

/// The zeros and ones of the blocks of `r` rows of `c` lanes in `y` from each lane's row in
/// `rows` (`c` a block): each of a block's vectors one masked store, its lanes set where their
/// row is their lane's.
///
/// # Safety
/// The CPU has AVX-512 F, BW, VL and DQ; `W` is 2, 4 or 8 and `T`'s width; a block (`r · c`
/// lanes) spans at most [`CHUNKS`] vectors and `c` is at most 8.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn one_hot_windows<T: Element, const W: usize>(
    y: &mut [T],
    rows: &[i64],
    r: usize,
    c: usize,
) {
    let (size, per) = (r * c, 64 / W);
    let chunks = size.div_ceil(per);
    // The lanes of the last vector of a block.
    let tail = size - (chunks - 1) * per;
    let used = if tail >= 64 {
        u64::MAX
    } else {
        (1u64 << tail) - 1
    };
    // Each lane's row and lane in its block, counted, a vector at a time.
    let (mut row_of, mut lane_of) = ([[0u8; 64]; CHUNKS], [[0u8; 64]; CHUNKS]);
    let (mut k, mut j) = (0, 0);
    let lanes_of = row_of.iter_mut().zip(lane_of.iter_mut());
    for (rw, lw) in lanes_of
        .flat_map(|(rv, lv)| rv.chunks_exact_mut(W).zip(lv.chunks_exact_mut(W)))
        .take(size)
    {
        rw[0] = k as u8;
        lw[0] = j as u8;
        j += 1;
        if j == c {
            j = 0;
            k += 1;
        }
    }
    let mut one = [0u8; 8];
    T::ONE.write_le(&mut one[..W]);
    // SAFETY (the loads): 64-byte arrays.
    let (row_of, lane_of) = unsafe {
        (
            row_of.map(|v| _mm512_loadu_si512(v.as_ptr().cast())),
            lane_of.map(|v| _mm512_loadu_si512(v.as_ptr().cast())),
        )
    };
    let one = splat::<W>(u64::from_le_bytes(one));
    let lanes = ((1u32 << c) - 1) as u8;
    for (yb, rb) in y.chunks_exact_mut(size).zip(rows.chunks_exact(c)) {
        // SAFETY: `rb` holds `c` rows, `yb` `size` lanes: `chunks` vectors, the last `tail`.
        unsafe {
            let r64 = _mm512_maskz_loadu_epi64(lanes, rb.as_ptr());
            let rw = match W {
                2 => _mm512_castsi128_si512(_mm512_cvtepi64_epi16(r64)),
                4 => _mm512_castsi256_si512(_mm512_cvtepi64_epi32(r64)),
                _ => r64,
            };
            let to = yb.as_mut_ptr().cast::<u8>();
            for (i, (&row, &lane)) in row_of.iter().zip(&lane_of).enumerate().take(chunks) {
                let hot = equal_lanes::<W>(permute::<W>(lane, rw), row);
                // Lanes past the block are not stored.
                let mask = if i + 1 == chunks { used } else { u64::MAX };
                store_lanes::<W>(
                    to.add(i * 64),
                    mask,
                    mov::<W>(_mm512_setzero_si512(), hot, one),
                );
            }
        }
    }
}
