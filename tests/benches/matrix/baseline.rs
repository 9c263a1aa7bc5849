//! The baselines of the benchmark matrix: a max fold over the input in its own element type
//! (f16 and bf16 through their integer order keys), in independent lanes (64 bytes of them: four
//! SSE2 registers, one AVX-512 register) so that it vectorizes without reassociating anything:
//! the **stream**, the practical limit of a reduction. With an output, the fold also stores its
//! running lanes into a tensor of the input's size: the **read+write** pass Hardmax is held to.
//! With `io`, the fold also writes as many bytes as the cell's outputs hold, spread over the
//! input block by block: the least memory traffic any implementation of the cell has (no
//! target is judged on it; it tells a cell bound by its writes from one bound by its kernel).

use super::{black_box, Dt, Runner};

// Not inlined: inlined into the runner, lanes may be kept in memory (see peers.rs).
#[inline(never)]
fn fold<T: Copy + PartialOrd, const L: usize>(x: &[T], init: T) -> T {
    let mut acc = [init; L];
    let chunks = x.chunks_exact(L);
    let rest = chunks.remainder();
    for chunk in chunks {
        for (a, &v) in acc.iter_mut().zip(chunk) {
            *a = if v > *a { v } else { *a };
        }
    }
    acc.iter()
        .chain(rest)
        .fold(init, |m, &v| if v > m { v } else { m })
}

#[inline(never)]
fn fold_write<T: Copy + PartialOrd, const L: usize>(x: &[T], y: &mut [T], init: T) -> T {
    let mut acc = [init; L];
    let chunks = x.chunks_exact(L).zip(y.chunks_exact_mut(L));
    for (chunk, out) in chunks {
        for ((a, &v), o) in acc.iter_mut().zip(chunk).zip(out) {
            *a = if v > *a { v } else { *a };
            *o = *a;
        }
    }
    let done = x.len() / L * L;
    for (&v, o) in x[done..].iter().zip(&mut y[done..]) {
        *o = v;
    }
    acc.iter().fold(init, |m, &v| if v > m { v } else { m })
}

/// Input elements per block of [`fold_io`]: 4 KiB of them.
const IO_BLOCK_BYTES: usize = 4096;

/// The stream fold of `x`, block by block, with the share of `out` that each block's elements
/// are of the input written after it (every word of `out` once, in order).
#[inline(never)]
fn fold_io<T: Copy + PartialOrd, const L: usize>(x: &[T], out: &mut [u64], init: T) -> T {
    let block = (IO_BLOCK_BYTES / std::mem::size_of::<T>()).max(1);
    let (mut best, mut written) = (init, 0);
    for (k, b) in x.chunks(block).enumerate() {
        let m = fold::<T, L>(b, init);
        best = if m > best { m } else { best };
        // Words of `out` owed after `k + 1` blocks, proportionally (u128: no overflow).
        let read = (k * block + b.len()) as u128;
        let owed = (out.len() as u128 * read / x.len() as u128) as usize;
        out[written..owed].fill(k as u64);
        written = owed;
    }
    best
}

/// The order key of an f16/bf16 bit pattern (sign-magnitude to two's complement).
#[inline(always)]
fn key(b: u16) -> i16 {
    let s = b as i16;
    s ^ ((s >> 15) & 0x7fff)
}

#[inline(never)]
fn fold_half<const L: usize>(x: &[u16]) -> i16 {
    let mut acc = [i16::MIN; L];
    let chunks = x.chunks_exact(L);
    let rest = chunks.remainder();
    for chunk in chunks {
        for (a, &v) in acc.iter_mut().zip(chunk) {
            *a = (*a).max(key(v));
        }
    }
    acc.into_iter()
        .chain(rest.iter().map(|&v| key(v)))
        .fold(i16::MIN, i16::max)
}

#[inline(never)]
fn fold_write_half<const L: usize>(x: &[u16], y: &mut [u16]) -> i16 {
    let mut acc = [i16::MIN; L];
    for (chunk, out) in x.chunks_exact(L).zip(y.chunks_exact_mut(L)) {
        for ((a, &v), o) in acc.iter_mut().zip(chunk).zip(out) {
            *a = (*a).max(key(v));
            *o = *a as u16;
        }
    }
    let done = x.len() / L * L;
    for (&v, o) in x[done..].iter().zip(&mut y[done..]) {
        *o = v;
    }
    acc.into_iter().fold(i16::MIN, i16::max)
}

/// The input decoded once, in its own element type.
enum Typed {
    F32(Vec<f32>),
    F64(Vec<f64>),
    Half(Vec<u16>),
    I8(Vec<i8>),
    U8(Vec<u8>),
    I16(Vec<i16>),
    U16(Vec<u16>),
    I32(Vec<i32>),
    I64(Vec<i64>),
}

