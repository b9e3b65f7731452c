//! Colours, labels and the GIF writer of [`super::render`].

use crate::Real;
use plotters::prelude::*;
use rayon::prelude::*;
use std::path::Path;

/// The colour map: dark blue, blue, cyan, yellow, red at 0, ¼, ½, ¾, 1.
pub(super) fn colour(x: Real) -> RGBColor {
    const STOPS: [[Real; 3]; 5] = [
        [0.12, 0.10, 0.45],
        [0.10, 0.40, 0.90],
        [0.20, 0.80, 0.85],
        [0.95, 0.85, 0.20],
        [0.80, 0.10, 0.10],
    ];
    let x = if x.is_finite() {
        x.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let s = x * 4.0;
    let i = (s.floor() as usize).min(3);
    let f = s - i as Real;
    let c: Vec<u8> = (0..3)
        .map(|k| ((STOPS[i][k] * (1.0 - f) + STOPS[i + 1][k] * f) * 255.0).round() as u8)
        .collect();
    RGBColor(c[0], c[1], c[2])
}

pub(super) fn body_colour(kind: i32) -> RGBColor {
    match kind {
        0 => RGBColor(165, 165, 165),
        1 => RGBColor(120, 150, 120),
        _ => RGBColor(70, 105, 150),
    }
}

/// A short, readable tick label.
pub(super) fn fmt_value(v: Real) -> String {
    let a = v.abs();
    if a != 0.0 && !(1e-2..1e5).contains(&a) {
        format!("{v:.2e}")
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.3}")
    }
}

/// An animated GIF of the frames, looping; every frame shows for the same time, about 5 s for
/// the whole animation (2–50 hundredths of a second per frame).
pub(super) fn write_gif(path: &Path, images: &[Vec<u8>], w: u32, h: u32) -> Result<(), String> {
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let (w16, h16) = (
        u16::try_from(w).map_err(|_| err(&"image too wide for a GIF"))?,
        u16::try_from(h).map_err(|_| err(&"image too tall for a GIF"))?,
    );
    let file = std::fs::File::create(path).map_err(|e| err(&e))?;
    let mut enc =
        gif::Encoder::new(std::io::BufWriter::new(file), w16, h16, &[]).map_err(|e| err(&e))?;
    enc.set_repeat(gif::Repeat::Infinite).map_err(|e| err(&e))?;
    let delay = ((500.0 / images.len().max(1) as Real).round() as u16).clamp(2, 50);
    let encoded: Vec<gif::Frame<'static>> = images
        .par_iter()
        .map(|buf| {
            let mut f = gif::Frame::from_rgb_speed(w16, h16, buf, 20);
            f.delay = delay;
            f
        })
        .collect();
    for f in &encoded {
        enc.write_frame(f).map_err(|e| err(&e))?;
    }
    Ok(())
}
