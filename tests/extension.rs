//! A fourth fluid method and a fourth contact resolver, written here, outside the crate, through
//! the public interfaces only (`vcsim::fluid::FluidMethod`, `vcsim::impulse::ContactResolver`),
//! registered by name (`vcsim::registry::Registry`) and named in a RON model like a built-in
//! method: checked with located errors, run by the library runner, in a study and by
//! `run --resume`. Nothing in `src/` knows them: this is the walk-through of the book's "Adding
//! a method" page.

mod common;

use serde::Deserialize;
use std::f64::consts::PI;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use vcsim::body::RigidBody;
use vcsim::fluid::{Fluid, FluidMethod, SubStepInfo};
use vcsim::impulse::{ContactResolver, ImpulseBody, ImpulseInfo, Point};
use vcsim::math::{Real, Vec3};
use vcsim::params::ParamError;
use vcsim::registry::{MethodParams, Registry};

// ANCHOR: method
/// The parameters of [`Rotating`], as a model writes them: `Rotating(omega: 6.28, centre:
/// (0.75, 0.75), spin_up: 0.05)`.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct RotatingParams {
    /// Angular velocity (rad/s). Default 2π (a turn a second).
    omega: Real,
    /// Centre of the rotation (m).
    centre: (Real, Real),
    /// Time over which the rotation speeds up linearly from rest (s). Default 0.
    spin_up: Real,
}

impl Default for RotatingParams {
    fn default() -> Self {
        RotatingParams {
            omega: 2.0 * PI,
            centre: (0.75, 0.75),
            spin_up: 0.0,
        }
    }
}

impl MethodParams for RotatingParams {
    fn validate(&self) -> Result<(), ParamError> {
        if !self.omega.is_finite() {
            return Err(ParamError::new(
                "omega",
                "a finite angular velocity (rad/s)",
                self.omega,
            ));
        }
        vcsim::params::non_negative("spin_up", self.spin_up)
    }
}

/// A fluid whose particles follow a given velocity field: here a rigid rotation at `omega`
/// about the z axis through `centre`, u = ω × (x − c), reached after `spin_up`. Each step moves
/// every particle along its exact circle over `dt` and sets its velocity to the field's. A
/// partitioned method: no rows, no force on the bodies. Its carried state (the steps taken,
/// which set the speed during the spin-up) goes into checkpoints; each particle's distance from
/// the centre (m) goes into the VTK frames as `radius`.
struct Rotating {
    p: RotatingParams,
    steps: u64,
    radius: Vec<Real>,
}

impl FluidMethod for Rotating {
    fn name(&self) -> &'static str {
        "prescribed rotation (test)"
    }

    fn advance(&mut self, f: &mut Fluid, bodies: &[RigidBody], _g: &Vec3, dt: Real) -> SubStepInfo {
        let t = self.steps as Real * dt;
        let ramp = if self.p.spin_up > 0.0 {
            (t / self.p.spin_up).min(1.0)
        } else {
            1.0
        };
        let omega = self.p.omega * ramp;
        let centre = Vec3::new(self.p.centre.0, self.p.centre.1, 0.0);
        let (s, c) = (omega * dt).sin_cos();
        for (x, v) in f.pos.iter_mut().zip(f.vel.iter_mut()) {
            let r = *x - centre;
            let r = Vec3::new(c * r.x - s * r.y, s * r.x + c * r.y, r.z);
            *x = centre + r;
            *v = Vec3::new(-omega * r.y, omega * r.x, 0.0);
        }
        f.clear_body_forces(bodies.len());
        self.radius.clear();
        self.radius
            .extend(f.pos.iter().map(|x| (x - centre).norm()));
        self.steps += 1;
        SubStepInfo {
            substeps: 1,
            ..Default::default()
        }
    }

    fn point_fields<'a>(&'a self, push: &mut dyn FnMut(&'static str, &'a [Real])) {
        push("radius", &self.radius);
    }

    fn save_state(&self) -> Vec<u8> {
        self.steps.to_le_bytes().to_vec()
    }

    fn restore_state(&mut self, bytes: &[u8]) -> Result<(), String> {
        let b: [u8; 8] = bytes
            .try_into()
            .map_err(|_| format!("{} bytes of rotation state, not 8", bytes.len()))?;
        self.steps = u64::from_le_bytes(b);
        Ok(())
    }
}
// ANCHOR_END: method

