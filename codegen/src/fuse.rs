//! Graph rewrites between loading and the memory plan, so that nodes reading the same data do
//! not each pass over it:
//!
//! - **cast folds**: a node over a Cast's output reads the Cast's input when it gives the same
//!   result there: an exact widening (`x.float().argmax()` over f16) changes no position, and a
//!   rounding to a narrower float (`x.half().argmax()`) is inverted per row by the runtime's
//!   threshold search; the Cast is then dropped if nothing else reads it.
//! - **casts written**: a Cast that alone reads an ArgMax's indices (`.to(torch.int32)`) is
//!   done by the ArgMax, which writes the narrow type; the Cast is dropped.
//! - **transpose folds**: a node over a Transpose's output reads its input with the axes mapped
//!   when its output keeps its layout (a detector head's `permute(0, 2, 1)` before the max over
//!   classes); the Transpose is then dropped if nothing else reads it.
//! - **one-hot shortcuts**: a node over a one-hot tensor (Hardmax along an axis) that gives the
//!   same result over the one-hot's own input (ArgMax along that axis) reads that input instead;
//!   the Hardmax is then dropped if nothing else reads it (ReduceMax → Hardmax → ArgMax becomes
//!   ReduceMax → ArgMax).
//! - **sibling fusion**: of the nodes that read one tensor, one that can compute another's output
//!   in its own pass ([`Compute::absorbs`](crate::ir::Compute::absorbs): ArgMax computes ReduceMax over the same axis, as
//!   `torch.max(x, dim)` exports) does so; the absorbed node is dropped, and the fused node
//!   runs at the earlier of the two positions, before any reader of either output.
//!
//! Which rewrite applies is each op's decision (methods of [`Compute`](crate::ir::Compute)); this stage only walks
//! the graph. Every rewrite keeps the outputs bit for bit (see each op's rule).

use std::collections::HashMap;
use std::sync::Arc;

use crate::ir::{Compute, Graph, Node, Source, Value, ValueId};
use crate::ops::cast::CastOp;

/// How many other readers of a tensor each node is offered for fusion: enough for every real
/// pattern, and it keeps the stage linear for a tensor read by thousands of nodes.
const SIBLING_WINDOW: usize = 16;

/// Applies the rewrites to a loaded graph, then picks the node order that keeps the scratch
/// small ([`crate::schedule`]) and the pairs of nodes that run in chunks ([`crate::chunks`]).
pub fn fuse(graph: &mut Graph) {
    cast_folds(graph);
    transpose_folds(graph);
    casts_written(graph);
    one_hot_shortcuts(graph);
    drop_unread(graph);
    fuse_siblings(graph);
    crate::schedule::schedule(graph);
    renumber(graph);
    crate::chunks::chunk_pairs(graph);
}

/// The node that computes each value, by node position.
fn producers(graph: &Graph) -> Vec<Option<usize>> {
    let mut by_value = vec![None; graph.values.len()];
    for (k, node) in graph.nodes.iter().enumerate() {
        for v in node.outputs() {
            by_value[v] = Some(k);
        }
    }
    by_value
}

/// A node over a Transpose's output reads the Transpose's input with its axes mapped, when its
/// op allows it ([`Compute::over_permuted`](crate::ir::Compute::over_permuted): the output's layout is kept).
fn transpose_folds(graph: &mut Graph) {
    read_through(graph, |values, producer, reader| {
        let perm = producer.op.permutation()?;
        reader.op.over_permuted(perm, &values[reader.input])
    });
}

/// A node over a Cast's output reads the Cast's input when its op can
/// ([`Compute::over_cast`](crate::ir::Compute::over_cast): an exact widening, or a rounding it
/// inverts per row); the Cast is then dropped if nothing else reads it.
fn cast_folds(graph: &mut Graph) {
    read_through(graph, |values, producer, reader| {
        let cast = producer.op.downcast_ref::<CastOp>()?;
        reader
            .op
            .over_cast(cast.from, cast.to, &values[reader.input])
    });
}

/// The driver of the folds above and of the one-hot shortcuts: for each node over another
/// node's output, `over(values, producer, reader)` may give an op that computes the reader's
/// output from the producer's input instead; the reader then reads that input.
fn read_through(
    graph: &mut Graph,
    over: impl Fn(&[Value], &Node, &Node) -> Option<Arc<dyn Compute>>,
) {
    let producer = producers(graph);
    for k in 0..graph.nodes.len() {
        let input = graph.nodes[k].input;
        let Some(p) = producer[input] else {
            continue;
        };
        if let Some(op) = over(&graph.values, &graph.nodes[p], &graph.nodes[k]) {
            let source = graph.nodes[p].input;
            let node = &mut graph.nodes[k];
            node.op = op;
            node.input = source;
        }
    }
}

