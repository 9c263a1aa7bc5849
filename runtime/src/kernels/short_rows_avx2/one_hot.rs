//! The zeros and ones of Hardmax over short contiguous rows, from each row's position: every row
//! written whole by one or two 32-byte stores of a window into a template (as many zero bytes,
//! the element 1, as many zero bytes again), the window placed so that the 1 lands on the
//! position. A row's stores run past its end into the rows after it, which are written next;
//! the last rows of the slice, whose stores would leave it, go element by element. Against a
//! fill of the tile (`rep stosb`) and then a store a row, Hardmax of f16 and bf16 rows of 12 and
//! 16 over 2 MiB took 0.89-0.90x the time (221 -> 200 us for rows of 12), of 20 0.94x; rows of
//! 2 and 3 took 1.05-1.09x (a store every 4 or 6 bytes), so rows under 8 bytes keep the fill.

use core::arch::x86_64::{_mm256_loadu_si256, _mm256_storeu_si256};
use core::mem::size_of;

use crate::Element;

/// The longest rows written by windows, in bytes (two stores).
pub(super) const MAX_BYTES: usize = 64;

/// Rows of `n` elements of `y`, as many as `at` holds positions for and `y` holds: 1 at
/// `at[r]` in row `r` and 0 elsewhere (a row whose position is `n` or more all 0).
///
/// # Safety
/// The CPU has AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn one_hot<T: Element>(y: &mut [T], at: &[u32], n: usize) {
    let size = size_of::<T>();
    let row = n * size;
    if n == 0 || row > MAX_BYTES {
        return;
    }
    // `span` zero bytes, the 1, `span` zero bytes (and a few more).
    let span = 32 * row.div_ceil(32);
    let mut template = [0u8; 2 * MAX_BYTES + 8];
    if let Some(one) = template.get_mut(span..span + size) {
        T::ONE.write_le(one);
    }
    let rows = (y.len() / n).min(at.len());
    let bytes = size_of_val(y);
    let (t, out) = (template.as_ptr(), y.as_mut_ptr().cast::<u8>());
    let mut r = 0;
    while r < rows && r * row + span <= bytes {
        let a = at.get(r).map_or(n, |&a| a as usize);
        // The window's start: the 1 at byte `a · size` of the row, or none (all zeros).
        let from = if a < n { span - a * size } else { 0 };
        // SAFETY: `from + span <= 2 · span` bytes of the template are read; the row's `span`
        // bytes from its start lie inside `y` (the loop's bound).
        unsafe {
            _mm256_storeu_si256(
                out.add(r * row).cast(),
                _mm256_loadu_si256(t.add(from).cast()),
            );
            if span > 32 {
                let second = _mm256_loadu_si256(t.add(from + 32).cast());
                _mm256_storeu_si256(out.add(r * row + 32).cast(), second);
            }
        }
        r += 1;
    }
    for (r, &a) in at.iter().enumerate().take(rows).skip(r) {
        if let Some(y) = y.get_mut(r * n..(r + 1) * n) {
            super::super::fill(y, T::ZERO);
            if let Some(o) = y.get_mut(a as usize) {
                *o = T::ONE;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::kernels::test_util::Lcg;
    use crate::{bf16, f16};
    use std::vec::Vec;

    /// Every row length the windows take, 0 to 40 rows, positions in the rows
    /// and past them: each row against the definition, and the elements after the slice (its
    /// caller's next rows) untouched.
    fn check<T: Element + PartialEq + core::fmt::Debug>(mark: T) {
        let mut g = Lcg(7);
        for n in 1..=MAX_BYTES / size_of::<T>() {
            for rows in 0..40 {
                let at: Vec<u32> = (0..rows)
                    .map(|_| (g.next() % (n as u64 + 2)) as u32)
                    .collect();
                let mut buf = std::vec![mark; rows * n + 40];
                // SAFETY: this CPU has AVX2 (checked below).
                unsafe { one_hot(&mut buf[..rows * n], &at, n) };
                let (y, after) = buf.split_at(rows * n);
                for (r, (row, &a)) in y.chunks_exact(n).zip(&at).enumerate() {
                    for (j, &e) in row.iter().enumerate() {
                        let want = if j == a as usize { T::ONE } else { T::ZERO };
                        assert_eq!(e, want, "n {n} rows {rows} row {r} element {j}");
                    }
                }
                let kept = after.iter().all(|&e| e == mark);
                assert!(kept, "n {n} rows {rows}: written past the slice");
            }
        }
    }

    #[test]
    fn rows_one_hot() {
        if !super::super::available() {
            return;
        }
        check(f16::from_f32(7.0));
        check(bf16::from_f32(-3.0));
        check(9u8);
        check(-1i32);
    }
}