// ANCHOR: resolver
/// The parameters of [`Plastic`]: `Plastic(max_impulses: 1000)`.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct PlasticParams {
    /// Impulses a resolution may apply at most. Default 1000.
    max_impulses: usize,
}

impl Default for PlasticParams {
    fn default() -> Self {
        PlasticParams { max_impulses: 1000 }
    }
}

impl MethodParams for PlasticParams {
    fn validate(&self) -> Result<(), ParamError> {
        vcsim::params::iteration_limit("max_impulses", self.max_impulses)
    }
}

/// A perfectly plastic contact resolver: the most negative approaching contact is stopped
/// (u_n → 0) by one impulse, repeatedly, until no contact approaches (order dependent; a test
/// of the interface, not a method to use).
struct Plastic {
    p: PlasticParams,
}

impl ContactResolver for Plastic {
    fn name(&self) -> &'static str {
        "plastic impulses (test)"
    }

    fn resolve(&mut self, points: &mut [Point], bodies: &mut [ImpulseBody]) -> ImpulseInfo {
        let mut info = ImpulseInfo::default();
        for _ in 0..self.p.max_impulses {
            let worst = points
                .iter()
                .enumerate()
                .map(|(k, p)| (k, p.normal_velocity(bodies)))
                .min_by(|a, b| a.1.total_cmp(&b.1));
            match worst {
                Some((k, un)) if un < -1e-12 => {
                    points[k].apply(bodies, -un);
                    info.iterations += 1;
                }
                _ => return info,
            }
        }
        info.capped = true;
        info
    }
}
// ANCHOR_END: resolver

// ANCHOR: registry
/// The registry with both methods: what a program of the user's own sets up once.
fn registry() -> Registry {
    let mut r = Registry::new();
    r.fluid_method("Rotating", |p: RotatingParams, _fluid, _gravity| {
        Ok(Box::new(Rotating {
            p,
            steps: 0,
            radius: Vec::new(),
        }))
    })
    .unwrap()
    .contact_resolver("Plastic", |p: PlasticParams, _restitution_threshold| {
        Box::new(Plastic { p })
    })
    .unwrap();
    r
}
// ANCHOR_END: registry

// ANCHOR: model
const MODEL: &str = r#"Model(
    scene: (dimension: Two, gravity: (0, -9.81)),
    time: (dt: 0.002, end: 1.0),
    contact: (resolver: Plastic()),
    materials: [(name: "default", density: 1000, friction: 0)],
    bodies: [
        (name: "floor", kind: Static, shape: Cuboid(half_extents: (2.0, 0.1)), position: (0, -0.1)),
        (name: "ball", shape: Ball(radius: 0.1), position: (-1.5, 0.5)),
    ],
    fluid: (
        method: Rotating(omega: 6.283185307179586),
        spacing: 0.05,
        regions: [Box(min: (0.5, 0.5), max: (1.0, 1.0))],
    ),
    output: (every: 0.02, plot: false),
    probes: [Position("ball"), Velocity("ball"), FluidEnergy],
)"#;
// ANCHOR_END: model

fn load(text: &str) -> Result<vcsim::Model, Box<vcsim::ModelError>> {
    vcsim::model::parse_str_with(Path::new("extension.ron"), text, &registry())
}

