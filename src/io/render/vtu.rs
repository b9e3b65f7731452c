//! Reading back the run's own VTK files: `.pvd` collections and the `.vtu` frames they list
//! (ASCII, as [`crate::io::vtk`] writes them).

use crate::Real;
use std::path::{Path, PathBuf};

/// One `<DataArray>` of a VTU file.
pub(super) struct Array {
    pub(super) name: String,
    pub(super) ncomp: usize,
    pub(super) values: Vec<Real>,
}

/// The parts of a VTU file that `render` uses.
pub(super) struct Vtu {
    pub(super) points: Vec<[Real; 3]>,
    pub(super) arrays: Vec<Array>,
}

impl Vtu {
    pub(super) fn array(&self, name: &str) -> Option<&Array> {
        self.arrays.iter().find(|a| a.name == name)
    }
}

pub(super) fn attr<'a>(tag: &'a str, key: &str) -> Option<&'a str> {
    let k = format!("{key}=\"");
    let s = tag.find(&k)? + k.len();
    let e = tag[s..].find('"')? + s;
    Some(&tag[s..e])
}

/// Parses the ASCII VTU files written by [`crate::io::vtk`].
pub(super) fn parse_vtu(text: &str, path: &Path) -> Result<Vtu, String> {
    let bad = |what: &str| format!("{}: {what}", path.display());
    let mut arrays = Vec::new();
    let mut points = None;
    let points_at = text.find("<Points>");
    let mut at = 0;
    while let Some(o) = text[at..].find("<DataArray") {
        let start = at + o;
        let tag_end = text[start..]
            .find('>')
            .ok_or_else(|| bad("unterminated tag"))?
            + start;
        let tag = &text[start..tag_end];
        let body_end = text[tag_end..]
            .find("</DataArray>")
            .ok_or_else(|| bad("unterminated DataArray"))?
            + tag_end;
        let values: Vec<Real> = text[tag_end + 1..body_end]
            .split_ascii_whitespace()
            .map(|v| v.parse::<Real>())
            .collect::<Result<_, _>>()
            .map_err(|_| bad("a value that is not a number"))?;
        let ncomp = attr(tag, "NumberOfComponents")
            .and_then(|n| n.parse().ok())
            .unwrap_or(1usize);
        if points.is_none() && points_at.is_some_and(|p| p < start) {
            if ncomp != 3 || !values.len().is_multiple_of(3) {
                return Err(bad("points are not 3-vectors"));
            }
            points = Some(values.chunks(3).map(|c| [c[0], c[1], c[2]]).collect());
        } else {
            arrays.push(Array {
                name: attr(tag, "Name").unwrap_or("").to_string(),
                ncomp,
                values,
            });
        }
        at = body_end;
    }
    Ok(Vtu {
        points: points.unwrap_or_default(),
        arrays,
    })
}

/// A frame file read, with its time, if the collection has that frame.
pub(super) type TimedVtu = Option<(Real, Vtu)>;

/// `(time, file)` of each frame of a `.pvd` collection.
pub(super) fn parse_pvd(path: &Path) -> Result<Vec<(Real, PathBuf)>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut out = Vec::new();
    for line in text.lines().filter(|l| l.contains("<DataSet")) {
        let t = attr(line, "timestep").and_then(|t| t.parse().ok());
        let f = attr(line, "file");
        match (t, f) {
            (Some(t), Some(f)) => out.push((t, dir.join(f))),
            _ => {
                return Err(format!(
                    "{}: a DataSet without timestep or file",
                    path.display()
                ))
            }
        }
    }
    Ok(out)
}
