//! Pictures of a run without leaving the terminal: PNG frames (and an animated GIF) of the
//! particles coloured by a field, with a colour bar and the time, bodies drawn as filled shapes
//! in their pose (walls grey). Reads the run folder's VTK frames (`fluid.pvd`, `bodies.pvd`), so
//! it works on any finished run, on another machine, or on a CI log's artefacts.
//!
//! 2D models are drawn in their plane. 3D models are projected orthographically along an axis
//! (default: the one along which the scene is thinnest), nearer particles drawn over farther
//! ones, or cut to a slab (`slice`) around a plane normal to that axis.
//!
//! The colour range is fixed across all rendered frames (the range of the field over them)
//! unless given; frames render in parallel.

mod error;
mod picture;
mod vtu;

pub use error::RenderError;

use crate::io::plot::ensure_font;
use crate::Real;
use picture::{body_colour, colour, fmt_value, write_gif};
use plotters::prelude::*;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use vtu::{parse_pvd, parse_vtu, TimedVtu};

/// The particle field that sets the colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Field {
    /// Pressure from the multipliers (Pa).
    Pressure,
    /// Smoothed pressure, 001 eq. 42 (Pa).
    SmoothedPressure,
    /// Speed |v| (m/s).
    Velocity,
    /// Density error (ρ − ρ0)/ρ0 (-).
    DensityError,
}

impl Field {
    fn array(self) -> &'static str {
        match self {
            Field::Pressure => "pressure",
            Field::SmoothedPressure => "smoothed_pressure",
            Field::Velocity => "velocity",
            Field::DensityError => "density_error",
        }
    }
    fn label(self) -> &'static str {
        match self {
            Field::Pressure => "pressure (Pa)",
            Field::SmoothedPressure => "smoothed pressure (Pa)",
            Field::Velocity => "speed (m/s)",
            Field::DensityError => "density error (-)",
        }
    }
}

/// View axis of 3D models.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Axis {
    /// Look along x (y to the right, z up).
    X,
    /// Look along y (x to the right, z up).
    Y,
    /// Look along z (x to the right, y up).
    Z,
}

impl Axis {
    /// (view axis, screen right, screen up) as coordinate indices.
    fn frame(self) -> (usize, usize, usize) {
        match self {
            Axis::X => (0, 1, 2),
            Axis::Y => (1, 0, 2),
            Axis::Z => (2, 0, 1),
        }
    }
}

/// What to render (also the `render` command's options).
#[derive(Debug, Clone, clap::Args)]
pub struct RenderOptions {
    /// Particle colour.
    #[arg(long, value_enum, default_value = "pressure")]
    pub field: Field,
    /// Frame numbers `first..=last`, e.g. `0..40` (default all).
    #[arg(long, value_parser = parse_frames)]
    pub frames: Option<(usize, usize)>,
    /// Output folder (default `RUN_DIR/render`, or `render-2`, … if taken; never overwritten).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// 3D models: the axis to look along (default: the scene's thinnest); planar models are
    /// always seen along z.
    #[arg(long, value_enum)]
    pub axis: Option<Axis>,
    /// 3D models: keep particles within a slab, `CENTER:THICKNESS` in metres along the axis.
    #[arg(long, value_parser = parse_pair)]
    pub slice: Option<(Real, Real)>,
    /// Colour range `LOW:HIGH` (default: the field's range over the rendered frames).
    #[arg(long, value_parser = parse_pair, allow_hyphen_values = true)]
    pub range: Option<(Real, Real)>,
    /// Also write an animated GIF of the frames.
    #[arg(long)]
    pub gif: bool,
    /// Image width in pixels.
    #[arg(long, default_value_t = 900)]
    pub width: u32,
}

/// `A..B` as two frame numbers.
fn parse_frames(s: &str) -> Result<(usize, usize), String> {
    let (a, b) = s
        .split_once("..")
        .ok_or_else(|| format!("`{s}`: expected FIRST..LAST, e.g. 0..40"))?;
    let n = |x: &str| {
        x.trim()
            .parse::<usize>()
            .map_err(|_| format!("`{x}` is not a frame number"))
    };
    Ok((n(a)?, n(b)?))
}

