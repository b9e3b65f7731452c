//! CSV time series of a run: `series.csv` (solver and energy), `bodies.csv` (pose and
//! velocities), `joints.csv` (constraint forces), `contacts.csv` (contact points and forces),
//! `probes.csv` (the model's probes), `fluid.csv` (fluid models: compression, speeds, kinetic
//! energy). Units: SI; forces are impulses divided by the step.

use crate::pipeline::World;
use crate::Real;
use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

type Writer = csv::Writer<BufWriter<File>>;

/// The open CSV files of a run.
pub struct CsvSeries {
    series: Writer,
    bodies: Writer,
    joints: Writer,
    contacts: Writer,
    probes: Writer,
    fluid: Option<Writer>,
    row: Vec<String>,
}

/// The files in the order of [`CsvSeries::lengths`].
const FILES: usize = 6;

/// Creates `name` with its header; or, with `keep = Some(len)` (a resumed run), keeps the
/// first `len` bytes of the existing file (the rows up to the checkpoint) and appends.
fn open(dir: &Path, name: &str, header: &[String], keep: Option<u64>) -> std::io::Result<Writer> {
    let path = dir.join(name);
    let file = match keep {
        None => File::create(&path)?,
        Some(len) => {
            let f = std::fs::OpenOptions::new().append(true).open(&path)?;
            let have = f.metadata()?.len();
            if have < len {
                return Err(std::io::Error::other(format!(
                    "{} holds {have} bytes, fewer than the {len} it had at the checkpoint; it was \
                     changed since",
                    path.display()
                )));
            }
            f.set_len(len)?;
            f
        }
    };
    let mut w = csv::Writer::from_writer(BufWriter::new(file));
    if keep.is_none() {
        w.write_record(header).map_err(std::io::Error::other)?;
    }
    Ok(w)
}

fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

impl CsvSeries {
    /// Creates the files in `dir` with their headers; `probe_columns` names the probe columns.
    pub fn create(dir: &Path, probe_columns: &[String], with_fluid: bool) -> std::io::Result<Self> {
        Self::open_all(dir, probe_columns, with_fluid, None)
    }

    /// Reopens the files of a run for appending after a checkpoint: each is cut to its length
    /// in `lengths` (as [`CsvSeries::lengths`] gave them at the checkpoint).
    pub fn resume(
        dir: &Path,
        probe_columns: &[String],
        with_fluid: bool,
        lengths: &[u64],
    ) -> std::io::Result<Self> {
        Self::open_all(dir, probe_columns, with_fluid, Some(lengths))
    }

    /// Bytes in each file, in the order series, bodies, joints, contacts, probes, fluid (when
    /// there is a fluid); call after [`CsvSeries::flush`].
    pub fn lengths(&self) -> std::io::Result<Vec<u64>> {
        let files = [
            &self.series,
            &self.bodies,
            &self.joints,
            &self.contacts,
            &self.probes,
        ];
        let mut v = Vec::with_capacity(FILES);
        for w in files.into_iter().chain(self.fluid.as_ref()) {
            v.push(w.get_ref().get_ref().metadata()?.len());
        }
        Ok(v)
    }

    fn open_all(
        dir: &Path,
        probe_columns: &[String],
        with_fluid: bool,
        lengths: Option<&[u64]>,
    ) -> std::io::Result<Self> {
        if lengths.is_some_and(|l| l.len() != FILES - 1 + with_fluid as usize) {
            return Err(std::io::Error::other(
                "the checkpoint lists another set of CSV files than this run writes",
            ));
        }
        let keep = |i: usize| lengths.map(|l| l[i]);
        let mut ph = vec!["t".to_string()];
        ph.extend(probe_columns.iter().cloned());
        Ok(CsvSeries {
            series: open(
                dir,
                "series.csv",
                &s(&[
                    "t",
                    "step",
                    "iterations",
                    "residual",
                    "converged",
                    "contacts",
                    "rows",
                    "kinetic",
                    "potential",
                    "total",
                ]),
                keep(0),
            )?,
            bodies: open(
                dir,
                "bodies.csv",
                &s(&[
                    "t", "body", "x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx",
                    "wy", "wz",
                ]),
                keep(1),
            )?,
            joints: open(
                dir,
                "joints.csv",
                &s(&["t", "joint", "fx", "fy", "fz", "tx", "ty", "tz"]),
                keep(2),
            )?,
            contacts: open(
                dir,
                "contacts.csv",
                &s(&[
                    "t", "body1", "body2", "px", "py", "pz", "nx", "ny", "nz", "dist", "fn", "ft",
                ]),
                keep(3),
            )?,
            probes: open(dir, "probes.csv", &ph, keep(4))?,
            fluid: if with_fluid {
                Some(open(
                    dir,
                    "fluid.csv",
                    &s(&[
                        "t",
                        "particles",
                        "max_compression",
                        "mean_density_error",
                        "max_speed",
                        "mean_speed",
                        "kinetic",
                    ]),
                    keep(5),
                )?)
            } else {
                None
            },
            row: Vec::new(),
        })
    }

