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
///
/// ```
/// use onnx_aot_codegen::{analyze, generate_pretty, inspect, Options};
///
/// let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/head.onnx")).unwrap();
/// let options = Options::new("head").dim("batch", 2).input("axes", vec![1i64.into()]);
/// let graph = analyze(&bytes, &options).unwrap();
/// let code = generate_pretty(&bytes, &options).unwrap();
/// let text = inspect::summary(&graph, code.len());
/// assert!(text.contains("ReduceMax-18"), "{text}");
/// assert!(text.contains("inputs 256 B, outputs 80 B, scratch 64 B"), "{text}");
/// assert_eq!(inspect::memory(&graph).inputs, 2 * 4 * 8 * 4);
/// ```
pub fn summary(graph: &Graph, code_bytes: usize) -> String {
    let mut s = String::new();
    // Names are printed with control and bidirectional characters escaped: terminal escapes in
    // a model must not reach the terminal.
    let v = |id: usize| {
        let value = &graph.values[id];
        format!(
            "{} {} {:?}",
            crate::names::doc_line(&value.name),
            value.dtype,
            value.shape
        )
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
            crate::names::doc_line(&n.name),
            op,
            v(n.input),
            v(n.output)
        );
    }
    for c in &graph.chunked {
        if let (Some(a), Some(b)) = (graph.nodes.get(c.first), graph.nodes.get(c.first + 1)) {
            let along = if c.planes > 1 {
                let (x, t) = (&graph.values[a.input], &graph.values[a.output]);
                let axis = x.shape.len() - t.shape.len() + c.axis;
                format!("axis {axis} of the input (over its {} planes)", c.planes)
            } else {
                "axis 0".to_string()
            };
            let _ = writeln!(
                s,
                "chunked: nodes {} and {} run together, {} positions of {along} at a time",
                a.index, b.index, c.rows
            );
        }
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

/// A tensor where a graph cut can start, for `onnx-aot inspect`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CutPoint {
    /// The tensor's name.
    pub name: String,
    /// The node that computes it: `Relu "relu"`.
    pub producer: String,
    /// Its type and shape as the file declares them (`FLOAT [batch, 10]`), if it does.
    pub declared: Option<String>,
    /// The ops between it and the outputs that onnx-aot does not compile (empty: the tail from
    /// here compiles).
    pub unsupported: Vec<String>,
}

/// How many tensors, nearest the outputs first, [`cut_points`] looks at: the search costs a walk
/// of the graph per tensor.
pub const CUT_POINTS_SEARCHED: usize = 256;

/// The tensors computed inside the graph where a cut (`start`) can begin, nearest the outputs
/// first, with what the tail from each needs.
pub fn cut_points(model: &crate::onnx::ModelProto) -> Vec<CutPoint> {
    use std::collections::{HashMap, HashSet};
    let Some(graph) = model.graph.as_ref() else {
        return Vec::new();
    };
    let mut producer: HashMap<&str, usize> = HashMap::new();
    for (k, node) in graph.node.iter().enumerate() {
        for out in node.output.iter().filter(|o| !o.is_empty()) {
            producer.entry(out.as_str()).or_insert(k);
        }
    }
    let supported = |k: usize| {
        let n = &graph.node[k];
        let domain = crate::messages::normalize_domain(&n.domain);
        crate::ops::registry::lookup(domain, &n.op_type).is_some()
    };
    let declared = |name: &str| {
        graph
            .value_info
            .iter()
            .chain(&graph.output)
            .find(|v| v.name == name)
            .and_then(|v| v.r#type.as_ref()?.tensor_type.as_ref())
            .map(|t| {
                let dims: Vec<String> = t
                    .shape
                    .iter()
                    .flat_map(|s| &s.dim)
                    .enumerate()
                    .map(|(i, d)| match (d.dim_value, d.dim_param.as_deref()) {
                        (Some(v), _) => v.to_string(),
                        (None, Some(p)) if !p.is_empty() => p.to_string(),
                        // The name an unnamed dimension binds by.
                        _ => format!("{name}[{i}]"),
                    })
                    .collect();
                let shape = if t.shape.is_some() {
                    format!(" [{}]", dims.join(", "))
                } else {
                    String::new()
                };
                format!("{}{shape}", crate::onnx::data_type::name(t.elem_type))
            })
    };
    let mut points = Vec::new();
    for (k, node) in graph.node.iter().enumerate().rev() {
        for out in node.output.iter().filter(|o| !o.is_empty()) {
            if points.len() >= CUT_POINTS_SEARCHED {
                return points;
            }
            // The nodes the outputs need with the cut starting at `out`.
            let mut needed = HashSet::new();
            let mut seen = HashSet::new();
            let mut stack: Vec<&str> = graph.output.iter().map(|o| o.name.as_str()).collect();
            let mut reached = false;
            while let Some(name) = stack.pop() {
                if name == out.as_str() {
                    reached = true;
                    continue;
                }
                if !seen.insert(name) {
                    continue;
                }
                if let Some(&p) = producer.get(name) {
                    if needed.insert(p) {
                        stack.extend(graph.node[p].input.iter().map(String::as_str));
                    }
                }
            }
            if !reached || needed.contains(&k) {
                continue;
            }
            let mut unsupported: Vec<String> = needed
                .iter()
                .filter(|&&p| !supported(p))
                .map(|&p| graph.node[p].op_type.clone())
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect();
            unsupported.sort();
            points.push(CutPoint {
                name: out.clone(),
                producer: format!("{} {:?}", node.op_type, node.name),
                declared: declared(out),
                unsupported,
            });
        }
    }
    points
}

/// The cut points as text: those whose tail compiles, then how many others there are.
pub fn cut_points_text(points: &[CutPoint]) -> String {
    let mut s = String::new();
    let clean: Vec<&CutPoint> = points.iter().filter(|p| p.unsupported.is_empty()).collect();
    let _ = writeln!(
        s,
        "cut points (tensors whose tail to the outputs compiles; start a cut there with \
         `--start NAME`, `start: [NAME]` in the macro, or `Builder::start`):"
    );
    if clean.is_empty() {
        let _ = writeln!(
            s,
            "  none: every tensor's tail needs an op onnx-aot does not compile"
        );
    }
    for p in &clean {
        let ty = p.declared.clone().unwrap_or_else(|| {
            "no type in the file: write one, e.g. `--start 'NAME:f32[..]'`".to_string()
        });
        let _ = writeln!(
            s,
            "  {:<28} {:<40} from {}",
            crate::names::doc_line(&p.name),
            ty,
            crate::names::doc_line(&p.producer)
        );
    }
    let others = points.len() - clean.len();
    if others > 0 {
        let _ = writeln!(
            s,
            "  ({others} other tensors have tails with ops onnx-aot does not compile)"
        );
    }
    s
}
