//! Test helpers the kernel families' tests share: a deterministic generator, test values and
//! the definition of an arg-reduction.

// The narrow types' generators serve the AVX2 kernels' tests, which small-code leaves out.
#![cfg_attr(
    any(feature = "small-code", not(target_arch = "x86_64")),
    allow(dead_code)
)]

extern crate std;

use crate::{bf16, f16, Direction, Element};
use core::mem::size_of;

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

/// The definition of a reduction: `values` folded in order into `acc`: a NaN `acc` stays; else
/// the first NaN of `values`; else the extreme of `acc` and `values` (by value: -0 and +0 are
/// one).
pub(super) fn fold_definition<T: Element, D: Direction>(
    acc: T,
    values: impl IntoIterator<Item = T>,
) -> T {
    if acc.is_nan() {
        return acc;
    }
    let mut best = acc;
    for v in values {
        if v.is_nan() {
            return v;
        }
        if D::better(v, best) {
            best = v;
        }
    }
    best
}

/// Row `k`'s elements of every plane of `x` (`planes` planes of `rows` rows of `n`), plane
/// after plane: what a reduction over the planes' axis and the rows' axis folds into output `k`.
pub(super) fn plane_rows<T: Copy>(
    x: &[T],
    (planes, rows, n): (usize, usize, usize),
    k: usize,
) -> impl Iterator<Item = T> + '_ {
    (0..planes).flat_map(move |p| {
        x[(p * rows + k) * n..(p * rows + k + 1) * n]
            .iter()
            .copied()
    })
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

