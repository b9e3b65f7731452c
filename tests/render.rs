//! `vcsim render`: PNG frames and a GIF from a run folder (issue 4).

mod common;

use common::Scratch;
use std::path::Path;
use std::process::Command;

fn vcsim(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_vcsim"))
        .args(args)
        .output()
        .unwrap()
}

fn tmp(name: &str) -> Scratch {
    Scratch::unmade(&format!("render-{name}"))
}

/// Runs a model briefly into a fresh folder.
fn run(model: &Path, end: &str, name: &str) -> Scratch {
    let out = tmp(name);
    let o = vcsim(&[
        "run",
        "--quiet",
        "--end",
        end,
        model.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    out
}

fn colour(img: &image::RgbImage, x: u32, y: u32) -> [u8; 3] {
    img.get_pixel(x, y).0
}

/// The seesaw (2D: a dynamic plate, a static frame, fluid): three frames and a GIF; the picture
/// holds the white background, the grey wall, the blue body, particles in colour-map colours,
/// and a colour bar running from the map's low end (bottom) to its high end (top). A second
/// render goes to `render-2`, never over the first.
#[test]
fn renders_a_2d_run() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/seesaw_2d_apgd.ron");
    let dir = run(&model, "0.05", "seesaw");
    let o = vcsim(&["render", dir.to_str().unwrap(), "--gif"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = dir.join("render");
    for k in 0..3 {
        assert!(
            out.join(format!("pressure_{k:06}.png")).is_file(),
            "frame {k}"
        );
    }
    let gif = std::fs::read(out.join("pressure.gif")).unwrap();
    assert!(gif.starts_with(b"GIF89a"));

    let img = image::open(out.join("pressure_000002.png"))
        .unwrap()
        .to_rgb8();
    assert_eq!(img.width(), 900);
    let (mut white, mut wall, mut body, mut mapped) = (0, 0, 0, 0);
    for p in img.pixels() {
        match p.0 {
            [255, 255, 255] => white += 1,
            [165, 165, 165] => wall += 1,
            [70, 105, 150] => body += 1,
            [r, g, b] if !(r == g && g == b) => mapped += 1,
            _ => {}
        }
    }
    eprintln!("pixels: white {white}, wall {wall}, body {body}, coloured {mapped}");
    assert!(white > 10_000 && wall > 50 && body > 500 && mapped > 5_000);
    // Colour bar: 22 px wide, starting 10 px right of the plot; top = high end (red), bottom =
    // low end (dark blue).
    let x = img.width() - 130 + 10 + 11;
    let (top, bottom) = (colour(&img, x, 36 + 12), colour(&img, x, img.height() - 22));
    assert!(top[0] > 180 && top[2] < 60, "top of the bar {top:?}");
    assert!(
        bottom[2] > 90 && bottom[0] < 60,
        "bottom of the bar {bottom:?}"
    );

    let again = vcsim(&["render", dir.to_str().unwrap(), "--frames", "1..1"]);
    assert!(again.status.success());
    assert!(dir.join("render-2/pressure_000001.png").is_file());
    assert!(!dir.join("render-2/pressure_000000.png").exists());
}

/// Two frames of the hydrostatic tank, rendered by pressure: at the tank's centre the bottom
/// (high pressure) is drawn in the hot end of the colour map and the top layer (zero pressure)
/// in the cold end; the left wall is grey where the wall is. On the seesaw, the plate (a
/// dynamic body) is blue where the plate is.
#[test]
fn colours_and_bodies_are_where_they_belong() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/hydrostatic_2d_apgd.ron");
    let dir = run(&model, "0.1", "tank");
    let opts = vcsim::io::render::RenderOptions {
        frames: Some((1, 2)),
        ..Default::default()
    };
    let s = vcsim::io::render::render(&dir, &opts).unwrap();
    assert_eq!(s.pngs.len(), 2);
    let (lo, hi) = s.range.unwrap();
    assert!(
        lo <= 0.0 && hi > 4000.0,
        "range {lo}..{hi} (ρ g H = 4905 Pa)"
    );
    for png in &s.pngs {
        let img = image::open(png).unwrap().to_rgb8();
        assert_eq!((img.width(), img.height()), s.view.size);
        let at = |p: [f64; 3]| {
            let (x, y) = s.view.pixel(p);
            colour(&img, x as u32, y as u32)
        };
        let (bottom, top) = (at([0.25, 0.01, 0.0]), at([0.25, 0.49, 0.0]));
        assert!(
            bottom[0] as i32 > top[0] as i32 + 100 && top[2] > bottom[2],
            "bottom {bottom:?} vs top {top:?}"
        );
        assert_eq!(at([-0.05, 0.3, 0.0]), [165, 165, 165], "the left wall");
        assert_eq!(
            at([0.25, 0.75, 0.0]),
            [255, 255, 255],
            "air above the water"
        );
    }

    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/seesaw_2d_apgd.ron");
    let dir = run(&model, "0.01", "plate");
    let s = vcsim::io::render::render(&dir, &Default::default()).unwrap();
    let img = image::open(&s.pngs[0]).unwrap().to_rgb8();
    for p in [[0.0, 0.0, 0.0], [0.0, 0.4, 0.0], [0.0, -0.4, 0.0]] {
        let (x, y) = s.view.pixel(p);
        assert_eq!(
            colour(&img, x as u32, y as u32),
            [70, 105, 150],
            "plate at {p:?}"
        );
    }
    let (x, y) = s.view.pixel([-1.0, 0.0, 0.0]);
    assert_eq!(
        colour(&img, x as u32, y as u32),
        [165, 165, 165],
        "the static frame"
    );
}

/// Bad requests exit with 2 and say why, without writing anything.
#[test]
fn bad_render_requests_are_refused() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/seesaw_2d_apgd.ron");
    let dir = run(&model, "0.03", "bad");
    let d = dir.to_str().unwrap();
    for (args, says) in [
        (vec!["render", d, "--frames", "5..2"], "--frames"),
        (vec!["render", d, "--frames", "0..99"], "--frames"),
        (vec!["render", d, "--range", "3:1"], "--range"),
        (vec!["render", d, "--width", "10"], "--width"),
        (vec!["render", "/nonexistent/run"], "not a run folder"),
    ] {
        let o = vcsim(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
    }
    assert!(
        !dir.join("render").exists(),
        "nothing written for bad requests"
    );
    let empty = Scratch::new("render-empty");
    let o = vcsim(&["render", empty.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no frames"));
}

/// A 3D fluid run renders as a projection along a chosen axis and as a slice; a slice that
/// misses the fluid is refused.
#[test]
fn renders_3d_projections_and_slices() {
    let model = tmp("model3d.ron");
    std::fs::write(
        &model,
        r#"Model(
    scene: (dimension: Three, gravity: (0, 0, -9.81)),
    time: (dt: 0.002, end: 0.01),
    solver: Apgd(max_iterations: 100, tolerance: 1e-3),
    bodies: [(name: "floor", kind: Static, shape: Cuboid(half_extents: (0.3, 0.3, 0.05)), position: (0.1, 0.1, -0.05))],
    fluid: (spacing: 0.04, regions: [Box(min: (0, 0, 0), max: (0.2, 0.2, 0.2))]),
    output: (every: 0.004),
)"#,
    )
    .unwrap();
    let dir = run(&model, "0.01", "3d");
    let d = dir.to_str().unwrap();
    let o = vcsim(&["render", d, "--axis", "y", "--field", "velocity"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(dir.join("render/velocity_000000.png").is_file());
    let o = vcsim(&["render", d, "--axis", "y", "--slice", "0.1:0.05"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = vcsim(&["render", d, "--axis", "y", "--slice", "5:0.01"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("slice"));
}

/// A planar run of bodies only (written extruded along z) is drawn in the x–y plane: the
/// pendulum's bob is a blue disc where the run puts it, the air between it and the pivot white.
#[test]
fn renders_a_planar_body_only_run_in_its_plane() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/pendulum_2d_pgs.ron");
    let dir = run(&model, "0.1", "pendulum");
    let opts = vcsim::io::render::RenderOptions {
        frames: Some((10, 10)),
        ..Default::default()
    };
    let s = vcsim::io::render::render(&dir, &opts).unwrap();
    let img = image::open(&s.pngs[0]).unwrap().to_rgb8();
    // The bob's centre at t = 0.1 s, from the run's own bodies.csv (its last row for the bob).
    let csv = std::fs::read_to_string(dir.join("bodies.csv")).unwrap();
    let row: Vec<f64> = csv
        .lines()
        .rfind(|l| l.split(',').nth(1) == Some("bob"))
        .unwrap()
        .split(',')
        .skip(2)
        .take(3)
        .map(|x| x.parse().unwrap())
        .collect();
    let (x, y) = s.view.pixel([row[0], row[1], 0.0]);
    assert_eq!(
        colour(&img, x as u32, y as u32),
        [70, 105, 150],
        "the bob at ({}, {})",
        row[0],
        row[1]
    );
    let (x, y) = s.view.pixel([0.5 * row[0], 0.5 * row[1], 0.0]);
    assert_eq!(
        colour(&img, x as u32, y as u32),
        [255, 255, 255],
        "air between the pivot and the bob"
    );
}

/// A run without particles (the pendulum): its frames are named `bodies_*`, and one frame is
/// counted as one frame.
#[test]
fn a_body_only_run_renders_bodies_frames() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/pendulum_2d_pgs.ron");
    let dir = run(&model, "0.02", "bodies");
    let o = vcsim(&["render", dir.to_str().unwrap(), "--frames", "1..1"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.contains("rendered 1 frame into"), "{out}");
    assert!(dir.join("render/bodies_000001.png").is_file());
}

/// Bodies are outlined: in the ETI stack seen along y, the six cubes of one colour touch, and
/// the line between the middle row and the top cube is drawn dark, where without outlines the
/// cubes would merge into one blue blob; the cubes' insides stay blue; a second render is the
/// same picture.
#[test]
fn touching_bodies_are_outlined() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/cube_stack_eti.ron");
    let dir = run(&model, "0.02", "outline");
    let opts = vcsim::io::render::RenderOptions {
        frames: Some((1, 1)),
        axis: Some(vcsim::io::render::Axis::Y),
        ..Default::default()
    };
    let s = vcsim::io::render::render(&dir, &opts).unwrap();
    let img = image::open(&s.pngs[0]).unwrap().to_rgb8();
    let blue = [70, 105, 150];
    // The top cube (centre x = 0, z = 0.125) on m1 (x = −0.025, z = 0.075): their interface is
    // z = 0.1 for x in (−0.025, 0).
    let (x, y) = s.view.pixel([-0.0125, 0.0, 0.1]);
    let dark = (y as i64 - 2..=y as i64 + 2)
        .map(|yy| colour(&img, x as u32, yy as u32))
        .filter(|c| c.iter().map(|&k| k as u32).sum::<u32>() < 200)
        .count();
    assert!(dark >= 1, "a dark line between the cubes at ({x}, {y})");
    for z in [0.125 + 0.0125, 0.075 - 0.0125] {
        let (x, y) = s.view.pixel([-0.0125, 0.0, z]);
        assert_eq!(
            colour(&img, x as u32, y as u32),
            blue,
            "inside a cube at z = {z}"
        );
    }
    // The same picture again (the outlines are drawn in a fixed order).
    let again = vcsim::io::render::render(&dir, &opts).unwrap();
    assert_eq!(
        std::fs::read(&s.pngs[0]).unwrap(),
        std::fs::read(&again.pngs[0]).unwrap()
    );
}
