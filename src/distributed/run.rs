//! The run loop of a divided simulation: every rank steps its part of the fluid
//! ([`crate::pipeline::World::step`] with the fluid method's halo set, [`prepare`]); at each
//! output time the probes are measured over each rank's owned particles and reduced (largest
//! coordinate, largest compression: maximum; energies, the mean density error: sums), and rank 0
//! writes them to `probes.csv` (column names as a run in one process writes them).
//!
//! Every decision to stop is global: a signal on any rank, a step that ends early on any rank,
//! the end time (the same clock everywhere).

use super::{Comm, SlabHalo};
use crate::fluid::halo::Halo;
use crate::math::Real;
use crate::pipeline::World;
use crate::probe::Probe;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

/// What a divided run does.
pub struct DividedOptions {
    /// Output folder (rank 0 writes `probes.csv` there).
    pub out: PathBuf,
    /// End time (s).
    pub end: Real,
    /// Output interval (s).
    pub every: Real,
    /// Whether each rank writes its particles at each output as a piece of one VTK frame
    /// (`frames/fluid_FRAME_RANK.vtu`, joined by rank 0's `frames/fluid_FRAME.pvtu` and
    /// `fluid.pvd`).
    pub vtk: bool,
}

/// What a divided run did (the same on every rank, apart from `ghosts` and `comm_seconds`,
/// which are this rank's).
#[derive(Debug, Clone, Default)]
pub struct DividedReport {
    /// Model steps taken.
    pub steps: u64,
    /// Time reached (s).
    pub time: Real,
    /// Whether the run stopped before its end (a signal, or a step cut short on some rank).
    pub stopped: bool,
    /// Wall time (s).
    pub wall: f64,
    /// Fluid particles over all ranks at the end.
    pub particles: usize,
    /// Owned particles of each rank at the end.
    pub owned: Vec<usize>,
    /// Ghosts of each rank at the end.
    pub ghosts: Vec<usize>,
    /// Each rank's wall time in collective operations (s).
    pub comm_seconds: Vec<f64>,
    /// Particles that changed rank, all ranks.
    pub migrated: u64,
    /// Each rank's peak resident memory (bytes; Linux's `VmHWM`, 0 where it cannot be read).
    pub peak_memory: Vec<u64>,
    /// The probe columns and one row per output (`t`, the time, first).
    pub columns: Vec<String>,
    /// See `columns`.
    pub rows: Vec<Vec<Real>>,
    /// Largest compression over the outputs (dimensionless).
    pub largest_compression: Real,
}

impl DividedReport {
    /// The summary, as `vcsim run` prints it under `mpirun`.
    pub fn text(&self) -> String {
        let comm = self.comm_seconds.iter().copied().fold(0.0, f64::max);
        format!(
            "  ranks            {}\n  steps            {} to t = {:.6} s\n  wall time        \
             {:.2} s\n  particles        {} (owned per rank {:?})\n  ghosts per rank  {:?}\n  \
             migrated         {}\n  collectives      {:.2} s on the busiest rank ({:.1} % of \
             the wall time, waiting for other ranks included)\n  peak memory      {:?} MB \
             per rank\n  largest compression {:.3} %",
            self.owned.len(),
            self.steps,
            self.time,
            self.wall,
            self.particles,
            self.owned,
            self.ghosts,
            self.migrated,
            comm,
            100.0 * comm / self.wall.max(1e-9),
            self.peak_memory
                .iter()
                .map(|&b| (b as f64 / 1e6).round() as u64)
                .collect::<Vec<_>>(),
            100.0 * self.largest_compression
        )
    }
}

/// Divides `world`'s fluid among the ranks of `comm` (the world holds the whole model on
/// every rank, built from the same file): an error, before anything runs, for what does not
/// run divided yet.
pub fn prepare(world: &mut World, probes: &[Probe], comm: Box<dyn Comm>) -> Result<(), String> {
    prepare_with_width(world, probes, comm, None)
}

