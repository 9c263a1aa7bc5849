//! The graph's outputs, the declared types of outputs and intermediates checked against
//! inference, and the totals of inputs, outputs and scratch memory checked against the size a
//! struct may have.

use std::collections::BTreeSet;

use super::Loader;
use crate::dtype::DType;
use crate::error::{Error, Errors};
use crate::ir::{Graph, Output, Source, ValueId};
use crate::limits::{MAX_CONSTANT_BYTES, MAX_INTERFACE_TENSORS, MAX_NODES, MAX_TENSOR_BYTES};
use crate::messages::{dim_key, option_name, Binding};
use crate::onnx;

impl Loader<'_> {
    /// The graph outputs, each found among the values.
    pub(super) fn outputs(&mut self, graph: &onnx::GraphProto) -> Vec<Output> {
        let mut outputs = Vec::new();
        let mut seen = BTreeSet::new();
        if graph.output.is_empty() {
            self.errors
                .model("the graph has no outputs; declare at least one graph output");
        }
        for vi in &graph.output {
            if !seen.insert(vi.name.clone()) {
                self.errors.model(format!(
                    "graph output {:?} is listed twice; output names must be unique",
                    vi.name
                ));
                continue;
            }
            match self.by_name.get(&vi.name) {
                Some(&id) => outputs.push(Output {
                    name: vi.name.clone(),
                    value: id,
                }),
                None => {
                    if !self.errors.is_empty() {
                        // Most likely its producer failed and was reported already.
                        continue;
                    }
                    self.errors.model(format!(
                        "graph output {:?} is produced by no node, input or initializer",
                        vi.name
                    ))
                }
            }
        }
        outputs
    }

    /// Checks declared types of outputs and intermediates against inference.
    pub(super) fn declared(&mut self, graph: &onnx::GraphProto) {
        for (vi, role) in graph
            .output
            .iter()
            .map(|v| (v, "graph output"))
            .chain(graph.value_info.iter().map(|v| (v, "value_info")))
        {
            let Some(&id) = self.by_name.get(&vi.name) else {
                continue;
            };
            if self.unresolved.contains(&id) {
                continue;
            }
            let Some(tt) = vi.r#type.as_ref().and_then(|t| t.tensor_type.as_ref()) else {
                continue;
            };
            let value = &self.values[id];
            let what = format!("{role} {:?}", vi.name);
            if tt.elem_type != 0 && DType::from_onnx(tt.elem_type) != Some(value.dtype) {
                let message = format!(
                    "{what} is declared as {} but computes {}; fix the declaration in the model",
                    onnx::data_type::name(tt.elem_type),
                    value.dtype
                );
                self.errors.model(message);
                continue;
            }
            let Some(shape) = tt.shape.as_ref() else {
                continue;
            };
            let declared: Vec<String> = shape
                .dim
                .iter()
                .map(|d| match (d.dim_value, d.dim_param.as_deref()) {
                    (Some(v), _) => v.to_string(),
                    (None, Some(p)) if !p.is_empty() => p.to_string(),
                    _ => "?".to_string(),
                })
                .collect();
            let mut agree = shape.dim.len() == value.shape.len();
            let mut bound_dims = Vec::new();
            for (d, &actual) in shape.dim.iter().zip(&value.shape) {
                match (d.dim_value, d.dim_param.as_deref()) {
                    (Some(v), _) => agree &= usize::try_from(v).ok() == Some(actual),
                    (None, Some(p)) if !p.is_empty() => {
                        if let Some(&bound) = self.options.dims.get(p) {
                            agree &= bound == actual;
                            let binding = format!("{} = {bound}", dim_key(p));
                            if !bound_dims.contains(&binding) {
                                bound_dims.push(binding);
                            }
                        }
                    }
                    _ => {}
                }
            }
            if !agree {
                let or_dims = if bound_dims.is_empty() {
                    String::new()
                } else {
                    format!(
                        " (or the {} bound with {}: {})",
                        if bound_dims.len() == 1 {
                            "size"
                        } else {
                            "sizes"
                        },
                        option_name(&self.options.frontend, Binding::Dims),
                        bound_dims.join(", ")
                    )
                };
                let message = format!(
                    "{what} is declared with shape [{}] but shape inference gives {:?}; fix the \
                     declared shape in the model{or_dims}",
                    declared.join(", "),
                    value.shape
                );
                self.errors.model(message);
            }
        }
    }
}

