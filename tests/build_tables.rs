//! How each build-time generator of the test crate finishes: its generated modules in
//! `OUT_DIR/STEM_modules.rs` and its case table in `OUT_DIR/STEM_cases.rs`; when a model failed to
//! generate, the table is a `compile_error!` with every message, so that the test using it fails
//! to build loudly while the rest of the crate builds.

use std::path::Path;

/// Closes `table` (opened as `DECL = &[`), or replaces it with the errors, and writes both files.
pub fn write(
    out_dir: &Path,
    stem: &str,
    decl: &str,
    what: &str,
    modules: &str,
    mut table: String,
    errors: &[String],
) {
    table.push_str("];\n");
    if !errors.is_empty() {
        table = format!(
            "compile_error!({:?});\n{decl} = &[];\n",
            format!("{what} failed to generate:\n{}", errors.join("\n"))
        );
    }
    std::fs::write(out_dir.join(format!("{stem}_modules.rs")), modules).expect("write modules");
    std::fs::write(out_dir.join(format!("{stem}_cases.rs")), table).expect("write table");
}
