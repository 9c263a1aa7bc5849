//! The user-facing wording shared by every stage: how nodes, ops and domains are named in
//! messages, how a fix is spelled in the user's own front end (macro, build script, command
//! line, library), and which known name a misspelled one most likely meant.
//!
//! Every message of the generator says what is wrong, where (node, tensor, option) and how to
//! fix it; the pieces that say "where" and "how" come from here so that they read the same
//! everywhere.

use crate::onnx::NodeProto;
use crate::options::{Frontend, Options};

/// Normalizes a domain name: `"ai.onnx"` is the default domain `""`.
pub fn normalize_domain(domain: &str) -> &str {
    if domain == "ai.onnx" {
        ""
    } else {
        domain
    }
}

/// A domain as messages name it: `the default domain (ai.onnx)` or `domain "x"`.
pub(crate) fn domain_label(domain: &str) -> String {
    if domain.is_empty() {
        "the default domain (ai.onnx)".to_string()
    } else {
        format!("domain {domain:?}")
    }
}

/// Formats a node reference for messages: index, name, op, version and opset.
pub fn describe_node(index: usize, name: &str, op_type: &str, version: i64, opset: i64) -> String {
    if name.is_empty() {
        format!("node {index} (unnamed, {op_type}-{version}, opset {opset})")
    } else {
        format!("node {index} {name:?} ({op_type}-{version}, opset {opset})")
    }
}

/// How a name is written as a key in the macro's block form.
pub(crate) fn dim_key(name: &str) -> String {
    let plain = !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit());
    if plain {
        name.to_string()
    } else {
        format!("{name:?}")
    }
}

/// The kinds of binding a user gives with the model.
#[derive(Clone, Copy)]
pub(crate) enum Binding {
    /// `dims`: sizes of symbolic dimensions.
    Dims,
    /// `inputs`: graph inputs frozen to constants.
    Inputs,
    /// `free`: initializers made run-time inputs.
    Free,
    /// `start`: tensors where a graph cut starts.
    Start,
    /// `outputs`: the tensors kept as outputs.
    Outputs,
}

/// The option as the user spells it in their front end, for messages.
pub(crate) fn option_name(frontend: &Frontend, binding: Binding) -> &'static str {
    match (frontend, binding) {
        (Frontend::Macro { .. }, Binding::Dims) => "`dims`",
        (Frontend::Macro { .. }, Binding::Inputs) => "`inputs`",
        (Frontend::Macro { .. }, Binding::Free) => "`free`",
        (Frontend::Builder, Binding::Dims) => "`Builder::dim`",
        (Frontend::Builder, Binding::Inputs) => "`Builder::input`",
        (Frontend::Builder, Binding::Free) => "`Builder::free`",
        (Frontend::Cli, Binding::Dims) => "`--dims`",
        (Frontend::Cli, Binding::Inputs) => "`--inputs`",
        (Frontend::Cli, Binding::Free) => "`--free`",
        (Frontend::Library, Binding::Dims) => "`Options::dim`",
        (Frontend::Library, Binding::Inputs) => "`Options::input`",
        (Frontend::Library, Binding::Free) => "`Options::free`",
        (Frontend::Macro { .. }, Binding::Start) => "`start`",
        (Frontend::Macro { .. }, Binding::Outputs) => "`outputs`",
        (Frontend::Builder, Binding::Start) => "`Builder::start`",
        (Frontend::Builder, Binding::Outputs) => "`Builder::output`",
        (Frontend::Cli, Binding::Start) => "`--start`",
        (Frontend::Cli, Binding::Outputs) => "`--output`",
        (Frontend::Library, Binding::Start) => "`Options::start`",
        (Frontend::Library, Binding::Outputs) => "`Options::output`",
    }
}

/// How to write a start tensor with its type and shape in the front end's own syntax.
pub(crate) fn typed_start_fix(frontend: &Frontend, name: &str, ty: &str) -> String {
    match frontend {
        Frontend::Macro { .. } => format!("`start: [{name:?}: {ty}]`"),
        Frontend::Builder => format!("`.start_typed({name:?}, {ty:?})`"),
        Frontend::Cli => format!("`--start '{name}:{ty}'`"),
        Frontend::Library => format!("`Options::start_as({name:?}, ..)` with {ty}"),
    }
}

/// A command-line argument `NAME=VALUE`, quoted for a shell when the name needs it.
pub(crate) fn shell_arg(name: &str, value: &str) -> String {
    let arg = format!("{name}={value}");
    if arg
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "_-.,=:/+".contains(c))
    {
        arg
    } else {
        format!("'{}'", arg.replace('\'', "'\\''"))
    }
}

