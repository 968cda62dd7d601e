//! Records the git commit the extension is built from, for the provenance of every result
//! (`-dirty` when tracked files differed from it at the build).
use std::process::Command;

fn main() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let commit = Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(&root)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| "unknown".to_string());
    // Built from a tree whose tracked files differ from that commit: say so, or results would
    // name a commit whose code did not make them.
    let dirty = Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=no"])
        .current_dir(&root)
        .output()
        .ok()
        .is_some_and(|o| o.status.success() && !o.stdout.is_empty());
    let commit = if dirty && commit != "unknown" { format!("{commit}-dirty") } else { commit };
    println!("cargo:rustc-env=ROUTERLAB_GIT_COMMIT={commit}");
    // Rebuild when HEAD moves (a new commit or a checkout).
    let git = root.join(".git");
    println!("cargo:rerun-if-changed={}", git.join("HEAD").display());
    if let Ok(head) = std::fs::read_to_string(git.join("HEAD"))
        && let Some(r) = head.strip_prefix("ref: ")
    {
        println!("cargo:rerun-if-changed={}", git.join(r.trim()).display());
    }
    // And when a source file changes, so that an edit not yet committed is stamped `-dirty`
    // (HEAD alone does not move then). Directories are scanned recursively.
    for dir in ["crates/routerlab/src", "crates/routerlab-py/src", "python/routerlab"] {
        println!("cargo:rerun-if-changed={}", root.join(dir).display());
    }
    println!("cargo:rerun-if-env-changed=ROUTERLAB_GIT_COMMIT");
}
