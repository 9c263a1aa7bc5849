//! Node order: each node runs after its producers (file order among ready nodes); duplicate
//! and missing producers are reported, nodes without inputs (Constant) are evaluated first,
//! and each cycle is described hop by hop.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};

use super::{Loader, Pending};
use crate::messages::describe_node;

fn describe(p: &Pending<'_>) -> String {
    describe_node(p.index, &p.proto.name, &p.proto.op_type, p.version, p.opset)
}

impl<'o> Loader<'o> {
    /// Orders nodes so that each runs after its producers (file order among ready nodes);
    /// handles nodes without inputs, duplicate producers, missing producers and cycles.
    pub(super) fn order<'m>(&mut self, pending: Vec<Pending<'m>>) -> Vec<Pending<'m>> {
        let (producer, mut keep) = self.producers(&pending);
        // Nodes without inputs (Constant) become constant values right away.
        for (i, p) in pending.iter().enumerate() {
            if keep[i] && p.op.family.signature(p.version).inputs.is_empty() {
                keep[i] = false;
                if self.node(p, usize::MAX).is_some() {
                    self.errors.model(format!(
                        "{}: internal error: a node without inputs must be evaluated when the \
                         code is generated",
                        describe(p)
                    ));
                }
            }
        }
        let deps = self.dependencies(&pending, &producer, &mut keep);
        let (order, done) = kahn(&deps, &keep);
        let stuck: Vec<bool> = (0..pending.len()).map(|i| keep[i] && !done[i]).collect();
        for cycle in cycles(&deps, &stuck) {
            let text = describe_cycle(&pending, &cycle);
            self.errors.model(format!(
                "the graph has a cycle: {text}; an ONNX graph must be acyclic: check these \
                 nodes' input names"
            ));
        }
        let mut slots: Vec<Option<Pending<'m>>> = pending.into_iter().map(Some).collect();
        order.into_iter().filter_map(|i| slots[i].take()).collect()
    }

    /// The producer of each node output, and which nodes to keep: a node with other than one
    /// output, or one whose output is produced already, is reported and dropped.
    fn producers<'m>(&mut self, pending: &[Pending<'m>]) -> (HashMap<&'m str, usize>, Vec<bool>) {
        let mut producer: HashMap<&'m str, usize> = HashMap::new();
        let mut keep = vec![true; pending.len()];
        for (i, p) in pending.iter().enumerate() {
            let node = describe(p);
            // Optional outputs left out (empty names) do not count; each further output an op
            // may have is a pending node of its own, checked with the first.
            let allowed = p.op.family.outputs(p.version);
            let given = p.proto.output.iter().filter(|o| !o.is_empty()).count();
            let extra = p.proto.output.iter().skip(allowed).any(|o| !o.is_empty());
            let first = p.proto.output.first().is_some_and(|o| !o.is_empty());
            if p.output == 0 && (extra || !first) {
                let what = if given > 1 {
                    format!(
                        "onnx-aot computes only nodes with one output ({} with its optional \
                         outputs is not supported yet; remove them from the node if nothing \
                         reads them)",
                        p.proto.op_type
                    )
                } else {
                    format!("{} has exactly one", p.proto.op_type)
                };
                self.errors
                    .model(format!("{node} has {given} outputs; {what}"));
                self.unknown
                    .extend(p.proto.output.iter().filter(|o| !o.is_empty()).cloned());
                keep[i] = false;
                continue;
            }
            let out = p.proto.output[p.output].as_str();
            if let Some(&other) = producer.get(out) {
                self.errors.model(format!(
                    "value {out:?} is produced twice: by {} and by {node}; every value needs \
                     exactly one producer",
                    describe(&pending[other])
                ));
                keep[i] = false;
                continue;
            }
            if self.by_name.contains_key(out) {
                self.errors.model(format!(
                    "{node} writes {out:?}, which is already a graph input or initializer; every \
                     value needs exactly one producer"
                ));
                keep[i] = false;
                continue;
            }
            producer.insert(out, i);
        }
        (producer, keep)
    }

    /// For each kept node, the kept nodes whose outputs it reads; a node that reads a value
    /// nothing produces is reported and dropped.
    fn dependencies(
        &mut self,
        pending: &[Pending<'_>],
        producer: &HashMap<&str, usize>,
        keep: &mut [bool],
    ) -> Vec<Vec<usize>> {
        let mut deps: Vec<Vec<usize>> = vec![Vec::new(); pending.len()];
        for (i, p) in pending.iter().enumerate() {
            if !keep[i] {
                continue;
            }
            for name in p.proto.input.iter().filter(|n| !n.is_empty()) {
                if let Some(&j) = producer.get(name.as_str()) {
                    if keep[j] {
                        deps[i].push(j);
                    }
                } else if !self.by_name.contains_key(name) && !self.unknown.contains(name) {
                    self.errors.model(format!(
                        "{} reads {name:?}, which nothing produces (it is no graph input, \
                         initializer or node output); check the node's input names",
                        describe(p)
                    ));
                    keep[i] = false;
                }
            }
        }
        deps
    }
}

