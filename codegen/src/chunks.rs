//! Chunked pairs: a node and the next one, the only reader of its output, run together chunk
//! after chunk of axis 0 when both keep that axis (each position of it computed from its own
//! part of the tensor, [`Compute::leading_kept_axes`](crate::ir::Compute::leading_kept_axes)).
//! The value between them is then never whole: the first node writes a chunk of it into
//! scratch and the second reads that chunk back while it is still in cache, instead of the whole
//! value going out to memory and back (ReduceMax over rows of two, then ArgMax over the maxima:
//! the maxima are half the input).
//!
//! Runs last in [`crate::fuse`], over the final node order; the memory plan gives the value
//! between a pair one chunk of scratch ([`Graph::chunk_of`]) and the emitter writes one loop
//! over the chunks that calls both node functions, each generated for the chunk's shape.

use crate::ir::{Chunked, Graph, Node};

/// Bytes of the value between a pair that one chunk holds at most: well within L1 with the
/// chunk of input the first node reads for it.
pub const CHUNK_BYTES: usize = 16 * 1024;

/// Values smaller than this stay whole: the caches keep them between the two nodes anyway.
pub const MIN_VALUE_BYTES: usize = 4 * CHUNK_BYTES;

/// Finds the chunked pairs of the graph (in order, none overlapping) into
/// [`Graph::chunked`].
pub fn chunk_pairs(graph: &mut Graph) {
    let readers = graph.readers();
    let mut chunked = Vec::new();
    let mut k = 0;
    while k + 1 < graph.nodes.len() {
        match rows_per_chunk(graph, &graph.nodes[k], &graph.nodes[k + 1], &readers) {
            Some(rows) => {
                chunked.push(Chunked { first: k, rows });
                k += 2;
            }
            None => k += 1,
        }
    }
    graph.chunked = chunked;
}

/// The positions of axis 0 per chunk when `a` and `b` can run as a chunked pair: `b` reads
/// `a`'s output and nothing else does, neither is fused with siblings nor only a view, both keep
/// axis 0, and the value between them is large enough to gain. The largest divisor of axis 0
/// that keeps a chunk of that value within [`CHUNK_BYTES`] and at least a quarter of it; with
/// none (a prime axis 0), the most positions within [`CHUNK_BYTES`], the last positions then
/// a shorter chunk of their own.
fn rows_per_chunk(graph: &Graph, a: &Node, b: &Node, readers: &[usize]) -> Option<usize> {
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
    if a.op.leading_kept_axes(x) == 0 || b.op.leading_kept_axes(t) == 0 {
        return None;
    }
    let n0 = *t.shape.first()?;
    if x.shape.first() != Some(&n0) || y.shape.first() != Some(&n0) || n0 < 2 {
        return None;
    }
    let bytes = t.numel().checked_mul(t.dtype.size())?;
    let slab = bytes / n0;
    if slab == 0 || bytes < MIN_VALUE_BYTES {
        return None;
    }
    let most = (CHUNK_BYTES / slab).min(n0 / 2);
    let least = (CHUNK_BYTES / 4).div_ceil(slab).max(1);
    (least..=most)
        .rev()
        .find(|d| n0 % d == 0)
        .or((most >= least).then_some(most))
}
