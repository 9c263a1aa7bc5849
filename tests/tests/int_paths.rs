//! Property tests of the integer and bool paths of the lane kernels (issue 14): `i8` and `bool`
//! folded as `u8` keys, chunks of 64 bytes of lanes for 1-, 2- and 8-byte types (then sixteen,
//! then one by one), group numbers counted in `u8` (1-byte keys, up to 256 groups of 16 rows),
//! `u16` (2-byte keys) or `u32` (the rest, and more groups than the narrow counter holds), and
//! 64-bit lanes kept scalar. Every integer type, against a plain reference written here (a loop
//! over each lane in order: the first, or with `select_last_index` the last, extreme), over
//! lane counts and row counts on both sides of each of those thresholds, with the types'
//! extremes, frequent ties and both directions.

use std::fmt::Debug;

use onnx_aot::kernels;
use onnx_aot::{Element, Max, Min};

/// A tiny deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// What the reference needs of a type: a total order and values to draw from.
trait Int: Element + Ord + Debug {
    /// A value: the extremes, zero, values near them, or any bit pattern.
    fn draw(r: u64) -> Self;
}

macro_rules! int {
    ($($t:ty)*) => {$(
        impl Int for $t {
            fn draw(r: u64) -> Self {
                match r % 10 {
                    0 => <$t>::MIN,
                    1 => <$t>::MAX,
                    2 => 0,
                    3 => <$t>::MIN.wrapping_add(1),
                    4 => <$t>::MAX.wrapping_sub(1),
                    // A few small values: ties are frequent.
                    5 | 6 => ((r >> 8) % 4) as $t,
                    _ => (r >> 8) as $t,
                }
            }
        }
    )*};
}
int!(i8 u8 i16 u16 i32 u32 i64 u64);

impl Int for bool {
    fn draw(r: u64) -> Self {
        r.is_multiple_of(2)
    }
}

/// Values of `n` elements; `spread` picks how many distinct values (few: many ties; a
/// constant input; or the whole pool).
fn values<T: Int>(rng: &mut Rng, n: usize) -> Vec<T> {
    match rng.next() % 4 {
        0 => {
            let v = T::draw(rng.next());
            vec![v; n]
        }
        1 => {
            let pool = [T::draw(rng.next()), T::draw(rng.next())];
            (0..n).map(|_| pool[(rng.next() % 2) as usize]).collect()
        }
        _ => (0..n).map(|_| T::draw(rng.next())).collect(),
    }
}

/// The index of the extreme of `lane` (the first, or the last with `last`).
fn ref_arg<T: Int>(lane: &[T], max: bool, last: bool) -> usize {
    let mut best = 0;
    for (i, v) in lane.iter().enumerate().skip(1) {
        let b = &lane[best];
        let better = if max { v > b } else { v < b };
        if better || (last && v == b) {
            best = i;
        }
    }
    best
}

/// The extreme of `lane` folded into `acc`.
fn ref_reduce<T: Int>(acc: T, lane: &[T], max: bool) -> T {
    lane.iter()
        .fold(acc, |m, &v| if max { m.max(v) } else { m.min(v) })
}

/// Lane `j` of `rows` rows of `inner` lanes.
fn lane<T: Copy>(x: &[T], inner: usize, j: usize) -> Vec<T> {
    x.iter().skip(j).step_by(inner).copied().collect()
}

/// An arg-reduction of lanes into indices and values: `(x, y, v, inner, max, last)`.
type ArgFn<T> = dyn Fn(&[T], &mut [i64], &mut [T], usize, bool, bool);

/// The tile the generator picks for `inner` lanes of `T`.
macro_rules! tile {
    ($t:ty, $inner:expr) => {
        kernels::arg_tile($inner, core::mem::size_of::<$t>())
    };
}

