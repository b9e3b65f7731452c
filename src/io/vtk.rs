//! VTK output for ParaView: one XML UnstructuredGrid file (`.vtu`, ASCII) per frame with the
//! bodies' surface triangles in world coordinates, one with the fluid particles (if any), and
//! `.pvd` collections with their times.
//!
//! Written by hand (the format is small and stable): the maintained Rust VTK crate pulls
//! dependencies that current compilers warn about.

use crate::geometry::shape_mesh;
use crate::math::Vec3;
use crate::pipeline::World;
use crate::Real;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Written frames: (time in s, file relative to the run folder).
pub type FrameList = [(Real, String)];

/// Body meshes (local frames) and the list of written frames.
pub struct VtkWriter {
    dir: PathBuf,
    meshes: Vec<(Vec<Vec3>, Vec<[u32; 3]>)>,
    frames: Vec<(Real, String)>,
    fluid_frames: Vec<(Real, String)>,
    buf: String,
}

impl VtkWriter {
    /// Prepares `dir/frames/` and the meshes of the world's colliders.
    pub fn new(dir: &Path, world: &World) -> std::io::Result<Self> {
        std::fs::create_dir_all(dir.join("frames"))?;
        let meshes = world
            .geometry
            .colliders
            .iter()
            .map(|c| shape_mesh(&c.shape))
            .collect();
        Ok(VtkWriter {
            dir: dir.to_path_buf(),
            meshes,
            frames: Vec::new(),
            fluid_frames: Vec::new(),
            buf: String::new(),
        })
    }

    /// Frames written so far (bodies, fluid): (time in s, file relative to the run folder).
    pub fn frames(&self) -> (&FrameList, &FrameList) {
        (&self.frames, &self.fluid_frames)
    }

    /// Goes on with a run folder that holds `frames` and `fluid_frames` (from a checkpoint):
    /// frame files not in these lists (written after the checkpoint) are removed and the
    /// collections are rewritten to list exactly these.
    pub fn resume(
        dir: &Path,
        world: &World,
        frames: Vec<(Real, String)>,
        fluid_frames: Vec<(Real, String)>,
    ) -> std::io::Result<Self> {
        let mut w = VtkWriter::new(dir, world)?;
        let keep: std::collections::HashSet<&str> = frames
            .iter()
            .chain(&fluid_frames)
            .map(|(_, n)| n.as_str())
            .collect();
        for e in std::fs::read_dir(dir.join("frames"))? {
            let name = format!("frames/{}", e?.file_name().to_string_lossy());
            if name.ends_with(".vtu") && !keep.contains(name.as_str()) {
                std::fs::remove_file(dir.join(&name))?;
            }
        }
        w.frames = frames;
        w.fluid_frames = fluid_frames;
        w.write_collection()?;
        Ok(w)
    }

    /// Goes on with the folder of a run divided among ranks (from a checkpoint whose fluid
    /// frames were `fluid_frames`, the next numbered `next`): with `clean` (one rank only, the
    /// first) the fluid frames numbered `next` and later, `.pvtu` and pieces, are removed and
    /// `fluid.pvd` lists exactly `fluid_frames`.
    pub fn resume_pieces(
        dir: &Path,
        world: &World,
        fluid_frames: Vec<(Real, String)>,
        next: usize,
        clean: bool,
    ) -> std::io::Result<Self> {
        let mut w = VtkWriter::new(dir, world)?;
        if clean {
            for e in std::fs::read_dir(dir.join("frames"))? {
                let e = e?;
                let name = e.file_name().to_string_lossy().into_owned();
                let number = name
                    .strip_prefix("fluid_")
                    .and_then(|t| t.split(['_', '.']).next())
                    .and_then(|t| t.parse::<usize>().ok());
                if number.is_some_and(|f| f >= next) {
                    std::fs::remove_file(e.path())?;
                }
            }
            if fluid_frames.is_empty() {
                // (`write_collection` leaves out an empty collection.)
                let _ = std::fs::remove_file(dir.join("fluid.pvd"));
            }
            w.fluid_frames = fluid_frames;
            w.write_collection()?;
        } else {
            w.fluid_frames = fluid_frames;
        }
        Ok(w)
    }

