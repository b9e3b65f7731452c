//! References a study compares with: points from a data file, or a formula (a line, Dodge's
//! sloshing force, transient Poiseuille flow's kinetic energy), with the scales that take the
//! simulation's units into the reference's.

use super::schema::{ReferenceDef, Source};
use std::path::Path;

/// A reference ready to compare with.
#[derive(Debug, Clone)]
pub struct Reference {
    /// Its name.
    pub name: String,
    /// Legend text.
    pub legend: String,
    /// Simulated abscissa → reference abscissa.
    pub x_scale: f64,
    /// Simulated value → reference value.
    pub y_scale: f64,
    /// Axis labels (x, y) on plots.
    pub labels: (String, String),
    /// Points (data references) or none.
    pub points: Vec<(f64, f64)>,
    /// An analytic reference.
    pub function: Option<Source>,
}

impl Reference {
    /// The reference's value at `x` (reference units): a formula's, or the data's linearly
    /// interpolated between its points (points at the same abscissa averaged; `None` outside
    /// them).
    pub fn value_at(&self, x: f64) -> Option<f64> {
        if self.function.is_some() {
            return self.eval(x);
        }
        let mut pts: Vec<(f64, f64, usize)> = Vec::new();
        let mut sorted = self.points.clone();
        sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
        for (px, py) in sorted {
            match pts.last_mut() {
                Some(last) if last.0 == px => {
                    last.1 += py;
                    last.2 += 1;
                }
                _ => pts.push((px, py, 1)),
            }
        }
        let pts: Vec<(f64, f64)> = pts.into_iter().map(|(x, y, n)| (x, y / n as f64)).collect();
        let tol = 1e-9 * x.abs().max(1e-300);
        let k = pts.iter().position(|p| p.0 >= x - tol)?;
        let (x1, y1) = pts[k];
        if (x1 - x).abs() <= tol {
            return Some(y1);
        }
        let (x0, y0) = *pts.get(k.checked_sub(1)?)?;
        Some(y0 + (y1 - y0) * (x - x0) / (x1 - x0))
    }

    /// The analytic value at `x` (reference units), if the reference is a function.
    pub fn eval(&self, x: f64) -> Option<f64> {
        match self.function.as_ref()? {
            Source::Line { slope, intercept } => Some(slope.0 * x + intercept.map_or(0.0, |i| i.0)),
            Source::Dodge {
                width,
                depth,
                amplitude,
                density,
                gravity,
            } => {
                let (w, h, g) = (width.0, depth.0, gravity.map_or(9.81, |g| g.0));
                let omega = 2.0 * std::f64::consts::PI * x;
                let mut sum = 0.0;
                for n in 1..=50 {
                    let k = (2 * n - 1) as f64 * std::f64::consts::PI;
                    let wn2 = k * g / w * (k * h / w).tanh();
                    sum += (k * h / w).tanh() / k.powi(3) * omega * omega / (wn2 - omega * omega);
                }
                let mass = density.0 * w * h;
                Some((omega * omega * amplitude.0 * mass * (1.0 + 8.0 * w / h * sum)).abs())
            }
            Source::Poiseuille {
                force,
                viscosity,
                height,
                length,
                density,
            } => {
                let (f, nu, h) = (force.0, viscosity.0, height.0);
                let pi = std::f64::consts::PI;
                let u = |y: f64| {
                    let mut u = f * y * (h - y) / (2.0 * nu);
                    for n in 0..100 {
                        let k = (2 * n + 1) as f64;
                        u -= 4.0 * f * h * h / (nu * pi.powi(3) * k.powi(3))
                            * (k * pi * y / h).sin()
                            * (-k * k * pi * pi * nu * x / (h * h)).exp();
                    }
                    u
                };
                // Simpson's rule over the channel (400 intervals).
                let n = 400;
                let dy = h / n as f64;
                let sum: f64 = (0..=n)
                    .map(|i| {
                        let w = if i == 0 || i == n {
                            1.0
                        } else if i % 2 == 1 {
                            4.0
                        } else {
                            2.0
                        };
                        w * u(i as f64 * dy).powi(2)
                    })
                    .sum();
                Some(0.5 * density.0 * length.0 * sum * dy / 3.0)
            }
            Source::Data { .. } => None,
        }
    }
}

/// Loads the references of a study (data files relative to `study`); errors name the
/// reference and say what is wrong.
pub fn load_references(
    study: &Path,
    defs: &[ReferenceDef],
) -> Result<Vec<Reference>, (usize, String)> {
    defs.iter()
        .enumerate()
        .map(|(i, d)| {
            let points = match &d.source {
                Source::Data { file, series, x, y } => read_points(
                    &super::expand::relative_to(study, file),
                    series.as_deref(),
                    x,
                    y,
                )
                .map_err(|e| (i, e))?,
                _ => Vec::new(),
            };
            let function = (!matches!(d.source, Source::Data { .. })).then(|| d.source.clone());
            Ok(Reference {
                name: d.name.clone(),
                legend: d.legend.clone().unwrap_or_else(|| d.name.clone()),
                x_scale: d.x_scale.map_or(1.0, |n| n.0),
                y_scale: d.y_scale.map_or(1.0, |n| n.0),
                labels: (
                    d.x_label.clone().unwrap_or_else(|| "t (s)".into()),
                    d.y_label.clone().unwrap_or_default(),
                ),
                points,
                function,
            })
        })
        .collect()
}

/// The (x, y) points of a CSV file: `#` lines are comments, the first other line the header.
fn read_points(
    path: &Path,
    series: Option<&str>,
    x: &str,
    y: &str,
) -> Result<Vec<(f64, f64)>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut lines = text
        .lines()
        .filter(|l| !l.trim_start().starts_with('#') && !l.trim().is_empty());
    let head: Vec<&str> = lines
        .next()
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .collect();
    let col = |name: &str| {
        head.iter().position(|h| *h == name).ok_or_else(|| {
            format!(
                "{} has no column `{name}` (columns: {})",
                path.display(),
                head.join(", ")
            )
        })
    };
    let (cx, cy) = (col(x)?, col(y)?);
    let cs = series.map(|_| col("series")).transpose()?;
    let mut out = Vec::new();
    for l in lines {
        let f: Vec<&str> = l.split(',').map(str::trim).collect();
        if let (Some(c), Some(want)) = (cs, series) {
            if f.get(c) != Some(&want) {
                continue;
            }
        }
        let num = |c: usize| f.get(c).and_then(|v| v.parse::<f64>().ok());
        if let (Some(a), Some(b)) = (num(cx), num(cy)) {
            out.push((a, b));
        }
    }
    if out.is_empty() {
        return Err(format!(
            "no ({x}, {y}) points in {}{}",
            path.display(),
            series
                .map(|s| format!(" with series = {s}"))
                .unwrap_or_default()
        ));
    }
    Ok(out)
}
