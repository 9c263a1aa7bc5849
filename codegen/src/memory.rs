//! The static memory plan of intermediate values.
//!
//! Intermediates (values computed by a node and not graph outputs) live in one scratch buffer
//! per element type. A value occupies its slot from the node that computes it to the last node
//! that reads it; values whose lifetimes do not overlap share space. `Identity` nodes whose
//! output is an intermediate compute nothing: their output is an alias of their input.
//!
//! Slots are placed in order of definition, each at the first feasible offset among the bottom
//! (0), the top of the lower bound (`bound - size`) and the edges of the conflicting slots,
//! preferring offsets that stay within the lower bound (the largest total of values alive at
//! once). For chains this alternates bottom and top and reaches the lower bound exactly.
//!
//! The cost is O(n log n) in the intermediates: the lower bound is one sweep over lifetime
//! events, and a value is only compared with the placed values still alive when it is defined
//! (sorted once, then searched by bisection), and only while at most 64 are: beyond that it
//! goes on top of them all (the end of the highest, kept in an ordered multiset). Sizes are added in `u128`, so a model whose
//! intermediates together exceed the address space yields an honest total
//! ([`MemoryPlan::scratch_bytes`]) that the loader rejects, never an overflow.

use std::collections::{BTreeMap, HashMap};

use crate::dtype::DType;
use crate::ir::{Graph, Source, ValueId};

/// Where an intermediate lives: its element type's scratch buffer, offset and length (elements).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    /// The buffer (one per element type).
    pub dtype: DType,
    /// First element.
    pub offset: usize,
    /// Number of elements.
    pub len: usize,
}

/// The plan: slots of intermediates, aliases, and buffer sizes.
///
/// Element counts are `usize`; for a plan whose buffers would not fit the address space (which
/// the loader rejects) they saturate at `usize::MAX`, while
/// [`MemoryPlan::scratch_bytes`] stays exact.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemoryPlan {
    /// For each value, the value whose storage it uses (itself unless an alias: Identity, the
    /// shape ops, a contiguous Slice).
    pub root: Vec<ValueId>,
    /// For each value, where it starts in its root's storage (in elements; 0 but for slices).
    pub offset: Vec<usize>,
    /// The slot of each intermediate root value.
    pub slots: BTreeMap<ValueId, Slot>,
    /// Elements of each scratch buffer.
    pub sizes: BTreeMap<DType, usize>,
    /// The lower bound per buffer: the most elements alive at once.
    pub bounds: BTreeMap<DType, usize>,
    /// For each node, whether it computes nothing because its output is an alias.
    pub elided: Vec<bool>,
    /// The exact total of scratch bytes, all buffers together.
    pub scratch_bytes: u128,
}

impl MemoryPlan {
    /// Total scratch bytes (saturating; exact whenever the loader accepted the graph).
    pub fn bytes(&self) -> usize {
        to_usize(self.scratch_bytes)
    }

    /// How many nodes compute nothing (Identity aliases).
    pub fn elided_count(&self) -> usize {
        self.elided.iter().filter(|&&e| e).count()
    }
}

fn to_usize(n: u128) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// Intervals `[start, end)` of offsets taken by conflicting slots, sorted and merged so that
/// "is this range free" is one bisection.
struct Taken {
    /// Disjoint or touching intervals, in increasing order of both ends.
    spans: Vec<(u128, u128)>,
}

impl Taken {
    fn new(mut spans: Vec<(u128, u128)>) -> Self {
        spans.sort_unstable();
        let mut merged: Vec<(u128, u128)> = Vec::with_capacity(spans.len());
        for (s, e) in spans {
            match merged.last_mut() {
                // Strict overlap only: touching spans stay apart, so a range between them (or an
                // empty range at the seam) stays free, as it is against each span alone.
                Some(last) if s < last.1 => last.1 = last.1.max(e),
                _ => merged.push((s, e)),
            }
        }
        Taken { spans: merged }
    }

    /// Whether `[off, off + size)` meets no span (a span meets it when
    /// `s < off + size && off < e`).
    fn free(&self, off: u128, size: u128) -> bool {
        let first = self.spans.partition_point(|&(_, e)| e <= off);
        self.spans.get(first).is_none_or(|&(s, _)| off + size <= s)
    }
}

/// How many values may be alive at once for a value's slot to be searched among their edges;
/// beyond it the value goes on top of them all.
const CAREFUL_PLACEMENT: usize = 64;

/// The offset of a value of `size` elements among the `conflicts` (slots alive at once): the
/// first free one among the bottom, the top of the lower bound and the edges of the conflicts
/// that stays within `bound`, else the lowest free one (`top`, the end of the highest
/// conflict, always is).
fn place(conflicts: &[(u128, u128)], size: u128, bound: u128, top: u128) -> u128 {
    let mut candidates = vec![0, bound.saturating_sub(size)];
    for &(s, e) in conflicts {
        candidates.push(e);
        candidates.extend(s.checked_sub(size));
    }
    let taken = Taken::new(conflicts.to_vec());
    let within = candidates
        .iter()
        .copied()
        .find(|&off| off + size <= bound && taken.free(off, size));
    within.unwrap_or_else(|| {
        candidates
            .iter()
            .copied()
            .filter(|&off| taken.free(off, size))
            .min()
            .unwrap_or(top)
    })
}

