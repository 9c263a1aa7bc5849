//! ArgMax and ArgMin of a row as a narrower float type would see it, without converting it: a
//! `Cast` to FLOAT16, BFLOAT16 or FLOAT folded into the read (`x.half().argmax()`).
//!
//! Rounding to nearest (ties to even) is monotone, so the extreme of the rounded row is the
//! rounded extreme of the row, and the elements that round to it are exactly those at or beyond
//! a threshold: the lower end of the extreme's rounding interval (for a maximum; the upper end
//! for a minimum). The row is reduced in its own type by [`arg_row`], the threshold computed
//! once, and the answer is the first (last) element past it, found by a short search that ends
//! at the extreme. A NaN stays a NaN through the cast, so a row with one has the same answer as
//! without the cast. The results are those of the runtime's `cast` followed by [`arg_row`] over
//! the narrow type.

use super::arg_row::arg_row;
use crate::{bf16, f16, Direction, Element};

/// A float type whose values a `Cast` rounds into the narrower float type `U`.
pub trait Narrowing<U: Element>: Element {
    /// The value `Cast` gives: the nearest `U`, ties to even, overflow to ±inf.
    #[doc(hidden)]
    fn narrow(self) -> U;
    /// The smallest value of this type that narrows to `m` (a number of `U`, not NaN; -inf for
    /// -inf).
    #[doc(hidden)]
    fn lower_bound(m: U) -> Self;
    /// The largest value of this type that narrows to `m` (+inf for +inf).
    #[doc(hidden)]
    fn upper_bound(m: U) -> Self;
    /// A value past which (below it for a maximum `v`, above it for a minimum) nothing narrows
    /// to what `v` narrows to, found without converting anything: `v` moved by twice the widest
    /// spacing of `U` near it and more. `None` when `v` is beyond `U`'s finite range.
    #[doc(hidden)]
    fn near(v: Self, max: bool) -> Option<Self>;
}

/// The lower end of the rounding interval of `m`: halfway from the next smaller `U` (or, below
/// the most negative finite `U`, halfway to where the next one would be), a value `T` holds
/// exactly. The halfway point itself rounds to whichever neighbour is even, so it belongs to
/// `m` when `m` is even and the interval starts just above it otherwise. No conversion but the
/// widening of `m` and its neighbour. Written once for the three pairs, whose types only differ
/// in name.
macro_rules! narrowing {
    ($($t:ty => $u:ty, $below:expr, $even:expr, $rel:expr, $abs:expr, $finite:expr;)*) => {$(
        impl Narrowing<$u> for $t {
            #[inline(always)]
            fn near(v: $t, max: bool) -> Option<$t> {
                const FINITE: $t = $finite;
                // The spacing of `U` is at most |v| 2^-(its mantissa bits) above the subnormals
                // and the subnormal step below; each doubled and more, for this sum's rounding.
                let reach = v.abs() * $rel + $abs;
                (v.abs() <= FINITE).then_some(if max { v - reach } else { v + reach })
            }

            #[inline(always)]
            fn narrow(self) -> $u {
                <$u as crate::CastElement>::from_num(crate::CastElement::to_num(self))
            }

            #[inline]
            fn lower_bound(m: $u) -> $t {
                let wide = |u: $u| -> $t {
                    <$t as crate::CastElement>::from_num(crate::CastElement::to_num(u))
                };
                let mt = wide(m);
                if mt == <$t>::NEG_INFINITY {
                    return <$t>::NEG_INFINITY;
                }
                let below: fn($u) -> $u = $below;
                let even: fn($u) -> bool = $even;
                let halfway = if mt == <$t>::INFINITY {
                    let top = wide(<$u>::MAX);
                    top + (top - wide(below(<$u>::MAX))) / 2.0
                } else {
                    let p = wide(below(m));
                    if p == <$t>::NEG_INFINITY {
                        let top = wide(<$u>::MAX);
                        mt - (top - wide(below(<$u>::MAX))) / 2.0
                    } else {
                        p + (mt - p) / 2.0
                    }
                };
                if even(m) {
                    halfway
                } else {
                    halfway.next_up()
                }
            }

            #[inline]
            fn upper_bound(m: $u) -> $t {
                // Rounding is symmetric about zero.
                -<$t as Narrowing<$u>>::lower_bound(-m)
            }
        }
    )*};
}

/// The next smaller f16 or bf16 (from -0 and +0 alike, the smallest negative subnormal).
fn below_half(bits: u16) -> u16 {
    if bits & 0x7fff == 0 {
        0x8001
    } else if bits & 0x8000 == 0 {
        bits - 1
    } else {
        bits + 1
    }
}