impl Typed {
    fn new(dt: Dt, x: &[u8]) -> Typed {
        /// The elements of `x`, which holds a whole number of them.
        fn decode<T: Copy + Default, const N: usize>(x: &[u8], f: fn([u8; N]) -> T) -> Vec<T> {
            if cfg!(target_endian = "little") {
                assert_eq!(std::mem::size_of::<T>(), N);
                let mut v = vec![T::default(); x.len() / N];
                // SAFETY: `v` holds exactly `x.len()` bytes of a type (a primitive number)
                // for which every bit pattern is valid and little-endian bytes are memory.
                unsafe {
                    std::ptr::copy_nonoverlapping(x.as_ptr(), v.as_mut_ptr().cast::<u8>(), x.len())
                };
                v
            } else {
                x.chunks_exact(N)
                    .map(|b| f(b.try_into().unwrap()))
                    .collect()
            }
        }
        match dt {
            Dt::F32 => Typed::F32(decode(x, f32::from_le_bytes)),
            Dt::F64 => Typed::F64(decode(x, f64::from_le_bytes)),
            Dt::F16 | Dt::Bf16 => Typed::Half(decode(x, u16::from_le_bytes)),
            Dt::I8 => Typed::I8(decode(x, i8::from_le_bytes)),
            Dt::U8 | Dt::Bool => Typed::U8(x.to_vec()),
            Dt::I16 => Typed::I16(decode(x, i16::from_le_bytes)),
            Dt::U16 => Typed::U16(decode(x, u16::from_le_bytes)),
            Dt::I32 => Typed::I32(decode(x, i32::from_le_bytes)),
            Dt::I64 => Typed::I64(decode(x, i64::from_le_bytes)),
        }
    }

    fn zeroed_like(&self) -> Typed {
        match self {
            Typed::F32(v) => Typed::F32(vec![0.0; v.len()]),
            Typed::F64(v) => Typed::F64(vec![0.0; v.len()]),
            Typed::Half(v) => Typed::Half(vec![0; v.len()]),
            Typed::I8(v) => Typed::I8(vec![0; v.len()]),
            Typed::U8(v) => Typed::U8(vec![0; v.len()]),
            Typed::I16(v) => Typed::I16(vec![0; v.len()]),
            Typed::U16(v) => Typed::U16(vec![0; v.len()]),
            Typed::I32(v) => Typed::I32(vec![0; v.len()]),
            Typed::I64(v) => Typed::I64(vec![0; v.len()]),
        }
    }
}

/// The stream (`y: None`), read+write or input+outputs (`io`) baseline of a cell.
pub struct Baseline {
    x: Typed,
    y: Option<Typed>,
    /// For `io`: the outputs' bytes, as words (rounded up).
    io: Option<Vec<u64>>,
}

impl Baseline {
    pub fn new(dt: Dt, x: &[u8], write: bool) -> Baseline {
        let x = Typed::new(dt, x);
        let y = write.then(|| x.zeroed_like());
        Baseline { x, y, io: None }
    }

    /// The stream that also writes `out_bytes` (the bytes of a cell's outputs).
    pub fn io(dt: Dt, x: &[u8], out_bytes: usize) -> Baseline {
        Baseline {
            x: Typed::new(dt, x),
            y: None,
            io: Some(vec![0; out_bytes.div_ceil(8)]),
        }
    }
}

impl Runner for Baseline {
    fn run(&mut self) {
        let x = black_box(&self.x);
        if let Some(out) = &mut self.io {
            let out = black_box(out.as_mut_slice());
            match x {
                Typed::F32(x) => drop(black_box(fold_io::<f32, 16>(x, out, f32::NEG_INFINITY))),
                Typed::F64(x) => drop(black_box(fold_io::<f64, 8>(x, out, f64::NEG_INFINITY))),
                Typed::Half(x) => drop(black_box(fold_io::<u16, 32>(x, out, 0))),
                Typed::I8(x) => drop(black_box(fold_io::<i8, 64>(x, out, i8::MIN))),
                Typed::U8(x) => drop(black_box(fold_io::<u8, 64>(x, out, 0))),
                Typed::I16(x) => drop(black_box(fold_io::<i16, 32>(x, out, i16::MIN))),
                Typed::U16(x) => drop(black_box(fold_io::<u16, 32>(x, out, 0))),
                Typed::I32(x) => drop(black_box(fold_io::<i32, 16>(x, out, i32::MIN))),
                Typed::I64(x) => drop(black_box(fold_io::<i64, 8>(x, out, i64::MIN))),
            }
            return;
        }
        match &mut self.y {
            None => match x {
                Typed::F32(x) => drop(black_box(fold::<f32, 16>(x, f32::NEG_INFINITY))),
                Typed::F64(x) => drop(black_box(fold::<f64, 8>(x, f64::NEG_INFINITY))),
                Typed::Half(x) => drop(black_box(fold_half::<32>(x))),
                Typed::I8(x) => drop(black_box(fold::<i8, 64>(x, i8::MIN))),
                Typed::U8(x) => drop(black_box(fold::<u8, 64>(x, 0))),
                Typed::I16(x) => drop(black_box(fold::<i16, 32>(x, i16::MIN))),
                Typed::U16(x) => drop(black_box(fold::<u16, 32>(x, 0))),
                Typed::I32(x) => drop(black_box(fold::<i32, 16>(x, i32::MIN))),
                Typed::I64(x) => drop(black_box(fold::<i64, 8>(x, i64::MIN))),
            },
            Some(y) => match (x, y) {
                (Typed::F32(x), Typed::F32(y)) => {
                    black_box(fold_write::<f32, 16>(x, y, f32::NEG_INFINITY));
                }
                (Typed::F64(x), Typed::F64(y)) => {
                    black_box(fold_write::<f64, 8>(x, y, f64::NEG_INFINITY));
                }
                (Typed::Half(x), Typed::Half(y)) => {
                    black_box(fold_write_half::<32>(x, y));
                }
                _ => unreachable!("read+write is for Hardmax, over floats"),
            },
        }
    }
    fn outputs(&mut self) -> Result<Vec<Vec<u8>>, String> {
        self.run();
        Ok(Vec::new())
    }
}