/// `arg_lanes` in all four modes, `arg_lanes_values` and `reduce_lanes_rows` in both
/// directions, over `rows` rows of `inner` lanes, against the reference, lane by lane.
fn strided<T: Int>(x: &[T], rows: usize, inner: usize, arg: &ArgFn<T>, what: &str) {
    let ctx = format!("{what}: {rows} rows of {inner} lanes");
    for (max, last) in [(true, false), (true, true), (false, false), (false, true)] {
        let (mut y, mut v) = (vec![-1i64; inner], vec![T::ZERO; inner]);
        arg(x, &mut y, &mut v, inner, max, last);
        for j in 0..inner {
            let l = lane(x, inner, j);
            let at = ref_arg(&l, max, last);
            assert_eq!(
                y[j] as usize, at,
                "{ctx}: max {max} last {last} lane {j}: {l:?}"
            );
            assert_eq!(v[j], l[at], "{ctx}: value, max {max}, lane {j}");
        }
    }
    for max in [true, false] {
        let identity = if max { T::LOWEST } else { T::HIGHEST };
        let mut acc = vec![identity; inner];
        if max {
            kernels::reduce_lanes_rows::<T, Max>(&mut acc, x);
        } else {
            kernels::reduce_lanes_rows::<T, Min>(&mut acc, x);
        }
        for (j, &a) in acc.iter().enumerate() {
            let want = ref_reduce(identity, &lane(x, inner, j), max);
            assert_eq!(a, want, "{ctx}: reduce max {max} lane {j}");
        }
    }
}

/// Runs `arg_lanes_values` (or `arg_lanes`, whose indices must agree) for one mode.
macro_rules! arg_fn {
    ($t:ty) => {
        &|x: &[$t], y: &mut [i64], v: &mut [$t], inner: usize, max: bool, last: bool| {
            const TILE: usize = 512;
            let tile = tile!($t, inner);
            let mut plain = vec![-2i64; inner];
            match (max, last) {
                (true, false) => {
                    kernels::arg_lanes_values::<$t, Max, false, TILE>(x, y, v, inner);
                    kernels::arg_lanes::<$t, Max, false, 16>(x, &mut plain, inner);
                }
                (true, true) => {
                    kernels::arg_lanes_values::<$t, Max, true, TILE>(x, y, v, inner);
                    kernels::arg_lanes::<$t, Max, true, 16>(x, &mut plain, inner);
                }
                (false, false) => {
                    kernels::arg_lanes_values::<$t, Min, false, TILE>(x, y, v, inner);
                    kernels::arg_lanes::<$t, Min, false, 16>(x, &mut plain, inner);
                }
                (false, true) => {
                    kernels::arg_lanes_values::<$t, Min, true, TILE>(x, y, v, inner);
                    kernels::arg_lanes::<$t, Min, true, 16>(x, &mut plain, inner);
                }
            }
            assert_eq!(
                plain, y,
                "tile 16 against tile {TILE} (the generator's: {tile})"
            );
            // A wide tile: several blocks of group extremes merged per group.
            let mut wide = vec![-3i64; inner];
            match (max, last) {
                (true, false) => kernels::arg_lanes::<$t, Max, false, 2048>(x, &mut wide, inner),
                (true, true) => kernels::arg_lanes::<$t, Max, true, 2048>(x, &mut wide, inner),
                (false, false) => kernels::arg_lanes::<$t, Min, false, 2048>(x, &mut wide, inner),
                (false, true) => kernels::arg_lanes::<$t, Min, true, 2048>(x, &mut wide, inner),
            }
            assert_eq!(wide, y, "tile 2048 against tile {TILE}");
        }
    };
}

/// Lane counts around the chunk widths (16; 64 bytes: 64, 32 or 8 lanes) and the tails.
const INNERS: [usize; 11] = [1, 8, 9, 16, 17, 31, 32, 33, 64, 65, 100];

/// Row counts around the grouped pass (128 rows) and its groups (8 or 16 rows).
const ROWS: [usize; 8] = [1, 2, 17, 127, 128, 129, 143, 300];

