//! A structured generator of model mutations for fuzzing the loader, the world builder and the
//! first steps (cargo-fuzz needs a nightly toolchain this machine does not have). Each input is
//! a shipped model with one to three mutations: a number replaced by an extreme one (±1e308,
//! inf, NaN, 0, −1, 1e-308, 2³¹, …), a span deleted, a line duplicated, a bracket dropped.
//! Deterministic for a seed. Used by `tests/fuzz.rs` (bounded) and `examples/fuzz_models.rs`
//! (long runs).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::time::{Duration, Instant};

/// xorshift64*: small, deterministic.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const EXTREMES: [&str; 16] = [
    "0",
    "-0",
    "-1",
    "1e308",
    "-1e308",
    "inf",
    "-inf",
    "NaN",
    "1e-308",
    "2147483648",
    "1e200",
    "1e-6",
    "3",
    "0.5",
    "4294967296",
    "-1e-300",
];

/// Byte ranges of the number tokens in `s`.
fn numbers(s: &str) -> Vec<(usize, usize)> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let start_ok = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        if start_ok
            && (b[i].is_ascii_digit()
                || (b[i] == b'-' && i + 1 < b.len() && b[i + 1].is_ascii_digit()))
        {
            let mut j = i + 1;
            while j < b.len()
                && (b[j].is_ascii_digit() || matches!(b[j], b'.' | b'e' | b'E' | b'-' | b'+'))
            {
                j += 1;
            }
            out.push((i, j));
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// One mutation of `s`.
pub fn mutate(s: &str, rng: &mut Rng) -> String {
    match rng.below(10) {
        0..=5 => {
            let nums = numbers(s);
            if nums.is_empty() {
                return s.to_string();
            }
            let (a, b) = nums[rng.below(nums.len())];
            format!(
                "{}{}{}",
                &s[..a],
                EXTREMES[rng.below(EXTREMES.len())],
                &s[b..]
            )
        }
        6 => {
            // Delete a short span (on char boundaries).
            let a = rng.below(s.len());
            let b = (a + 1 + rng.below(12)).min(s.len());
            if s.is_char_boundary(a) && s.is_char_boundary(b) {
                format!("{}{}", &s[..a], &s[b..])
            } else {
                s.to_string()
            }
        }
        7 => {
            // Duplicate a line.
            let lines: Vec<&str> = s.lines().collect();
            let k = rng.below(lines.len());
            let mut v = lines.clone();
            v.insert(k, lines[k]);
            v.join("\n")
        }
        8 => {
            // Drop one bracket.
            let idx: Vec<usize> = s
                .char_indices()
                .filter(|(_, c)| "()[]".contains(*c))
                .map(|(i, _)| i)
                .collect();
            if idx.is_empty() {
                return s.to_string();
            }
            let i = idx[rng.below(idx.len())];
            format!("{}{}", &s[..i], &s[i + 1..])
        }
        _ => {
            // Negate a number.
            let nums = numbers(s);
            if nums.is_empty() {
                return s.to_string();
            }
            let (a, _) = nums[rng.below(nums.len())];
            format!("{}-{}", &s[..a], &s[a..])
        }
    }
}

/// What a fuzz run found.
#[derive(Debug, Default)]
pub struct Report {
    pub inputs: u64,
    pub parsed: u64,
    pub built: u64,
    pub stepped: u64,
    pub panics: Vec<String>,
    pub slowest: Duration,
}

/// What a fuzz run does with each input after parsing.
pub struct Options {
    /// Step (twice) only worlds with at most this many fluid particles.
    pub max_particles: usize,
    /// Step one in this many of the worlds that build (1: all of them).
    pub step_every: u64,
}

/// The input being tried and when it started, for a watchdog thread that reports hangs.
#[derive(Default)]
pub struct Watch(pub std::sync::Mutex<Option<(Instant, String)>>);

/// Runs `inputs` mutated models (or until `budget` is spent): parse, build, and for some of the
/// models that build, two steps. Panics are caught and collected (the offending input's text).
pub fn run(
    models: &[(String, String)],
    seed: u64,
    inputs: u64,
    budget: Duration,
    opts: &Options,
    watch: Option<&Watch>,
) -> Report {
    // A seed mixed by splitmix64 (nearby seeds give unrelated streams); xorshift needs a
    // non-zero state.
    let z = vcsim::math::mix64(seed.wrapping_add(vcsim::math::SPLITMIX_GAMMA));
    let mut rng = Rng(z.max(1));
    let mut rep = Report::default();
    let t0 = Instant::now();
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    while rep.inputs < inputs && t0.elapsed() < budget {
        let (name, text) = &models[rng.below(models.len())];
        let mut s = text.clone();
        for _ in 0..1 + rng.below(3) {
            s = mutate(&s, &mut rng);
        }
        rep.inputs += 1;
        let t = Instant::now();
        if let Some(w) = watch {
            *w.0.lock().unwrap() = Some((t, format!("// from {name}\n{s}")));
        }
        let built_before = rep.built;
        let r = catch_unwind(AssertUnwindSafe(|| {
            let mut stages = (false, false, false);
            if let Ok(m) = vcsim::parse_str(Path::new(name), &s) {
                stages.0 = true;
                if let Ok(mut w) = vcsim::build_world(&m) {
                    stages.1 = true;
                    let small =
                        w.fluid.as_ref().map(|f| f.len()).unwrap_or(0) <= opts.max_particles;
                    if small && built_before % opts.step_every.max(1) == 0 {
                        let spans = vcsim::model::spans::Spans::of(&s);
                        for warning in vcsim::model::warnings::warnings(&m, Some(&spans), &w) {
                            let _ = warning.locate(Path::new(name), &s);
                        }
                        w.step();
                        w.step();
                        stages.2 = true;
                    }
                }
            }
            stages
        }));
        rep.slowest = rep.slowest.max(t.elapsed());
        match r {
            Ok((p, b, st)) => {
                rep.parsed += p as u64;
                rep.built += b as u64;
                rep.stepped += st as u64;
            }
            Err(_) => rep.panics.push(format!("// from {name}\n{s}")),
        }
    }
    if let Some(w) = watch {
        *w.0.lock().unwrap() = None;
    }
    std::panic::set_hook(hook);
    rep
}

/// The shipped models small enough to fuzz quickly (no 3D dam break, no 20 000-particle run).
pub fn small_models(root: &Path) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = std::fs::read_dir(root.join("models"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ron"))
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            !n.contains("3d_apgd") || n.contains("pile")
        })
        .filter(|p| !p.to_string_lossy().contains("20k"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}
