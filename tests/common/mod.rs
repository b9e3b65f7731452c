//! Helpers shared by the validation tests.
#![allow(dead_code)]

pub mod fluid_checks;
pub mod mpi;
pub mod quotes;

use std::path::Path;
use vcsim::{build_world, parse_str, World};

/// The 2D dam break with WCSPH (Koshizuka & Oka's geometry at L/20, 800 particles, as
/// `models/dam_break_2d_wcsph.ron`) to 0.25 s, outputs every 0.01 s: the divided runs' test
/// model (`tests/distributed.rs`, `tests/distributed_mpi.rs`).
pub const DAM_BREAK_2D_WCSPH: &str = r#"Model(
    scene: (dimension: Two, gravity: (0, -9.81)),
    time: (dt: 0.0005, end: 0.25),
    bodies: [
        (name: "floor", kind: Static, shape: Cuboid(half_extents: (0.342, 0.03)), position: (0.292, -0.03)),
        (name: "left", kind: Static, shape: Cuboid(half_extents: (0.03, 0.2)), position: (-0.03, 0.17)),
        (name: "right", kind: Static, shape: Cuboid(half_extents: (0.03, 0.2)), position: (0.614, 0.17)),
    ],
    fluid: (method: Wcsph(), spacing: 0.0073, regions: [Box(min: (0, 0), max: (0.146, 0.292))]),
    output: (every: 0.01, plot: false),
    probes: [Front(1, 0, 0), DensityError, FluidEnergy],
)
"#;

/// 3D dam break: a column 0.4 × 0.1 × 0.2 m in a tank 1.2 m long and 0.1 m wide, spacing
/// 0.025 m (512 particles; the shape of `models/dam_break_3d_apgd.ron`, 004 §4.2).
pub const DAM_BREAK_3D_WCSPH: &str = r#"Model(
    scene: (dimension: Three, gravity: (0, 0, -9.81)),
    time: (dt: 0.001, end: 0.3),
    bodies: [
        (name: "floor", kind: Static, shape: Cuboid(half_extents: (0.7, 0.14, 0.04)), position: (0.6, 0.05, -0.04)),
        (name: "back", kind: Static, shape: Cuboid(half_extents: (0.04, 0.14, 0.2)), position: (-0.04, 0.05, 0.2)),
        (name: "end", kind: Static, shape: Cuboid(half_extents: (0.04, 0.14, 0.2)), position: (1.24, 0.05, 0.2)),
        (name: "side_a", kind: Static, shape: Cuboid(half_extents: (0.6, 0.04, 0.2)), position: (0.6, -0.04, 0.2)),
        (name: "side_b", kind: Static, shape: Cuboid(half_extents: (0.6, 0.04, 0.2)), position: (0.6, 0.14, 0.2)),
    ],
    fluid: (method: Wcsph(), spacing: 0.025, regions: [Box(min: (0, 0, 0), max: (0.4, 0.1, 0.2))]),
    output: (every: 0.01, vtk: false, plot: false),
    probes: [Front(1, 0, 0), DensityError],
)
"#;

/// `dam` (a 2D dam break of [`DAM_BREAK_2D_WCSPH`]'s shape, any method) with a light box
/// (600 kg/m³, 4 cm square) on the floor in the surge's path, and probes of the pressure on the
/// floor under the column, a wave gauge in it, the box's submerged fraction and its position
/// (the last two columns: x, y).
pub fn floating_box(dam: &str) -> String {
    dam.replace(
        "    ],\n    fluid",
        "        (name: \"box\", shape: Cuboid(half_extents: (0.02, 0.02)), position: (0.4, 0.021), mass: 0.96),\n    ],\n    fluid",
    )
    .replace(
        "FluidEnergy]",
        "FluidEnergy, Pressure(0.05, 0.01), WaveGauge(0.1, 0), Submerged(\"box\"), \
         Position(\"box\")]",
    )
}

/// Builds a world from model text; panics with the located error if the model is invalid.
pub fn world(src: &str) -> World {
    let model = match parse_str(Path::new("test-model.ron"), src) {
        Ok(m) => m,
        Err(e) => panic!("test model invalid: {e}"),
    };
    build_world(&model).expect("test model builds")
}