/// A Cast that is the only reader of a node's output, which is no graph output, is folded into
/// that node's writes when its op can write the Cast's type
/// ([`Compute::writes_cast`](crate::ir::Compute::writes_cast)): the node writes the Cast's
/// output and the Cast is dropped.
fn casts_written(graph: &mut Graph) {
    let producer = producers(graph);
    let readers = graph.readers();
    let mut dropped = vec![false; graph.nodes.len()];
    for c in 0..graph.nodes.len() {
        let Some(cast) = graph.nodes[c].op.downcast_ref::<CastOp>().copied() else {
            continue;
        };
        let middle = graph.nodes[c].input;
        let Some(a) = producer[middle] else {
            continue;
        };
        if readers[middle] != 1 || dropped[a] || !graph.nodes[a].fused.is_empty() {
            continue;
        }
        let source = &graph.values[graph.nodes[a].input];
        if let Some(op) = graph.nodes[a].op.writes_cast(cast.to, source) {
            let output = graph.nodes[c].output;
            let node = &mut graph.nodes[a];
            node.op = op;
            node.output = output;
            dropped[c] = true;
        }
    }
    let mut k = 0;
    graph.nodes.retain(|_| {
        k += 1;
        !dropped[k - 1]
    });
}

fn one_hot_shortcuts(graph: &mut Graph) {
    read_through(graph, |values, hot, reader| {
        let axis = hot.op.one_hot_axis(&values[hot.input])?;
        reader.op.over_one_hot_source(axis)
    });
}

/// Drops nodes whose outputs nothing reads (no kept node, no graph output): one sweep from the
/// last node back, since nodes are in dependency order.
fn drop_unread(graph: &mut Graph) {
    let mut read = vec![false; graph.values.len()];
    for out in &graph.outputs {
        read[out.value] = true;
    }
    let mut keep = vec![false; graph.nodes.len()];
    for (k, node) in graph.nodes.iter().enumerate().rev() {
        if node.outputs().any(|v| read[v]) {
            keep[k] = true;
            read[node.input] = true;
        }
    }
    let mut k = 0;
    graph.nodes.retain(|_| {
        k += 1;
        keep[k - 1]
    });
}

fn fuse_siblings(graph: &mut Graph) {
    let n = graph.nodes.len();
    // The readers of each value, in execution order.
    let mut readers: HashMap<ValueId, Vec<usize>> = HashMap::new();
    for (k, node) in graph.nodes.iter().enumerate() {
        readers.entry(node.input).or_default().push(k);
    }
    let mut absorbed = vec![false; n];
    let mut partners: Vec<Vec<usize>> = vec![Vec::new(); n];
    for group in readers.values().filter(|g| g.len() > 1) {
        for &k in group {
            if absorbed[k] {
                continue;
            }
            let candidates = group
                .iter()
                .copied()
                .filter(|&j| j != k && !absorbed[j] && partners[j].is_empty())
                .take(SIBLING_WINDOW)
                .collect::<Vec<_>>();
            for j in candidates {
                let (a, b) = (&graph.nodes[k], &graph.nodes[j]);
                if a.op.absorbs(&*b.op, &graph.values[a.input]) {
                    absorbed[j] = true;
                    partners[k].push(j);
                }
            }
        }
    }
    if !absorbed.contains(&true) {
        return;
    }
    // A fused node runs at the earliest position of its group: the shared input is ready there,
    // and every reader of any of its outputs comes later.
    let mut slots: Vec<Option<Node>> = std::mem::take(&mut graph.nodes)
        .into_iter()
        .map(Some)
        .collect();
    let mut placed: Vec<(usize, Node)> = Vec::new();
    for k in 0..n {
        if absorbed[k] {
            continue;
        }
        let Some(mut node) = slots[k].take() else {
            continue;
        };
        let mut at = k;
        for &j in &partners[k] {
            if let Some(sibling) = slots[j].take() {
                node.fused.push(sibling);
                at = at.min(j);
            }
        }
        placed.push((at, node));
    }
    placed.sort_by_key(|&(at, _)| at);
    graph.nodes = placed.into_iter().map(|(_, node)| node).collect();
}

/// Points every computed value at its node's new position.
fn renumber(graph: &mut Graph) {
    let outputs: Vec<(usize, Vec<ValueId>)> = graph
        .nodes
        .iter()
        .enumerate()
        .map(|(k, n)| (k, n.outputs().collect()))
        .collect();
    for (k, values) in outputs {
        for v in values {
            graph.values[v].source = Source::Node(k);
        }
    }
}