/// [`prepare`] with ghosts reaching `width_supports` kernel supports beyond each slab
/// ([`SlabHalo::claim`]; `None`: the default).
pub fn prepare_with_width(
    world: &mut World,
    probes: &[Probe],
    comm: Box<dyn Comm>,
    width_supports: Option<Real>,
) -> Result<(), String> {
    let Some(fluid) = world.fluid.as_mut() else {
        return Err("only a fluid can be divided among processes: the model has none".into());
    };
    if fluid.params.periodic.any() {
        return Err("a periodic fluid does not run divided among processes yet".into());
    }
    if let Some(p) = probes.iter().find(|p| {
        !matches!(
            p,
            Probe::Front(_)
                | Probe::DensityError
                | Probe::FluidEnergy
                | Probe::Position(_)
                | Probe::Velocity(_)
                | Probe::AngularVelocity(_)
                | Probe::Orientation(_)
                | Probe::Energy
                | Probe::FluidForce(_)
                | Probe::JointForce(_)
        )
    }) {
        return Err(format!(
            "probe `{}` is not measured across processes yet (Front, DensityError, \
             FluidEnergy and the bodies' probes are)",
            p.title(world)
        ));
    }
    let scene = world
        .scene
        .ok_or("a fluid model has a scene box; this one has none")?;
    let halo = SlabHalo::claim(comm, fluid, scene, width_supports);
    world.fluid_method.set_halo(Box::new(halo))
}

fn slab(world: &mut World) -> &mut SlabHalo {
    world
        .fluid_method
        .halo()
        .and_then(|h| h.as_any_mut().downcast_mut::<SlabHalo>())
        .expect("prepare() gave the fluid method a SlabHalo")
}

/// The probes over this rank's owned particles, reduced over the ranks (collective).
fn sample(world: &mut World, probes: &[Probe]) -> Vec<Real> {
    let g = world.gravity;
    let owned = slab(world).owned().to_vec();
    let f = world.fluid.as_ref().expect("a divided world has a fluid");
    let mine = || (0..f.len()).filter(|&i| owned.get(i).copied().unwrap_or(false));
    // Maxima first, then sums (two reductions per output).
    let mut maxima = Vec::new();
    let mut sums = Vec::new();
    for p in probes {
        match p {
            Probe::Front(d) => maxima.push(
                mine()
                    .map(|i| f.pos[i].dot(d))
                    .fold(Real::NEG_INFINITY, Real::max),
            ),
            Probe::DensityError => {
                maxima.push(mine().map(|i| f.density_error[i]).fold(0.0, Real::max));
                sums.push(mine().map(|i| f.density_error[i].abs()).sum());
                sums.push(mine().count() as Real);
            }
            Probe::FluidEnergy => {
                let m = f.mass;
                sums.push(mine().map(|i| 0.5 * m * f.vel[i].norm_squared()).sum());
                sums.push(mine().map(|i| -m * g.dot(&f.pos[i])).sum());
            }
            _ => {}
        }
    }
    let comm = slab(world).comm();
    comm.max(&mut maxima);
    comm.sum(&mut sums);
    let (mut mx, mut sm) = (maxima.into_iter(), sums.into_iter());
    // (Bodies are on every rank, the same bits everywhere: the fluid's force on them is
    // summed over the ranks.)
    let world: &World = world;
    let mut row = Vec::new();
    for p in probes {
        match p {
            Probe::Front(_) => row.push(mx.next().unwrap_or(0.0)),
            Probe::DensityError => {
                let (largest, total, n) = (
                    mx.next().unwrap_or(0.0),
                    sm.next().unwrap_or(0.0),
                    sm.next().unwrap_or(0.0),
                );
                row.extend([largest, total / n.max(1.0)]);
            }
            Probe::FluidEnergy => {
                let (k, pe) = (sm.next().unwrap_or(0.0), sm.next().unwrap_or(0.0));
                row.extend([k, pe, k + pe]);
            }
            p => p.sample(world, &mut row),
        }
    }
    row
}

