//! Node order chosen to keep the scratch memory small.
//!
//! Every node reads one data input, so the nodes form a forest: a node's children are the nodes
//! that read its outputs, and every intermediate dies inside its producer's subtree. Running
//! nodes in file order (after their producers) can keep many intermediates alive at once: 40
//! nodes reading one big tensor, each producing a tensor of the same size read by a later node,
//! need 40 of them alive when all 40 run first. A depth-first order instead runs each node's
//! whole subtree before its next sibling, so that a subtree's intermediates are dead before the
//! next one starts; siblings run in increasing order of the most bytes their subtree keeps
//! alive at once (the hungriest last, when the tensor they share may be dead already).
//!
//! [`schedule`] computes both orders' peak (the most scratch bytes alive at once, which the
//! memory plan reaches for chains and approaches otherwise) and keeps the depth-first order
//! only when its peak is smaller, so that graphs where file order is as good keep it. It is
//! O(n log n) in the nodes and recursion-free.

use crate::ir::{Graph, ValueId};

/// Reorders `graph.nodes` (each still after its producer) when a depth-first order keeps fewer
/// scratch bytes alive at once than the current one. Values' sources are not updated: the
/// caller renumbers.
pub fn schedule(graph: &mut Graph) {
    let n = graph.nodes.len();
    if n < 2 {
        return;
    }
    let facts = Facts::new(graph);
    let current: Vec<usize> = (0..n).collect();
    let deep = facts.depth_first();
    if facts.peak(&deep) < facts.peak(&current) {
        let mut slots: Vec<Option<crate::ir::Node>> = std::mem::take(&mut graph.nodes)
            .into_iter()
            .map(Some)
            .collect();
        graph.nodes = deep.into_iter().filter_map(|k| slots[k].take()).collect();
    }
}

/// What the orders are computed from: per node, its scratch bytes, the root of its input's
/// storage and its children; per value, its storage root and whether it is scratch.
struct Facts {
    /// Scratch bytes of each node's outputs (0 for an alias or a graph output).
    bytes: Vec<u128>,
    /// Whether a node computes nothing (its output is an alias of its input).
    elided: Vec<bool>,
    /// The storage root of each node's input.
    input_root: Vec<ValueId>,
    /// The nodes reading each node's outputs, in current order.
    children: Vec<Vec<usize>>,
    /// Nodes whose input no node computes (graph inputs, constants), in current order.
    roots: Vec<usize>,
    /// Bytes of each value's storage, when it is scratch whose life ends with its last reader
    /// (`None` for inputs, constants, graph outputs and what they alias).
    freed: Vec<Option<u128>>,
    /// For each value, the value whose storage it uses.
    root: Vec<ValueId>,
    /// The values each node computes.
    outputs: Vec<Vec<ValueId>>,
}

impl Facts {
    fn new(graph: &Graph) -> Self {
        let n = graph.nodes.len();
        let n_values = graph.values.len();
        let mut is_output = vec![false; n_values];
        for o in &graph.outputs {
            is_output[o.value] = true;
        }
        let mut producer: Vec<Option<usize>> = vec![None; n_values];
        let mut root: Vec<ValueId> = (0..n_values).collect();
        let mut elided = vec![false; n];
        let mut bytes = vec![0u128; n];
        let mut freed: Vec<Option<u128>> = vec![None; n_values];
        let mut outputs = Vec::with_capacity(n);
        for (k, node) in graph.nodes.iter().enumerate() {
            let alias = node.op.alias_offset().is_some() && !is_output[node.output];
            for v in node.outputs() {
                producer[v] = Some(k);
                if alias && v == node.output {
                    root[v] = root[node.input];
                    elided[k] = true;
                    continue;
                }
                if !is_output[v] {
                    let value = &graph.values[v];
                    let size = value.numel() as u128 * value.dtype.size() as u128;
                    bytes[k] += size;
                    freed[v] = Some(size);
                }
            }
            outputs.push(node.outputs().collect());
        }
        // A graph output that aliases an intermediate keeps it alive to the end.
        for o in &graph.outputs {
            freed[root[o.value]] = None;
        }
        let mut children = vec![Vec::new(); n];
        let mut roots = Vec::new();
        let mut input_root = Vec::with_capacity(n);
        for (k, node) in graph.nodes.iter().enumerate() {
            match producer[node.input] {
                Some(p) if p != k => children[p].push(k),
                _ => roots.push(k),
            }
            input_root.push(root[node.input]);
        }
        Facts {
            bytes,
            elided,
            input_root,
            children,
            roots,
            freed,
            root,
            outputs,
        }
    }

    /// Depth-first from each root in current order; siblings by increasing subtree need.
    fn depth_first(&self) -> Vec<usize> {
        let n = self.bytes.len();
        // A node's need: its own bytes plus the largest need among its children (children come
        // after their parent in the current order, so one backward pass computes it).
        let mut need = vec![0u128; n];
        for k in (0..n).rev() {
            let most = self.children[k].iter().map(|&c| need[c]).max().unwrap_or(0);
            need[k] = self.bytes[k] + most;
        }
        let mut order = Vec::with_capacity(n);
        let mut stack: Vec<usize> = self.roots.iter().rev().copied().collect();
        while let Some(k) = stack.pop() {
            order.push(k);
            let mut kids = self.children[k].clone();
            // Stable: equal needs keep the current order. Pushed in reverse, popped in order.
            kids.sort_by_key(|&c| need[c]);
            stack.extend(kids.into_iter().rev());
        }
        order
    }

    /// The most scratch bytes alive at once when nodes run in `order`: a node's outputs are
    /// alive from it to their last reader, its input while it runs.
    fn peak(&self, order: &[usize]) -> u128 {
        let mut remaining = vec![0usize; self.root.len()];
        for (k, &r) in self.input_root.iter().enumerate() {
            if !self.elided[k] {
                remaining[r] += 1;
            }
        }
        let (mut alive, mut peak) = (0u128, 0u128);
        for &k in order {
            if self.elided[k] {
                continue;
            }
            alive += self.bytes[k];
            peak = peak.max(alive);
            let r = self.input_root[k];
            remaining[r] -= 1;
            if remaining[r] == 0 {
                alive = alive.saturating_sub(self.freed[r].unwrap_or(0));
            }
            // Outputs nothing reads die at once.
            for &v in &self.outputs[k] {
                if self.root[v] == v && remaining[v] == 0 {
                    alive = alive.saturating_sub(self.freed[v].unwrap_or(0));
                }
            }
        }
        peak
    }
}
