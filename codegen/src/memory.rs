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

use std::collections::BTreeMap;

use crate::dtype::DType;
use crate::ir::{Graph, Op, Source, ValueId};

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
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemoryPlan {
    /// For each value, the value whose storage it uses (itself unless an Identity alias).
    pub root: Vec<ValueId>,
    /// The slot of each intermediate root value.
    pub slots: BTreeMap<ValueId, Slot>,
    /// Elements of each scratch buffer.
    pub sizes: BTreeMap<DType, usize>,
    /// The lower bound per buffer: the most elements alive at once.
    pub bounds: BTreeMap<DType, usize>,
    /// Nodes that compute nothing because their output is an alias.
    pub elided: Vec<usize>,
}

impl MemoryPlan {
    /// Total scratch bytes.
    pub fn bytes(&self) -> usize {
        self.sizes.iter().map(|(t, n)| t.size() * n).sum()
    }
}

fn is_output(graph: &Graph, v: ValueId) -> bool {
    graph.outputs.iter().any(|o| o.value == v)
}

/// Plans the scratch memory of a graph whose nodes are in execution order.
pub fn plan_memory(graph: &Graph) -> MemoryPlan {
    let n_values = graph.values.len();
    let mut root: Vec<ValueId> = (0..n_values).collect();
    let mut elided = Vec::new();
    for (k, node) in graph.nodes.iter().enumerate() {
        if node.op == Op::Identity && !is_output(graph, node.output) {
            root[node.output] = root[node.input];
            elided.push(k);
        }
    }
    // Lifetimes of intermediate roots: [defining node, last reading node].
    let mut life: BTreeMap<ValueId, (usize, usize)> = BTreeMap::new();
    for (k, node) in graph.nodes.iter().enumerate() {
        let v = node.output;
        if root[v] == v && !is_output(graph, v) && matches!(graph.values[v].source, Source::Node(_))
        {
            life.insert(v, (k, k));
        }
    }
    for (k, node) in graph.nodes.iter().enumerate() {
        if elided.contains(&k) {
            continue;
        }
        if let Some(l) = life.get_mut(&root[node.input]) {
            l.1 = l.1.max(k);
        }
    }
    // Graph outputs that alias an intermediate are copied at the end: keep it alive.
    let end = graph.nodes.len();
    for o in &graph.outputs {
        if let Some(l) = life.get_mut(&root[o.value]) {
            l.1 = end;
        }
    }
    let mut plan = MemoryPlan {
        root,
        elided,
        ..MemoryPlan::default()
    };
    let overlaps = |a: (usize, usize), b: (usize, usize)| a.0 <= b.1 && b.0 <= a.1;
    let mut by_type: BTreeMap<DType, Vec<ValueId>> = BTreeMap::new();
    for &v in life.keys() {
        by_type.entry(graph.values[v].dtype).or_default().push(v);
    }
    for (dtype, mut values) in by_type {
        values.sort_by_key(|v| life[v].0);
        let len = |v: ValueId| graph.values[v].numel();
        let bound = (0..=end)
            .map(|k| {
                values
                    .iter()
                    .filter(|v| overlaps(life[v], (k, k)))
                    .map(|&v| len(v))
                    .sum()
            })
            .max()
            .unwrap_or(0);
        let mut placed: Vec<(ValueId, usize)> = Vec::new();
        for &v in &values {
            let size = len(v);
            let conflicts: Vec<(usize, usize)> = placed
                .iter()
                .filter(|(w, _)| overlaps(life[&v], life[w]))
                .map(|&(w, off)| (off, off + len(w)))
                .collect();
            let mut candidates = vec![0, bound.saturating_sub(size)];
            for &(s, e) in &conflicts {
                candidates.push(e);
                candidates.extend(s.checked_sub(size));
            }
            let free = |off: usize| conflicts.iter().all(|&(s, e)| off + size <= s || e <= off);
            let within = candidates
                .iter()
                .copied()
                .find(|&off| free(off) && off + size <= bound);
            let offset = within.unwrap_or_else(|| {
                candidates
                    .iter()
                    .copied()
                    .filter(|&off| free(off))
                    .min()
                    .unwrap_or(0)
            });
            placed.push((v, offset));
            plan.slots.insert(
                v,
                Slot {
                    dtype,
                    offset,
                    len: size,
                },
            );
        }
        let total = placed
            .iter()
            .map(|&(v, off)| off + len(v))
            .max()
            .unwrap_or(0);
        plan.sizes.insert(dtype, total);
        plan.bounds.insert(dtype, bound);
    }
    plan
}
