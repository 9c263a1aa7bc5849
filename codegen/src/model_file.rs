//! Reading a model file as untrusted input: only a regular file (a FIFO would block the compiler
//! forever, a device such as `/dev/zero` would fill its memory), and at most
//! [`MAX_MODEL_BYTES`].

use std::io::Read;
use std::path::Path;

/// The largest model file read, in bytes (2 GiB: the protobuf format's own bound).
pub const MAX_MODEL_BYTES: u64 = 2 << 30;

/// Reads a model file; the error says what the path is and what to do.
pub fn read_model_file(path: &Path) -> Result<Vec<u8>, String> {
    let shown = path.display();
    let meta =
        std::fs::metadata(path).map_err(|e| format!("cannot read model file {shown}: {e}"))?;
    if meta.is_dir() {
        return Err(format!(
            "{shown} is a directory, not an .onnx file; name the model file itself"
        ));
    }
    if !meta.is_file() {
        return Err(format!(
            "{shown} is not a regular file (a pipe, socket or device); onnx-aot reads models \
             from regular files only: save the model to a file"
        ));
    }
    if meta.len() > MAX_MODEL_BYTES {
        return Err(too_large(path, meta.len()));
    }
    let file =
        std::fs::File::open(path).map_err(|e| format!("cannot read model file {shown}: {e}"))?;
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // Bounded even if the file grows while it is read.
    file.take(MAX_MODEL_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read model file {shown}: {e}"))?;
    if bytes.len() as u64 > MAX_MODEL_BYTES {
        return Err(too_large(path, bytes.len() as u64));
    }
    Ok(bytes)
}

fn too_large(path: &Path, len: u64) -> String {
    format!(
        "{} has {len} bytes, more than the {MAX_MODEL_BYTES} bytes (2 GiB) an ONNX model can \
         hold; it is not a model, or one whose weights should live outside the part compiled \
         here (cut the graph with `start`)",
        path.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_are_read() {
        let dir = std::env::temp_dir();
        assert!(read_model_file(&dir)
            .unwrap_err()
            .contains("is a directory"));
        #[cfg(unix)]
        {
            let e = read_model_file(Path::new("/dev/zero")).unwrap_err();
            assert!(e.contains("not a regular file"), "{e}");
        }
        let f = dir.join(format!("onnx-aot-model-file-{}", std::process::id()));
        std::fs::write(&f, b"abc").unwrap();
        assert_eq!(read_model_file(&f).unwrap(), b"abc");
        std::fs::remove_file(&f).ok();
        assert!(read_model_file(Path::new("/no/such/file.onnx"))
            .unwrap_err()
            .contains("cannot read"));
    }
}
