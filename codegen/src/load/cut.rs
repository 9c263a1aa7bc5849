//! Graph cuts (`start` and `outputs`), applied to the decoded model before anything is checked:
//! the tensors named in `start` become graph inputs, the tensors named in `outputs` (or the
//! graph's own outputs) the graph outputs, and only the nodes between them are kept. Every other
//! node is dropped whatever its op or domain: it was decoded, never checked or compiled.

use std::collections::{BTreeSet, HashMap, HashSet};

use crate::dtype::DType;
use crate::error::{Blame, Error, Errors};
use crate::messages::{did_you_mean, option_name, typed_start_fix, Binding};
use crate::onnx::{self, GraphProto, ModelProto, ValueInfoProto};
use crate::options::{DimSpec, Options, Start};

/// The model with the cut applied, or the model itself when the options ask for none.
pub(crate) fn apply(model: ModelProto, options: &Options) -> Result<ModelProto, Errors> {
    if options.start.is_empty() && options.outputs.is_none() {
        return Ok(model);
    }
    let Some(graph) = model.graph.as_ref() else {
        return Ok(model);
    };
    let mut errors = Errors::new();
    let graph = Cut::new(graph, options, &mut errors).graph(&mut errors);
    errors.finish(ModelProto {
        graph: Some(graph),
        ..model
    })
}

/// What the cut knows of the graph.
struct Cut<'g> {
    graph: &'g GraphProto,
    options: &'g Options,
    /// The node computing each tensor (the first, if several claim it: the loader reports that).
    producer: HashMap<&'g str, usize>,
    /// Graph inputs and initializers.
    given: HashSet<&'g str>,
    starts: Vec<&'g Start>,
}

impl<'g> Cut<'g> {
    fn new(graph: &'g GraphProto, options: &'g Options, errors: &mut Errors) -> Self {
        let mut producer = HashMap::new();
        for (k, node) in graph.node.iter().enumerate() {
            for out in node.output.iter().filter(|o| !o.is_empty()) {
                producer.entry(out.as_str()).or_insert(k);
            }
        }
        let given = graph
            .input
            .iter()
            .map(|v| v.name.as_str())
            .chain(graph.initializer.iter().map(|t| t.name.as_str()))
            .collect();
        let mut cut = Cut {
            graph,
            options,
            producer,
            given,
            starts: Vec::new(),
        };
        cut.check_starts(errors);
        cut
    }