    /// Writes the bodies of the current state as frame number `frame`.
    pub fn write_frame(&mut self, world: &World, frame: usize) -> std::io::Result<()> {
        let name = format!("frames/bodies_{frame:06}.vtu");
        let b = &mut self.buf;
        b.clear();
        // The model's dimension, so that `render` need not guess it from coordinates.
        let planar = (world.dofs == crate::body::Dofs::Planar) as i32;
        let npts: usize = self.meshes.iter().map(|m| m.0.len()).sum();
        let ncells: usize = self.meshes.iter().map(|m| m.1.len()).sum();
        let _ = write!(
            b,
            "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\">\n<UnstructuredGrid>\n<FieldData>\n<DataArray type=\"Int32\" Name=\"planar\" NumberOfTuples=\"1\" format=\"ascii\">{planar}</DataArray>\n</FieldData>\n<Piece NumberOfPoints=\"{npts}\" NumberOfCells=\"{ncells}\">\n<Points>\n<DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"ascii\">\n"
        );
        for (c, (verts, _)) in world.geometry.colliders.iter().zip(&self.meshes) {
            let pose = world.bodies[c.body].pose * c.local;
            for v in verts {
                let p = pose * nalgebra::Point3::from(*v);
                let _ = writeln!(b, "{:.9e} {:.9e} {:.9e}", p.x, p.y, p.z);
            }
        }
        b.push_str("</DataArray>\n</Points>\n<Cells>\n<DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n");
        let mut base = 0u32;
        for (verts, tris) in &self.meshes {
            for t in tris {
                let _ = writeln!(b, "{} {} {}", t[0] + base, t[1] + base, t[2] + base);
            }
            base += verts.len() as u32;
        }
        b.push_str("</DataArray>\n<DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n");
        for k in 1..=ncells {
            let _ = write!(b, "{} ", 3 * k);
        }
        b.push_str("\n</DataArray>\n<DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">\n");
        for _ in 0..ncells {
            b.push_str("5 ");
        }
        b.push_str("\n</DataArray>\n</Cells>\n<CellData Scalars=\"body\">\n<DataArray type=\"Int32\" Name=\"body\" format=\"ascii\">\n");
        for (c, (_, tris)) in world.geometry.colliders.iter().zip(&self.meshes) {
            for _ in tris {
                let _ = write!(b, "{} ", c.body);
            }
        }
        // Body kind per triangle: 0 static, 1 kinematic, 2 dynamic (`render` greys the walls).
        b.push_str("\n</DataArray>\n<DataArray type=\"Int32\" Name=\"kind\" format=\"ascii\">\n");
        for (c, (_, tris)) in world.geometry.colliders.iter().zip(&self.meshes) {
            let kind = match world.bodies[c.body].kind {
                crate::body::Kind::Static => 0,
                crate::body::Kind::Kinematic => 1,
                crate::body::Kind::Dynamic => 2,
            };
            for _ in tris {
                let _ = write!(b, "{kind} ");
            }
        }
        b.push_str("\n</DataArray>\n</CellData>\n</Piece>\n</UnstructuredGrid>\n</VTKFile>\n");
        write_atomic(&self.dir.join(&name), b.as_bytes())?;
        self.frames.push((world.time, name));
        if world.fluid.is_some() {
            self.write_fluid_frame(world, frame)?;
        }
        // The collections list every finished frame at all times: a run killed at any moment
        // leaves readable `.pvd` files.
        self.write_collection()
    }

    /// Fluid particles as VTK vertices with velocity (m/s), pressure and smoothed pressure (Pa),
    /// density error, the particle id and the fluid method's own fields
    /// ([`crate::fluid::FluidMethod::point_fields`]).
    fn write_fluid_frame(&mut self, world: &World, frame: usize) -> std::io::Result<()> {
        let Some(f) = world.fluid.as_ref() else {
            return Ok(());
        };
        let name = format!("frames/fluid_{frame:06}.vtu");
        let all: Vec<usize> = (0..f.len()).collect();
        write_fluid_vtu(&self.dir.join(&name), world, &all)?;
        self.fluid_frames.push((world.time, name));
        Ok(())
    }

    /// A fluid divided among ranks ([`crate::distributed`]): this rank's piece of frame
    /// `frame`, its owned particles (`owned`), as `frames/fluid_FRAME_RANK.vtu`; rank 0 also
    /// writes `frames/fluid_FRAME.pvtu`, which joins the `ranks` pieces into one data set, and
    /// lists it in `fluid.pvd` (ParaView opens the run as one).
    pub fn write_fluid_piece(
        &mut self,
        world: &World,
        frame: usize,
        (rank, ranks): (usize, usize),
        owned: &[bool],
    ) -> std::io::Result<()> {
        let piece = |r: usize| format!("fluid_{frame:06}_{r}.vtu");
        let mine: Vec<usize> = (0..owned.len()).filter(|&i| owned[i]).collect();
        let frames = self.dir.join("frames");
        let fields = write_fluid_vtu(&frames.join(piece(rank)), world, &mine)?;
        if rank > 0 {
            return Ok(());
        }
        let mut t = String::from(
            "<?xml version=\"1.0\"?>\n<VTKFile type=\"PUnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\">\n<PUnstructuredGrid GhostLevel=\"0\">\n<PPoints>\n<PDataArray type=\"Float64\" NumberOfComponents=\"3\"/>\n</PPoints>\n<PPointData Scalars=\"pressure\" Vectors=\"velocity\">\n<PDataArray type=\"Float64\" Name=\"velocity\" NumberOfComponents=\"3\"/>\n",
        );
        for label in fields {
            let _ = writeln!(t, "<PDataArray type=\"Float64\" Name=\"{label}\"/>");
        }
        t.push_str("<PDataArray type=\"UInt32\" Name=\"id\"/>\n</PPointData>\n");
        for r in 0..ranks {
            let _ = writeln!(t, "<Piece Source=\"{}\"/>", piece(r));
        }
        t.push_str("</PUnstructuredGrid>\n</VTKFile>\n");
        let name = format!("frames/fluid_{frame:06}.pvtu");
        write_atomic(&self.dir.join(&name), t.as_bytes())?;
        self.fluid_frames.push((world.time, name));
        self.write_collection()
    }

    /// Writes the `.pvd` collections (`bodies.pvd`, and `fluid.pvd` for fluid models) of all
    /// frames written so far (atomically: a temporary file renamed over the old one).
    pub fn write_collection(&self) -> std::io::Result<()> {
        for (file, frames) in [
            ("bodies.pvd", &self.frames),
            ("fluid.pvd", &self.fluid_frames),
        ] {
            if frames.is_empty() {
                continue;
            }
            let mut text = String::from(
                "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"1.0\">\n<Collection>\n",
            );
            for (t, name) in frames {
                let _ = writeln!(
                    text,
                    "<DataSet timestep=\"{t:.9}\" part=\"0\" file=\"{name}\"/>"
                );
            }
            text.push_str("</Collection>\n</VTKFile>\n");
            write_atomic(&self.dir.join(file), text.as_bytes())?;
        }
        Ok(())
    }
}

/// The fluid particles `idx` of `world` as one `.vtu` file at `path` (the fields of
/// [`VtkWriter::write_fluid_frame`]); returns the names of the scalar fields written after
/// `velocity`, in order.
fn write_fluid_vtu(
    path: &Path,
    world: &World,
    idx: &[usize],
) -> std::io::Result<Vec<&'static str>> {
    let Some(f) = world.fluid.as_ref() else {
        return Ok(Vec::new());
    };
    let mut names = Vec::new();
    let n = idx.len();
    let l = f.params.spacing;
    let smooth = f.smoothed_pressure();
    let planar = (world.dofs == crate::body::Dofs::Planar) as i32;
    // Streamed to the file, not built in memory: a 3D frame of 200 000 particles is
    // 52 MB of text, which a kept buffer added to the run's peak memory.
    write_atomic_with(path, |b| {
        write!(
        b,
        "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\">\n<UnstructuredGrid>\n<FieldData>\n<DataArray type=\"Float64\" Name=\"spacing\" NumberOfTuples=\"1\" format=\"ascii\">{l:e}</DataArray>\n<DataArray type=\"Int32\" Name=\"planar\" NumberOfTuples=\"1\" format=\"ascii\">{planar}</DataArray>\n</FieldData>\n<Piece NumberOfPoints=\"{n}\" NumberOfCells=\"{n}\">\n<Points>\n<DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"ascii\">\n"
    )?;
        write_each(b, idx, |t, i| {
            let p = f.pos[i];
            let _ = writeln!(t, "{:.9e} {:.9e} {:.9e}", p.x, p.y, p.z);
        })?;
        b.write_all(b"</DataArray>\n</Points>\n<Cells>\n<DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n")?;
        for k in 0..n {
            write!(b, "{k} ")?;
        }
        b.write_all(
            b"\n</DataArray>\n<DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n",
        )?;
        for k in 1..=n {
            write!(b, "{k} ")?;
        }
        b.write_all(
            b"\n</DataArray>\n<DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">\n",
        )?;
        for _ in 0..n {
            b.write_all(b"1 ")?;
        }
        b.write_all(
            b"\n</DataArray>\n</Cells>\n<PointData Scalars=\"pressure\" Vectors=\"velocity\">\n",
        )?;
        b.write_all(b"<DataArray type=\"Float64\" Name=\"velocity\" NumberOfComponents=\"3\" format=\"ascii\">\n")?;
        write_each(b, idx, |t, i| {
            let v = f.vel[i];
            let _ = writeln!(t, "{:.6e} {:.6e} {:.6e}", v.x, v.y, v.z);
        })?;
        b.write_all(b"</DataArray>\n")?;
        let mut fields: Vec<(&'static str, &[Real])> = vec![
            ("pressure", &f.pressure),
            ("smoothed_pressure", &smooth),
            ("density_error", &f.density_error),
        ];
        // The method's own fields, after the shared ones.
        world
            .fluid_method
            .point_fields(&mut |name, values| fields.push((name, values)));
        for (label, values) in fields.into_iter().filter(|(_, v)| v.len() == f.len()) {
            names.push(label);
            writeln!(
                b,
                "<DataArray type=\"Float64\" Name=\"{label}\" format=\"ascii\">"
            )?;
            write_each(b, idx, |t, i| {
                let _ = write!(t, "{:.6e} ", values[i]);
            })?;
            b.write_all(b"\n</DataArray>\n")?;
        }
        b.write_all(b"<DataArray type=\"UInt32\" Name=\"id\" format=\"ascii\">\n")?;
        for id in idx.iter().map(|&i| f.id[i]) {
            write!(b, "{id} ")?;
        }
        b.write_all(b"\n</DataArray>\n</PointData>\n</Piece>\n</UnstructuredGrid>\n</VTKFile>\n")?;
        Ok(())
    })?;
    Ok(names)
}

