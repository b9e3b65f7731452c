//! vcsim built with the `mpi` feature, for the tests that run it under `mpirun`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// vcsim built with the `mpi` feature, or `None` (with a message) when OpenMPI is missing.
pub fn mpi_build() -> Option<PathBuf> {
    let required = std::env::var_os("VCSIM_REQUIRE_MPI").is_some();
    if Command::new("mpirun").arg("--version").output().is_err() {
        assert!(
            !required,
            "VCSIM_REQUIRE_MPI is set but mpirun is not installed"
        );
        eprintln!("mpirun not found: the MPI part of this test is skipped (install openmpi-bin, libopenmpi-dev and libclang-dev)");
        return None;
    }
    // Built in the test binaries' own target folder (the one `vcsim` is in), so that the
    // dependencies are built once for both: under its own name, `vcsim-mpi`, so that the
    // build never touches the `vcsim` other tests are running meanwhile.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let plain = Path::new(env!("CARGO_BIN_EXE_vcsim"));
    let bin = plain.with_file_name("vcsim-mpi");
    let target = plain
        .parent()
        .and_then(Path::parent)
        .expect("vcsim lies in <target>/release");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let o = Command::new(cargo)
        .current_dir(root)
        .args([
            "build",
            "--release",
            "--features",
            "mpi",
            "--bin",
            "vcsim-mpi",
            "--target-dir",
        ])
        .arg(target)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "building with --features mpi failed:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(bin.exists(), "{} was not built", bin.display());
    Some(bin)
}

/// `o` if its command succeeded; otherwise a panic with its output.
pub fn ok(o: Output) -> Output {
    assert!(
        o.status.success(),
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    o
}