/// A fresh folder for this test's files.
fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("vcsim-extension-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The CLI with the registry, as a user's own binary runs it.
fn cli(args: &[&str]) -> ExitCode {
    let args = std::iter::once("vcsim").chain(args.iter().copied());
    vcsim::cli::run_with(args, &registry())
}

#[test]
fn methods_registered_outside_the_crate_run_from_a_model_file() {
    let m = load(MODEL).expect("the model names registered methods");
    let mut w = vcsim::model::build_world_with(&m, &registry()).expect("the model builds");
    assert_eq!(w.fluid_method.name(), "prescribed rotation (test)");
    assert_eq!(w.contact_resolver.name(), "plastic impulses (test)");
    let centre = Vec3::new(0.75, 0.75, 0.0);
    let start: Vec<Vec3> = w.fluid.as_ref().unwrap().pos.clone();
    let ids: Vec<u32> = w.fluid.as_ref().unwrap().id.clone();
    // A quarter turn (0.25 s at one turn per second) through the library runner.
    let probes = vcsim::model::resolve_probes(&m, &w).unwrap();
    let (series, report) =
        vcsim::runner::run(&mut w, &probes, 0.25, 0.05, &m.guard, &mut ()).unwrap();
    assert_eq!(report.steps, 125);
    assert_eq!(
        w.last_substeps.substeps, 1,
        "the method's report reaches the world"
    );
    let f = w.fluid.as_ref().unwrap();
    let mut worst: Real = 0.0;
    for (x, &id) in f.pos.iter().zip(&f.id) {
        let k = ids.iter().position(|&i| i == id).unwrap();
        let r0 = start[k] - centre;
        // A quarter turn maps (x, y) to (−y, x).
        let expected = centre + Vec3::new(-r0.y, r0.x, 0.0);
        worst = worst.max((x - expected).norm());
    }
    assert!(
        worst < 1e-12,
        "particles off their circles by {worst:e} m after a quarter turn"
    );
    // The ball fell freely beside it, by symplectic Euler: y_n = y0 − g h² n(n+1)/2.
    let (h, n) = (0.002, 125.0);
    let y = 0.5 - 9.81 * h * h * n * (n + 1.0) / 2.0;
    let ys = series.column("ball.pos.y").unwrap();
    assert!(
        (ys.last().unwrap() - y).abs() < 1e-12,
        "ball at {ys:?}, free fall gives {y} m"
    );
    // The fluid's kinetic energy is that of a rigid rotation: ½ m ω² Σ r².
    let ke = series.column("fluid_kinetic").unwrap();
    let sum_r2: Real = start.iter().map(|x| (x - centre).norm_squared()).sum();
    let expected = 0.5 * f.mass * (2.0 * PI).powi(2) * sum_r2;
    assert!(
        ((ke.last().unwrap() - expected) / expected).abs() < 1e-12,
        "{ke:?} against {expected}"
    );
    // Dropped from 0.4 m above the floor, the ball lands at t = √(2 · 0.4 / g) = 0.286 s
    // (step 143) and, stopped plastically by the registered resolver, stays on the floor.
    let mut landed = None;
    for k in 125..500 {
        w.step();
        if landed.is_none() && w.last_impulses.iterations > 0 {
            landed = Some(k);
        }
    }
    let k = landed.expect("the resolver stopped the ball");
    assert!(
        (140..=146).contains(&k),
        "first impulse at step {k}, free fall lands at step 143"
    );
    let b = &w.bodies[w.body("ball").unwrap()];
    assert!(
        b.lin_vel.norm() < 0.1 * 9.81 * 0.002,
        "resting ball moves at {}",
        b.lin_vel
    );
    assert!(
        (b.com().y - 0.1).abs() < 0.005,
        "ball centre at {} m, not on the floor",
        b.com().y
    );
}

/// `(line, column)` (1-based) of the first `needle` in `text`.
fn place(text: &str, needle: &str) -> (usize, usize) {
    let at = text.find(needle).unwrap();
    let line = text[..at].matches('\n').count() + 1;
    let column = at - text[..at].rfind('\n').map_or(0, |n| n + 1) + 1;
    (line, column)
}

#[test]
fn a_registered_methods_errors_are_located_like_a_built_in_ones() {
    // A misspelt field of the registered type: at its key, named.
    let text = MODEL.replace("Rotating(omega:", "Rotating(\n            omgea:");
    let e = load(&text).unwrap_err();
    assert_eq!((e.line, e.column), place(&text, "omgea"), "{e}");
    assert_eq!(e.field.as_deref(), Some("omgea"), "{e}");
    assert!(
        e.message.contains("omega"),
        "the message names the fields it has: {e}"
    );
    // A value its own `validate` refuses: at the value, by its field.
    let text = MODEL.replace("resolver: Plastic()", "resolver: Plastic(max_impulses: 0)");
    let e = load(&text).unwrap_err();
    assert_eq!((e.line, e.column), place(&text, "0)),"), "{e}");
    assert_eq!(e.field.as_deref(), Some("max_impulses"), "{e}");
    // A value of the wrong type, deep in the parameters.
    let text = MODEL.replace(
        "Rotating(omega: 6.283185307179586)",
        "Rotating(centre: (0.75, \"x\"))",
    );
    let e = load(&text).unwrap_err();
    assert_eq!((e.line, e.column), place(&text, "\"x\""), "{e}");
    // A misspelt name: the names known, and the one meant.
    let text = MODEL.replace("Plastic()", "Plastik()");
    let e = load(&text).unwrap_err();
    assert_eq!((e.line, e.column), place(&text, "Plastik"), "{e}");
    assert!(
        e.message
            .contains("Complementarity, Eti, SequentialImpulse, SimultaneousImpulse, Plastic")
            && e.message.contains("did you mean `Plastic`"),
        "{e}"
    );
    // Without the registry the model names a method nobody has.
    let e = vcsim::parse_str(Path::new("extension.ron"), MODEL).unwrap_err();
    assert!(
        e.message
            .contains("`Rotating` is neither built in nor registered"),
        "{e}"
    );
    // The built-in methods read as before, and their errors too.
    let text = MODEL.replace(
        "Rotating(omega: 6.283185307179586)",
        "Wcsph(sound_speed: -1)",
    );
    let e = load(&text).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("sound_speed"), "{e}");
    // A registration cannot take a built-in name.
    let mut r = Registry::new();
    let taken = r.fluid_method(
        "Isph",
        |_: RotatingParams, _, _| -> Result<Box<dyn FluidMethod>, String> { unreachable!() },
    );
    assert!(taken.is_err());
}

