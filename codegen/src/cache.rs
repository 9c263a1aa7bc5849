//! A cache of analyzed models, so that a crate expanding the same model in several places (in
//! one compiler process) reads and checks it once. Keyed by path, modification time, length and
//! the options that affect analysis.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::SystemTime;

use crate::ir::Graph;
use crate::{analyze, Errors, Options};

/// What identifies one analysis.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Key {
    path: PathBuf,
    modified: Option<SystemTime>,
    len: u64,
    options: String,
}

/// A cache of analyses; [`Cache::global`] is the one the macro uses.
#[derive(Debug, Default)]
pub struct Cache {
    entries: Mutex<HashMap<Key, Result<Graph, Errors>>>,
    misses: Mutex<usize>,
}

impl Cache {
    /// The process-wide cache.
    pub fn global() -> &'static Cache {
        static GLOBAL: OnceLock<Cache> = OnceLock::new();
        GLOBAL.get_or_init(Cache::default)
    }

    /// The analysis of the model at `path` with `options`, from the cache when the file's
    /// modification time and length are unchanged; `bytes` are the file's contents.
    pub fn analyze(&self, path: &Path, bytes: &[u8], options: &Options) -> Result<Graph, Errors> {
        let meta = std::fs::metadata(path).ok();
        let key = Key {
            path: path.to_path_buf(),
            modified: meta.as_ref().and_then(|m| m.modified().ok()),
            len: bytes.len() as u64,
            // Every option, the module name and front end included: messages name them.
            options: format!("{options:?}"),
        };
        if key.modified.is_some() {
            if let Some(hit) = self.entries.lock().ok().and_then(|e| e.get(&key).cloned()) {
                return hit;
            }
        }
        let result = analyze(bytes, options);
        if let Ok(mut m) = self.misses.lock() {
            *m += 1;
        }
        if key.modified.is_some() {
            if let Ok(mut entries) = self.entries.lock() {
                entries.insert(key, result.clone());
            }
        }
        result
    }

    /// How many analyses were computed rather than found in the cache.
    pub fn misses(&self) -> usize {
        self.misses.lock().map(|m| *m).unwrap_or(0)
    }
}
