//! The outputs a Hardmax writes from the f32 kernels of eight rows at a time
//! ([`super::hard_eights`], and [`super::columns`] with `HARD`): each group's eight rows of
//! zeros and ones, written as soon as the group's positions are known.
//!
//! Written in the kernel's loop, the stores of a group run beside the next group's compares;
//! written after a tile of positions (64 rows), they ran as a store-bound pass of their own.
//! The zeros are stored after the group's positions are found, as whole vectors, and the ones
//! after them (stored first, or with each row's position, they were 1.4x slower; so were zeros
//! the optimizer turned into a call of `memset` per group).

use core::arch::x86_64::{
    __m256i, _mm256_add_epi32, _mm256_and_ps, _mm256_castsi256_ps, _mm256_cmpeq_epi32,
    _mm256_permutevar8x32_epi32, _mm256_set1_ps,
};

use super::avx2::{load8, store8};
use crate::kernels::hardmax::hardmax_row;

/// Where a Hardmax's outputs go, eight rows of `n` at a time (nothing without `HARD`).
pub(in crate::kernels) struct Ones<'a, const HARD: bool> {
    y: &'a mut [f32],
    n: usize,
    /// Zeros, hidden from the optimizer: it turned the stores of a group's zeros into a call
    /// of `memset` per group.
    zero: [f32; 8],
}

impl Ones<'_, false> {
    /// No outputs: the kernel's arg-reduction alone.
    pub(in crate::kernels) fn none() -> Self {
        Ones {
            y: &mut [],
            n: 0,
            zero: [0.0; 8],
        }
    }
}

impl<'a> Ones<'a, true> {
    /// The outputs `y` of rows of `n`, from the first.
    pub(in crate::kernels) fn new(y: &'a mut [f32], n: usize) -> Self {
        Ones {
            y,
            n,
            zero: core::hint::black_box([0.0; 8]),
        }
    }
}

impl<const HARD: bool> Ones<'_, HARD> {
    /// The length of the rows whose outputs these are.
    pub(in crate::kernels) fn n(&self) -> usize {
        self.n
    }

    /// How many rows' outputs `y` holds (with `HARD`; any number otherwise): the kernel takes
    /// no more rows than that.
    pub(in crate::kernels) fn rows(&self) -> usize {
        if HARD {
            self.y.len().checked_div(self.n).unwrap_or(0)
        } else {
            usize::MAX
        }
    }

    /// The outputs of group `q` (rows `8q` to `8q + 7`): zeros, then a one at each row's
    /// position in `at` (less than `n`; none for a position past it).
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(in crate::kernels) fn put8(&mut self, q: usize, at: &[usize; 8]) {
        if !HARD {
            return;
        }
        let n = self.n;
        let Some(out) = self.y.get_mut(q * 8 * n..(q + 1) * 8 * n) else {
            return;
        };
        let zero = load8(&self.zero);
        // Eight rows: a whole number of eights.
        let (eights, _) = out.as_chunks_mut::<8>();
        for e in eights {
            store8(e, zero);
        }
        let out = out.as_mut_ptr();
        for (r, &p) in at.iter().enumerate() {
            // (Checked stores, `get_mut(r * n + p)`, made Hardmax of rows of 20 1.3x slower.)
            if p < n {
                // SAFETY: `r < 8` and `p < n`: within the group's `8n` outputs.
                unsafe { *out.add(r * n + p) = 1.0 };
            }
        }
    }

    /// The outputs of group `q` of rows of `N` (`N` the `n` given to [`Ones::new`]), each row's
    /// position a lane of `at`: every vector whole, its one set by a compare (written as zeros
    /// and then ones, rows this short filled the store queue with a store per element or two,
    /// 1.4x slower than a tile's outputs written after its positions).
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(in crate::kernels) fn columns<const N: usize>(&mut self, q: usize, at: __m256i) {
        if !HARD || self.n != N {
            return;
        }
        let Some(out) = self.y.get_mut(q * 8 * N..(q + 1) * 8 * N) else {
            return;
        };
        // Each row's one as an index into the group's outputs.
        let flat = _mm256_add_epi32(at, Layout::<N>::STARTS);
        let one = _mm256_set1_ps(1.0);
        let (eights, _) = out.as_chunks_mut::<8>();
        for (e, &(rows, lanes)) in eights.iter_mut().zip(&Layout::<N>::LANES) {
            // Each lane's row's one, against the lane's own index.
            let ones = _mm256_permutevar8x32_epi32(flat, rows);
            let hit = _mm256_castsi256_ps(_mm256_cmpeq_epi32(ones, lanes));
            store8(e, _mm256_and_ps(hit, one));
        }
    }

    /// The outputs of group `q` by the exact kernel, one row of `rows` at a time (the kernels'
    /// path for eight rows with a NaN).
    #[inline(always)]
    pub(in crate::kernels) fn exact<'r>(
        &mut self,
        q: usize,
        rows: impl Iterator<Item = &'r [f32]>,
    ) {
        if !HARD {
            return;
        }
        let n = self.n;
        if let Some(out) = self.y.get_mut(q * 8 * n..(q + 1) * 8 * n) {
            for (row, out) in rows.zip(out.chunks_exact_mut(n)) {
                hardmax_row(row, out);
            }
        }
    }
}

/// Where the outputs of eight rows of `N` lie in the `N` vectors that hold them.
struct Layout<const N: usize>;

impl<const N: usize> Layout<N> {
    /// The index of each row's first output: `N` times the lane.
    const STARTS: __m256i = lanes(0, N, 1);

    /// For the output vector `k`: the row of each lane (for a permute of the rows' indices),
    /// and the lane's own index `8k + l`.
    const LANES: [(__m256i, __m256i); N] = {
        let mut v = [(lanes(0, 0, 1), lanes(0, 0, 1)); N];
        let mut k = 0;
        while k < N {
            v[k] = (lanes(8 * k, 1, N), lanes(8 * k, 1, 1));
            k += 1;
        }
        v
    };
}

/// The vector whose lane `l` is `(first + l * step) / div`.
#[allow(clippy::cast_possible_truncation, clippy::cast_possible_wrap)]
const fn lanes(first: usize, step: usize, div: usize) -> __m256i {
    let mut v = [0i32; 8];
    let mut l = 0;
    while l < 8 {
        v[l] = ((first + l * step) / div) as i32;
        l += 1;
    }
    // SAFETY: eight `i32`s are the 32 bytes of a vector.
    unsafe { core::mem::transmute::<[i32; 8], __m256i>(v) }
}
