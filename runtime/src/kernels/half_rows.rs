//! Contiguous rows of f16 and bf16 compared in their own width: each part of a row is turned
//! into 16-bit order keys on the stack (one conversion per element, NaN given the key that wins
//! for the direction), and the integer kernels run on the keys.

use super::arg_row::arg_row;
use super::reduce::fold;
use crate::{DType, Direction, Element, Max};

/// Elements per part of a row converted at once (2 KiB of keys on the stack).
const PART: usize = 1024;

/// Whether `T` is compared by 16-bit keys here (f16 and bf16, unless the `small-code` feature
/// asks for the compact kernels).
#[inline(always)]
pub(super) fn keyed<T: Element>() -> bool {
    matches!(T::DTYPE, DType::F16 | DType::BF16) && !cfg!(feature = "small-code")
}

/// The key a NaN gets: the one that wins for the direction (no number's key reaches it).
#[inline(always)]
fn nan_key<D: Direction>() -> i16 {
    if D::better(1i16, 0i16) {
        i16::MAX
    } else {
        i16::MIN
    }
}

/// [`arg_row`] of an f16 or bf16 row by keys: the same index (a NaN wins, first or last).
#[inline]
pub(super) fn arg_row_keyed<T: Element, D: Direction, const LAST: bool>(x: &[T]) -> usize {
    let nan = nan_key::<D>();
    let mut keys = [0i16; PART];
    let mut best: Option<(i16, usize)> = None;
    for (p, part) in x.chunks(PART).enumerate() {
        let Some(k) = keys.get_mut(..part.len()) else {
            break;
        };
        for (o, &v) in k.iter_mut().zip(part) {
            *o = v.key16(nan);
        }
        let i = arg_row::<i16, D, LAST>(k);
        let Some(&kv) = k.get(i) else {
            continue;
        };
        let take = match best {
            None => true,
            Some((b, _)) if LAST => !D::better(b, kv),
            Some((b, _)) => D::better(kv, b),
        };
        if take {
            best = Some((kv, p * PART + i));
        }
    }
    best.map_or(0, |(_, i)| i)
}

/// [`fold`] of an f16 or bf16 row by keys: the same result (a NaN if the row or `acc` holds
/// one; the sign of a zero result may differ, which the contract leaves open).
#[inline]
pub(super) fn fold_keyed<T: Element, D: Direction>(acc: T, row: &[T]) -> T {
    if acc.is_nan() || row.is_empty() {
        return acc;
    }
    let nan = nan_key::<D>();
    let mut keys = [0i16; PART];
    let mut k_acc = acc.key16(nan);
    for part in row.chunks(PART) {
        let Some(k) = keys.get_mut(..part.len()) else {
            break;
        };
        for (o, &v) in k.iter_mut().zip(part) {
            *o = v.key16(nan);
        }
        k_acc = fold::<i16, D>(k_acc, k);
        if k_acc == nan {
            // The first NaN of the row.
            return row.iter().copied().find(|v| v.is_nan()).unwrap_or(acc);
        }
    }
    T::from_key16(k_acc)
}

/// Hardmax of an f16 or bf16 row by keys: zeros, then a 1 at the first maximum (or NaN).
#[inline]
pub(super) fn hardmax_row_keyed<T: Element>(x: &[T], y: &mut [T]) {
    super::shared::fill(y, T::ZERO);
    let at = arg_row_keyed::<T, Max, false>(x);
    if let Some(o) = y.get_mut(at) {
        *o = T::ONE;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{bf16, f16, Min};

    #[test]
    fn keys_round_trip_and_keep_the_order() {
        for bits in 0..=u16::MAX {
            for (v, back) in [
                (
                    f16::from_bits(bits).to_f32(),
                    f16::from_key16(f16::from_bits(bits).key16(0)).to_f32(),
                ),
                (
                    bf16::from_bits(bits).to_f32(),
                    bf16::from_key16(bf16::from_bits(bits).key16(0)).to_f32(),
                ),
            ] {
                if !v.is_nan() {
                    // Every number comes back (a -0 as +0, which compares equal).
                    assert_eq!(v, back, "bits {bits:#06x}");
                }
            }
        }
        // NaN takes the key that wins for the direction.
        assert_eq!(f16::NAN.key16(nan_key::<Max>()), i16::MAX);
        assert_eq!((-bf16::NAN).key16(nan_key::<Min>()), i16::MIN);
        let x = [f16::from_f32(1.0), f16::NAN, f16::from_f32(3.0), f16::NAN];
        assert_eq!(arg_row_keyed::<f16, Max, false>(&x), 1);
        assert_eq!(arg_row_keyed::<f16, Min, true>(&x), 3);
        assert!(fold_keyed::<f16, Max>(f16::NEG_INFINITY, &x).is_nan());
        let y = [f16::from_f32(-0.0), f16::from_f32(0.0), f16::from_f32(-2.0)];
        assert_eq!(arg_row_keyed::<f16, Max, true>(&y), 1);
        assert_eq!(fold_keyed::<f16, Min>(f16::INFINITY, &y).to_f32(), -2.0);
    }
}
