//! Rust identifiers from ONNX names: snake_case, never a keyword, unique within a scope.

const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
    "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl",
    "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
    "return", "self", "static", "struct", "super", "trait", "true", "try", "type", "typeof",
    "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Whether `c` is written as its escape in generated docs: control characters (a carriage
/// return, a line feed inside a name, terminal escapes; tabs stay) and the bidirectional
/// formatting characters, which rustc refuses in comments (`text_direction_codepoint_in_comment`)
/// and which reorder what a reader sees.
fn escaped_in_docs(c: char) -> bool {
    (c.is_control() && c != '\t')
        || matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// A doc line safe to print as a `///` or `/** */` comment and to read in rustdoc: every control
/// or bidirectional formatting character is written as its escape (`\r`, `\n`, `\u{1b}`,
/// `\u{202e}`).
pub fn doc_line(line: &str) -> String {
    if !line.chars().any(escaped_in_docs) {
        return line.to_string();
    }
    let mut out = String::with_capacity(line.len() + 8);
    for c in line.chars() {
        if escaped_in_docs(c) {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    out
}

/// A name from the model as inert rustdoc text: a code span (nothing in it is markdown, HTML or
/// a link) fenced by more backticks than the name holds in a row, with `|` escaped so that it
/// stays in its table cell, and escapes for control and bidirectional characters.
pub fn code(name: &str) -> String {
    let longest = name.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if name.starts_with('`') || name.ends_with('`') || name.is_empty() {
        " "
    } else {
        ""
    };
    doc_line(&format!(
        "{fence}{pad}{}{pad}{fence}",
        name.replace('|', "\\|")
    ))
}

/// Free text from the model (doc strings, producer, metadata values) as inert rustdoc: a fenced
/// `text` block (never compiled or run as a doctest, never markdown or HTML), fenced by more
/// backticks than any line holds in a row; one doc line per line, each escaped as [`doc_line`].
pub fn text_block(text: &str) -> Vec<String> {
    let longest = text
        .split(|c| c != '`' && c != '~')
        .map(str::len)
        .max()
        .unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let mut lines = vec![format!(" {fence}text")];
    lines.extend(text.lines().map(|l| doc_line(&format!(" {l}"))));
    lines.push(format!(" {fence}"));
    lines
}

/// A snake_case Rust identifier for an ONNX name (`/model/ArgMax_output_0` ->
/// `model_arg_max_output_0`, `type` -> `type_`, `0` -> `t_0`, `` -> `tensor`).
pub fn sanitize(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    let mut prev: Option<char> = None;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            let boundary = c.is_ascii_uppercase()
                && prev.is_some_and(|p| p.is_ascii_lowercase() || p.is_ascii_digit());
            if boundary && !out.ends_with('_') {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('_') && !out.is_empty() {
            out.push('_');
        }
        prev = Some(c);
    }
    while out.ends_with('_') {
        out.pop();
    }
    if out.is_empty() {
        return "tensor".to_string();
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert_str(0, "t_");
    }
    if KEYWORDS.contains(&out.as_str()) {
        out.push('_');
    }
    out
}

/// Sanitized names for a list of ONNX names, made unique in order: a later name that collides
/// with an earlier one gets `_2`, `_3`, ... (deterministic for a given list).
pub fn unique(names: &[&str]) -> Vec<String> {
    let mut taken = std::collections::HashSet::new();
    // The next suffix to try for each base, so that many equal names stay linear.
    let mut next: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut out = Vec::with_capacity(names.len());
    for name in names {
        let base = sanitize(name);
        let mut candidate = base.clone();
        if taken.contains(&candidate) {
            let n = next.entry(base.clone()).or_insert(2);
            loop {
                candidate = format!("{base}_{n}");
                *n += 1;
                if !taken.contains(&candidate) {
                    break;
                }
            }
        }
        taken.insert(candidate.clone());
        out.push(candidate);
    }
    out
}

/// The generator's own prose for docs with the identifiers in it (`ReduceMax`, `select_last_index`:
/// words with an inner capital or an underscore) in code spans, as rustdoc readers and
/// `clippy::doc_markdown` expect. Text already in backticks is left as it is.
pub fn ticked_identifiers(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for (k, part) in text.split('`').enumerate() {
        if k > 0 {
            out.push('`');
        }
        if k % 2 == 1 {
            out.push_str(part);
            continue;
        }
        let mut word = String::new();
        let flush = |word: &mut String, out: &mut String| {
            let inner_capital = word.chars().skip(1).any(|c| c.is_ascii_uppercase())
                && word.chars().any(|c| c.is_ascii_lowercase());
            let snake =
                word.contains('_') && word.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if inner_capital || snake {
                out.push('`');
                out.push_str(word);
                out.push('`');
            } else {
                out.push_str(word);
            }
            word.clear();
        };
        for c in part.chars() {
            if c.is_ascii_alphanumeric() || c == '_' {
                word.push(c);
            } else {
                flush(&mut word, &mut out);
                out.push(c);
            }
        }
        flush(&mut word, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_text_stays_inert() {
        assert_eq!(code("x"), "`x`");
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(code("`x"), "`` `x ``");
        assert_eq!(code("a|b"), "`a\\|b`");
        assert_eq!(code("\u{202e}x"), "`\\u{202e}x`");
        let block = text_block("```rust\nstd::process::exit(1);\n```");
        assert_eq!(block[0], " ````text");
        assert_eq!(block.last().unwrap(), " ````");
        assert_eq!(block[1], " ```rust");
        assert_eq!(doc_line("a\u{1b}[31m"), "a\\u{1b}[31m");
    }

    #[test]
    fn identifiers_in_prose_are_ticked() {
        assert_eq!(
            ticked_identifiers("the fused ReduceMax, with select_last_index 1 and `x_y` kept"),
            "the fused `ReduceMax`, with `select_last_index` 1 and `x_y` kept"
        );
        assert_eq!(
            ticked_identifiers("rows of 2, FLOAT16"),
            "rows of 2, FLOAT16"
        );
    }

    #[test]
    fn sanitizes_exporter_names() {
        assert_eq!(sanitize("/model/ArgMax_output_0"), "model_arg_max_output_0");
        assert_eq!(sanitize("logits"), "logits");
        assert_eq!(sanitize("type"), "type_");
        assert_eq!(sanitize("0"), "t_0");
        assert_eq!(sanitize(""), "tensor");
        assert_eq!(sanitize("::"), "tensor");
        assert_eq!(sanitize("input.1"), "input_1");
        assert_eq!(sanitize("Self"), "self_");
    }

    #[test]
    fn collisions_are_resolved_in_order() {
        assert_eq!(
            unique(&["a.b", "a_b", "A_B", "x"]),
            ["a_b", "a_b_2", "a_b_3", "x"]
        );
        assert_eq!(unique(&["a_2", "a", "a"]), ["a_2", "a", "a_3"]);
    }
}