/// Each lane of the first `blocks` blocks of `r` rows of `c` lanes of `x` (`shape` `(r, c)`):
/// its index in `y` and, `v` not empty, its element in `v`, against [`naive_arg`] (`last`: the
/// last index of the extreme).
pub(super) fn check_arg_blocks<T: Element, D: Direction>(
    x: &[T],
    (y, v): (&[i64], &[T]),
    (r, c): (usize, usize),
    blocks: usize,
    last: bool,
    ctx: &str,
) {
    for b in 0..blocks {
        for j in 0..c {
            let lane: std::vec::Vec<T> = (0..r).map(|k| x[(b * r + k) * c + j]).collect();
            let at = naive_arg::<T, D>(&lane, last);
            assert_eq!(
                y[b * c + j],
                at as i64,
                "{ctx}: block {b} lane {j} of {lane:?}"
            );
            if let Some(&got) = v.get(b * c + j) {
                assert!(same(got, lane[at]), "{ctx}: block {b} lane {j} value");
            }
        }
    }
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

/// One arg-reduction over `rows` contiguous rows of `c` of `x` by `run(x, y, v, c)` (`y` and,
/// with `values`, `v` as long as the rows; `v` empty otherwise), checked: done as `taken` says,
/// nothing written where not done nor past the rows, each row against [`naive_arg`] (and its
/// element in `v`). The indices where done.
pub(super) fn check_arg_rows<T: Element, D: Direction>(
    x: &[T],
    (rows, c): (usize, usize),
    (values, last, taken): (bool, bool, bool),
    run: impl Fn(&[T], &mut [i64], &mut [T], usize) -> bool,
) -> Option<std::vec::Vec<i64>> {
    let ctx = std::format!("{:?} rows of {c} x{rows} values {values}", T::DTYPE);
    // Two entries past the rows, which must stay as they are.
    let mut y = std::vec![-1i64; rows + 2];
    let mut v = std::vec![T::ONE; if values { rows + 2 } else { 0 }];
    let vs = if values { &mut v[..rows] } else { &mut v[..] };
    let done = run(x, &mut y[..rows], vs, c);
    assert_eq!(done, taken, "{ctx}: taken");
    if !done {
        assert!(y.iter().all(|&i| i == -1), "{ctx}: written");
        return None;
    }
    assert_eq!(&y[rows..], &[-1, -1], "{ctx}: written past the rows");
    if values {
        assert!(
            same(v[rows], T::ONE) && same(v[rows + 1], T::ONE),
            "{ctx}: past"
        );
    }
    check_arg_blocks::<T, D>(x, (&y[..rows], &v[..]), (c, 1), rows, last, &ctx);
    y.truncate(rows);
    Some(y)
}

/// One reduction over `rows` contiguous rows of `c` of `x` by `run(y, x, c, fresh)`, afresh and
/// folded into what `y` holds (`start`, two entries past the rows), checked: done as `taken`
/// says, `y` as it was where not done and past the rows, each row against [`naive_reduce`] (of
/// the row, or of `start`'s element and the row).
pub(super) fn check_reduce_rows<T: Element, D: Direction>(
    x: &[T],
    (rows, c): (usize, usize),
    start: &[T],
    taken: bool,
    run: impl Fn(&mut [T], &[T], usize, bool) -> bool,
) {
    for fresh in [true, false] {
        let ctx = std::format!("{:?} rows of {c} x{rows} fresh {fresh}", T::DTYPE);
        let mut y: std::vec::Vec<T> = start[..rows + 2].to_vec();
        let done = run(&mut y[..rows], x, c, fresh);
        assert_eq!(done, taken, "{ctx}: taken");
        for (i, &got) in y.iter().enumerate() {
            let want = match i {
                _ if i >= rows || !done => start[i],
                _ if fresh => naive_reduce::<T, D>(&x[i * c..(i + 1) * c]),
                _ => {
                    let mut row = std::vec![start[i]];
                    row.extend_from_slice(&x[i * c..(i + 1) * c]);
                    naive_reduce::<T, D>(&row)
                }
            };
            assert!(same(got, want), "{ctx}: row {i}: {got:?} for {want:?}");
        }
    }
}

/// `f32` values with ties, both zeros, infinities, the ends and the smallest subnormals, NaN of
/// either sign (one in four draws of a NaN where `nan`, else 0.5).
pub(super) fn f32_ends(g: &mut Lcg, nan: bool) -> f32 {
    let v = small(
        g,
        &[
            -0.0,
            0.0,
            1.0,
            -2.0,
            3.5,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::MAX,
            f32::MIN,
            f32::from_bits(1),
            -f32::from_bits(1),
            f32::NAN,
            -f32::NAN,
        ],
    );
    if v.is_nan() && !(nan && g.next().is_multiple_of(4)) {
        0.5
    } else {
        v
    }
}

/// `rows` rows of `c` values from `make` and `extra` more past them, NaN (where `make` draws
/// one) only in every seventh row, so in some windows of rows and not others.
pub(super) fn rows_input<T>(
    g: &mut Lcg,
    make: fn(&mut Lcg, bool) -> T,
    rows: usize,
    c: usize,
    extra: usize,
) -> std::vec::Vec<T> {
    (0..rows * c + extra)
        .map(|i| make(g, (i / c.max(1)) % 7 == 3))
        .collect()
}

/// The extreme of a lane by the contract: NaN-propagating (its first NaN).
pub(super) fn naive_reduce<T: Element, D: Direction>(lane: &[T]) -> T {
    if let Some(&n) = lane.iter().find(|v| v.is_nan()) {
        return n;
    }
    lane.iter()
        .copied()
        .reduce(|a, b| if D::better(b, a) { b } else { a })
        .unwrap_or(T::ZERO)
}

/// `outer` blocks of `size` elements from `make` (NaN only in the second block, and only with
/// `nan`), and a few elements past them, as a node's last block has none.
pub(super) fn blocks_input<T: Element>(
    g: &mut Lcg,
    make: fn(&mut Lcg, bool) -> T,
    outer: usize,
    size: usize,
    nan: bool,
) -> std::vec::Vec<T> {
    (0..outer * size + g.next() as usize % 3)
        .map(|i| make(g, nan && i / size == 1))
        .map(|v| if !nan && v.is_nan() { T::ZERO } else { v })
        .collect()
}

/// Whether `a` and `b` are the same result: equal in order (either zero for a zero), or NaNs of
/// the same bits.
pub(super) fn same<T: Element>(a: T, b: T) -> bool {
    let mut ab = [0u8; 8];
    let mut bb = [0u8; 8];
    a.write_le(&mut ab[..size_of::<T>()]);
    b.write_le(&mut bb[..size_of::<T>()]);
    if a.is_nan() || b.is_nan() {
        return ab == bb;
    }
    !a.gt(b) && !a.lt(b)
}

/// A value of `T` from a few bits: ties are common, and the type's extremes come up.
pub(super) fn u32s(g: &mut Lcg, _: bool) -> u32 {
    small(
        g,
        &[
            0,
            1,
            255,
            0x7fff_ffff,
            0x8000_0000,
            u32::MAX,
            u32::MAX - 1,
            70000,
        ],
    )
}
pub(super) fn i32s(g: &mut Lcg, _: bool) -> i32 {
    small(g, &[0, 1, -1, i32::MAX, i32::MIN, 65536, -65536, 0x80])
}

pub(super) fn i64s(g: &mut Lcg, _: bool) -> i64 {
    small(
        g,
        &[0, 1, -1, i64::MAX, i64::MIN, 1 << 32, -(1 << 32), 0x80],
    )
}
pub(super) fn u64s(g: &mut Lcg, _: bool) -> u64 {
    small(
        g,
        &[
            0,
            1,
            255,
            i64::MAX as u64,
            1 << 63,
            u64::MAX,
            u64::MAX - 1,
            1 << 32,
        ],
    )
}
/// A value from a small pool: ties are common; zeros of both signs, infinities, the extremes
/// of the type, neighbours one unit apart and (with `nan`) NaN come up.
pub(super) fn f64s(g: &mut Lcg, nan: bool) -> f64 {
    let v = small(
        g,
        &[
            -0.0,
            0.0,
            1.0,
            1.0 + f64::EPSILON,
            -1.0,
            2.5,
            -7.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MAX,
            f64::MIN,
            f64::MIN_POSITIVE,
            f64::NAN,
        ],
    );
    if v.is_nan() && !(nan && g.next().is_multiple_of(8)) {
        3.0
    } else {
        v
    }
}

pub(super) fn small<T: Copy>(g: &mut Lcg, pool: &[T]) -> T {
    pool[(g.next() % pool.len() as u64) as usize]
}

pub(super) fn u8s(g: &mut Lcg, _: bool) -> u8 {
    small(g, &[0, 1, 2, 7, 100, 254, 255, 128, 127])
}
pub(super) fn i8s(g: &mut Lcg, _: bool) -> i8 {
    small(g, &[0, 1, -1, 7, -100, 127, -128, 64, -2])
}
pub(super) fn bools(g: &mut Lcg, _: bool) -> bool {
    // Mostly one value, so that rows of a single value come up.
    g.next().is_multiple_of(5)
}
pub(super) fn u16s(g: &mut Lcg, _: bool) -> u16 {
    small(g, &[0, 1, 255, 256, 0x7fff, 0x8000, 0xffff, 0xfffe, 300])
}
pub(super) fn i16s(g: &mut Lcg, _: bool) -> i16 {
    small(g, &[0, 1, -1, 255, -256, i16::MAX, i16::MIN, 0x80, -0x80])
}
/// From the f32 pool (ties, zeros of both signs, infinities, NaN when asked), a NaN of either
/// sign (a negative NaN's key is the lowest).
pub(super) fn halves_of<T>(g: &mut Lcg, nan: bool, from: fn(f32) -> T) -> T {
    let v = f32_pool(g, nan);
    if v.is_nan() && g.next().is_multiple_of(2) {
        from(-v)
    } else {
        from(v)
    }
}
pub(super) fn f16s(g: &mut Lcg, nan: bool) -> f16 {
    halves_of(g, nan, f16::from_f32)
}
pub(super) fn bf16s(g: &mut Lcg, nan: bool) -> bf16 {
    halves_of(g, nan, bf16::from_f32)
}

/// The vector builds a test runs its kernels in on this CPU (each set as the thread's cap,
/// `isa::HERE`): AVX-512 and AVX2 where the CPU has AVX-512, AVX2 alone otherwise.
#[cfg(all(target_arch = "x86_64", not(feature = "small-code")))]
pub(super) fn vector_builds() -> &'static [u8] {
    use super::isa;
    if isa::level() >= isa::AVX512 {
        &[isa::AVX512, isa::AVX2]
    } else {
        &[isa::AVX2]
    }
}
