//! The build-script API: generate a model's module into `OUT_DIR` and `include!` it.
//!
//! In `build.rs`:
//!
//! ```no_run
//! onnx_aot_codegen::Builder::new("models/top1.onnx")
//!     .module_name("top1")
//!     .write()
//!     .unwrap_or_else(|e| panic!("{e}"));
//! ```
//!
//! and in the crate: `include!(concat!(env!("OUT_DIR"), "/top1.rs"));`.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::options::Frontend;
use crate::{generate_pretty, Errors, Options, Scalar};

/// Generates a model's module into a file, for build scripts.
///
/// In `build.rs` (with `onnx-aot-codegen` in `[build-dependencies]`):
///
/// ```no_run
/// onnx_aot_codegen::Builder::new("models/head.onnx") // relative to CARGO_MANIFEST_DIR
///     .module_name("head")
///     .dim("batch", 2)
///     .input("axes", [1i64])
///     .write() // OUT_DIR/head.rs, and cargo:rerun-if-changed for the model
///     .unwrap_or_else(|e| panic!("{e}"));
/// ```
///
/// and in the crate, which depends on the runtime `onnx-aot` of the same version:
/// `include!(concat!(env!("OUT_DIR"), "/head.rs"));`. Outside a build script, name the file:
///
/// ```
/// let dir = std::env::temp_dir().join("onnx-aot-builder-doc");
/// std::fs::create_dir_all(&dir).unwrap();
/// let model = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/head.onnx");
/// let written = onnx_aot_codegen::Builder::new(model)
///     .dim("batch", 2)
///     .input("axes", [1i64])
///     .out_file(dir.join("head.rs"))
///     .write()
///     .unwrap();
/// assert!(std::fs::read_to_string(written).unwrap().contains("pub mod head {"));
///
/// // Errors say what is wrong and how to fix it: here the unbound `batch`.
/// let err = onnx_aot_codegen::Builder::new(model)
///     .input("axes", [1i64])
///     .out_file(dir.join("unbound.rs"))
///     .write()
///     .unwrap_err();
/// assert!(err.to_string().contains("unbound symbolic dimension"), "{err}");
/// ```
#[derive(Clone, Debug)]
pub struct Builder {
    model: PathBuf,
    options: Options,
    out_file: Option<PathBuf>,
    /// Arguments that could not be parsed, reported by `write`.
    malformed: Vec<String>,
}

/// Why [`Builder::write`] failed.
#[derive(Debug)]
pub enum BuildError {
    /// The model file could not be read.
    Read(PathBuf, std::io::Error),
    /// The model or the options have errors.
    Model(PathBuf, Errors),
    /// No output file was given and `OUT_DIR` is not set (not running in a build script).
    NoOutDir,
    /// The output file could not be written.
    Write(PathBuf, std::io::Error),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Read(p, e) => write!(f, "cannot read model file {}: {e}", p.display()),
            BuildError::Model(p, e) => write!(f, "in model {}:\n{e}", p.display()),
            BuildError::NoOutDir => f.write_str(
                "OUT_DIR is not set: call Builder::write from a build script, or set out_file",
            ),
            BuildError::Write(p, e) => write!(f, "cannot write {}: {e}", p.display()),
        }
    }
}

impl std::error::Error for BuildError {}

impl Builder {
    /// A builder for a model; a relative path is taken from `CARGO_MANIFEST_DIR` when set.
    /// The module is named after the file stem unless [`Builder::module_name`] says otherwise.
    pub fn new(model: impl AsRef<Path>) -> Self {
        let model = model.as_ref();
        let resolved = match std::env::var_os("CARGO_MANIFEST_DIR") {
            Some(dir) if model.is_relative() => PathBuf::from(dir).join(model),
            _ => model.to_path_buf(),
        };
        let stem = model.file_stem().map(|s| s.to_string_lossy().into_owned());
        let options = Options::new(crate::names::sanitize(stem.as_deref().unwrap_or("model")))
            .source_name(format!("model file `{}`", model.display()))
            .frontend(Frontend::Builder);
        Builder {
            model: resolved,
            options,
            out_file: None,
            malformed: Vec::new(),
        }
    }

    /// The name of the generated module (`pub mod NAME`); the output file is `NAME.rs`.
    pub fn module_name(mut self, name: impl Into<String>) -> Self {
        self.options.module_name = name.into();
        self
    }

    /// Binds a symbolic dimension.
    pub fn dim(mut self, name: impl Into<String>, size: usize) -> Self {
        self.options = self.options.dim(name, size);
        self
    }