/// `A:B` as two finite numbers.
fn parse_pair(s: &str) -> Result<(f64, f64), String> {
    let (a, b) = s
        .split_once(':')
        .ok_or_else(|| format!("`{s}`: expected two numbers as A:B"))?;
    let n = |x: &str| {
        x.trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| format!("`{x}` is not a finite number"))
    };
    Ok((n(a)?, n(b)?))
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            field: Field::Pressure,
            frames: None,
            out: None,
            axis: None,
            slice: None,
            range: None,
            gif: false,
            width: 900,
        }
    }
}

/// The picture's mapping from world coordinates to pixels.
#[derive(Debug, Clone, Copy)]
pub struct View {
    /// View axis.
    pub axis: Axis,
    /// World coordinate (along the screen's right axis) of pixel column 5 (m).
    pub u0: Real,
    /// World coordinate (along the screen's up axis) of the plot's top row (m).
    pub v1: Real,
    /// Pixels per metre.
    pub scale: Real,
    /// Pixel row of the plot's top.
    pub top: u32,
    /// Image size (pixels).
    pub size: (u32, u32),
}

impl View {
    /// The pixel (column, row) of a world point.
    pub fn pixel(&self, p: [Real; 3]) -> (i32, i32) {
        let (_, au, av) = self.axis.frame();
        (
            5 + ((p[au] - self.u0) * self.scale).round() as i32,
            (self.top as Real + (self.v1 - p[av]) * self.scale).round() as i32,
        )
    }
}

/// What was written.
#[derive(Debug, Clone)]
pub struct RenderSummary {
    /// How world points map to pixels.
    pub view: View,
    /// Output folder.
    pub out: PathBuf,
    /// PNG files written, in frame order.
    pub pngs: Vec<PathBuf>,
    /// The GIF, if asked for.
    pub gif: Option<PathBuf>,
    /// The colour range used (none for a run without particles).
    pub range: Option<(Real, Real)>,
}

/// One frame, reduced to what is drawn: particles (screen u, v, depth, value) and triangles
/// (three screen points, body kind: 0 static, 1 kinematic, 2 dynamic; frames written before
/// the kind was recorded count as static).
struct Frame {
    time: Real,
    particles: Vec<[Real; 4]>,
    triangles: Vec<([[Real; 2]; 3], i32)>,
}

