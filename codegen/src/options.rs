//! What the user asks of the generator besides the model bytes.

use std::collections::BTreeMap;

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
        self.dims.insert(name.into(), value);
        self
    }

    /// Freezes a graph input to constant elements (row-major).
    pub fn input(mut self, name: impl Into<String>, values: Vec<Scalar>) -> Self {
        self.inputs.insert(name.into(), values);
        self
    }

    /// Makes a graph input that is also an initializer a run-time input.
    pub fn free(mut self, name: impl Into<String>) -> Self {
        self.free.insert(name.into());
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