    /// Every tensor name of the graph, for suggestions.
    fn names(&self) -> BTreeSet<&'g str> {
        self.producer
            .keys()
            .copied()
            .chain(self.given.iter().copied())
            .collect()
    }

    fn check_starts(&mut self, errors: &mut Errors) {
        let option = option_name(&self.options.frontend, Binding::Start);
        let mut seen = HashSet::new();
        for start in &self.options.start {
            if !seen.insert(start.name.as_str()) {
                errors.push(start_error(
                    &start.name,
                    format!(
                        "start tensor {:?} is listed twice in {option}; list it once",
                        start.name
                    ),
                ));
            } else if self.given.contains(start.name.as_str()) {
                errors.push(start_error(
                    &start.name,
                    format!(
                        "start tensor {:?} is already a graph input or initializer, not computed \
                         inside the graph; remove it from {option}",
                        start.name
                    ),
                ));
            } else if !self.producer.contains_key(start.name.as_str()) {
                errors.push(start_error(
                    &start.name,
                    format!(
                        "start tensor {:?} is not a tensor of the graph: {option} takes \
                         tensors that nodes compute (`onnx-aot inspect MODEL` lists them){}",
                        start.name,
                        did_you_mean(&start.name, self.names())
                    ),
                ));
            } else {
                self.starts.push(start);
            }
        }
    }

    /// The names of the kept outputs, checked.
    fn outputs(&self, errors: &mut Errors) -> Vec<&'g str> {
        let Some(wanted) = self.options.outputs.as_ref() else {
            return self.graph.output.iter().map(|v| v.name.as_str()).collect();
        };
        let option = option_name(&self.options.frontend, Binding::Outputs);
        let mut kept = Vec::new();
        for name in wanted {
            let known = self
                .producer
                .get_key_value(name.as_str())
                .map(|(k, _)| *k)
                .or_else(|| self.given.get(name.as_str()).copied());
            match known {
                Some(k) if kept.contains(&k) => errors.push(output_error(
                    name,
                    format!("output {name:?} is listed twice in {option}; list it once"),
                )),
                Some(k) => kept.push(k),
                None => errors.push(output_error(
                    name,
                    format!(
                        "output {name:?} is not a tensor of the graph: {option} takes any \
                         tensor of the graph (`onnx-aot inspect MODEL` lists them){}",
                        did_you_mean(name, self.names())
                    ),
                )),
            }
        }
        if wanted.is_empty() {
            errors.model(format!(
                "{option} is empty; name at least one tensor to keep as an output"
            ));
        }
        kept
    }

    /// The cut graph (with whatever could be kept when there were errors).
    fn graph(&self, errors: &mut Errors) -> GraphProto {
        let outputs = self.outputs(errors);
        let start_names: HashSet<&str> = self.starts.iter().map(|s| s.name.as_str()).collect();
        // Walk back from the outputs, stopping at start tensors, inputs and initializers.
        let mut needed_nodes = vec![false; self.graph.node.len()];
        let mut reached: HashSet<&str> = HashSet::new();
        let mut stack: Vec<&str> = outputs.clone();
        while let Some(name) = stack.pop() {
            if name.is_empty() || !reached.insert(name) || start_names.contains(name) {
                continue;
            }
            if let Some(&k) = self.producer.get(name) {
                if !needed_nodes[k] {
                    needed_nodes[k] = true;
                    stack.extend(self.graph.node[k].input.iter().map(String::as_str));
                }
            }
        }
        self.check_reached(&start_names, &reached, &needed_nodes, &outputs, errors);
        let mut inputs: Vec<ValueInfoProto> = self
            .graph
            .input
            .iter()
            .filter(|v| reached.contains(v.name.as_str()))
            .cloned()
            .collect();
        for start in &self.starts {
            if let Some(vi) = self.start_value(start, errors) {
                inputs.push(vi);
            }
        }
        let nodes = self
            .graph
            .node
            .iter()
            .zip(&needed_nodes)
            .filter(|(_, &keep)| keep)
            .map(|(n, _)| n.clone())
            .collect();
        let initializers = self
            .graph
            .initializer
            .iter()
            .filter(|t| reached.contains(t.name.as_str()))
            .cloned()
            .collect();
        let output = outputs.iter().map(|name| self.declared(name)).collect();
        GraphProto {
            node: nodes,
            initializer: initializers,
            input: inputs,
            output,
            ..self.graph.clone()
        }
    }

    /// Start tensors nothing kept reads, or whose producer is still needed for another tensor.
    fn check_reached(
        &self,
        starts: &HashSet<&str>,
        reached: &HashSet<&str>,
        needed: &[bool],
        outputs: &[&str],
        errors: &mut Errors,
    ) {
        let option = option_name(&self.options.frontend, Binding::Start);
        for start in &self.starts {
            let name = start.name.as_str();
            if !reached.contains(name) {
                errors.push(start_error(
                    name,
                    format!(
                        "start tensor {name:?} is not needed by the outputs {outputs:?}: nothing \
                         kept reads it; remove it from {option}, or keep an output computed \
                         from it"
                    ),
                ));
                continue;
            }
            let Some(&k) = self.producer.get(name) else {
                continue;
            };
            if needed[k] {
                let node = &self.graph.node[k];
                let others: Vec<&str> = node
                    .output
                    .iter()
                    .map(String::as_str)
                    .filter(|o| *o != name && reached.contains(o) && !starts.contains(o))
                    .collect();
                errors.push(start_error(
                    name,
                    format!(
                        "start tensor {name:?} is computed by node {k} {:?} ({}), which is still \
                         needed upstream for {others:?}; add {others:?} to {option} too, or \
                         start the cut above that node",
                        node.name, node.op_type
                    ),
                ));
            }
        }
    }

    /// The declared type of a tensor in the file: graph outputs, value_info, then graph inputs.
    fn file_type(&self, name: &str) -> Option<&'g ValueInfoProto> {
        self.graph
            .output
            .iter()
            .chain(&self.graph.value_info)
            .chain(&self.graph.input)
            .find(|v| v.name == name && tensor_type(v).is_some())
    }

    /// A kept output as declared in the file, or by name alone (its type is then inferred).
    fn declared(&self, name: &str) -> ValueInfoProto {
        self.file_type(name).cloned().unwrap_or(ValueInfoProto {
            name: name.to_string(),
            r#type: None,
            doc_string: String::new(),
        })
    }

    /// The graph input a start tensor becomes: its type from the user, from the file, or both
    /// when they agree.
    fn start_value(&self, start: &Start, errors: &mut Errors) -> Option<ValueInfoProto> {
        let file = self.file_type(&start.name);
        let Some((dtype, dims)) = start.declared.as_ref() else {
            if file
                .and_then(tensor_type)
                .is_some_and(|t| t.shape.is_some())
            {
                return file.cloned();
            }
            let example = suggest_type(file);
            errors.push(start_error(
                &start.name,
                format!(
                    "start tensor {:?} has no {} in the file; write it after the name: {}",
                    start.name,
                    if file.is_some() {
                        "shape"
                    } else {
                        "type or shape"
                    },
                    typed_start_fix(&self.options.frontend, &start.name, &example)
                ),
            ));
            return None;
        };
        if let Some(tt) = file.and_then(tensor_type) {
            if let Some(message) = disagreement(&start.name, tt, *dtype, dims) {
                errors.push(start_error(&start.name, message));
                return None;
            }
        }
        Some(value_info(&start.name, *dtype, dims))
    }
}