/// Writes `fmt(t, i)`'s text for each particle i of `idx`, in order, to `b`: formatted in
/// parallel, in pieces of [`FORMAT_PIECE`] particles (the same bytes as one after another; at
/// most 16 pieces' text in memory at a time). Float formatting at a fixed number of digits is
/// most of a frame's cost (about 1.4 µs per particle for a 2D frame on one thread).
fn write_each(
    b: &mut dyn std::io::Write,
    idx: &[usize],
    fmt: impl Fn(&mut String, usize) + Sync,
) -> std::io::Result<()> {
    use rayon::prelude::*;
    for block in idx.chunks(16 * FORMAT_PIECE) {
        let texts: Vec<String> = block
            .par_chunks(FORMAT_PIECE)
            .map(|piece| {
                let mut t = String::with_capacity(48 * piece.len());
                piece.iter().for_each(|&i| fmt(&mut t, i));
                t
            })
            .collect();
        for t in texts {
            b.write_all(t.as_bytes())?;
        }
    }
    Ok(())
}

/// Particles per piece of [`write_each`].
const FORMAT_PIECE: usize = 1024;

/// Writes `bytes` to `path` through a temporary file in the same folder renamed over it, so the
/// file is either the old one or the new one whole, whenever the process stops.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomic_with(path, |w| w.write_all(bytes))
}

/// Writes a file atomically as [`write_atomic`], streaming: `fill` writes the contents through
/// a buffered writer into the temporary file.
fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let mut w = std::io::BufWriter::with_capacity(1 << 16, std::fs::File::create(&tmp)?);
    fill(&mut w)?;
    std::io::Write::flush(&mut w)?;
    drop(w);
    std::fs::rename(&tmp, path)
}
