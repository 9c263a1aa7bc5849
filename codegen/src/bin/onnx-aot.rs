//! `onnx-aot`: print the Rust module generated for an ONNX model, or summarize the model.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Arg, ArgAction, ArgMatches};
use onnx_aot_codegen::options::Frontend;
use onnx_aot_codegen::{analyze, generate_pretty, inspect, Options, Scalar};

/// The parser, written with clap's builder (its derive would compile a second `syn` major).
fn cli() -> clap::Command {
    let model = |name: &'static str, about: &'static str| {
        let many = |id: &'static str, long: &'static str, value: &'static str, help| {
            Arg::new(id)
                .long(long)
                .value_name(value)
                .action(ArgAction::Append)
                .help(help)
        };
        clap::Command::new(name)
            .about(about)
            .arg(
                Arg::new("model")
                    .required(true)
                    .value_name("MODEL")
                    .value_parser(clap::value_parser!(PathBuf))
                    .help("The .onnx file"),
            )
            .arg(
                Arg::new("name")
                    .long("name")
                    .value_name("NAME")
                    .help("The module name (default: the file stem)"),
            )
            .arg(many(
                "dims",
                "dims",
                "NAME=SIZE",
                "Bind a symbolic dimension: NAME=SIZE (repeatable)",
            ))
            .arg(many(
                "inputs",
                "inputs",
                "NAME=VALUES",
                "Freeze a graph input: NAME=V1,V2,... in row-major order (repeatable)",
            ))
            .arg(many(
                "free",
                "free",
                "FREE",
                "Make an initializer-backed graph input a run-time input (repeatable)",
            ))
            .arg(many(
                "start",
                "start",
                "NAME[:TYPE[DIMS]]",
                "Start a graph cut at a tensor computed inside the model: NAME, or \
                 NAME:TYPE[DIMS] such as 'scores:f32[1,84,8400]' (repeatable)",
            ))
            .arg(many(
                "outputs",
                "output",
                "NAME",
                "Keep only this tensor as an output (repeatable, in order)",
            ))
            .arg(
                Arg::new("crate")
                    .long("crate")
                    .value_name("PATH")
                    .help("The path of the runtime crate in generated code (default ::onnx_aot)"),
            )
            .arg(
                Arg::new("visibility")
                    .long("visibility")
                    .value_name("VIS")
                    .help("The module's visibility: pub (default), pub(crate), or '' (private)"),
            )
    };
    clap::Command::new("onnx-aot")
        .version(env!("CARGO_PKG_VERSION"))
        .about(
            "Compile ONNX max-family models (ArgMax, ArgMin, ReduceMax, ReduceMin, Hardmax) to \
             Rust",
        )
        .subcommand_required(true)
        .arg_required_else_help(true)
        .subcommand(model(
            "emit",
            "Print the formatted Rust module generated for MODEL",
        ))
        .subcommand(model(
            "inspect",
            "Print the nodes, ops, versions, shapes, types and memory of MODEL",
        ))
}

enum Command {
    Emit(Model),
    Inspect(Model),
}

/// The arguments of `emit` and `inspect`.
struct Model {
    model: PathBuf,
    name: Option<String>,
    dims: Vec<String>,
    inputs: Vec<String>,
    free: Vec<String>,
    start: Vec<String>,
    outputs: Vec<String>,
    krate: Option<String>,
    visibility: Option<String>,
}

impl Model {
    fn from_matches(m: &ArgMatches) -> Model {
        let all = |id: &str| -> Vec<String> {
            m.get_many::<String>(id)
                .map(|v| v.cloned().collect())
                .unwrap_or_default()
        };
        Model {
            model: m.get_one::<PathBuf>("model").cloned().unwrap_or_default(),
            name: m.get_one::<String>("name").cloned(),
            dims: all("dims"),
            inputs: all("inputs"),
            free: all("free"),
            start: all("start"),
            outputs: all("outputs"),
            krate: m.get_one::<String>("crate").cloned(),
            visibility: m.get_one::<String>("visibility").cloned(),
        }
    }
}