/// The bytes of a value, and the largest of some values for a message.
fn value_bytes(graph: &Graph, v: ValueId) -> u128 {
    graph.values[v].numel() as u128 * graph.values[v].dtype.size() as u128
}

fn largest(graph: &Graph, values: &mut [ValueId]) -> String {
    values.sort_by_key(|&v| std::cmp::Reverse(value_bytes(graph, v)));
    values
        .iter()
        .take(3)
        .map(|&v| {
            format!(
                "`{}` ({} bytes)",
                graph.values[v].name,
                value_bytes(graph, v)
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The nodes ([`MAX_NODES`]), run-time inputs and outputs ([`MAX_INTERFACE_TENSORS`]) of the
/// final graph stay within what rustc builds in reasonable memory.
fn check_counts(graph: &Graph) -> Result<(), Errors> {
    let mut errors = Errors::new();
    for (what, count, limit, fix) in [
        (
            "nodes",
            graph.nodes.len(),
            MAX_NODES,
            "compile part of it (a graph cut: `start` and `outputs`)",
        ),
        (
            "run-time graph inputs",
            graph.inputs.len(),
            MAX_INTERFACE_TENSORS,
            "freeze some of them to constants (`inputs`) or cut the graph (`start`)",
        ),
        (
            "graph outputs",
            graph.outputs.len(),
            MAX_INTERFACE_TENSORS,
            "keep only the outputs you read (`outputs`)",
        ),
    ] {
        if count > limit {
            errors.model(format!(
                "the model has {count} {what}, beyond the {limit} onnx-aot generates code for \
                 (rustc would need gigabytes of memory to build more; see the README's Limits); \
                 {fix}, or split the model"
            ));
        }
    }
    // Constants read at run time (a node's data input or a graph output).
    let mut read = vec![false; graph.values.len()];
    for n in &graph.nodes {
        read[n.input] = true;
    }
    for o in &graph.outputs {
        read[o.value] = true;
    }
    let constant_bytes: u128 = (0..graph.values.len())
        .filter(|&v| read[v] && matches!(graph.values[v].source, Source::Constant(_)))
        .map(|v| value_bytes(graph, v))
        .sum();
    if constant_bytes > MAX_CONSTANT_BYTES as u128 {
        errors.model(format!(
            "the constants read at run time hold {constant_bytes} bytes, beyond the \
             {MAX_CONSTANT_BYTES} onnx-aot embeds in generated code (rustc decodes them while \
             it compiles, about 13 s per megabyte; see the README's Limits); make the largest \
             run-time inputs instead (`free` for an initializer listed as a graph input), or \
             split the model"
        ));
    }
    errors.finish(())
}

/// The scratch memory of the final graph (fused and in the order it runs) must stay within the
/// size an array may have.
pub(super) fn check_scratch(graph: &Graph) -> Result<(), Errors> {
    check_counts(graph)?;
    let plan = crate::memory::plan_memory(graph);
    if plan.scratch_bytes < MAX_TENSOR_BYTES {
        return Ok(());
    }
    let mut alive: Vec<ValueId> = plan.slots.keys().copied().collect();
    Err(Error::model(format!(
        "the intermediate values alive at once need {} bytes of scratch memory, beyond the \
         size an array may have (2^61 bytes on 64-bit targets), though each fits; the largest \
         are {}; give them smaller dimensions (and check the values bound in `dims`), or split \
         the model so that fewer large values are alive together",
        plan.scratch_bytes,
        largest(graph, &mut alive)
    ))
    .into())
}

/// The generated module declares the inputs and the outputs as one struct each; each must stay
/// within the size an array may have, not only each tensor.
pub(super) fn check_totals(graph: &Graph, errors: &mut Errors) {
    let mut inputs = graph.inputs.clone();
    let mut outputs: Vec<ValueId> = graph.outputs.iter().map(|o| o.value).collect();
    for (what, values) in [("inputs", &mut inputs), ("outputs", &mut outputs)] {
        let total: u128 = values.iter().map(|&v| value_bytes(graph, v)).sum();
        if total >= MAX_TENSOR_BYTES {
            errors.model(format!(
                "the graph's {what} together need {total} bytes, beyond the size a struct \
                 may have (2^61 bytes on 64-bit targets), though each fits; the largest are \
                 {}; give them smaller dimensions (and check the values bound in `dims`)",
                largest(graph, values)
            ));
        }
    }
}