    fn put(w: &mut Writer, row: &mut Vec<String>) -> std::io::Result<()> {
        w.write_record(row.iter()).map_err(std::io::Error::other)?;
        row.clear();
        Ok(())
    }

    /// Appends the current state.
    pub fn write(&mut self, world: &World, probes: &[Real]) -> std::io::Result<()> {
        let t = format!("{:.9}", world.time);
        let info = world.last_solve;
        let (k, p) = (world.kinetic_energy(), world.potential_energy());
        let r = &mut self.row;
        r.extend([
            t.clone(),
            world.steps.to_string(),
            info.iterations.to_string(),
            format!("{:.6e}", info.residual),
            (info.converged as u8).to_string(),
            world.contacts().len().to_string(),
            world.body_row_count().to_string(),
            format!("{k:.12e}"),
            format!("{p:.12e}"),
            format!("{:.12e}", k + p),
        ]);
        Self::put(&mut self.series, r)?;
        for b in &world.bodies {
            let f = b.frame_pose();
            let q = f.rotation;
            r.push(t.clone());
            r.push(b.name.clone());
            for x in f
                .translation
                .vector
                .iter()
                .chain([q.w, q.i, q.j, q.k].iter())
                .chain(b.lin_vel.iter())
                .chain(b.ang_vel.iter())
            {
                r.push(format!("{x:.12e}"));
            }
            Self::put(&mut self.bodies, r)?;
        }
        for j in &world.joints {
            r.push(t.clone());
            r.push(j.name.clone());
            for x in j.force.iter().chain(j.torque.iter()) {
                r.push(format!("{x:.9e}"));
            }
            Self::put(&mut self.joints, r)?;
        }
        for (c, imp) in world.contacts().iter().zip(world.contact_impulses()) {
            r.push(t.clone());
            r.push(world.bodies[c.body1].name.clone());
            r.push(world.bodies[c.body2].name.clone());
            let tang = crate::math::Vec3::from(imp.tangent).norm();
            for x in c
                .point
                .iter()
                .chain(c.normal.iter())
                .chain([c.dist, imp.normal / world.dt, tang / world.dt].iter())
            {
                r.push(format!("{x:.9e}"));
            }
            Self::put(&mut self.contacts, r)?;
        }
        if let (Some(w), Some(f)) = (self.fluid.as_mut(), world.fluid.as_ref()) {
            let n = f.len().max(1) as Real;
            let speeds = f.vel.iter().map(|v| v.norm());
            let kinetic: Real = f.vel.iter().map(|v| 0.5 * f.mass * v.norm_squared()).sum();
            r.push(t.clone());
            r.push(f.len().to_string());
            for x in [
                f.density_error.iter().copied().fold(0.0, Real::max),
                f.density_error.iter().map(|e| e.abs()).sum::<Real>() / n,
                speeds.clone().fold(0.0, Real::max),
                speeds.sum::<Real>() / n,
                kinetic,
            ] {
                r.push(format!("{x:.9e}"));
            }
            Self::put(w, r)?;
        }
        r.push(t);
        r.extend(probes.iter().map(|x| format!("{x:.12e}")));
        Self::put(&mut self.probes, r)
    }

    /// Flushes all files.
    pub fn flush(&mut self) -> std::io::Result<()> {
        for w in [
            &mut self.series,
            &mut self.bodies,
            &mut self.joints,
            &mut self.contacts,
            &mut self.probes,
        ] {
            w.flush()?;
        }
        if let Some(w) = self.fluid.as_mut() {
            w.flush()?;
        }
        Ok(())
    }
}
