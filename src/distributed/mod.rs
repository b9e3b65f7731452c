//! One simulation across processes (issue 55): the fluid's particles divided among *ranks* by
//! slabs along one axis ([`SlabHalo`]), each rank stepping the particles it owns with copies of
//! its neighbours' particles within reach (ghosts, [`crate::fluid::halo`]), and a run loop that
//! reduces the probes to one CSV ([`run`]) and writes per-rank checkpoints that the same number
//! of ranks resumes to the same bytes ([`checkpoint`]).
//!
//! The messages go through a [`Comm`]: MPI ranks (`mpi_comm`, feature `mpi`: `mpirun -n N
//! vcsim run MODEL`) or threads of one process ([`ThreadComm`], the same code path without
//! MPI, for tests and for machines without it). Every rank calls the same collective
//! operations in the same order; none is skipped by a rank-local decision (the halo's
//! [`crate::fluid::halo::Halo::any`] makes each decision global).
//!
//! What runs divided so far: WCSPH fluid (either stepping, either wall treatment) and the
//! constraint method (PGS or APGD, its density projection; [`crate::fluid::constraint`]'s
//! divided module: each rank updates the rows it owns and the ranks meet after every sweep or
//! product, [`crate::solver::Parts`]) with walls (divided by slab too) and bodies, in 2D and 3D. The
//! bodies are on every rank and step the same bits everywhere: the fluid's force on each is
//! the sum of the ranks' shares, each from its owned particles (with the constraint method,
//! their velocities in the solve take the sum of every rank's changes). Every probe is
//! measured across the ranks ([`run`]). ISPH, PGS's multilevel correction and periodic axes
//! are refused before the run starts, with the reason.

pub mod checkpoint;
#[cfg(feature = "mpi")]
pub mod mpi_comm;
pub mod run;
mod sample;
mod slab;
mod thread_comm;

pub use slab::SlabHalo;
pub use thread_comm::ThreadComm;

/// The collective operations a divided simulation needs (MPI's `MPI_Allreduce` with
/// `MPI_MAX` and `MPI_SUM`, and `MPI_Alltoallv`), over `f64` payloads (particle ids are
/// exact in them up to 2⁵³).
pub trait Comm: Send + Sync {
    /// This rank (0-based).
    fn rank(&self) -> usize;
    /// The number of ranks.
    fn size(&self) -> usize;
    /// Element-wise maximum of `v` over all ranks, in place.
    fn max(&self, v: &mut [f64]);
    /// Element-wise sum of `v` over all ranks, in place (summed in rank order, so every rank
    /// gets the same bits).
    fn sum(&self, v: &mut [f64]);
    /// All-to-all: `send[r]` goes to rank r; `recv[r]` becomes what rank r sent here (its
    /// buffers reused: no allocation once the sizes settle).
    fn exchange(&self, send: &[Vec<f64>], recv: &mut [Vec<f64>]);
    /// Every rank's `v`, by rank (collective; the lengths may differ between ranks).
    fn all_gather(&self, v: &[f64]) -> Vec<Vec<f64>> {
        let send = vec![v.to_vec(); self.size()];
        let mut recv = vec![Vec::new(); self.size()];
        self.exchange(&send, &mut recv);
        recv
    }
}

/// `result` if it is `Ok` on every rank of `comm` (collective): a rank's own error, or, on the
/// ranks where it was `Ok`, an error saying another rank failed (each rank's message names
/// what it could not do). Every rank then stops together: none waits for the others in a
/// collective operation they never reach.
pub fn agree<T>(comm: &dyn Comm, result: Result<T, String>) -> Result<T, String> {
    let mut failed = [result.is_err() as u8 as f64];
    comm.max(&mut failed);
    match result {
        Err(e) => Err(e),
        Ok(_) if failed[0] > 0.0 => Err("another rank failed (its message says why)".into()),
        Ok(v) => Ok(v),
    }
}
