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

mod draw;
mod error;
mod frames;
mod picture;
mod vtu;

pub use error::RenderError;

use crate::Real;
use frames::Frame;
use picture::write_gif;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use vtu::parse_pvd;

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

/// Renders the frames of the run in `run_dir`.
pub fn render(run_dir: &Path, opts: &RenderOptions) -> Result<RenderSummary, RenderError> {
    if !run_dir.is_dir() {
        return Err(format!("{}: not a run folder", run_dir.display()).into());
    }
    let list = |name: &str| {
        let pvd = run_dir.join(name);
        if pvd.exists() {
            parse_pvd(&pvd)
        } else {
            Ok(Vec::new())
        }
    };
    let (fluid, bodies) = (list("fluid.pvd")?, list("bodies.pvd")?);
    let (first, last) = frames::check_options(run_dir, opts, fluid.len().max(bodies.len()))?;
    let raw = frames::read(&fluid, &bodies, (first, last))?;
    let planar = frames::planar(&raw);
    let spacing = frames::spacing(&raw);
    let (lo, hi) = frames::scene_box(&raw, run_dir)?;
    let axis = frames::axis(planar, opts, &lo, &hi);
    let view = axis.frame();
    let frames: Vec<Frame> = raw
        .into_par_iter()
        .map(|r| frames::reduce(r, opts, view))
        .collect();
    if frames.iter().all(|f| f.particles.is_empty()) && !fluid.is_empty() {
        return Err("no particle lies in the slice; check --slice".into());
    }
    let range = frames::colour_range(&frames, opts);
    let out = frames::output_folder(run_dir, opts)?;
    std::fs::create_dir_all(&out)
        .map_err(|e| RenderError::Output(format!("{}: {e}", out.display())))?;
    let coloured = !fluid.is_empty();
    let layout = draw::Layout::new(opts, (lo, hi), view, spacing, coloured, planar, axis);
    let images: Vec<Vec<u8>> = frames
        .par_iter()
        .map(|fr| layout.draw(fr, range))
        .collect::<Result<_, String>>()?;
    // Files are named by what they show: the coloured field, or the bodies of a run without
    // particles.
    let stem = if coloured {
        opts.field.array()
    } else {
        "bodies"
    };
    let pngs: Vec<PathBuf> = images
        .par_iter()
        .enumerate()
        .map(|(k, buf)| {
            let p = out.join(format!("{stem}_{:06}.png", first + k));
            image::save_buffer(&p, buf, layout.w, layout.h, image::ColorType::Rgb8)
                .map_err(|e| format!("{}: {e}", p.display()))?;
            Ok(p)
        })
        .collect::<Result<_, String>>()
        .map_err(RenderError::Output)?;
    let gif = if opts.gif {
        let p = out.join(format!("{stem}.gif"));
        write_gif(&p, &images, layout.w, layout.h).map_err(RenderError::Output)?;
        Some(p)
    } else {
        None
    };
    Ok(RenderSummary {
        view: View {
            axis,
            u0: layout.u0,
            v1: layout.v1,
            scale: layout.scale,
            top: layout.top,
            size: (layout.w, layout.h),
        },
        out,
        pngs,
        gif,
        range: coloured.then_some(range),
    })
}
