//! `Simulation`: a built world stepped from Python, and `resume` from a checkpoint.

use crate::arrays::{filled, scatter};
use crate::errors::session_error;
use numpy::{PyArray1, PyArray2};
use pyo3::exceptions::{PyKeyError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, TryLockError};
use std::time::{Duration, Instant};
use vcsim::fluid::Fluid;
use vcsim::io::session::{Session, SessionError};
use vcsim::math::Vec3;
use vcsim::registry::Registry;

/// How long `run` steps with the GIL released before it looks for Ctrl-C (and lets other
/// Python threads run).
const POLL: Duration = Duration::from_millis(50);

struct Inner {
    session: Session,
    pool: Option<rayon::ThreadPool>,
}

impl Inner {
    fn install<R: Send>(&mut self, f: impl FnOnce(&mut Session) -> R + Send) -> R {
        match &self.pool {
            Some(p) => p.install(|| f(&mut self.session)),
            None => f(&mut self.session),
        }
    }
}

/// A world built from a model, stepped from Python. Steps run with the GIL released.
#[pyclass(module = "vcsim", frozen)]
pub struct Simulation {
    inner: Mutex<Inner>,
}

fn pool(threads: Option<usize>) -> PyResult<Option<rayon::ThreadPool>> {
    match threads {
        None => Ok(None),
        Some(0) => Err(PyValueError::new_err("threads must be at least 1")),
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .map(Some)
            .map_err(|e| PyRuntimeError::new_err(format!("cannot set up {n} threads: {e}"))),
    }
}

fn vec3(name: &str, v: [f64; 3]) -> PyResult<Vec3> {
    if v.iter().all(|x| x.is_finite()) {
        Ok(Vec3::new(v[0], v[1], v[2]))
    } else {
        Err(PyValueError::new_err(format!(
            "{name} must be three finite numbers, got {v:?}"
        )))
    }
}

impl Simulation {
    pub fn build(
        py: Python<'_>,
        model: &vcsim::Model,
        (path, text): (&Path, &str),
        out: Option<&Path>,
        threads: Option<usize>,
    ) -> PyResult<Simulation> {
        Simulation::make(py, threads, || {
            Session::new(model, (path, text), out, &Registry::new())
        })
    }

    /// A simulation with a pool of `threads` threads (default: the global pool) around the
    /// session `make` builds inside it, with the GIL released.
    fn make(
        py: Python<'_>,
        threads: Option<usize>,
        make: impl FnOnce() -> Result<Session, SessionError> + Send,
    ) -> PyResult<Simulation> {
        let pool = pool(threads)?;
        let made = py.detach(|| match &pool {
            Some(p) => p.install(make),
            None => make(),
        });
        let session = made.map_err(|e| session_error(py, e))?;
        Ok(Simulation {
            inner: Mutex::new(Inner { session, pool }),
        })
    }

    /// A per-particle vector field of the fluid as a (particles, 3) array in id order.
    fn rows<'py>(
        &self,
        py: Python<'py>,
        out: Option<Bound<'py, PyAny>>,
        field: impl Fn(&Fluid) -> &[Vec3],
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let g = self.lock()?;
        let f = fluid(&g.session)?;
        let v = field(f);
        filled(py, numpy::ndarray::Dim([v.len(), 3]), out, |s| {
            scatter(s, &f.id, v, 3, |v, r| r.copy_from_slice(v.as_slice()))
        })
    }

    /// A per-particle scalar of the fluid, mapped by `map`, as an array in id order.
    fn values<'py>(
        &self,
        py: Python<'py>,
        out: Option<Bound<'py, PyAny>>,
        field: impl Fn(&Fluid) -> &[f64],
        map: impl Fn(f64, &Fluid) -> f64,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let g = self.lock()?;
        let f = fluid(&g.session)?;
        let v = field(f);
        filled(py, numpy::ndarray::Dim([v.len()]), out, |s| {
            scatter(s, &f.id, v, 1, |x, r| r[0] = map(*x, f))
        })
    }

    fn lock(&self) -> PyResult<MutexGuard<'_, Inner>> {
        match self.inner.try_lock() {
            Ok(g) => Ok(g),
            Err(TryLockError::Poisoned(p)) => Ok(p.into_inner()),
            Err(TryLockError::WouldBlock) => Err(PyRuntimeError::new_err(
                "the simulation is stepping in another thread",
            )),
        }
    }

    /// Runs `until` the step ending at `until` (s) with the GIL released, looking for Ctrl-C
    /// every [`POLL`]: a KeyboardInterrupt leaves the world after its last whole step with
    /// every output up to there written.
    fn run_to(&self, py: Python<'_>, until: f64) -> PyResult<()> {
        let mut g = self.lock()?;
        g.session
            .steps_to(until)
            .map_err(|e| session_error(py, e))?;
        loop {
            let inner = &mut *g;
            let r = py.detach(|| {
                inner.install(|s| {
                    let t0 = Instant::now();
                    s.run_until(until, || t0.elapsed() >= POLL)
                })
            });
            match r {
                Err(e) => return Err(session_error(py, e)),
                Ok(false) => return Ok(()),
                Ok(true) => py.check_signals()?,
            }
        }
    }
}

