//! The baselines of the benchmark matrix: a max fold over the input's bytes (as `u8`, whatever
//! the element type: one SSE2 `pmaxub` per 16 bytes, so that every type's baseline is the same
//! read of the same bytes; a fold in the element's own type cost 2x for `i8`, `i32`, f16 and
//! bf16 and 3.5x for `i64` at the default target CPU, which has no SSE2 max of those) in
//! independent lanes (64 bytes of them: four SSE2 registers, one AVX-512 register) so that it
//! vectorizes without reassociating anything: the **stream**, the practical limit of a
//! reduction. With an output, the fold also stores its running lanes into a tensor of the
//! input's size: the **read+write** pass Hardmax is held to. With `io`, the fold also writes as
//! many bytes as the cell's outputs hold, spread over the input block by block: the least memory
//! traffic any implementation of the cell has (no target is judged on it; it tells a cell bound
//! by its writes from one bound by its kernel).

use super::{black_box, Runner};

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

/// The stream (`y: None`), read+write or input+outputs (`io`) baseline of a cell.
pub struct Baseline {
    /// The input's bytes.
    x: Vec<u8>,
    /// For read+write: the output, as many bytes.
    y: Option<Vec<u8>>,
    /// For `io`: the outputs' bytes, as words (rounded up).
    io: Option<Vec<u64>>,
}

impl Baseline {
    /// The stream of `x`, with `write` the read+write pass.
    pub fn new(x: &[u8], write: bool) -> Baseline {
        let y = write.then(|| vec![0; x.len()]);
        Baseline {
            x: x.to_vec(),
            y,
            io: None,
        }
    }

    /// The stream that also writes `out_bytes` (the bytes of a cell's outputs).
    pub fn io(x: &[u8], out_bytes: usize) -> Baseline {
        Baseline {
            x: x.to_vec(),
            y: None,
            io: Some(vec![0; out_bytes.div_ceil(8)]),
        }
    }
}

impl Runner for Baseline {
    fn run(&mut self) {
        let x = black_box(self.x.as_slice());
        if let Some(out) = &mut self.io {
            black_box(fold_io::<u8, 64>(x, black_box(out.as_mut_slice()), 0));
        } else if let Some(y) = &mut self.y {
            black_box(fold_write::<u8, 64>(x, black_box(y.as_mut_slice()), 0));
        } else {
            black_box(fold::<u8, 64>(x, 0));
        }
    }
    fn outputs(&mut self) -> Result<Vec<Vec<u8>>, String> {
        self.run();
        Ok(Vec::new())
    }
}