    /// Freezes a graph input to constant elements (row-major).
    pub fn input<S: Into<Scalar>>(
        mut self,
        name: impl Into<String>,
        values: impl IntoIterator<Item = S>,
    ) -> Self {
        self.options = self
            .options
            .input(name, values.into_iter().map(Into::into).collect());
        self
    }

    /// Makes an initializer-backed graph input a run-time input.
    pub fn free(mut self, name: impl Into<String>) -> Self {
        self.options = self.options.free(name);
        self
    }

    /// Starts a graph cut at `name`, a tensor computed inside the model: it becomes a run-time
    /// input (type and shape from the file), and the nodes that only serve to compute it are
    /// dropped, whatever op or domain they are. `onnx-aot inspect MODEL` lists the candidates.
    pub fn start(mut self, name: impl Into<String>) -> Self {
        self.options = self.options.start(name);
        self
    }

    /// [`Builder::start`] with the type and shape written out, as `"f32[1, 84, 8400]"` or
    /// `"f32[batch, 10]"` (symbols bound with [`Builder::dim`]): required when the file declares
    /// none, checked against the file when it does. A malformed type is reported by
    /// [`Builder::write`].
    pub fn start_typed(mut self, name: impl Into<String>, ty: &str) -> Self {
        let name = name.into();
        match crate::options::parse_type(ty) {
            Ok((dtype, dims)) => self.options = self.options.start_as(name, dtype, dims),
            Err(e) => self
                .malformed
                .push(format!("Builder::start_typed({name:?}, {ty:?}): {e}")),
        }
        self
    }

    /// Keeps `name`, any tensor of the graph, as an output; once called, only the tensors named
    /// this way are outputs, in this order.
    pub fn output(mut self, name: impl Into<String>) -> Self {
        self.options = self.options.output(name);
        self
    }

    /// The path of the runtime crate in the crate that includes the module, when it depends
    /// on `onnx-aot` under another name (`rt = { package = "onnx-aot", .. }` gives `"rt"` or
    /// `"::rt"`); `::onnx_aot` by default. The macro's `crate = rt`.
    pub fn runtime_crate(mut self, path: impl Into<String>) -> Self {
        self.options.runtime_path = path.into();
        self
    }

    /// The visibility of the written module: `"pub"` (the default), `"pub(crate)"`, or `""`
    /// for a private one.
    pub fn visibility(mut self, visibility: impl Into<String>) -> Self {
        self.options.visibility = visibility.into();
        self
    }

    /// Writes to this file instead of `OUT_DIR/NAME.rs`.
    pub fn out_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.out_file = Some(path.into());
        self
    }

    /// The options that will be used (for inspection and tests).
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Generates the module, writes it, prints `cargo:rerun-if-changed` for the model, and
    /// returns the path written.
    pub fn write(mut self) -> Result<PathBuf, BuildError> {
        println!("cargo:rerun-if-changed={}", self.model.display());
        let name = &self.options.module_name;
        if crate::names::sanitize(name) != *name {
            self.malformed.push(format!(
                "Builder::module_name({name:?}) is not a Rust module name (it would be written \
                 as `{}`); give a snake_case name that is not a keyword, e.g. {:?}",
                crate::names::sanitize(name),
                format!(
                    "{}_model",
                    crate::names::sanitize(name).trim_end_matches('_')
                )
            ));
        }
        let runtime = &self.options.runtime_path;
        if syn::parse_str::<syn::Path>(runtime).is_err() {
            self.malformed.push(format!(
                "Builder::runtime_crate({runtime:?}) is not a Rust path; give the name the \
                 crate depends on onnx-aot under, e.g. \"rt\" or \"::onnx_aot\""
            ));
        }
        if !self.malformed.is_empty() {
            let mut errors = Errors::new();
            for m in &self.malformed {
                errors.model(m.clone());
            }
            return Err(BuildError::Model(self.model.clone(), errors));
        }
        let bytes = crate::model_file::read_model_file(&self.model)
            .map_err(|e| BuildError::Read(self.model.clone(), std::io::Error::other(e)))?;
        let code = generate_pretty(&bytes, &self.options)
            .map_err(|e| BuildError::Model(self.model.clone(), e))?;
        let out = match self.out_file {
            Some(p) => p,
            None => {
                let dir = std::env::var_os("OUT_DIR").ok_or(BuildError::NoOutDir)?;
                PathBuf::from(dir).join(format!(
                    "{}.rs",
                    crate::names::sanitize(&self.options.module_name)
                ))
            }
        };
        let unchanged = std::fs::read_to_string(&out).is_ok_and(|old| old == code);
        if !unchanged {
            std::fs::write(&out, code).map_err(|e| BuildError::Write(out.clone(), e))?;
        }
        Ok(out)
    }
}