/// Renders the frames of the run in `run_dir`.
pub fn render(run_dir: &Path, opts: &RenderOptions) -> Result<RenderSummary, RenderError> {
    if !run_dir.is_dir() {
        return Err(format!("{}: not a run folder", run_dir.display()).into());
    }
    let fluid_pvd = run_dir.join("fluid.pvd");
    let bodies_pvd = run_dir.join("bodies.pvd");
    let fluid = if fluid_pvd.exists() {
        parse_pvd(&fluid_pvd)?
    } else {
        Vec::new()
    };
    let bodies = if bodies_pvd.exists() {
        parse_pvd(&bodies_pvd)?
    } else {
        Vec::new()
    };
    let count = fluid.len().max(bodies.len());
    if count == 0 {
        return Err(format!(
            "{}: no frames (fluid.pvd / bodies.pvd); was the run made with `output.vtk: true`?",
            run_dir.display()
        )
        .into());
    }
    let (first, last) = opts.frames.unwrap_or((0, count - 1));
    if first > last || last >= count {
        return Err(format!(
            "--frames {first}..{last}: the run has frames 0..{}",
            count - 1
        )
        .into());
    }
    if opts.width < 200 || opts.width > 8000 {
        return Err(format!("--width {}: expected 200 to 8000 pixels", opts.width).into());
    }
    if let Some((lo, hi)) = opts.range {
        if !(lo.is_finite() && hi.is_finite() && lo < hi) {
            return Err(
                format!("--range {lo}:{hi}: expected two finite numbers, low < high").into(),
            );
        }
    }
    if let Some((_, t)) = opts.slice {
        if !(t.is_finite() && t > 0.0) {
            return Err(format!("--slice thickness {t}: expected a positive length").into());
        }
    }

    // Read the frames (parallel), keep raw 3D data for the view decision.
    let read = |list: &[(Real, PathBuf)], k: usize| -> Result<TimedVtu, String> {
        match list.get(k) {
            None => Ok(None),
            Some((t, p)) => {
                let text =
                    std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
                Ok(Some((*t, parse_vtu(&text, p)?)))
            }
        }
    };
    let raw: Vec<(TimedVtu, TimedVtu)> = (first..=last)
        .into_par_iter()
        .map(|k| Ok((read(&fluid, k)?, read(&bodies, k)?)))
        .collect::<Result<_, String>>()?;

    // Planar runs record it in their frames (`planar`); frames written before that was
    // recorded are planar when every point has z = 0 (a body-only 2D run is written extruded,
    // so such an old run is drawn as 3D).
    let recorded = raw.iter().find_map(|(f, b)| {
        f.iter()
            .chain(b.iter())
            .find_map(|(_, v)| v.array("planar"))
            .and_then(|a| a.values.first().copied())
    });
    let planar = match recorded {
        Some(p) => p != 0.0,
        None => {
            raw.iter().all(|(f, b)| {
                f.iter()
                    .chain(b.iter())
                    .all(|(_, v)| v.points.iter().all(|p| p[2] == 0.0))
            }) || raw
                .first()
                .and_then(|(f, _)| f.as_ref())
                .is_some_and(|(_, v)| !v.points.is_empty() && v.points.iter().all(|p| p[2] == 0.0))
        }
    };
    let spacing = raw
        .first()
        .and_then(|(f, _)| f.as_ref())
        .and_then(|(_, v)| v.array("spacing"))
        .and_then(|a| a.values.first().copied());
    // Scene box of the first frame.
    let mut lo = [Real::INFINITY; 3];
    let mut hi = [Real::NEG_INFINITY; 3];
    if let Some((f, b)) = raw.first() {
        for (_, v) in f.iter().chain(b.iter()) {
            for p in &v.points {
                for a in 0..3 {
                    lo[a] = lo[a].min(p[a]);
                    hi[a] = hi[a].max(p[a]);
                }
            }
        }
    }
    if lo.iter().zip(&hi).any(|(l, h)| l > h) {
        return Err(format!("{}: the frames hold no points", run_dir.display()).into());
    }
    let axis = if planar {
        Axis::Z
    } else {
        opts.axis.unwrap_or_else(|| {
            let ext: Vec<Real> = (0..3).map(|a| hi[a] - lo[a]).collect();
            match (0..3)
                .min_by(|&a, &b| ext[a].total_cmp(&ext[b]))
                .unwrap_or(2)
            {
                0 => Axis::X,
                1 => Axis::Y,
                _ => Axis::Z,
            }
        })
    };
    let (ax, au, av) = axis.frame();

    // Reduce to screen data.
    let frames: Vec<Frame> = raw
        .into_par_iter()
        .map(|(f, b)| {
            let mut fr = Frame {
                time: f.as_ref().or(b.as_ref()).map(|x| x.0).unwrap_or(0.0),
                particles: Vec::new(),
                triangles: Vec::new(),
            };
            if let Some((_, v)) = &f {
                let field = v.array(opts.field.array());
                for (i, p) in v.points.iter().enumerate() {
                    if let Some((c, t)) = opts.slice {
                        if (p[ax] - c).abs() > 0.5 * t {
                            continue;
                        }
                    }
                    let value = match field {
                        Some(a) if a.ncomp == 3 => {
                            let s = &a.values[3 * i..3 * i + 3];
                            (s[0] * s[0] + s[1] * s[1] + s[2] * s[2]).sqrt()
                        }
                        Some(a) => a.values.get(i).copied().unwrap_or(Real::NAN),
                        None => Real::NAN,
                    };
                    fr.particles.push([p[au], p[av], p[ax], value]);
                }
                // Far particles first, near ones on top.
                fr.particles.sort_by(|a, b| a[2].total_cmp(&b[2]));
            }
            if let Some((_, v)) = &b {
                let conn = v.array("connectivity");
                let kind = v.array("kind");
                if let Some(conn) = conn {
                    for (t, tri) in conn.values.chunks(3).enumerate() {
                        if tri.len() < 3 {
                            break;
                        }
                        let corner = |k: usize| {
                            let p = v.points.get(tri[k] as usize).copied().unwrap_or([0.0; 3]);
                            [p[au], p[av]]
                        };
                        let kd = kind.and_then(|k| k.values.get(t).copied()).unwrap_or(0.0) as i32;
                        fr.triangles.push(([corner(0), corner(1), corner(2)], kd));
                    }
                    // Static bodies first: moving bodies are drawn over walls.
                    fr.triangles.sort_by_key(|t| t.1);
                }
            }
            fr
        })
        .collect();
    if frames.iter().all(|f| f.particles.is_empty()) && !fluid.is_empty() {
        return Err("no particle lies in the slice; check --slice".into());
    }

    let range = match opts.range {
        Some(r) => r,
        None => {
            let vals = frames
                .iter()
                .flat_map(|f| f.particles.iter().map(|p| p[3]))
                .filter(|v| v.is_finite());
            let (mut a, mut b) = (Real::INFINITY, Real::NEG_INFINITY);
            for v in vals {
                a = a.min(v);
                b = b.max(v);
            }
            if !(a.is_finite() && b.is_finite()) {
                (0.0, 1.0)
            } else if b - a <= 1e-12 * (a.abs() + b.abs()).max(1e-300) {
                (a - 0.5 * a.abs().max(1.0), b + 0.5 * b.abs().max(1.0))
            } else {
                (a, b)
            }
        }
    };

    // Output folder: never into one that already holds files.
    let out = match &opts.out {
        Some(o) => {
            if o.is_file()
                || std::fs::read_dir(o)
                    .map(|mut d| d.next().is_some())
                    .unwrap_or(false)
            {
                return Err(format!(
                    "the output folder {} already holds files; choose another --out (nothing is overwritten)",
                    o.display()
                ).into());
            }
            o.clone()
        }
        None => {
            let base = run_dir.join("render");
            std::iter::once(base.clone())
                .chain((2..1000).map(|n| run_dir.join(format!("render-{n}"))))
                .find(|p| {
                    !p.exists()
                        || std::fs::read_dir(p)
                            .map(|mut d| d.next().is_none())
                            .unwrap_or(false)
                })
                .ok_or("too many earlier renders; pass --out")?
        }
    };
    std::fs::create_dir_all(&out)
        .map_err(|e| RenderError::Output(format!("{}: {e}", out.display())))?;

    // Layout: the scene keeps its aspect ratio; a colour bar on the right, a title line above.
    let (u0, u1, v0, v1) = {
        let (du, dv) = (hi[au] - lo[au], hi[av] - lo[av]);
        let pad = 0.03 * du.max(dv).max(1e-9);
        (lo[au] - pad, hi[au] + pad, lo[av] - pad, hi[av] + pad)
    };
    // No particles (a multibody run): no colour bar, no field.
    let coloured = !fluid.is_empty();
    let bar = if coloured { 130u32 } else { 0 };
    let top = 36u32;
    let pw = opts.width - bar - 10;
    let scale = pw as Real / (u1 - u0);
    let ph = (((v1 - v0) * scale).round() as u32).clamp(120, 4 * opts.width);
    let scale = scale.min(ph as Real / (v1 - v0));
    let (w, h) = (opts.width, ph + top + 10);
    let radius = spacing
        .map(|l| (0.5 * l * scale).round().max(1.0) as i32)
        .unwrap_or(2);
    let to_px = |u: Real, v: Real| -> (i32, i32) {
        (
            5 + ((u - u0) * scale).round() as i32,
            (top as Real + (v1 - v) * scale).round() as i32,
        )
    };
    let field_label = if coloured { opts.field.label() } else { "" };
    let slice_note = opts
        .slice
        .map(|(c, t)| format!(", slice {t} m at {c} m"))
        .unwrap_or_default();
    let view_note = if planar {
        String::new()
    } else {
        format!("seen along {axis:?}{slice_note}").to_lowercase()
    };
    let caption = [field_label, view_note.as_str()]
        .iter()
        .filter(|s| !s.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    ensure_font();

    let draw = |fr: &Frame| -> Result<Vec<u8>, String> {
        let mut buf = vec![255u8; (w * h * 3) as usize];
        (|| -> Result<(), String> {
            let root = BitMapBackend::with_buffer(&mut buf, (w, h)).into_drawing_area();
            let e = |e: DrawingAreaErrorKind<_>| e.to_string();
            for (tri, kind) in fr.triangles.iter().filter(|t| t.1 == 0) {
                let pts: Vec<(i32, i32)> = tri.iter().map(|p| to_px(p[0], p[1])).collect();
                root.draw(&Polygon::new(pts, body_colour(*kind).filled()))
                    .map_err(e)?;
            }
            for p in &fr.particles {
                let x = (p[3] - range.0) / (range.1 - range.0);
                let c = if p[3].is_finite() {
                    colour(x)
                } else {
                    RGBColor(90, 90, 90)
                };
                root.draw(&Circle::new(to_px(p[0], p[1]), radius, c.filled()))
                    .map_err(e)?;
            }
            for (tri, kind) in fr.triangles.iter().filter(|t| t.1 != 0) {
                let pts: Vec<(i32, i32)> = tri.iter().map(|p| to_px(p[0], p[1])).collect();
                root.draw(&Polygon::new(pts, body_colour(*kind).filled()))
                    .map_err(e)?;
            }
            let font = ("sans-serif", 18).into_font().color(&BLACK);
            root.draw(&Text::new(
                format!("t = {:.4} s    {caption}", fr.time),
                (8, 8),
                font.clone(),
            ))
            .map_err(e)?;
            if !coloured {
                root.present().map_err(e)?;
                return Ok(());
            }
            // Colour bar.
            let (bx, by0, by1) = (w as i32 - bar as i32 + 10, top as i32 + 10, h as i32 - 20);
            let n = (by1 - by0).max(1);
            for k in 0..n {
                let c = colour(1.0 - k as Real / n as Real);
                root.draw(&Rectangle::new(
                    [(bx, by0 + k), (bx + 22, by0 + k + 1)],
                    c.filled(),
                ))
                .map_err(e)?;
            }
            root.draw(&Rectangle::new([(bx, by0), (bx + 22, by1)], BLACK))
                .map_err(e)?;
            let small = ("sans-serif", 14).into_font().color(&BLACK);
            for k in 0..=4 {
                let f = k as Real / 4.0;
                let y = by1 - (f * n as Real).round() as i32;
                let v = range.0 + f * (range.1 - range.0);
                root.draw(&PathElement::new([(bx + 22, y), (bx + 28, y)], BLACK))
                    .map_err(e)?;
                root.draw(&Text::new(fmt_value(v), (bx + 31, y - 7), small.clone()))
                    .map_err(e)?;
            }
            root.present().map_err(e)?;
            Ok(())
        })()?;
        Ok(buf)
    };

    let stem = opts.field.array();
    let images: Vec<Vec<u8>> = frames
        .par_iter()
        .map(|fr| {
            let buf = draw(fr)?;
            Ok(buf)
        })
        .collect::<Result<_, String>>()?;
    let pngs: Vec<PathBuf> = images
        .par_iter()
        .enumerate()
        .map(|(k, buf)| {
            let p = out.join(format!("{stem}_{:06}.png", first + k));
            image::save_buffer(&p, buf, w, h, image::ColorType::Rgb8)
                .map_err(|e| format!("{}: {e}", p.display()))?;
            Ok(p)
        })
        .collect::<Result<_, String>>()
        .map_err(RenderError::Output)?;
    let gif = if opts.gif {
        let p = out.join(format!("{stem}.gif"));
        write_gif(&p, &images, w, h).map_err(RenderError::Output)?;
        Some(p)
    } else {
        None
    };
    Ok(RenderSummary {
        view: View {
            axis,
            u0,
            v1,
            scale,
            top,
            size: (w, h),
        },
        out,
        pngs,
        gif,
        range: coloured.then_some(range),
    })
}