fn lanes_of<T: Int>(seed: u64, arg: &ArgFn<T>) {
    let what = core::any::type_name::<T>();
    let mut rng = Rng(seed);
    for rows in ROWS {
        for inner in INNERS {
            for _ in 0..3 {
                let x: Vec<T> = values(&mut rng, rows * inner);
                strided(&x, rows, inner, arg, what);
            }
        }
    }
    // More lanes than one block of group extremes (2 KiB of keys) in a wide tile; 520 lanes
    // leave a last tile of eight, whose chunk reaches back into the tile before.
    for inner in [600, 1100, 1100, 520] {
        // The whole pool: no constant input, which any lanes would match.
        let x: Vec<T> = (0..130 * inner).map(|_| T::draw(rng.next())).collect();
        strided(&x, 130, inner, arg, what);
    }
    // Around the most groups a `u8` counter holds (256 groups of 16 rows), and past it.
    for rows in [4095, 4096, 4097, 4111] {
        for inner in [17, 65] {
            let x: Vec<T> = values(&mut rng, rows * inner);
            strided(&x, rows, inner, arg, what);
        }
    }
}

/// Contiguous rows: `arg_row` in all four modes, `fold` and `reduce_rows` (bytes go through an
/// out-of-line fold) in both directions.
fn rows_of<T: Int>(seed: u64, with_arg: bool) {
    let what = core::any::type_name::<T>();
    let mut rng = Rng(seed);
    for n in [1, 2, 15, 16, 17, 32, 33, 64, 65, 255, 256, 257, 1000, 1025] {
        for _ in 0..4 {
            let rows = 1 + (rng.next() % 5) as usize;
            let x: Vec<T> = values(&mut rng, rows * n);
            let ctx = format!("{what}: {rows} rows of {n}");
            for max in [true, false] {
                let identity = if max { T::LOWEST } else { T::HIGHEST };
                let mut y = vec![identity; rows];
                if max {
                    kernels::reduce_rows::<T, Max>(&mut y, &x, n);
                } else {
                    kernels::reduce_rows::<T, Min>(&mut y, &x, n);
                }
                for (o, row) in x.chunks_exact(n).enumerate() {
                    let want = ref_reduce(identity, row, max);
                    assert_eq!(y[o], want, "{ctx}: reduce max {max} row {o}");
                    // A fold into an accumulator more extreme than the row keeps it.
                    let other = if max { T::HIGHEST } else { T::LOWEST };
                    let got = if max {
                        kernels::fold::<T, Max>(other, row)
                    } else {
                        kernels::fold::<T, Min>(other, row)
                    };
                    assert_eq!(got, other, "{ctx}: fold into the other extreme");
                }
            }
            if !with_arg {
                continue;
            }
            for row in x.chunks_exact(n) {
                assert_eq!(
                    kernels::arg_row::<T, Max, false>(row),
                    ref_arg(row, true, false),
                    "{ctx}"
                );
                assert_eq!(
                    kernels::arg_row::<T, Max, true>(row),
                    ref_arg(row, true, true),
                    "{ctx}"
                );
                assert_eq!(
                    kernels::arg_row::<T, Min, false>(row),
                    ref_arg(row, false, false),
                    "{ctx}"
                );
                assert_eq!(
                    kernels::arg_row::<T, Min, true>(row),
                    ref_arg(row, false, true),
                    "{ctx}"
                );
            }
        }
    }
}

macro_rules! int_tests {
    ($($name:ident: $t:ty = $seed:literal;)*) => {$(
        #[test]
        fn $name() {
            lanes_of::<$t>($seed, arg_fn!($t));
            rows_of::<$t>($seed ^ 0x55, true);
        }
    )*};
}

int_tests! {
    int_paths_i8: i8 = 0x1357_9bdf;
    int_paths_u8: u8 = 0x2468_ace0;
    int_paths_i16: i16 = 0x3579_bdf1;
    int_paths_u16: u16 = 0x468a_ce02;
    int_paths_i32: i32 = 0x579b_df13;
    int_paths_u32: u32 = 0x68ac_e024;
    int_paths_i64: i64 = 0x79bd_f135;
    int_paths_u64: u64 = 0x8ace_0246;
}