narrowing! {
    f32 => f16, |u| f16::from_bits(below_half(u.to_bits())), |u| u.to_bits() & 1 == 0,
        1.0 / 256.0, 1.0 / 8_388_608.0, 65504.0;
    f32 => bf16, |u| bf16::from_bits(below_half(u.to_bits())), |u| u.to_bits() & 1 == 0,
        1.0 / 32.0, 1e-38, 3.389_531_4e38;
    f64 => f32, f32::next_down, |u| u.to_bits() & 1 == 0,
        1.0 / 2_097_152.0, 1e-44, 3.402_823_466_385_288_6e38;
}

/// Index of the extreme of `x` as cast to `U`: the same as `cast` into a row of `U` and then
/// [`arg_row`], with no conversion per element.
///
/// ```
/// use onnx_aot::{f16, kernels::arg_row_rounded, Max};
/// // 1.0 and 1.0001 are one float16 apart from nothing: both become 1.0, so the first wins.
/// let x = [0.5f32, 1.0, 1.0001, -3.0];
/// assert_eq!(onnx_aot::kernels::arg_row::<f32, Max, false>(&x), 2);
/// assert_eq!(arg_row_rounded::<f32, f16, Max, false>(&x), 1);
/// ```
#[inline]
pub fn arg_row_rounded<T: Narrowing<U>, U: Element, D: Direction, const LAST: bool>(
    x: &[T],
) -> usize {
    let j = arg_row::<T, D, LAST>(x);
    let Some(&v) = x.get(j) else {
        return j;
    };
    if v.is_nan() {
        // A NaN narrows to a NaN, which wins in the narrow row too; no NaN comes before it.
        return j;
    }
    let max = D::better(1i8, 0i8);
    // The row holds no NaN: every element is on the inner side of `v`. Most rows hold nothing
    // near `v` besides `v`: a cheap bound short of the exact one settles them.
    if let Some(near) = T::near(v, max) {
        let close = |e: T| if max { !e.lt(near) } else { !e.gt(near) };
        let others = if LAST { x.get(j + 1..) } else { x.get(..j) };
        if !any_reaching(others.unwrap_or(&[]), close) {
            return j;
        }
    }
    let m = v.narrow();
    let bound = if max {
        T::lower_bound(m)
    } else {
        T::upper_bound(m)
    };
    let reaches = |e: T| if max { !e.lt(bound) } else { !e.gt(bound) };
    if LAST {
        j + last_reaching(x.get(j..).unwrap_or(&[]), reaches)
    } else {
        first_reaching(x.get(..=j).unwrap_or(&[]), reaches)
    }
}

/// Chunk of the searches: a chunk is tested as a whole (a loop without an exit, which
/// vectorizes), and only the chunk that holds the answer element by element.
const CHUNK: usize = 32;

/// Whether any element `reaches`.
#[inline(always)]
fn any_reaching<T: Copy>(x: &[T], reaches: impl Fn(T) -> bool) -> bool {
    x.chunks(CHUNK)
        .any(|chunk| chunk.iter().fold(false, |any, &e| any | reaches(e)))
}

/// The first index whose element `reaches`; the last index if none does (the caller knows the
/// last one does).
#[inline(always)]
fn first_reaching<T: Copy>(x: &[T], reaches: impl Fn(T) -> bool) -> usize {
    let mut base = 0;
    for chunk in x.chunks(CHUNK) {
        if chunk.iter().fold(false, |any, &e| any | reaches(e)) {
            if let Some(i) = chunk.iter().position(|&e| reaches(e)) {
                return base + i;
            }
        }
        base += chunk.len();
    }
    x.len().saturating_sub(1)
}

