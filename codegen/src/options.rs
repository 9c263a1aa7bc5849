//! What the user asks of the generator besides the model bytes.

use std::collections::BTreeMap;

use crate::DType;

/// A scalar given by the user to freeze a graph input (`inputs: { axes = [1, -1] }`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    /// An integer literal.
    Int(i128),
    /// A floating-point literal (also `inf`, `-inf`, `nan` spelled as identifiers).
    Float(f64),
    /// `true` or `false`.
    Bool(bool),
}

/// A tensor where a graph cut starts: produced inside the graph, it becomes a run-time input,
/// and the nodes that only serve to produce it are dropped (see [`Options::start`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Start {
    /// The tensor's ONNX name.
    pub name: String,
    /// The element type and shape the user wrote after the name (`"t": f32[batch, 10]`): needed
    /// when the file declares none, checked against the file when it does.
    pub declared: Option<(DType, Vec<DimSpec>)>,
}

/// One dimension of a shape written by the user: a size, or a symbol bound in `dims`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DimSpec {
    /// A fixed size.
    Fixed(usize),
    /// A symbolic dimension, bound in `dims` like the model's own.
    Symbol(String),
}

impl Start {
    /// Parses a start tensor as written on a command line: `NAME` or `NAME:TYPE[DIMS]`
    /// (`scores:f32[1, 84, 8400]`, `t:f32[batch, 10]`). The type is split off at the last
    /// colon only when what follows it is a type and a shape, so names with colons
    /// (`Identity:0`) stay whole.
    pub fn parse(text: &str) -> Result<Start, String> {
        let text = text.trim();
        if let Some((name, spec)) = text.rsplit_once(':') {
            let spec = spec.trim();
            // `WORD[...]` after the colon is a type (a misspelled one is reported as such).
            let looks_typed = spec.ends_with(']')
                && spec.split_once('[').is_some_and(|(t, _)| {
                    let t = t.trim();
                    !t.is_empty() && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                });
            if looks_typed && !name.trim().is_empty() {
                return Ok(Start {
                    name: name.trim().to_string(),
                    declared: Some(parse_type(spec)?),
                });
            }
        }
        if text.is_empty() {
            return Err("a start tensor needs a name".to_string());
        }
        Ok(Start {
            name: text.to_string(),
            declared: None,
        })
    }
}

/// Parses a tensor type as the user writes it: `f32[1, 84, 8400]`, `i64[batch]`, `f32[]` (a
/// scalar); element types by their Rust names (`f32`, `bf16`, `bool`) or ONNX names (`FLOAT`).
pub fn parse_type(text: &str) -> Result<(DType, Vec<DimSpec>), String> {
    let fix = "write it like `f32[1, 84, 8400]` or `f32[batch, 10]`";
    let Some((ty, rest)) = text.trim().split_once('[') else {
        return Err(format!("{text:?} is not a tensor type; {fix}"));
    };
    let Some(dims) = rest.trim_end().strip_suffix(']') else {
        return Err(format!("{text:?} has no closing `]`; {fix}"));
    };
    let names: Vec<&str> = DType::ALL.iter().map(|t| t.rust_name()).collect();
    let Some(dtype) = DType::from_name(ty.trim()) else {
        let hint = crate::messages::closest(ty.trim(), names.iter().copied())
            .map_or(String::new(), |c| format!(" (did you mean `{c}`?)"));
        return Err(format!(
            "unknown element type `{}`{hint}; the types are {}",
            ty.trim(),
            names.join(", ")
        ));
    };
    let mut out = Vec::new();
    for d in dims.split(',').map(str::trim) {
        if d.is_empty() {
            if dims.trim().is_empty() {
                break;
            }
            return Err(format!("{text:?} has an empty dimension; {fix}"));
        }
        if d.chars().all(|c| c.is_ascii_digit()) {
            let n = d
                .parse::<usize>()
                .map_err(|_| format!("dimension {d} of {text:?} is too large"))?;
            out.push(DimSpec::Fixed(n));
        } else if d.starts_with(|c: char| c.is_alphabetic() || c == '_')
            && d.chars().all(|c| c.is_alphanumeric() || c == '_')
        {
            out.push(DimSpec::Symbol(d.to_string()));
        } else {
            return Err(format!(
                "dimension `{d}` of {text:?} is neither a size nor a symbol name; {fix}"
            ));
        }
    }
    Ok((dtype, out))
}

/// Which front end asked for the generation, so that messages say how to fix a problem in the
/// user's own terms (`dims: { batch = 1 }` in the macro, `.dim("batch", 1)` in a build script,
/// `--dims batch=1` on the command line).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Frontend {
    /// The library called directly ([`Options::dim`], [`Options::input`], [`Options::free`]).
    #[default]
    Library,
    /// The `onnx_aot::model!` macro; `path` is the model path as written in the call.
    Macro {
        /// The path literal of the macro call, e.g. `models/top1.onnx`.
        path: String,
    },
    /// The build-script API, [`crate::Builder`].
    Builder,
    /// The `onnx-aot` command line.
    Cli,
}

