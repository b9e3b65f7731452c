//! The reproducers of bad input are refused cheaply: `check` on every model in
//! `tests/bad_models/` (huge fluid regions and walls, extreme numbers, deep nesting, …) exits 2
//! with peak memory under 200 MB. Peak memory is the largest resident set of the children of
//! this test process (`getrusage(RUSAGE_CHILDREN)`), so this file runs nothing else. Wall
//! times are printed (the target is 1 s each) and only checked against a generous
//! 10 s, which catches a hang without making the test depend on the machine's load.

mod common;

use std::process::Command;
use std::time::{Duration, Instant};

#[test]
#[cfg(target_os = "linux")]
fn check_refuses_every_reproducer_in_little_time_and_memory() {
    let files = common::files_in("tests/bad_models");
    let mut slowest = (Duration::ZERO, String::new());
    for path in &files {
        let t = Instant::now();
        let out = Command::new(env!("CARGO_BIN_EXE_vcsim"))
            .arg("check")
            .arg(path)
            .output()
            .unwrap();
        let dt = t.elapsed();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(out.status.code(), Some(2), "{name}");
        assert!(dt < Duration::from_secs(10), "{name} took {dt:?}");
        if dt > slowest.0 {
            slowest = (dt, name);
        }
    }
    // SAFETY: getrusage only writes the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    assert_eq!(rc, 0);
    let peak_mb = usage.ru_maxrss as f64 / 1024.0; // kB on Linux
    println!(
        "{} reproducers: peak memory {peak_mb:.1} MB, slowest {} in {:?}",
        files.len(),
        slowest.1,
        slowest.0
    );
    assert!(peak_mb > 0.0, "getrusage saw the children");
    assert!(peak_mb < 200.0, "peak memory {peak_mb:.1} MB");
}