/// Kahn's algorithm over the kept nodes, picking the earliest ready node in file order (a
/// min-heap of ready nodes): the order, and which nodes it reached.
fn kahn(deps: &[Vec<usize>], keep: &[bool]) -> (Vec<usize>, Vec<bool>) {
    let n = deps.len();
    let mut done = vec![false; n];
    let mut order = Vec::new();
    let mut waiting: Vec<usize> = vec![0; n];
    let mut readers: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, ds) in deps.iter().enumerate() {
        for &j in ds.iter().filter(|&&j| keep[j]) {
            waiting[i] += 1;
            readers[j].push(i);
        }
    }
    let mut ready: BinaryHeap<Reverse<usize>> = (0..n)
        .filter(|&i| keep[i] && waiting[i] == 0)
        .map(Reverse)
        .collect();
    while let Some(Reverse(i)) = ready.pop() {
        done[i] = true;
        order.push(i);
        for &r in &readers[i] {
            waiting[r] -= 1;
            if waiting[r] == 0 && keep[r] {
                ready.push(Reverse(r));
            }
        }
    }
    (order, done)
}

/// A cycle in words: each node reads the next one's output, and the last the first's; a long
/// cycle shows its first hops and its last one.
fn describe_cycle(pending: &[Pending<'_>], cycle: &[usize]) -> String {
    const SHOWN: usize = 6;
    let mut text = describe(&pending[cycle[0]]);
    for (k, &i) in cycle.iter().enumerate() {
        if cycle.len() > SHOWN + 2 && (SHOWN..cycle.len() - 1).contains(&k) {
            if k == SHOWN {
                text.push_str(&format!(
                    ", and so on around {} nodes, to {}",
                    cycle.len(),
                    describe(&pending[cycle[cycle.len() - 1]])
                ));
            }
            continue;
        }
        let j = cycle[(k + 1) % cycle.len()];
        let value = &pending[j].proto.output[pending[j].output];
        let from = if j == i {
            "itself".to_string()
        } else if j == cycle[0] {
            let p = &pending[j];
            if p.proto.name.is_empty() {
                format!("node {} (unnamed)", p.index)
            } else {
                format!("node {} {:?}", p.index, p.proto.name)
            }
        } else {
            describe(&pending[j])
        };
        let lead = if k == 0 { "" } else { ", which" };
        text.push_str(&format!("{lead} reads {value:?} from {from}"));
    }
    text
}

/// The cycles among the `stuck` nodes (those Kahn's algorithm could not order): one per group of
/// nodes that depend on each other (a strongly connected component), each a shortest cycle
/// through the group's lowest node, as a list where every node reads the output of the next and
/// the last reads the first's. Nodes merely downstream of a cycle belong to none. `deps[i]` lists
/// the nodes whose outputs node `i` reads.
fn cycles(deps: &[Vec<usize>], stuck: &[bool]) -> Vec<Vec<usize>> {
    let n = deps.len();
    let mut readers: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, ds) in deps.iter().enumerate() {
        for &j in ds {
            readers[j].push(i);
        }
    }
    // Kosaraju: the finishing order of a depth-first search along `deps`, then components along
    // `readers` in reverse finishing order.
    let mut seen = vec![false; n];
    let mut finished = Vec::with_capacity(n);
    for root in (0..n).filter(|&i| stuck[i]) {
        if seen[root] {
            continue;
        }
        seen[root] = true;
        let mut stack = vec![(root, 0usize)];
        while let Some((node, edge)) = stack.last_mut() {
            let node = *node;
            if let Some(&next) = deps[node].get(*edge) {
                *edge += 1;
                if stuck[next] && !seen[next] {
                    seen[next] = true;
                    stack.push((next, 0));
                }
            } else {
                finished.push(node);
                stack.pop();
            }
        }
    }
    let mut component = vec![usize::MAX; n];
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for &root in finished.iter().rev() {
        if component[root] != usize::MAX {
            continue;
        }
        let id = groups.len();
        let mut members = Vec::new();
        let mut stack = vec![root];
        component[root] = id;
        while let Some(node) = stack.pop() {
            members.push(node);
            for &r in &readers[node] {
                if stuck[r] && component[r] == usize::MAX {
                    component[r] = id;
                    stack.push(r);
                }
            }
        }
        groups.push(members);
    }
    let mut found = Vec::new();
    for (id, members) in groups.iter().enumerate() {
        let Some(&start) = members.iter().min() else {
            continue;
        };
        if members.len() == 1 && !deps[start].contains(&start) {
            continue;
        }
        // Breadth-first along `deps` inside the group, back to `start`.
        // Parents in a map: one vector of every node per group would be quadratic for
        // thousands of small cycles.
        let mut parent: HashMap<usize, usize> = HashMap::new();
        let mut queue = VecDeque::from([start]);
        let mut last = None;
        'search: while let Some(node) = queue.pop_front() {
            for &next in &deps[node] {
                if component[next] != id {
                    continue;
                }
                if next == start {
                    last = Some(node);
                    break 'search;
                }
                if let std::collections::hash_map::Entry::Vacant(e) = parent.entry(next) {
                    e.insert(node);
                    queue.push_back(next);
                }
            }
        }
        let Some(mut node) = last else { continue };
        let mut cycle = vec![node];
        while node != start {
            let Some(&up) = parent.get(&node) else { break };
            node = up;
            cycle.push(node);
        }
        cycle.reverse();
        found.push(cycle);
    }
    found.sort();
    found
}