/// The last index whose element `reaches`; 0 if none does (the caller knows the first does).
#[inline(always)]
fn last_reaching<T: Copy>(x: &[T], reaches: impl Fn(T) -> bool) -> usize {
    let mut end = x.len();
    for chunk in x.rchunks(CHUNK) {
        end -= chunk.len();
        if chunk.iter().fold(false, |any, &e| any | reaches(e)) {
            if let Some(i) = chunk.iter().rposition(|&e| reaches(e)) {
                return end + i;
            }
        }
    }
    0
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use super::*;
    use crate::kernels::test_util::{naive_arg, Lcg};
    use crate::{Max, Min};

    /// The bounds of every given narrow value are exact: `lower_bound(m)` narrows to `m` and
    /// the value just below it does not; likewise `upper_bound` and the value just above.
    macro_rules! bounds_are_exact {
        ($t:ty => $u:ty, $values:expr) => {
            for m in $values.filter(|m: &$u| !m.is_nan()) {
                let lo = <$t as Narrowing<$u>>::lower_bound(m);
                let hi = <$t as Narrowing<$u>>::upper_bound(m);
                assert!(
                    Narrowing::<$u>::narrow(lo) == m && Narrowing::<$u>::narrow(hi) == m,
                    "{m:?}: {lo} {hi}"
                );
                assert!(lo <= hi, "{m:?}: {lo} <= {hi}");
                if lo.is_finite() {
                    assert!(
                        Narrowing::<$u>::narrow(lo.next_down()) != m,
                        "{m:?} below {lo}"
                    );
                }
                if hi.is_finite() {
                    assert!(
                        Narrowing::<$u>::narrow(hi.next_up()) != m,
                        "{m:?} above {hi}"
                    );
                }
                // The cheap bound from any value that narrows to `m` falls short of the exact
                // bounds (checked from the far end of the interval, the worst case).
                if let Some(near) = <$t as Narrowing<$u>>::near(hi, true) {
                    assert!(near <= lo, "{m:?}: near({hi}) = {near} > {lo}");
                }
                if let Some(near) = <$t as Narrowing<$u>>::near(lo, false) {
                    assert!(near >= hi, "{m:?}: near({lo}) = {near} < {hi}");
                }
            }
        };
    }

    #[test]
    fn bounds_of_every_f16_and_bf16() {
        bounds_are_exact!(f32 => f16, (0..=u16::MAX).map(f16::from_bits));
        bounds_are_exact!(f32 => bf16, (0..=u16::MAX).map(bf16::from_bits));
    }

    #[test]
    fn bounds_of_f32_samples() {
        let mut g = Lcg(7);
        let mut samples: Vec<f32> = (0..20_000)
            .map(|_| f32::from_bits(((g.next() << 1) ^ g.next()) as u32))
            .collect();
        samples.extend([
            0.0,
            -0.0,
            f32::MIN_POSITIVE,
            f32::from_bits(1),
            f32::from_bits(0x8000_0001),
            f32::MAX,
            f32::MIN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            1.0,
            -1.0,
        ]);
        bounds_are_exact!(f64 => f32, samples.into_iter());
    }

    /// The definition: cast every element, then the plain arg-reduction of the narrow row.
    fn reference<T: Narrowing<U>, U: Element, D: Direction>(x: &[T], last: bool) -> usize {
        let narrow: Vec<U> = x.iter().map(|&v| v.narrow()).collect();
        naive_arg::<U, D>(&narrow, last)
    }

    fn rows_match<T: Narrowing<U>, U: Element>(value: impl Fn(&mut Lcg) -> T) {
        let mut g = Lcg(11);
        for len in (1..70).chain([255, 256, 257, 1023, 1024, 1025, 3000]) {
            for _ in 0..6 {
                let x: Vec<T> = (0..len).map(|_| value(&mut g)).collect();
                macro_rules! check {
                    ($d:ty, $last:literal) => {
                        assert_eq!(
                            arg_row_rounded::<T, U, $d, $last>(&x),
                            reference::<T, U, $d>(&x, $last),
                            "{} last {} {x:?}",
                            stringify!($d),
                            $last
                        );
                    };
                }
                check!(Max, false);
                check!(Max, true);
                check!(Min, false);
                check!(Min, true);
            }
        }
    }

    /// Values that crowd into a few narrow values: neighbours of 1.0, of a rounding tie, of
    /// the largest finite narrow value, of zero, with a NaN now and then.
    fn crowded_f32(g: &mut Lcg, top: f32) -> f32 {
        let near = [
            1.0f32,
            -1.0,
            1.0 + 1.0 / 2048.0,
            top,
            -top,
            0.0,
            65520.0,
            -65520.0,
        ];
        let base = near[(g.next() % near.len() as u64) as usize];
        match g.next() % 40 {
            0 => f32::NAN,
            1 => f32::INFINITY,
            2 => f32::NEG_INFINITY,
            _ => {
                let steps = (g.next() % 9) as i32 - 4;
                let mut v = base;
                for _ in 0..steps.unsigned_abs() {
                    v = if steps > 0 {
                        v.next_up()
                    } else {
                        v.next_down()
                    };
                }
                v
            }
        }
    }

    #[test]
    fn rows_match_cast_then_argmax() {
        rows_match::<f32, f16>(|g| crowded_f32(g, 65504.0));
        rows_match::<f32, bf16>(|g| crowded_f32(g, bf16::MAX.to_f32()));
        rows_match::<f64, f32>(|g| {
            let v = f64::from(crowded_f32(g, f32::MAX));
            // Between neighbouring f32 values too.
            if g.next() % 2 == 0 {
                v + v.abs() * f64::EPSILON * (g.next() % 5) as f64
            } else {
                v
            }
        });
    }
}