/// Goes on from the checkpoint in run folder `dir` (`checkpoint.bin`, written by
/// `Simulation.save_checkpoint` or by `vcsim run --checkpoint-every`): the model saved in it is
/// built, its state restored, and its output files (if it has some) cut back to the checkpoint
/// and appended to. An uninterrupted run and a resumed one write the same bytes.
#[pyfunction]
#[pyo3(signature = (dir, threads = None))]
pub fn resume(py: Python<'_>, dir: PathBuf, threads: Option<usize>) -> PyResult<Simulation> {
    Simulation::make(py, threads, || Session::resume(&dir, &Registry::new()))
}

#[pymethods]
impl Simulation {
    /// Simulated time (s).
    #[getter]
    fn time(&self) -> PyResult<f64> {
        Ok(self.lock()?.session.world.time)
    }

    /// Steps taken.
    #[getter]
    fn steps(&self) -> PyResult<u64> {
        Ok(self.lock()?.session.world.steps)
    }

    /// The time step (s).
    #[getter]
    fn dt(&self) -> PyResult<f64> {
        Ok(self.lock()?.session.world.dt)
    }

    /// The bodies' names, in the model's order (arrays of copies and beams expanded).
    #[getter]
    fn body_names(&self) -> PyResult<Vec<String>> {
        Ok(self
            .lock()?
            .session
            .world
            .bodies
            .iter()
            .map(|b| b.name.clone())
            .collect())
    }

    /// The probes' columns (as in `probes.csv`, without `t`).
    #[getter]
    fn probe_columns(&self) -> PyResult<Vec<String>> {
        Ok(self.lock()?.session.series.columns.clone())
    }

    /// Fluid particles (0 without a fluid).
    #[getter]
    fn particles(&self) -> PyResult<usize> {
        Ok(self
            .lock()?
            .session
            .world
            .fluid
            .as_ref()
            .map_or(0, |f| f.pos.len()))
    }

    /// The output folder, or None.
    #[getter]
    fn out(&self) -> PyResult<Option<PathBuf>> {
        Ok(self.lock()?.session.out_dir().map(Path::to_path_buf))
    }

    /// Takes `n` steps (GIL released), sampling the probes at output times; Ctrl-C as in `run`.
    #[pyo3(signature = (n = 1))]
    fn step(&self, py: Python<'_>, n: u64) -> PyResult<()> {
        let mut g = self.lock()?;
        let mut left = n;
        while left > 0 {
            let inner = &mut *g;
            let r = py.detach(|| {
                inner.install(|s| {
                    let t0 = Instant::now();
                    while left > 0 {
                        s.step()?;
                        left -= 1;
                        if t0.elapsed() >= POLL {
                            break;
                        }
                    }
                    Ok(())
                })
            });
            r.map_err(|e| session_error(py, e))?;
            if left > 0 {
                py.check_signals()?;
            }
        }
        Ok(())
    }

