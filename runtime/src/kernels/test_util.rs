//! Test helpers the kernel families' tests share: a deterministic generator, test values and
//! the definition of an arg-reduction.

extern crate std;

use crate::{Direction, Element};

/// A tiny deterministic generator for test data.
pub(super) struct Lcg(pub(super) u64);
impl Lcg {
    pub(super) fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

/// The obvious definition: first (or last) index of the extreme, NaN winning.
pub(super) fn naive_arg<T: Element, D: Direction>(x: &[T], last: bool) -> usize {
    let nan: std::vec::Vec<usize> = (0..x.len()).filter(|&i| x[i].is_nan()).collect();
    if !nan.is_empty() {
        return if last { nan[nan.len() - 1] } else { nan[0] };
    }
    let mut best = 0;
    for i in 1..x.len() {
        let better = D::better(x[i], x[best]);
        let tie = !better && !D::better(x[best], x[i]);
        if better || (last && tie) {
            best = i;
        }
    }
    best
}

pub(super) fn f32_pool(g: &mut Lcg, nan: bool) -> f32 {
    match g.next() % 9 {
        0 if nan => f32::NAN,
        1 => f32::INFINITY,
        2 => f32::NEG_INFINITY,
        3 => -0.0,
        4 => 0.0,
        k => k as f32 - 6.0,
    }
}
