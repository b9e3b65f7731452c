//! One chart drawn twice (PNG and SVG) with plotters: lines, point markers and a legend, on
//! linear or logarithmic axes. The study's plots ([`super::plots`]) describe what to draw; this draws it.

use crate::io::plot::ensure_font;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// How an item is drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Style {
    /// A line through the points.
    Line,
    /// A line with a marker at each point.
    LineMarkers,
    /// Markers only.
    Markers,
    /// A black dashed line (a reference curve or a Pareto front).
    Reference,
    /// Black crosses (reference data).
    ReferencePoints,
}

/// One legend entry: its points (x, y) and style.
#[derive(Debug, Clone)]
pub struct Item {
    /// Legend text.
    pub legend: String,
    /// The points.
    pub points: Vec<(f64, f64)>,
    /// How they are drawn.
    pub style: Style,
}

/// A chart.
#[derive(Debug, Clone, Default)]
pub struct Chart {
    /// Title.
    pub title: String,
    /// Axis labels.
    pub x_label: String,
    /// Axis labels.
    pub y_label: String,
    /// Logarithmic x.
    pub log_x: bool,
    /// Logarithmic y.
    pub log_y: bool,
    /// What to draw.
    pub items: Vec<Item>,
}

/// Four significant digits, plain or scientific as suits the magnitude.
pub fn sig(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let e = x.abs().log10().floor() as i32;
    if (-3..5).contains(&e) {
        let d = (3 - e).max(0) as usize;
        let s = format!("{x:.d$}");
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    } else {
        format!("{x:.3e}")
    }
}

impl Chart {
    /// Writes `stem.png` and `stem.svg`; nothing when there is nothing finite to draw. A log
    /// axis is kept only when its values are positive and span a decade.
    pub fn write(&self, stem: &Path) -> Result<bool, String> {
        ensure_font();
        let all: Vec<(f64, f64)> = self
            .items
            .iter()
            .flat_map(|i| i.points.iter().copied())
            .filter(|(x, y)| x.is_finite() && y.is_finite())
            .collect();
        if all.is_empty() {
            return Ok(false);
        }
        // A log axis needs positive values, and spans a decade or more (plotters labels its
        // ticks at powers of ten).
        let wide = |v: &mut dyn Iterator<Item = f64>| {
            let (lo, hi) = v.fold((f64::INFINITY, 0.0f64), |(a, b), x| (a.min(x), b.max(x)));
            lo > 0.0 && hi / lo >= 10.0
        };
        let log_x = self.log_x && wide(&mut all.iter().map(|p| p.0));
        let log_y = self.log_y && wide(&mut all.iter().map(|p| p.1));
        let xr = span(all.iter().map(|p| p.0), log_x, 0.0);
        // Headroom above the data for the legend (upper left).
        let legend_rows = self.items.iter().filter(|i| !i.legend.is_empty()).count() as f64;
        let yr = span(
            all.iter().map(|p| p.1),
            log_y,
            (0.045 * legend_rows).min(0.6),
        );
        let png = stem.with_extension("png");
        let svg = stem.with_extension("svg");
        macro_rules! both {
            ($x:expr, $y:expr) => {{
                self.draw(
                    BitMapBackend::new(&png, (1000, 650)).into_drawing_area(),
                    $x,
                    $y,
                )?;
                self.draw(
                    SVGBackend::new(&svg, (1000, 650)).into_drawing_area(),
                    $x,
                    $y,
                )?;
            }};
        }
        match (log_x, log_y) {
            (false, false) => both!(xr.clone(), yr.clone()),
            (true, false) => both!(xr.clone().log_scale(), yr.clone()),
            (false, true) => both!(xr.clone(), yr.clone().log_scale()),
            (true, true) => both!(xr.clone().log_scale(), yr.clone().log_scale()),
        }
        Ok(true)
    }