/// Where and how to bind symbolic dimensions, in the front end's own syntax: the bindings are
/// `(name, size)` pairs, sizes as written.
pub(crate) fn dims_fix(options: &Options, bindings: &[(String, String)]) -> String {
    match &options.frontend {
        Frontend::Macro { path } => {
            let list: Vec<String> = bindings
                .iter()
                .map(|(n, v)| format!("{} = {v}", dim_key(n)))
                .collect();
            format!(
                "in the macro call's block form: `mod {} = {path:?} {{ dims: {{ {} }} }}`",
                options.module_name,
                list.join(", ")
            )
        }
        Frontend::Builder => {
            let calls: Vec<String> = bindings
                .iter()
                .map(|(n, v)| format!(".dim({n:?}, {v})"))
                .collect();
            format!("in the build script: `{}`", calls.join(""))
        }
        Frontend::Cli => {
            let args: Vec<String> = bindings
                .iter()
                .map(|(n, v)| format!("--dims {}", shell_arg(n, v)))
                .collect();
            format!("on the command line: `{}`", args.join(" "))
        }
        Frontend::Library => {
            let calls: Vec<String> = bindings
                .iter()
                .map(|(n, v)| format!(".dim({n:?}, {v})"))
                .collect();
            format!("with `Options::dim`: `{}`", calls.join(""))
        }
    }
}

/// Where and how to freeze a graph input to constant values, in the front end's own syntax.
pub(crate) fn input_fix(options: &Options, name: &str, values: &[i64]) -> String {
    let list: Vec<String> = values.iter().map(|v| v.to_string()).collect();
    let list = list.join(", ");
    match &options.frontend {
        Frontend::Macro { path } => format!(
            "in the macro call's block form: `mod {} = {path:?} {{ inputs: {{ {} = [{list}] }} }}`",
            options.module_name,
            dim_key(name)
        ),
        Frontend::Builder => format!("in the build script: `.input({name:?}, [{list}])`"),
        Frontend::Cli => format!(
            "on the command line: `--inputs {}`",
            shell_arg(name, &list.replace(' ', ""))
        ),
        Frontend::Library => {
            let scalars: Vec<String> = values.iter().map(|v| format!("Scalar::Int({v})")).collect();
            format!(
                "with `Options::input`: `.input({name:?}, vec![{}])`",
                scalars.join(", ")
            )
        }
    }
}

/// Levenshtein distance between two strings, by characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = if ca == cb {
                diagonal
            } else {
                1 + diagonal.min(above).min(row[j])
            };
            diagonal = above;
        }
    }
    row[b.len()]
}

/// The candidate most likely meant by a misspelled `name`: the closest by edit distance (ignoring
/// case) when it is close enough to be a typo, or one that `name` extends or abbreviates
/// (`batchsize` for `batch`). `None` when nothing is close.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = name.to_lowercase();
    let mut best: Option<(usize, &'a str)> = None;
    for candidate in candidates {
        if candidate == name || candidate.is_empty() {
            continue;
        }
        let other = candidate.to_lowercase();
        let distance = edit_distance(&lower, &other);
        let longest = lower.chars().count().max(other.chars().count());
        let shortest = lower.chars().count().min(other.chars().count());
        let affix = shortest >= 3
            && (lower.starts_with(&other)
                || other.starts_with(&lower)
                || lower.ends_with(&other)
                || other.ends_with(&lower));
        let close = distance <= (longest / 3).max(1) || affix;
        if close && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, c)| c)
}

/// `; did you mean "NAME"?` for the closest candidate, or nothing.
pub(crate) fn did_you_mean<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> String {
    closest(name, candidates).map_or(String::new(), |c| format!("; did you mean {c:?}?"))
}

/// An op type as written in messages, `DOMAIN::OP` outside the default domain. A name that is not
/// a plain word (control characters, quotes, spaces) is quoted and escaped, so that a model cannot
/// write terminal escapes or fake lines into the compiler's output.
pub(crate) fn qualified_op(domain: &str, op_type: &str) -> String {
    let plain = |s: &str| {
        if !s.is_empty()
            && s.chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '-'))
        {
            s.to_string()
        } else {
            format!("{s:?}")
        }
    };
    if domain.is_empty() {
        plain(op_type)
    } else {
        format!("{}::{}", plain(domain), plain(op_type))
    }
}

/// A node as the user's model names it, before its version is known: `node 3 "top1" (ArgMax)`.
pub(crate) fn short_node(index: usize, proto: &NodeProto) -> String {
    let op = qualified_op(normalize_domain(&proto.domain), &proto.op_type);
    if proto.name.is_empty() {
        format!("node {index} (unnamed, {op})")
    } else {
        format!("node {index} {:?} ({op})", proto.name)
    }
}