/// An error about a start tensor, reported against its name in the user's options.
fn start_error(name: &str, message: String) -> Error {
    Error::with_blame(message, Blame::Start(name.to_string()))
}

/// An error about a kept output, reported against its name in the user's options.
fn output_error(name: &str, message: String) -> Error {
    Error::with_blame(message, Blame::Output(name.to_string()))
}

fn tensor_type(v: &ValueInfoProto) -> Option<&onnx::TensorTypeProto> {
    v.r#type.as_ref().and_then(|t| t.tensor_type.as_ref())
}

/// A type to show in the fix when the file says too little.
fn suggest_type(file: Option<&ValueInfoProto>) -> String {
    let dtype = file
        .and_then(tensor_type)
        .and_then(|t| DType::from_onnx(t.elem_type))
        .unwrap_or(DType::F32);
    format!("{}[..dims..]", dtype.rust_name())
}

/// Why the user's type of a start tensor disagrees with the file's, if it does.
fn disagreement(
    name: &str,
    file: &onnx::TensorTypeProto,
    dtype: DType,
    dims: &[DimSpec],
) -> Option<String> {
    if file.elem_type != 0 && DType::from_onnx(file.elem_type) != Some(dtype) {
        return Some(format!(
            "start tensor {name:?} is written as {} but the file declares {}; write {} or \
             leave the type out",
            dtype.rust_name(),
            onnx::data_type::name(file.elem_type),
            DType::from_onnx(file.elem_type).map_or("its type", |t| t.rust_name())
        ));
    }
    let shape = file.shape.as_ref()?;
    if shape.dim.len() != dims.len() {
        return Some(format!(
            "start tensor {name:?} is written with {} dimensions but the file declares {}; \
             fix the shape or leave it out",
            dims.len(),
            shape.dim.len()
        ));
    }
    for (i, (d, spec)) in shape.dim.iter().zip(dims).enumerate() {
        if let (Some(v), DimSpec::Fixed(n)) = (d.dim_value, spec) {
            if usize::try_from(v).ok() != Some(*n) {
                return Some(format!(
                    "start tensor {name:?}: dimension {i} is written as {n} but the file \
                     declares {v}; write {v} or leave the shape out"
                ));
            }
        }
    }
    None
}

/// A graph input of the given type and shape (symbols as `dim_param`).
fn value_info(name: &str, dtype: DType, dims: &[DimSpec]) -> ValueInfoProto {
    let dim = dims
        .iter()
        .map(|d| match d {
            DimSpec::Fixed(n) => onnx::Dimension {
                dim_value: Some(i64::try_from(*n).unwrap_or(i64::MAX)),
                dim_param: None,
            },
            DimSpec::Symbol(s) => onnx::Dimension {
                dim_value: None,
                dim_param: Some(s.clone()),
            },
        })
        .collect();
    ValueInfoProto {
        name: name.to_string(),
        r#type: Some(onnx::TypeProto {
            tensor_type: Some(onnx::TensorTypeProto {
                elem_type: dtype.onnx_code(),
                shape: Some(onnx::TensorShapeProto { dim }),
            }),
            sequence_type: None,
            map_type: None,
            sparse_tensor_type: None,
            optional_type: None,
        }),
        doc_string: String::new(),
    }
}
