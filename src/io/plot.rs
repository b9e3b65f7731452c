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

/// Draws the panels stacked vertically into a PNG at `path`.
pub fn plot_panels(path: &Path, t: &[Real], panels: &[Panel]) -> Result<(), String> {
    ensure_font();
    if panels.is_empty() || t.len() < 2 {
        return Ok(());
    }
    let height = 280 * panels.len() as u32;
    let root = BitMapBackend::new(path, (960, height)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let areas = root.split_evenly((panels.len(), 1));
    let (t0, t1) = (t[0], t[t.len() - 1]);
    for (area, panel) in areas.iter().zip(panels) {
        let (mut lo, mut hi) = (Real::INFINITY, Real::NEG_INFINITY);
        for (_, v) in &panel.series {
            for &x in v.iter().filter(|x| x.is_finite()) {
                lo = lo.min(x);
                hi = hi.max(x);
            }
        }
        if !lo.is_finite() {
            continue;
        }
        let pad = ((hi - lo) * 0.05).max(1e-9 * hi.abs().max(1.0));
        let mut chart = ChartBuilder::on(area)
            .caption(&panel.title, ("sans-serif", 18))
            .margin(10)
            .x_label_area_size(32)
            .y_label_area_size(70)
            .build_cartesian_2d(t0..t1, (lo - pad)..(hi + pad))
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc("t (s)")
            .label_style(("sans-serif", 13))
            .draw()
            .map_err(|e| e.to_string())?;
        for (i, (name, v)) in panel.series.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            chart
                .draw_series(LineSeries::new(
                    t.iter().copied().zip(v.iter().copied()),
                    color.stroke_width(2),
                ))
                .map_err(|e| e.to_string())?
                .label(name.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
                });
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .label_font(("sans-serif", 13))
            .draw()
            .map_err(|e| e.to_string())?;
    }
    root.present().map_err(|e| e.to_string())
}