#[test]
fn a_model_naming_registered_methods_resumes_from_a_checkpoint_to_the_same_bytes() {
    let d = scratch("resume");
    // The spin-up makes the method's own state (its step count) matter after the restart.
    let model = d.join("rotating.ron");
    std::fs::write(
        &model,
        MODEL.replace("Rotating(omega:", "Rotating(spin_up: 0.1, omega:"),
    )
    .unwrap();
    let m = model.to_str().unwrap();
    let (a, b) = (d.join("a"), d.join("b"));
    let (a_s, b_s) = (a.to_str().unwrap(), b.to_str().unwrap());
    assert_eq!(cli(&["check", m]), ExitCode::SUCCESS);
    assert_eq!(
        cli(&["run", m, "--out", a_s, "--end", "0.3", "--quiet"]),
        ExitCode::SUCCESS
    );
    let mid = [
        "run",
        m,
        "--out",
        b_s,
        "--end",
        "0.13",
        "--checkpoint-every",
        "0.04",
        "--quiet",
    ];
    assert_eq!(cli(&mid), ExitCode::SUCCESS);
    assert!(b.join("checkpoint.bin").exists());
    assert_eq!(
        cli(&["run", "--resume", b_s, "--end", "0.3", "--quiet"]),
        ExitCode::SUCCESS
    );
    assert!(common::run_outputs(&a).len() > 10);
    common::assert_same_bytes(&a, &b);
    // The method's own field is in the fluid frames, one value per particle: the distance
    // from the centre of the point beside it.
    let frame = std::fs::read_to_string(a.join("frames/fluid_000010.vtu")).unwrap();
    let array = |name: &str| -> Vec<Real> {
        let head = format!("Name=\"{name}\"");
        let at = frame
            .find(&head)
            .unwrap_or_else(|| panic!("no {name} in the frame"));
        let body = &frame[at..];
        let body = &body[body.find('>').unwrap() + 1..body.find("</DataArray>").unwrap()];
        body.split_whitespace()
            .map(|x| x.parse().unwrap())
            .collect()
    };
    let (radius, points) = (array("radius"), {
        let at = frame.find("<Points>").unwrap();
        let body = &frame[at..];
        let body = &body[body.find("ascii\">").unwrap() + 7..body.find("</DataArray>").unwrap()];
        body.split_whitespace()
            .map(|x| x.parse::<Real>().unwrap())
            .collect::<Vec<_>>()
    });
    assert_eq!(radius.len() * 3, points.len());
    for (r, x) in radius.iter().zip(points.chunks(3)) {
        let d = ((x[0] - 0.75).powi(2) + (x[1] - 0.75).powi(2)).sqrt();
        assert!(
            (r - d).abs() < 1e-6,
            "radius {r} at a point {d} m from the centre"
        );
    }
    // The summary names the registered methods.
    let summary = std::fs::read_to_string(b.join("summary.txt")).unwrap();
    assert!(
        summary.contains("method prescribed rotation (test)")
            && summary.contains("plastic impulses (test)"),
        "{summary}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_study_runs_registered_methods_across_its_cases() {
    let d = scratch("study");
    std::fs::write(
        d.join("rotating.ron"),
        MODEL.replace("end: 1.0", "end: 0.1"),
    )
    .unwrap();
    let study = d.join("s.ron");
    std::fs::write(
        &study,
        r#"Study(
    model: "rotating.ron",
    set: [("output.vtk", false)],
    axes: [
        Field(name: "omega", field: "fluid.method", values: [Rotating(omega: 3), Rotating(omega: 6)], labels: ["slow", "fast"]),
        Field(name: "resolver", field: "contact.resolver", values: [Plastic(), Complementarity()]),
    ],
    metrics: [Final(column: "fluid_kinetic", name: "kinetic")],
)"#,
    )
    .unwrap();
    let s = vcsim::study::load_study_with(&study, &registry()).expect("the study reads");
    assert_eq!(s.cases.len(), 4);
    assert!(
        s.cases.iter().all(|c| c.error.is_none()),
        "{:?}",
        s.cases.iter().map(|c| &c.error).collect::<Vec<_>>()
    );
    // Without the registry every case names an unknown method: a located error.
    assert!(vcsim::study::load_study(&study).is_err());
    let out = d.join("out");
    let o = out.to_str().unwrap();
    assert_eq!(
        cli(&["study", study.to_str().unwrap(), "--out", o]),
        ExitCode::SUCCESS
    );
    let table = std::fs::read_to_string(out.join("table.csv")).unwrap();
    let rows: Vec<&str> = table.lines().skip(1).collect();
    assert_eq!(rows.len(), 4, "{table}");
    // Twice the angular velocity, four times the kinetic energy, whichever resolver.
    let header: Vec<&str> = table.lines().next().unwrap().split(',').collect();
    let col = header
        .iter()
        .position(|h| *h == "kinetic")
        .expect("a kinetic column");
    let ke: Vec<Real> = rows
        .iter()
        .map(|r| r.split(',').nth(col).unwrap().parse().unwrap())
        .collect();
    for (slow, fast) in [(ke[0], ke[2]), (ke[1], ke[3])] {
        let ratio = fast / slow;
        assert!((ratio - 4.0).abs() < 1e-9, "{table}");
    }
    let _ = std::fs::remove_dir_all(&d);
}
