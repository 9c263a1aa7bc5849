//! Chunked pairs: a node and the next one, the only reader of its output, run together chunk
//! after chunk of axis 0 when both keep that axis (each position of it computed from its own
//! part of the tensor, [`Compute::leading_kept_axes`](crate::ir::Compute::leading_kept_axes)).
//! The value between them is then never whole: the first node writes a chunk of it into
//! scratch and the second reads that chunk back while it is still in cache, instead of the whole
//! value going out to memory and back (ReduceMax over rows of two, then ArgMax over the maxima:
//! the maxima are half the input).
//!
//! A reduction over the leading axes of its input (ReduceMax over axis 0 of `[2, 4096, 64]`,
//! then ArgMax along the last axis: the maxima are again half the input) pairs the same way
//! along the first axis it keeps: each chunk of its output is the extreme of one part of each
//! plane of the input, which its function for the pair reads in place
//! ([`Compute::emit_plane_part`](crate::ir::Compute::emit_plane_part)).
//!
//! Runs last in [`crate::fuse`], over the final node order; the memory plan gives the value
//! between a pair one chunk of scratch ([`Graph::chunk_of`]) and the emitter writes one loop
//! over the chunks that calls both node functions, each generated for the chunk's shape.

use crate::ir::{Chunked, Graph, Node, Value};

/// Bytes of the value between a pair that one chunk holds at most: well within L1 with the
/// chunk of input the first node reads for it.
pub const CHUNK_BYTES: usize = 16 * 1024;

/// Bytes of a chunk of the value between a pair over two planes: the chunk and the two parts it
/// is folded from fit L1 together (24 KiB), so that the second node reads it there. ReduceMax
/// over axis 0 of `[2, 4096, 64]` then ArgMax along the last axis, on an AMD EPYC (Zen 4):
/// 45.7 us in chunks of 16 KiB, 42.3 in chunks of 8 KiB (42.1 in 4 KiB); over 20, 80 and 1000
/// planes chunks of 4 KiB took 1.04-1.26x the time of 16 KiB, so more planes keep
/// [`CHUNK_BYTES`] (their parts stream through L1 whatever the chunk).
pub const L1_PART_BYTES: usize = 8 * 1024;

/// Values smaller than this stay whole: the caches keep them between the two nodes anyway.
pub const MIN_VALUE_BYTES: usize = 4 * CHUNK_BYTES;

/// Finds the chunked pairs of the graph (in order, none overlapping) into
/// [`Graph::chunked`].
pub fn chunk_pairs(graph: &mut Graph) {
    let readers = graph.readers();
    let mut chunked = Vec::new();
    let mut k = 0;
    while k + 1 < graph.nodes.len() {
        match pair(graph, &graph.nodes[k], &graph.nodes[k + 1], &readers) {
            Some((rows, planes, axis)) => {
                chunked.push(Chunked {
                    first: k,
                    rows,
                    planes,
                    axis,
                });
                k += 2;
            }
            None => k += 1,
        }
    }
    graph.chunked = chunked;
}

/// How `a` and `b` run as a chunked pair, if they can: the positions per chunk, the planes and
/// the chunked axis of [`Chunked`]. `b` reads `a`'s output and nothing else does, neither is
/// fused with siblings nor only a view, and the value between them is large enough to gain;
/// both keep axis 0 ([`rows_per_chunk`]), or `a` reduces the leading axes of its input and `b`
/// keeps the axis of the value that follows them ([`planes_per_chunk`]).
fn pair(graph: &Graph, a: &Node, b: &Node, readers: &[usize]) -> Option<(usize, usize, usize)> {
    let middle = a.output;
    if b.input != middle
        || readers[middle] != 1
        || !a.fused.is_empty()
        || !b.fused.is_empty()
        || a.op.is_alias()
        || b.op.is_alias()
    {
        return None;
    }
    let (x, t, y) = (
        &graph.values[a.input],
        &graph.values[middle],
        &graph.values[b.output],
    );
    let bytes = t.numel().checked_mul(t.dtype.size())?;
    if bytes < MIN_VALUE_BYTES {
        return None;
    }
    if a.op.leading_kept_axes(x) > 0 && b.op.leading_kept_axes(t) > 0 {
        let n0 = *t.shape.first()?;
        if x.shape.first() != Some(&n0) || y.shape.first() != Some(&n0) {
            return None;
        }
        return rows_per_chunk(bytes, n0, true).map(|rows| (rows, 1, 0));
    }
    planes_per_chunk(a, b, (x, t, y), bytes)
}

/// The positions per chunk of an axis of `n` positions, for a value of `bytes`: the largest
/// divisor of `n` that keeps a chunk within [`CHUNK_BYTES`] and at least a quarter of it; with
/// none (a prime `n`) and `rest`, the most positions within [`CHUNK_BYTES`], the last
/// positions then a shorter chunk of their own.
fn rows_per_chunk(bytes: usize, n: usize, rest: bool) -> Option<usize> {
    rows_within(bytes, n, rest, CHUNK_BYTES)
}

/// [`rows_per_chunk`] with chunks of at most `limit` bytes.
fn rows_within(bytes: usize, n: usize, rest: bool, limit: usize) -> Option<usize> {
    let slab = bytes / n.max(1);
    if slab == 0 || n < 2 {
        return None;
    }
    let most = (limit / slab).min(n / 2);
    let least = (limit / 4).div_ceil(slab).max(1);
    (least..=most)
        .rev()
        .find(|&d| n.is_multiple_of(d))
        .or((rest && most >= least).then_some(most))
}

/// A pair whose first node reduces the leading `k` axes of `x` (two planes or more) and whose
/// second keeps the axis of `t` that follows them (axis `k` with `keepdims`, else 0; the axes
/// before it have extent 1): positions per chunk (a divisor of the axis: the planes' parts are
/// read in place, and a shorter last chunk would need functions of its own), planes, axis.
fn planes_per_chunk(
    a: &Node,
    b: &Node,
    (x, t, y): (&Value, &Value, &Value),
    bytes: usize,
) -> Option<(usize, usize, usize)> {
    let k = a.op.reduced_leading_axes(x)?;
    let planes: usize = x.shape.get(..k)?.iter().product();
    let n = *x.shape.get(k)?;
    let axis = if t.shape.len() == x.shape.len() { k } else { 0 };
    let ones = |v: &Value| {
        v.shape
            .get(..axis)
            .is_some_and(|d| d.iter().all(|&e| e == 1))
    };
    if planes < 2
        || t.shape.get(axis) != Some(&n)
        || y.shape.get(axis) != Some(&n)
        || !ones(t)
        || !ones(y)
        || b.op.leading_kept_axes(t) <= axis
    {
        return None;
    }
    let limit = if planes == 2 {
        L1_PART_BYTES
    } else {
        CHUNK_BYTES
    };
    rows_within(bytes, n, false, limit).map(|rows| (rows, planes, axis))
}