    fn draw<DB, X, Y>(&self, root: DrawingArea<DB, Shift>, xs: X, ys: Y) -> Result<(), String>
    where
        DB: DrawingBackend,
        X: AsRangedCoord<Value = f64>,
        Y: AsRangedCoord<Value = f64>,
        X::CoordDescType: ValueFormatter<f64>,
        Y::CoordDescType: ValueFormatter<f64>,
    {
        let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
        root.fill(&WHITE).map_err(e)?;
        let fmt = |v: &f64| sig(*v);
        let mut chart = ChartBuilder::on(&root)
            .caption(&self.title, ("sans-serif", 22))
            .margin(14)
            .x_label_area_size(46)
            .y_label_area_size(80)
            .build_cartesian_2d(xs, ys)
            .map_err(e)?;
        chart
            .configure_mesh()
            .x_desc(&self.x_label)
            .y_desc(&self.y_label)
            .x_label_formatter(&fmt)
            .y_label_formatter(&fmt)
            .label_style(("sans-serif", 14))
            .draw()
            .map_err(e)?;
        let (mut colour, mut marker) = (0, 0);
        for item in &self.items {
            let pts = finite_points(&item.points);
            let c = item_colour(item.style, &mut colour);
            let anno = match item.style {
                Style::Line => chart
                    .draw_series(LineSeries::new(pts, c.stroke_width(2)))
                    .map_err(e)?,
                Style::Reference => chart
                    .draw_series(DashedLineSeries::new(pts, 8, 5, c.stroke_width(2)))
                    .map_err(e)?,
                Style::LineMarkers => {
                    chart
                        .draw_series(LineSeries::new(pts.iter().copied(), c.stroke_width(2)))
                        .map_err(e)?;
                    chart
                        .draw_series(pts.into_iter().map(|p| Circle::new(p, 4, c.filled())))
                        .map_err(e)?
                }
                Style::Markers => chart
                    .draw_series(pts.into_iter().map(|p| Circle::new(p, 5, c.filled())))
                    .map_err(e)?,
                Style::ReferencePoints => {
                    marker += 1;
                    if marker % 2 == 1 {
                        chart
                            .draw_series(
                                pts.into_iter().map(|p| Cross::new(p, 6, c.stroke_width(2))),
                            )
                            .map_err(e)?
                    } else {
                        chart
                            .draw_series(
                                pts.into_iter()
                                    .map(|p| TriangleMarker::new(p, 6, c.stroke_width(2))),
                            )
                            .map_err(e)?
                    }
                }
            };
            if item.legend.is_empty() {
                continue;
            }
            let anno = anno.label(item.legend.clone());
            match item.style {
                Style::ReferencePoints if marker % 2 == 1 => {
                    anno.legend(move |(x, y)| Cross::new((x + 9, y), 6, c.stroke_width(2)))
                }
                Style::ReferencePoints => {
                    anno.legend(move |(x, y)| TriangleMarker::new((x + 9, y), 6, c.stroke_width(2)))
                }
                Style::Markers => anno.legend(move |(x, y)| Circle::new((x + 9, y), 5, c.filled())),
                _ => anno.legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(3))
                }),
            };
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font(("sans-serif", 14))
            .position(SeriesLabelPosition::UpperLeft)
            .draw()
            .map_err(e)?;
        root.present().map_err(e)
    }
}

/// The padded range of some values (by a factor on a log axis), with `top` of the range's
/// length added above.
fn span(v: impl Iterator<Item = f64>, log: bool, top: f64) -> std::ops::Range<f64> {
    let (lo, hi) = v.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
        (a.min(x), b.max(x))
    });
    if log {
        let r = if hi > lo { hi / lo } else { 4.0 };
        return lo / r.powf(0.05)..hi * r.powf(0.05 + top);
    }
    let pad = ((hi - lo) * 0.05).max(1e-9 * hi.abs().max(lo.abs()).max(1e-12));
    (lo - pad)..(hi + pad + (hi - lo) * top)
}

/// The points with both coordinates finite.
fn finite_points(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    points
        .iter()
        .copied()
        .filter(|(x, y)| x.is_finite() && y.is_finite())
        .collect()
}

/// An item's colour: black for references, else the next of the palette (`used` so far).
fn item_colour(style: Style, used: &mut usize) -> RGBAColor {
    match style {
        Style::Reference | Style::ReferencePoints => BLACK.to_rgba(),
        _ => {
            *used += 1;
            Palette99::pick(*used - 1).to_rgba()
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn significant_digits() {
        assert_eq!(super::sig(0.012345), "0.01235");
        assert_eq!(super::sig(1234.6), "1235");
        assert_eq!(super::sig(2.0), "2");
        assert_eq!(super::sig(1.5e-7), "1.500e-7");
        assert_eq!(super::sig(-31.25), "-31.25");
    }
}
