//! `vcsim` built with the `mpi` feature under a name of its own (`cargo build --release
//! --features mpi` builds both): the tests build it in the project's own target folder, so it
//! shares the dependencies' build with the test binaries and never overwrites the `vcsim` they
//! run meanwhile. The same command as `vcsim`; see `vcsim --help`.

fn main() -> std::process::ExitCode {
    vcsim::cli::main()
}