    /// Steps to the step that ends at `until` (s; `round(until / dt)` steps from the start, as
    /// `vcsim run --end` counts them). Ctrl-C raises KeyboardInterrupt after the step that is
    /// running, with every output up to it written; the simulation can go on or be saved.
    fn run(&self, py: Python<'_>, until: f64) -> PyResult<()> {
        self.run_to(py, until)
    }

    /// The state of body `name`: a dict of numpy arrays `position` (m, its frame's origin),
    /// `orientation` (unit quaternion w, x, y, z), `velocity` (m/s, of the centre of mass),
    /// `angular_velocity` (rad/s, world frame), and `mass` (kg; inf for static and kinematic).
    fn body<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyDict>> {
        let g = self.lock()?;
        let b = find_body(&g.session, name)?;
        let f = b.frame_pose();
        let q = f.rotation;
        let d = PyDict::new(py);
        let t = f.translation.vector;
        d.set_item("position", PyArray1::from_slice(py, &[t.x, t.y, t.z]))?;
        d.set_item(
            "orientation",
            PyArray1::from_slice(py, &[q.w, q.i, q.j, q.k]),
        )?;
        let v = b.lin_vel;
        d.set_item("velocity", PyArray1::from_slice(py, &[v.x, v.y, v.z]))?;
        let w = b.ang_vel;
        d.set_item(
            "angular_velocity",
            PyArray1::from_slice(py, &[w.x, w.y, w.z]),
        )?;
        let mass = if b.is_dynamic() {
            b.mass
        } else {
            f64::INFINITY
        };
        d.set_item("mass", mass)?;
        Ok(d)
    }

    /// Sets the constant external force (N, world frame, at the centre of mass) and torque
    /// (N·m) on body `name`, held until set again (the model's `force`/`torque` are replaced).
    #[pyo3(signature = (name, force, torque = None))]
    fn set_force(&self, name: &str, force: [f64; 3], torque: Option<[f64; 3]>) -> PyResult<()> {
        let mut g = self.lock()?;
        let i = body_index(&g.session, name)?;
        let f = vec3("force", force)?;
        let t = vec3("torque", torque.unwrap_or([0.0; 3]))?;
        let b = &mut g.session.world.bodies[i];
        b.force = f;
        b.torque = t;
        Ok(())
    }

    /// Sets the velocity of body `name` (m/s of the centre of mass, and rad/s). A kinematic
    /// body then moves at these velocities (its prescribed motion is dropped); a dynamic body
    /// starts the next step with them. Static bodies cannot move.
    #[pyo3(signature = (name, velocity = None, angular_velocity = None))]
    fn set_velocity(
        &self,
        name: &str,
        velocity: Option<[f64; 3]>,
        angular_velocity: Option<[f64; 3]>,
    ) -> PyResult<()> {
        let mut g = self.lock()?;
        let i = body_index(&g.session, name)?;
        let v = velocity.map(|v| vec3("velocity", v)).transpose()?;
        let w = angular_velocity
            .map(|w| vec3("angular_velocity", w))
            .transpose()?;
        let b = &mut g.session.world.bodies[i];
        if b.kind == vcsim::body::Kind::Static {
            return Err(PyValueError::new_err(format!(
                "body `{name}` is static; make it kinematic in the model to move it"
            )));
        }
        if b.kind == vcsim::body::Kind::Kinematic {
            b.motion = None;
        }
        if let Some(v) = v {
            b.lin_vel = v;
        }
        if let Some(w) = w {
            b.ang_vel = w;
        }
        Ok(())
    }

