//! Drawing a reduced frame into an RGB buffer: the layout (the scene keeps its aspect ratio; a
//! colour bar on the right, a title line above), walls, particles, moving bodies (each group
//! outlined), the caption and the colour bar.

use super::frames::Frame;
use super::picture::{body_colour, colour, fmt_value};
use super::{Axis, RenderOptions};
use crate::io::plot::ensure_font;
use crate::Real;
use plotters::prelude::*;

/// Where the scene goes in the picture, and what is written above it.
pub(super) struct Layout {
    /// Picture size (pixels).
    pub(super) w: u32,
    /// See `w`.
    pub(super) h: u32,
    /// Scene coordinate at the left edge (m).
    pub(super) u0: Real,
    /// Scene coordinate at the top edge (m).
    pub(super) v1: Real,
    /// Pixels per metre.
    pub(super) scale: Real,
    /// Height of the title line (pixels).
    pub(super) top: u32,
    bar: u32,
    radius: i32,
    caption: String,
    coloured: bool,
}

impl Layout {
    /// The layout of a scene box `(lo, hi)` seen in the view frame `(ax, au, av)`; particles
    /// of `spacing` (m) drawn as discs of half a spacing; a colour bar when `coloured`.
    pub(super) fn new(
        opts: &RenderOptions,
        (lo, hi): ([Real; 3], [Real; 3]),
        (_, au, av): (usize, usize, usize),
        spacing: Option<Real>,
        coloured: bool,
        planar: bool,
        axis: Axis,
    ) -> Layout {
        let (u0, u1, v0, v1) = {
            let (du, dv) = (hi[au] - lo[au], hi[av] - lo[av]);
            let pad = 0.03 * du.max(dv).max(1e-9);
            (lo[au] - pad, hi[au] + pad, lo[av] - pad, hi[av] + pad)
        };
        // No particles (a multibody run): no colour bar, no field.
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
        Layout {
            w,
            h,
            u0,
            v1,
            scale,
            top,
            bar,
            radius,
            caption,
            coloured,
        }
    }

    /// Pixel of the scene point `(u, v)` (m).
    fn to_px(&self, u: Real, v: Real) -> (i32, i32) {
        (
            5 + ((u - self.u0) * self.scale).round() as i32,
            (self.top as Real + (self.v1 - v) * self.scale).round() as i32,
        )
    }

    /// The frame as an RGB buffer, particles coloured over `range`.
    pub(super) fn draw(&self, fr: &Frame, range: (Real, Real)) -> Result<Vec<u8>, String> {
        let (w, h) = (self.w, self.h);
        let mut buf = vec![255u8; (w * h * 3) as usize];
        {
            let root = BitMapBackend::with_buffer(&mut buf, (w, h)).into_drawing_area();
            self.scene(&root, fr, range)?;
            if self.coloured {
                self.colour_bar(&root, range)?;
            }
            root.present().map_err(|e| e.to_string())?;
        }
        Ok(buf)
    }

    /// Walls, particles, moving bodies (in that order) and the caption.
    fn scene(
        &self,
        root: &DrawingArea<BitMapBackend, plotters::coord::Shift>,
        fr: &Frame,
        range: (Real, Real),
    ) -> Result<(), String> {
        let e = |e: DrawingAreaErrorKind<_>| e.to_string();
        for (tri, kind) in fr.triangles.iter().filter(|t| t.1 == 0) {
            let pts: Vec<(i32, i32)> = tri.iter().map(|p| self.to_px(p[0], p[1])).collect();
            root.draw(&Polygon::new(pts, body_colour(*kind).filled()))
                .map_err(e)?;
        }
        self.outline(root, fr, |k| k == 0)?;
        for p in &fr.particles {
            let x = (p[3] - range.0) / (range.1 - range.0);
            let c = if p[3].is_finite() {
                colour(x)
            } else {
                RGBColor(90, 90, 90)
            };
            root.draw(&Circle::new(
                self.to_px(p[0], p[1]),
                self.radius,
                c.filled(),
            ))
            .map_err(e)?;
        }
        for (tri, kind) in fr.triangles.iter().filter(|t| t.1 != 0) {
            let pts: Vec<(i32, i32)> = tri.iter().map(|p| self.to_px(p[0], p[1])).collect();
            root.draw(&Polygon::new(pts, body_colour(*kind).filled()))
                .map_err(e)?;
        }
        self.outline(root, fr, |k| k != 0)?;
        let font = ("sans-serif", 18).into_font().color(&BLACK);
        root.draw(&Text::new(
            format!("t = {:.4} s    {}", fr.time, self.caption),
            (8, 8),
            font.clone(),
        ))
        .map_err(e)
    }

    /// The outlines of the bodies whose kind passes `which`, one pixel wide in a dark shade of
    /// their colour: touching bodies of one colour stay apart in the picture. They are drawn
    /// over the bodies of their group, so a wall hidden behind another shows as its outline.
    fn outline(
        &self,
        root: &DrawingArea<BitMapBackend, plotters::coord::Shift>,
        fr: &Frame,
        which: impl Fn(i32) -> bool,
    ) -> Result<(), String> {
        for (seg, kind) in fr.outlines.iter().filter(|s| which(s.1)) {
            let RGBColor(r, g, b) = body_colour(*kind);
            let dark = RGBColor(r / 3, g / 3, b / 3);
            let pts: Vec<(i32, i32)> = seg.iter().map(|p| self.to_px(p[0], p[1])).collect();
            root.draw(&PathElement::new(pts, dark))
                .map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    /// The colour bar on the right with five values of `range`.
    fn colour_bar(
        &self,
        root: &DrawingArea<BitMapBackend, plotters::coord::Shift>,
        range: (Real, Real),
    ) -> Result<(), String> {
        let e = |e: DrawingAreaErrorKind<_>| e.to_string();
        let (w, h, top, bar) = (self.w, self.h, self.top, self.bar);
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
        Ok(())
    }
}