fn options(m: &Model) -> Result<Options, String> {
    let stem = m
        .model
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned());
    let mut o = Options::new(m.name.clone().or(stem).unwrap_or_else(|| "model".into()))
        .source_name(format!("`{}`", m.model.display()))
        .frontend(Frontend::Cli);
    if let Some(path) = &m.krate {
        if syn::parse_str::<syn::Path>(path).is_err() {
            return Err(format!(
                "--crate {path:?}: not a Rust path; give the name the crate depends on onnx-aot \
                 under, e.g. --crate rt"
            ));
        }
        o.runtime_path.clone_from(path);
    }
    if let Some(vis) = &m.visibility {
        if !vis.trim().is_empty() && syn::parse_str::<syn::Visibility>(vis).is_err() {
            return Err(format!(
                "--visibility {vis:?}: not a Rust visibility; give pub, pub(crate) or ''"
            ));
        }
        o.visibility.clone_from(vis);
    }
    for d in &m.dims {
        let (name, size) = d
            .split_once('=')
            .ok_or_else(|| format!("--dims {d:?}: expected NAME=SIZE, e.g. --dims batch=4"))?;
        let size = size
            .trim()
            .parse()
            .map_err(|_| format!("--dims {d:?}: {size:?} is not a non-negative integer"))?;
        o = o.dim(name.trim(), size);
    }
    for i in &m.inputs {
        let (name, values) = i.split_once('=').ok_or_else(|| {
            format!("--inputs {i:?}: expected NAME=V1,V2,..., e.g. --inputs axes=1")
        })?;
        let parsed: Result<Vec<Scalar>, String> = values
            .split(',')
            .filter(|v| !v.trim().is_empty())
            .map(|v| {
                Scalar::parse(v).ok_or_else(|| {
                    if v.trim().parse::<f64>().is_ok_and(f64::is_infinite) {
                        format!(
                            "--inputs {i:?}: {v:?} is beyond the range of f64; write `inf` or \
                             `-inf` for an infinity"
                        )
                    } else {
                        format!("--inputs {i:?}: {v:?} is not a number or bool")
                    }
                })
            })
            .collect();
        o = o.input(name.trim(), parsed?);
    }
    for f in &m.free {
        o = o.free(f.clone());
    }
    for s in &m.start {
        let start = onnx_aot_codegen::Start::parse(s).map_err(|e| format!("--start {s:?}: {e}"))?;
        o.start.push(start);
    }
    for out in &m.outputs {
        o = o.output(out.clone());
    }
    Ok(o)
}

/// Why a run failed: a malformed option value (a usage error, exit status 2, as clap's own), or
/// the model (exit status 1).
enum Failure {
    Usage(String),
    Model(String),
}

impl From<String> for Failure {
    fn from(e: String) -> Self {
        Failure::Model(e)
    }
}

fn run(command: &Command) -> Result<String, Failure> {
    let (Command::Emit(m) | Command::Inspect(m)) = command;
    let o = options(m).map_err(Failure::Usage)?;
    let bytes = onnx_aot_codegen::model_file::read_model_file(&m.model)?;
    match command {
        Command::Emit(_) => generate_pretty(&bytes, &o).map_err(|e| Failure::Model(e.to_string())),
        Command::Inspect(_) => {
            // Where a cut can start, even (above all) when the whole model does not compile.
            let points = onnx_aot_codegen::load::decode(&bytes, &o.source_name)
                .map(|m| inspect::cut_points_text(&inspect::cut_points(&m)))
                .unwrap_or_default();
            let summary = generate_pretty(&bytes, &o).and_then(|code| {
                analyze(&bytes, &o).map(|graph| inspect::summary(&graph, code.len()))
            });
            match summary {
                Ok(text) => Ok(format!("{text}{points}")),
                Err(e) if points.is_empty() => Err(Failure::Model(e.to_string())),
                Err(e) => Err(Failure::Model(format!("{e}\n\n{points}"))),
            }
        }
    }
}

fn main() -> ExitCode {
    let command = match cli().get_matches().subcommand() {
        Some(("emit", m)) => Command::Emit(Model::from_matches(m)),
        Some((_, m)) => Command::Inspect(Model::from_matches(m)),
        // `subcommand_required` has clap exit with a usage error before this.
        None => return ExitCode::from(2),
    };
    match run(&command) {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(failure) => {
            let (e, status) = match failure {
                Failure::Usage(e) => (e, ExitCode::from(2)),
                Failure::Model(e) => (e, ExitCode::FAILURE),
            };
            let e = if e.starts_with("error") {
                e
            } else {
                format!("error: {e}")
            };
            eprintln!("{e}");
            status
        }
    }
}
