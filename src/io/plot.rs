//! PNG plots of time series with plotters. The font (DejaVu Sans, free licence, see
//! `assets/DejaVuSans-LICENSE.txt`) is embedded in the binary, so plots work on a machine
//! without system fonts.

use crate::Real;
use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};
use std::path::Path;
use std::sync::Once;

static FONT: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");
static REGISTER: Once = Once::new();

/// Registers the embedded font under the name `sans-serif` (idempotent).
pub fn ensure_font() {
    REGISTER.call_once(|| {
        // The embedded font is a valid TrueType file; failure would be a build defect.
        let _ = register_font("sans-serif", FontStyle::Normal, FONT);
    });
}

/// One panel: a title and named series sharing the time axis.
pub struct Panel {
    /// Title with unit.
    pub title: String,
    /// (legend, values) pairs, one value per time.
    pub series: Vec<(String, Vec<Real>)>,
}

/// Draws one row per panel into a PNG at `path`; within a row each series gets its own small
/// chart (so a 3 cm deflection is not flattened by a 1 m coordinate), and series that are zero
/// throughout (e.g. z in planar models) are left out.
pub fn plot_panels(path: &Path, t: &[Real], panels: &[Panel]) -> Result<(), String> {
    ensure_font();
    type Series = (String, Vec<Real>);
    let rows: Vec<(&Panel, Vec<&Series>)> = panels
        .iter()
        .map(|p| {
            (
                p,
                p.series
                    .iter()
                    .filter(|(_, v)| v.iter().any(|x| *x != 0.0))
                    .collect::<Vec<_>>(),
            )
        })
        .filter(|(_, s)| !s.is_empty())
        .collect();
    if rows.is_empty() || t.len() < 2 {
        return Ok(());
    }
    let height = 300 * rows.len() as u32;
    let root = BitMapBackend::new(path, (1200, height)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let row_areas = root.split_evenly((rows.len(), 1));
    let (t0, t1) = (t[0], t[t.len() - 1]);
    for (row, (panel, series)) in row_areas.iter().zip(&rows) {
        let (title_area, body) = row.split_vertically(28);
        title_area
            .titled(&panel.title, ("sans-serif", 19))
            .map_err(|e| e.to_string())?;
        let cells = body.split_evenly((1, series.len()));
        for (i, (cell, (name, v))) in cells.iter().zip(series.iter()).enumerate() {
            let (mut lo, mut hi) = (Real::INFINITY, Real::NEG_INFINITY);
            for &x in v.iter().filter(|x| x.is_finite()) {
                lo = lo.min(x);
                hi = hi.max(x);
            }
            if !lo.is_finite() {
                continue;
            }
            let pad = ((hi - lo) * 0.05).max(1e-9 * hi.abs().max(lo.abs()).max(1e-12));
            let span = hi - lo + 2.0 * pad;
            let plain = (1e-2..1e5).contains(&hi.abs().max(lo.abs())) && span > 1e-3;
            // As many decimals as the ticks' spacing (about a tenth of the span) needs.
            let decimals = (-(span / 10.0).log10().floor()).clamp(0.0, 6.0) as usize;
            let fmt = move |y: &Real| {
                if plain {
                    format!("{y:.decimals$}")
                } else {
                    format!("{y:.2e}")
                }
            };
            let mut chart = ChartBuilder::on(cell)
                .caption(name, ("sans-serif", 15))
                .margin(8)
                .x_label_area_size(30)
                .y_label_area_size(72)
                .build_cartesian_2d(t0..t1, (lo - pad)..(hi + pad))
                .map_err(|e| e.to_string())?;
            chart
                .configure_mesh()
                .x_desc("t (s)")
                .y_label_formatter(&fmt)
                .label_style(("sans-serif", 12))
                .draw()
                .map_err(|e| e.to_string())?;
            let color = Palette99::pick(i).to_rgba();
            chart
                .draw_series(LineSeries::new(
                    t.iter().copied().zip(v.iter().copied()),
                    color.stroke_width(2),
                ))
                .map_err(|e| e.to_string())?;
        }
    }
    root.present().map_err(|e| e.to_string())
}