/// Plans the scratch memory of a graph whose nodes are in execution order.
pub fn plan_memory(graph: &Graph) -> MemoryPlan {
    let n_values = graph.values.len();
    let end = graph.nodes.len();
    let mut is_output = vec![false; n_values];
    for o in &graph.outputs {
        is_output[o.value] = true;
    }
    let mut root: Vec<ValueId> = (0..n_values).collect();
    let mut elided = vec![false; end];
    let mut offset = vec![0usize; n_values];
    for (k, node) in graph.nodes.iter().enumerate() {
        if let Some(at) = node.op.alias_offset().filter(|_| !is_output[node.output]) {
            root[node.output] = root[node.input];
            offset[node.output] = offset[node.input] + at;
            elided[k] = true;
        }
    }
    // Lifetimes of intermediate roots: [defining node, last reading node].
    let mut life: Vec<Option<(usize, usize)>> = vec![None; n_values];
    let mut defined = Vec::new();
    for (k, node) in graph.nodes.iter().enumerate() {
        for v in node.outputs() {
            if root[v] == v && !is_output[v] && matches!(graph.values[v].source, Source::Node(_)) {
                life[v] = Some((k, k));
                defined.push(v);
            }
        }
    }
    for (k, node) in graph.nodes.iter().enumerate() {
        if elided[k] {
            continue;
        }
        if let Some(l) = life[root[node.input]].as_mut() {
            l.1 = l.1.max(k);
        }
    }
    // Graph outputs that alias an intermediate are copied at the end: keep it alive.
    for o in &graph.outputs {
        if let Some(l) = life[root[o.value]].as_mut() {
            l.1 = end;
        }
    }
    let life_of = |v: ValueId| life[v].unwrap_or((0, 0));
    // A value between a chunked pair takes one chunk ([`Graph::chunk_of`]).
    let chunk_len: HashMap<ValueId, usize> = graph
        .chunked
        .iter()
        .filter_map(|&c| graph.chunk_of(c))
        .collect();
    let len = |v: ValueId| {
        chunk_len
            .get(&v)
            .copied()
            .unwrap_or_else(|| graph.values[v].numel()) as u128
    };
    // Values of each element type, in order of definition.
    let mut by_type: BTreeMap<DType, Vec<ValueId>> = BTreeMap::new();
    for &v in &defined {
        by_type.entry(graph.values[v].dtype).or_default().push(v);
    }
    let mut plan = MemoryPlan {
        root,
        offset,
        elided,
        ..MemoryPlan::default()
    };
    for (dtype, values) in by_type {
        // The lower bound: the most elements alive at one node, by a sweep over the events.
        let mut delta = vec![0i128; end + 2];
        for &v in &values {
            let (s, e) = life_of(v);
            delta[s] += len(v) as i128;
            delta[e + 1] -= len(v) as i128;
        }
        let (mut alive, mut bound) = (0i128, 0i128);
        for d in &delta {
            alive += d;
            bound = bound.max(alive);
        }
        let bound = bound as u128;
        // Placed values still alive, by last node (so that those dead when a value is defined
        // leave in order), and the multiset of their ends (the top of what is alive). Values
        // come in order of definition, so a placed value conflicts with the next exactly while
        // it is alive.
        let mut active: BTreeMap<(usize, ValueId), (u128, u128)> = BTreeMap::new();
        let mut ends: BTreeMap<u128, usize> = BTreeMap::new();
        let mut total = 0u128;
        for &v in &values {
            let (start, last) = life_of(v);
            let size = len(v);
            while let Some(entry) = active.first_entry() {
                if entry.key().0 >= start {
                    break;
                }
                let (_, end) = entry.remove();
                if let Some(count) = ends.get_mut(&end) {
                    *count -= 1;
                    if *count == 0 {
                        ends.remove(&end);
                    }
                }
            }
            let top = ends.last_key_value().map_or(0, |(&e, _)| e);
            let offset = if active.len() > CAREFUL_PLACEMENT {
                // Many values alive at once: on top of them all, so that placing a value stays
                // logarithmic (the search below is linear in the values alive).
                top
            } else {
                let conflicts: Vec<(u128, u128)> = active.values().copied().collect();
                place(&conflicts, size, bound, top)
            };
            active.insert((last, v), (offset, offset + size));
            *ends.entry(offset + size).or_default() += 1;
            total = total.max(offset + size);
            plan.slots.insert(
                v,
                Slot {
                    dtype,
                    offset: to_usize(offset),
                    len: to_usize(size),
                },
            );
        }
        plan.scratch_bytes += total * dtype.size() as u128;
        plan.sizes.insert(dtype, to_usize(total));
        plan.bounds.insert(dtype, to_usize(bound));
    }
    plan
}

#[cfg(test)]
mod tests {
    use super::Taken;

    /// The bisection agrees with checking every span, including empty spans and empty ranges.
    #[test]
    fn taken_free_matches_a_scan_of_every_span() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |k: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % k) as u128
        };
        for _ in 0..2000 {
            let spans: Vec<(u128, u128)> = (0..next(6))
                .map(|_| {
                    let s = next(20);
                    (s, s + next(6))
                })
                .collect();
            let taken = Taken::new(spans.clone());
            for off in 0..30 {
                for size in 0..8 {
                    let scan = spans.iter().all(|&(s, e)| off + size <= s || e <= off);
                    assert_eq!(
                        taken.free(off, size),
                        scan,
                        "spans {spans:?}, range {off}+{size}"
                    );
                }
            }
        }
    }
}
