//! Reading a run's frames and reducing them to what is drawn: the view (plane or axis), the
//! scene box, and per frame the particles (screen position, depth, value) and body triangles.

use super::vtu::{parse_vtu, TimedVtu};
use super::{Axis, RenderError, RenderOptions};
use crate::Real;
use rayon::prelude::*;
use std::path::{Path, PathBuf};

/// One frame, reduced to what is drawn: particles (screen u, v, depth, value) and triangles
/// (three screen points, body kind: 0 static, 1 kinematic, 2 dynamic; frames written before
/// the kind was recorded count as static).
pub(super) struct Frame {
    pub(super) time: Real,
    pub(super) particles: Vec<[Real; 4]>,
    pub(super) triangles: Vec<([[Real; 2]; 3], i32)>,
    /// The bodies' outlines in the view: segments (two screen points, body kind), see
    /// [`outlines`].
    pub(super) outlines: Vec<([[Real; 2]; 2], i32)>,
}

/// Checks the options against a run of `count` frames; the frames to draw.
pub(super) fn check_options(
    run_dir: &Path,
    opts: &RenderOptions,
    count: usize,
) -> Result<(usize, usize), RenderError> {
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

    Ok((first, last))
}

/// Frames `first..=last` of the fluid's and the bodies' lists, read in parallel.
pub(super) fn read(
    fluid: &[(Real, PathBuf)],
    bodies: &[(Real, PathBuf)],
    (first, last): (usize, usize),
) -> Result<Vec<(TimedVtu, TimedVtu)>, String> {
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
        .map(|k| Ok((read(fluid, k)?, read(bodies, k)?)))
        .collect::<Result<_, String>>()?;

    Ok(raw)
}

/// Whether the run is planar: recorded in its frames (`planar`); frames written before that was
/// recorded are planar when every point has z = 0 (a body-only 2D run is written extruded, so
/// such an old run is drawn as 3D).
pub(super) fn planar(raw: &[(TimedVtu, TimedVtu)]) -> bool {
    let recorded = raw.iter().find_map(|(f, b)| {
        f.iter()
            .chain(b.iter())
            .find_map(|(_, v)| v.array("planar"))
            .and_then(|a| a.values.first().copied())
    });
    match recorded {
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
    }
}

/// The particle spacing the first fluid frame records (m).
pub(super) fn spacing(raw: &[(TimedVtu, TimedVtu)]) -> Option<Real> {
    raw.first()
        .and_then(|(f, _)| f.as_ref())
        .and_then(|(_, v)| v.array("spacing"))
        .and_then(|a| a.values.first().copied())
}

/// The box (m) of the first frame's points; an error when it holds none.
pub(super) fn scene_box(
    raw: &[(TimedVtu, TimedVtu)],
    run_dir: &Path,
) -> Result<([Real; 3], [Real; 3]), RenderError> {
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
    Ok((lo, hi))
}

/// The view axis: z for a planar run, else the option's or the one along which the scene is
/// thinnest.
pub(super) fn axis(planar: bool, opts: &RenderOptions, lo: &[Real; 3], hi: &[Real; 3]) -> Axis {
    if planar {
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
    }
}

/// A frame reduced to screen data along the view frame `(ax, au, av)`: particles far first,
/// static bodies' triangles first.
pub(super) fn reduce(
    (f, b): (TimedVtu, TimedVtu),
    opts: &RenderOptions,
    (ax, au, av): (usize, usize, usize),
) -> Frame {
    let mut fr = Frame {
        time: f.as_ref().or(b.as_ref()).map(|x| x.0).unwrap_or(0.0),
        particles: Vec::new(),
        triangles: Vec::new(),
        outlines: Vec::new(),
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
            let mut corners = Vec::new();
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
                corners.push([tri[0] as u32, tri[1] as u32, tri[2] as u32]);
            }
            fr.outlines = outlines(&fr.triangles, &corners);
            // Static bodies first: moving bodies are drawn over walls.
            fr.triangles.sort_by_key(|t| t.1);
        }
    }
    fr
}

/// An edge of [`outlines`]: its end points, the body kind, the facings of its first two
/// triangles.
type Edge = ([[Real; 2]; 2], i32, i8, Option<i8>);

/// The edges of the bodies' triangle meshes that outline them in the view: an edge of one
/// triangle only (an open mesh's rim), or between a triangle that faces the viewer and one that
/// faces away or is seen edge-on (the silhouette of a closed mesh: a box seen along an axis is
/// outlined by its front face's rim). Edges inside a face, between two triangles facing the
/// same way, are not drawn. `corners` are the triangles' vertex indices (shared between the
/// triangles of one body's mesh).
pub(super) fn outlines(
    triangles: &[([[Real; 2]; 3], i32)],
    corners: &[[u32; 3]],
) -> Vec<([[Real; 2]; 2], i32)> {
    // Facing: the sign of the projected area, 0 for a triangle seen edge-on.
    let facing = |[a, b, c]: &[[Real; 2]; 3]| {
        let area = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
        let size = [(a, b), (b, c), (c, a)]
            .iter()
            .map(|(p, q)| (p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2))
            .fold(0.0, Real::max);
        if area.abs() <= 1e-9 * size {
            0
        } else {
            area.signum() as i8
        }
    };
    // Each edge by its vertex indices, lower first.
    let mut edges: std::collections::HashMap<(u32, u32), Edge> =
        std::collections::HashMap::with_capacity(3 * corners.len() / 2);
    for ((pts, kind), idx) in triangles.iter().zip(corners) {
        let f = facing(pts);
        for k in 0..3 {
            let (i, j) = (idx[k], idx[(k + 1) % 3]);
            let key = (i.min(j), i.max(j));
            edges
                .entry(key)
                .and_modify(|e| {
                    e.3.get_or_insert(f);
                })
                .or_insert(([pts[k], pts[(k + 1) % 3]], *kind, f, None));
        }
    }
    // In the order of the kinds, then of the vertex indices: the same picture every time
    // (the map's order is random, and outlines of two kinds may cross).
    let mut out: Vec<_> = edges
        .into_iter()
        .filter(|(_, (_, _, a, b))| b.is_none_or(|b| *a != b))
        .map(|(key, (seg, kind, ..))| (kind, key, seg))
        .collect();
    out.sort_unstable_by_key(|&(kind, key, _)| (kind, key));
    out.into_iter().map(|(kind, _, seg)| (seg, kind)).collect()
}

/// The colour range: the option's, or the field's range over every frame (widened when it is
/// one value).
pub(super) fn colour_range(frames: &[Frame], opts: &RenderOptions) -> (Real, Real) {
    match opts.range {
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
    }
}

/// The output folder: the option's (which must be empty), or `render`, `render-2`, ... in the
/// run folder, the first that is empty or missing.
pub(super) fn output_folder(run_dir: &Path, opts: &RenderOptions) -> Result<PathBuf, RenderError> {
    Ok(match &opts.out {
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
    })
}