/// The options of one generation.
///
/// ```
/// use onnx_aot_codegen::{generate_pretty, Options};
///
/// let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/head.onnx")).unwrap();
/// let options = Options::new("head") // the module's name
///     .dim("batch", 2) // bind a symbolic dimension
///     .input("axes", vec![1i64.into()]); // freeze a graph input to a constant
/// let code = generate_pretty(&bytes, &options).unwrap();
/// assert!(code.contains("pub features: [[[f32; 8]; 4]; 2]"), "{code}");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// The name of the generated module (`pub mod NAME`); used in docs and messages.
    pub module_name: String,
    /// Values of symbolic dimensions, by `dim_param` name.
    pub dims: BTreeMap<String, usize>,
    /// Graph inputs frozen to constants, by ONNX name: the elements in row-major order.
    pub inputs: BTreeMap<String, Vec<Scalar>>,
    /// Graph inputs that are also initializers but should be run-time inputs (by ONNX name); by
    /// default such inputs are constants holding the initializer's value.
    pub free: std::collections::BTreeSet<String>,
    /// The path under which generated code reaches the runtime crate (default `::onnx_aot`).
    pub runtime_path: String,
    /// Where the model came from, for messages (a file path or any label).
    pub source_name: String,
    /// Which front end the options come from; only the wording of messages depends on it.
    pub frontend: Frontend,
    /// Tensors where a graph cut starts (run-time inputs instead of computed ones).
    pub start: Vec<Start>,
    /// The tensors kept as outputs, instead of the graph's own outputs.
    pub outputs: Option<Vec<String>>,
    /// Bindings given more than once (reported as errors: the last one does not silently win).
    pub repeated: Vec<Repeated>,
    /// The visibility of the module [`crate::generate`] writes (`pub`, `pub(crate)`, or empty
    /// for a private module); the macro uses the one written in the call.
    pub visibility: String,
}

/// A binding given twice, as the builders record it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Repeated {
    /// A dimension bound twice: its name, the first size and the second.
    Dim(String, usize, usize),
    /// A graph input frozen twice.
    Input(String),
    /// A name freed twice.
    Free(String),
}

impl Default for Options {
    fn default() -> Self {
        Options {
            module_name: "model".to_string(),
            dims: BTreeMap::new(),
            inputs: BTreeMap::new(),
            free: std::collections::BTreeSet::new(),
            runtime_path: "::onnx_aot".to_string(),
            source_name: "model".to_string(),
            frontend: Frontend::Library,
            start: Vec::new(),
            outputs: None,
            repeated: Vec::new(),
            visibility: "pub".to_string(),
        }
    }
}

impl Options {
    /// Options for a module of the given name, everything else default.
    pub fn new(module_name: impl Into<String>) -> Self {
        Options {
            module_name: module_name.into(),
            ..Options::default()
        }
    }

    /// Binds a symbolic dimension.
    pub fn dim(mut self, name: impl Into<String>, value: usize) -> Self {
        let name = name.into();
        if let Some(old) = self.dims.insert(name.clone(), value) {
            self.repeated.push(Repeated::Dim(name, old, value));
        }
        self
    }

    /// Freezes a graph input to constant elements (row-major).
    pub fn input(mut self, name: impl Into<String>, values: Vec<Scalar>) -> Self {
        let name = name.into();
        if self.inputs.insert(name.clone(), values).is_some() {
            self.repeated.push(Repeated::Input(name));
        }
        self
    }

    /// Makes a graph input that is also an initializer a run-time input.
    pub fn free(mut self, name: impl Into<String>) -> Self {
        let name = name.into();
        if !self.free.insert(name.clone()) {
            self.repeated.push(Repeated::Free(name));
        }
        self
    }

    /// Starts a graph cut at `name`, a tensor computed inside the graph: it becomes a run-time
    /// input with the type and shape the file declares for it, and the nodes that only serve to
    /// compute it are dropped, whatever op or domain they are.
    pub fn start(mut self, name: impl Into<String>) -> Self {
        self.start.push(Start {
            name: name.into(),
            declared: None,
        });
        self
    }

    /// [`Options::start`] with the element type and shape written out (required when the file
    /// declares none; checked against the file when it does).
    pub fn start_as(mut self, name: impl Into<String>, dtype: DType, dims: Vec<DimSpec>) -> Self {
        self.start.push(Start {
            name: name.into(),
            declared: Some((dtype, dims)),
        });
        self
    }

    /// Keeps `name` as an output (any tensor of the graph); once called, only the tensors named
    /// this way are outputs, in this order.
    pub fn output(mut self, name: impl Into<String>) -> Self {
        self.outputs.get_or_insert_with(Vec::new).push(name.into());
        self
    }

    /// Sets the front end that messages address (default [`Frontend::Library`]).
    pub fn frontend(mut self, frontend: Frontend) -> Self {
        self.frontend = frontend;
        self
    }

    /// Sets the label used for the model in messages.
    pub fn source_name(mut self, name: impl Into<String>) -> Self {
        self.source_name = name.into();
        self
    }
}

impl Scalar {
    /// Parses one literal as written on a command line: an integer, a float (also `inf`,
    /// `-inf`, `nan`), `true` or `false`.
    pub fn parse(text: &str) -> Option<Scalar> {
        let t = text.trim();
        match t {
            "true" => return Some(Scalar::Bool(true)),
            "false" => return Some(Scalar::Bool(false)),
            "inf" | "+inf" => return Some(Scalar::Float(f64::INFINITY)),
            "-inf" => return Some(Scalar::Float(f64::NEG_INFINITY)),
            "nan" => return Some(Scalar::Float(f64::NAN)),
            _ => {}
        }
        if let Ok(i) = t.parse::<i128>() {
            return Some(Scalar::Int(i));
        }
        t.parse::<f64>()
            .ok()
            .filter(|f| f.is_finite())
            .map(Scalar::Float)
    }
}

impl From<i64> for Scalar {
    fn from(v: i64) -> Self {
        Scalar::Int(v.into())
    }
}

impl From<f64> for Scalar {
    fn from(v: f64) -> Self {
        Scalar::Float(v)
    }
}

impl From<bool> for Scalar {
    fn from(v: bool) -> Self {
        Scalar::Bool(v)
    }
}