/// A cube of edge 0.2 m released on a static incline of `deg` degrees (a 6 m slab rotated
/// about z in 2D, about y in 3D), friction μ, with `solver` and contact `resolver` (RON).
/// Returns the world (the cube is body 1) and the slope's unit normal and downhill direction.
pub fn incline(
    planar: bool,
    deg: f64,
    mu: f64,
    solver: &str,
    resolver: &str,
) -> (World, vcsim::math::Vec3, vcsim::math::Vec3) {
    use vcsim::math::Vec3;
    let th = deg.to_radians();
    // Rotating the incline by +deg about y (3D) or z (2D) tilts its top face.
    let (rot, normal, down) = if planar {
        (
            format!("Deg({deg})"),
            Vec3::new(-th.sin(), th.cos(), 0.0),
            Vec3::new(-th.cos(), -th.sin(), 0.0),
        )
    } else {
        (
            format!("AxisDeg((0, 1, 0), {deg})"),
            Vec3::new(th.sin(), 0.0, th.cos()),
            Vec3::new(th.cos(), 0.0, -th.sin()),
        )
    };
    let c = normal * (0.5 + 0.1);
    let (dim, grav) = if planar {
        ("Two", "(0, -9.81)")
    } else {
        ("Three", "(0, 0, -9.81)")
    };
    let src = format!(
        "Model(scene: (dimension: {dim}, gravity: {grav}, thickness: 0.2), time: (dt: 0.001, end: 2.0),
           solver: {solver}, contact: (resolver: {resolver}),
           materials: [(name: \"m\", density: 1000, friction: {mu})],
           bodies: [
             (name: \"incline\", kind: Static, shape: Cuboid(half_extents: {he}), rotation: {rot}, material: \"m\"),
             (name: \"block\", shape: Cuboid(half_extents: (0.1, 0.1, 0.1)), rotation: {rot}, material: \"m\",
              position: ({}, {}, {})),
           ])",
        c.x,
        c.y,
        c.z,
        he = if planar { "(3, 0.5)" } else { "(3, 3, 0.5)" },
    );
    (world(&src), normal, down)
}

/// Steps until `t` (s), calling `f` after each step.
pub fn run_until(w: &mut World, t: f64, mut f: impl FnMut(&World)) {
    let n = (t / w.dt).round() as u64;
    for _ in 0..n {
        w.step();
        f(w);
    }
}

/// Both solvers, as RON.
pub const SOLVERS: [&str; 2] = [
    "Pgs(max_iterations: 500, tolerance: 1e-10)",
    "Apgd(max_iterations: 1000, tolerance: 1e-10)",
];

/// Complete elliptic integral of the first kind K(k) by the arithmetic–geometric mean.
pub fn elliptic_k(k: f64) -> f64 {
    let (mut a, mut b) = (1.0f64, (1.0 - k * k).sqrt());
    for _ in 0..40 {
        let (na, nb) = (0.5 * (a + b), (a * b).sqrt());
        a = na;
        b = nb;
    }
    std::f64::consts::PI / (2.0 * a)
}

/// Runs `f` on a pool of `threads` threads.
pub fn with_threads<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool")
        .install(f)
}

/// The files in `folder` (relative to the crate root), sorted by name.
pub fn files_in(folder: &str) -> Vec<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(folder);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
}

/// The book's pages: every `.md` file under `book/src`, sorted.
pub fn book_pages() -> Vec<std::path::PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("book/src"),
        &mut out,
    );
    out.sort();
    out
}

/// Output files of a run folder (relative paths), without the checkpoint and the summary
/// (which holds wall times).
pub fn run_outputs(dir: &Path) -> Vec<String> {
    let mut v = Vec::new();
    for sub in ["", "frames"] {
        let Ok(rd) = std::fs::read_dir(dir.join(sub)) else {
            continue;
        };
        for e in rd {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let rel = if sub.is_empty() {
                name.clone()
            } else {
                format!("{sub}/{name}")
            };
            if p.is_file()
                && (name.ends_with(".csv") || name.ends_with(".vtu") || name.ends_with(".pvd"))
            {
                v.push(rel);
            }
        }
    }
    v.sort();
    v
}

/// Both folders hold the same output files, byte for byte.
pub fn assert_same_bytes(a: &Path, b: &Path) {
    let (fa, fb) = (run_outputs(a), run_outputs(b));
    assert_eq!(fa, fb, "the same files");
    assert!(fa.len() > 5, "{fa:?}");
    for f in &fa {
        let (x, y) = (
            std::fs::read(a.join(f)).unwrap(),
            std::fs::read(b.join(f)).unwrap(),
        );
        assert!(x == y, "{f} differs ({} and {} bytes)", x.len(), y.len());
    }
}

/// A test's scratch folder, `vcsim-{name}-{process}-{k}` in the temporary folder (`k` counts
/// this process's folders, so tests that run at the same time never share one), made empty
/// and removed when dropped — unless the test is failing, when it stays for a look.
pub struct Scratch(std::path::PathBuf);

impl Scratch {
    /// A new empty folder.
    pub fn new(name: &str) -> Scratch {
        let d = Scratch::unmade(name);
        std::fs::create_dir_all(&d.0).unwrap();
        d
    }

    /// A fresh path that does not exist yet (for a command that must make it itself).
    pub fn unmade(name: &str) -> Scratch {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let k = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let d = std::env::temp_dir().join(format!("vcsim-{name}-{}-{k}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        let _ = std::fs::remove_file(&d);
        Scratch(d)
    }
}

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.as_os_str()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
            let _ = std::fs::remove_file(&self.0);
        }
    }
}