/// Runs a prepared world ([`prepare`]) to `opts.end`; rank 0 writes `probes.csv`.
pub fn run(
    world: &mut World,
    probes: &[Probe],
    opts: &DividedOptions,
) -> Result<DividedReport, String> {
    let rank = slab(world).comm().rank();
    let mut columns = vec!["t".to_string()];
    for p in probes {
        columns.extend(p.columns(world));
    }
    let mut csv = if rank == 0 {
        std::fs::create_dir_all(&opts.out)
            .map_err(|e| format!("cannot create {}: {e}", opts.out.display()))?;
        let path = opts.out.join("probes.csv");
        let mut f = std::io::BufWriter::new(
            std::fs::File::create(&path)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?,
        );
        writeln!(f, "{}", columns.join(",")).map_err(|e| e.to_string())?;
        Some(f)
    } else {
        None
    };
    let mut report = DividedReport {
        columns,
        ..Default::default()
    };
    let t0 = Instant::now();
    let (dt, start) = (world.dt, world.time);
    let steps = ((opts.end - start) / dt - 1e-9).ceil().max(0.0) as u64;
    let every = ((opts.every / dt).round() as u64).max(1);
    let size = slab(world).comm().size();
    let mut vtk = match opts.vtk {
        true => Some(
            crate::io::vtk::VtkWriter::new(&opts.out, world)
                .map_err(|e| format!("cannot write frames in {}: {e}", opts.out.display()))?,
        ),
        false => None,
    };
    let mut frame = 0;
    let mut output = |world: &mut World, report: &mut DividedReport| -> Result<(), String> {
        let mut row = vec![world.time];
        row.extend(sample(world, probes));
        if let Some(v) = vtk.as_mut() {
            let owned = slab(world).owned().to_vec();
            v.write_fluid_piece(world, frame, (rank, size), &owned)
                .map_err(|e| format!("cannot write frame {frame}: {e}"))?;
            frame += 1;
        }
        if let Some(f) = csv.as_mut() {
            // (As a run in one process writes `probes.csv`.)
            let mut text = vec![format!("{:.9}", row[0])];
            text.extend(row[1..].iter().map(|v| format!("{v:.12e}")));
            writeln!(f, "{}", text.join(",")).map_err(|e| e.to_string())?;
            f.flush().map_err(|e| e.to_string())?;
        }
        report.rows.push(row);
        Ok(())
    };
    output(world, &mut report)?;
    for k in 1..=steps {
        world.step();
        let early = world.abort.is_some() || crate::interrupt::requested();
        if slab(world).any(early) {
            report.stopped = true;
            break;
        }
        report.steps = k;
        if k % every == 0 || k == steps {
            output(world, &mut report)?;
        }
    }
    report.time = world.time;
    report.wall = t0.elapsed().as_secs_f64();
    finish(world, report)
}

/// The run's totals over the ranks.
fn finish(world: &mut World, mut report: DividedReport) -> Result<DividedReport, String> {
    let h = slab(world);
    let (n, r) = (h.comm().size(), h.comm().rank());
    let st = h.stats;
    let mut per = vec![0.0; 4 * n + 1];
    per[r] = st.owned as f64;
    per[n + r] = st.ghosts as f64;
    per[2 * n + r] = st.comm_seconds;
    per[3 * n + r] = peak_memory() as f64;
    per[4 * n] = st.migrated as f64;
    h.comm().sum(&mut per);
    report.owned = per[..n].iter().map(|&v| v as usize).collect();
    report.ghosts = per[n..2 * n].iter().map(|&v| v as usize).collect();
    report.comm_seconds = per[2 * n..3 * n].to_vec();
    report.peak_memory = per[3 * n..4 * n].iter().map(|&v| v as u64).collect();
    report.migrated = per[4 * n] as u64;
    report.particles = report.owned.iter().sum();
    let col = report.columns.iter().position(|c| c == "max_compression");
    report.largest_compression = col
        .map(|c| report.rows.iter().map(|r| r[c]).fold(0.0, Real::max))
        .unwrap_or(0.0);
    Ok(report)
}

/// This process's peak resident memory (bytes): `VmHWM` of `/proc/self/status` (Linux); 0
/// where it cannot be read.
pub fn peak_memory() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
            let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kb * 1024)
        })
        .unwrap_or(0)
}
