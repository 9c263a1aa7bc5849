//! A readable summary of a model: nodes, ops, versions, shapes, types, and memory.

use std::fmt::Write;

use crate::ir::{Graph, Source};

/// Byte counts of a model's tensors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Memory {
    /// Bytes of the run-time inputs.
    pub inputs: usize,
    /// Bytes of the outputs.
    pub outputs: usize,
    /// Bytes of scratch memory for intermediates, as planned (the generated `SCRATCH_BYTES`).
    pub scratch: usize,
    /// Bytes of constants read at run time.
    pub constants: usize,
}

/// The byte counts of a graph.
pub fn memory(graph: &Graph) -> Memory {
    let bytes = |id: usize| graph.values[id].numel() * graph.values[id].dtype.size();
    let inputs = graph.inputs.iter().map(|&v| bytes(v)).sum();
    let outputs = graph.outputs.iter().map(|o| bytes(o.value)).sum();
    // The same plan the generated code uses (shared slots, Identity aliases).
    let scratch = crate::memory::plan_memory(graph).bytes();
    let constants = (0..graph.values.len())
        .filter(|&v| matches!(graph.values[v].source, Source::Constant(_)))
        .filter(|&v| {
            graph.nodes.iter().any(|n| n.input == v) || graph.outputs.iter().any(|o| o.value == v)
        })
        .map(bytes)
        .sum();
    Memory {
        inputs,
        outputs,
        scratch,
        constants,
    }
}

/// A plain-text table of the graph, for `onnx-aot inspect`.
pub fn summary(graph: &Graph, code_bytes: usize) -> String {
    let mut s = String::new();
    let v = |id: usize| {
        let value = &graph.values[id];
        format!("{} {} {:?}", value.name, value.dtype, value.shape)
    };
    let _ = writeln!(s, "inputs:");
    for &i in &graph.inputs {
        let _ = writeln!(s, "  {}", v(i));
    }
    let _ = writeln!(s, "outputs:");
    for o in &graph.outputs {
        let _ = writeln!(s, "  {}", v(o.value));
    }
    let _ = writeln!(s, "nodes (in execution order):");
    let _ = writeln!(
        s,
        "  {:<4} {:<20} {:<22} {:<36} output",
        "#", "name", "op", "input"
    );
    for n in &graph.nodes {
        let op = if n.domain.is_empty() {
            format!("{}-{}", n.op_type, n.version)
        } else {
            format!("{}::{}-{}", n.domain, n.op_type, n.version)
        };
        let _ = writeln!(
            s,
            "  {:<4} {:<20} {:<22} {:<36} {}",
            n.index,
            n.name,
            op,
            v(n.input),
            v(n.output)
        );
    }
    let m = memory(graph);
    let _ = writeln!(
        s,
        "memory: inputs {} B, outputs {} B, scratch {} B, constants {} B",
        m.inputs, m.outputs, m.scratch, m.constants
    );
    let _ = writeln!(s, "generated code: {code_bytes} B (formatted)");
    s
}