/// bool takes only the reductions (ReduceMax/ReduceMin-20): lanes and rows, `false < true`.
#[test]
fn int_paths_bool() {
    let mut rng = Rng(0x9bdf_1357);
    for rows in ROWS.iter().copied().chain([4097]) {
        for inner in INNERS {
            let x: Vec<bool> = values(&mut rng, rows * inner);
            for max in [true, false] {
                let mut acc = vec![!max; inner];
                if max {
                    kernels::reduce_lanes_rows::<bool, Max>(&mut acc, &x);
                } else {
                    kernels::reduce_lanes_rows::<bool, Min>(&mut acc, &x);
                }
                for (j, &a) in acc.iter().enumerate() {
                    let l = lane(&x, inner, j);
                    let want = if max {
                        l.contains(&true)
                    } else {
                        !l.contains(&false)
                    };
                    assert_eq!(a, want, "bool {rows} rows of {inner}: max {max} lane {j}");
                }
            }
        }
    }
    rows_of::<bool>(0xa0a0_5151, false);
    // The identity everywhere but one element, placed in every row and lane in turn (a pass
    // that stops early must not stop before it, nor miss it), in rows and in lanes.
    for (rows, inner) in [(1, 1), (9, 17), (17, 65), (40, 100), (3, 200)] {
        for max in [true, false] {
            for at in 0..rows * inner {
                let mut x = vec![!max; rows * inner];
                x[at] = max;
                let mut acc = vec![!max; inner];
                let mut y = vec![!max; rows];
                if max {
                    kernels::reduce_lanes_rows::<bool, Max>(&mut acc, &x);
                    kernels::reduce_rows::<bool, Max>(&mut y, &x, inner);
                } else {
                    kernels::reduce_lanes_rows::<bool, Min>(&mut acc, &x);
                    kernels::reduce_rows::<bool, Min>(&mut y, &x, inner);
                }
                for (j, &a) in acc.iter().enumerate() {
                    assert_eq!(a, (j == at % inner) == max, "lanes {rows}x{inner} at {at}");
                }
                for (r, &v) in y.iter().enumerate() {
                    assert_eq!(v, (r == at / inner) == max, "rows {rows}x{inner} at {at}");
                }
            }
        }
    }
}

/// More groups of 16-bit lanes than a `u16` counter holds (65,536 groups of 8 rows): the pass
/// counts them in `u32`; the extreme is placed past the last group a `u16` would count.
#[test]
fn int_paths_u16_counter_overflow() {
    let rows = 65_536 * 8 + 9;
    let inner = 16;
    let mut x = vec![0i16; rows * inner];
    let mut rng = Rng(0x00dd_ba11);
    for v in x.iter_mut() {
        *v = (rng.next() % 100) as i16;
    }
    // Lane 3's maximum in the last rows; lane 5's minimum at row 0 and (a tie) at the end.
    x[(rows - 2) * inner + 3] = i16::MAX;
    x[5] = i16::MIN;
    x[(rows - 1) * inner + 5] = i16::MIN;
    let mut y = vec![-1i64; inner];
    kernels::arg_lanes::<i16, Max, false, 16>(&x, &mut y, inner);
    assert_eq!(y[3] as usize, rows - 2);
    for (j, &at) in y.iter().enumerate() {
        assert_eq!(
            at as usize,
            ref_arg(&lane(&x, inner, j), true, false),
            "lane {j}"
        );
    }
    kernels::arg_lanes::<i16, Min, true, 16>(&x, &mut y, inner);
    assert_eq!(y[5] as usize, rows - 1);
    kernels::arg_lanes::<i16, Min, false, 16>(&x, &mut y, inner);
    assert_eq!(y[5], 0);
}