    /// Fluid positions (m), shape (particles, 3), in particle-id order.
    #[pyo3(signature = (out = None))]
    fn fluid_positions<'py>(
        &self,
        py: Python<'py>,
        out: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        self.rows(py, out, |f| &f.pos)
    }

    /// Fluid velocities (m/s), shape (particles, 3), in particle-id order.
    #[pyo3(signature = (out = None))]
    fn fluid_velocities<'py>(
        &self,
        py: Python<'py>,
        out: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        self.rows(py, out, |f| &f.vel)
    }

    /// Fluid pressures (Pa) from the last step, in particle-id order.
    #[pyo3(signature = (out = None))]
    fn fluid_pressures<'py>(
        &self,
        py: Python<'py>,
        out: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        self.values(py, out, |f| &f.pressure, |p, _| p)
    }

    /// Fluid densities (kg/m³) at the start of the last step, `ρ0 (1 + (ρ − ρ0)/ρ0)`, in
    /// particle-id order.
    #[pyo3(signature = (out = None))]
    fn fluid_densities<'py>(
        &self,
        py: Python<'py>,
        out: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        self.values(
            py,
            out,
            |f| &f.density_error,
            |e, f| f.params.rho0 * (1.0 + e),
        )
    }

    /// The probes' values now, `{column: value}`, without recording them.
    fn sample<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let g = self.lock()?;
        let d = PyDict::new(py);
        for (c, v) in g.session.series.columns.iter().zip(g.session.sample()) {
            d.set_item(c, v)?;
        }
        Ok(d)
    }

    /// The probes sampled at the output times so far: `{"t": times, column: values, ...}`
    /// as numpy arrays (the same values `probes.csv` holds, at full precision).
    fn probes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let g = self.lock()?;
        let s = &g.session.series;
        let d = PyDict::new(py);
        d.set_item("t", PyArray1::from_slice(py, &s.time))?;
        for (c, v) in s.columns.iter().zip(&s.values) {
            d.set_item(c, PyArray1::from_slice(py, v))?;
        }
        Ok(d)
    }

    /// The run's totals so far: solver iterations, the largest compression and when, samples.
    fn totals<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let g = self.lock()?;
        let t = g.session.totals();
        let d = PyDict::new(py);
        d.set_item("iterations", t.iterations)?;
        d.set_item("max_iterations", t.max_iterations)?;
        d.set_item("unconverged_steps", t.unconverged_steps)?;
        d.set_item("samples", t.samples)?;
        d.set_item("max_compression", t.max_compression.0)?;
        d.set_item("max_compression_time", t.max_compression.1)?;
        d.set_item("substeps", t.substeps)?;
        Ok(d)
    }

    /// Writes `checkpoint.bin` of the state now into `dir` (default: the output folder) for
    /// a run to `end` (s; default the model's `time.end`); returns its path. `vcsim.resume(dir)`
    /// and `vcsim run --resume dir` go on from it; with an output folder, its files are cut
    /// back to this point when resumed.
    #[pyo3(signature = (dir = None, end = None))]
    fn save_checkpoint(
        &self,
        py: Python<'_>,
        dir: Option<PathBuf>,
        end: Option<f64>,
    ) -> PyResult<PathBuf> {
        let g = self.lock()?;
        if let Some(e) = end {
            g.session.steps_to(e).map_err(|e| session_error(py, e))?;
        }
        g.session
            .write_checkpoint(dir.as_deref(), end)
            .map_err(|e| session_error(py, e))
    }

    fn __repr__(&self) -> PyResult<String> {
        let g = self.lock()?;
        let w = &g.session.world;
        Ok(format!(
            "vcsim.Simulation(t={} s, steps={}, bodies={}, particles={})",
            w.time,
            w.steps,
            w.bodies.len(),
            w.fluid.as_ref().map_or(0, |f| f.pos.len())
        ))
    }
}

fn body_index(s: &Session, name: &str) -> PyResult<usize> {
    s.world
        .bodies
        .iter()
        .position(|b| b.name == name)
        .ok_or_else(|| {
            let names: Vec<&str> = s.world.bodies.iter().map(|b| b.name.as_str()).collect();
            PyKeyError::new_err(format!(
                "no body is named `{name}` (bodies: {})",
                names.join(", ")
            ))
        })
}

fn find_body<'a>(s: &'a Session, name: &str) -> PyResult<&'a vcsim::body::RigidBody> {
    Ok(&s.world.bodies[body_index(s, name)?])
}

fn fluid(s: &Session) -> PyResult<&Fluid> {
    s.world
        .fluid
        .as_ref()
        .ok_or_else(|| PyValueError::new_err("the model has no fluid"))
}
