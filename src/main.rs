//! The `vcsim` command; see `vcsim --help`.

fn main() -> std::process::ExitCode {
    vcsim::cli::main()
}
