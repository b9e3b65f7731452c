//! [`Comm`] over MPI (feature `mpi`; OpenMPI's `mpirun`): `MPI_Allreduce` (maximum),
//! `MPI_Allgather` (sums, added in rank order on every rank so that all get the same bits,
//! which `MPI_Allreduce` does not promise), `MPI_Alltoall` of the counts then
//! `MPI_Alltoallv` of the values.
//!
//! MPI is initialised with `MPI_THREAD_SERIALIZED`: the step runs on a worker of the thread
//! pool, one collective call at a time.

use super::Comm;
use mpi::datatype::{Partition, PartitionMut};
use mpi::traits::*;
use mpi::Count;

/// This process's rank of the MPI job.
pub struct MpiComm {
    _universe: mpi::environment::Universe,
    world: mpi::topology::SimpleCommunicator,
    /// The all-to-all's counts, displacements and flat buffers, reused.
    scratch: std::sync::Mutex<Scratch>,
}

#[derive(Default)]
struct Scratch {
    counts: Vec<Count>,
    rcounts: Vec<Count>,
    sd: Vec<Count>,
    rd: Vec<Count>,
    flat: Vec<f64>,
    got: Vec<f64>,
}

/// `d[r]` = the sum of `c[..r]`.
fn displacements(c: &[Count], d: &mut Vec<Count>) {
    d.clear();
    let mut acc = 0;
    for &x in c {
        d.push(acc);
        acc += x;
    }
}

// SAFETY: the communicator is a handle that MPI lets any thread use when calls are serialised
// (MPI_THREAD_SERIALIZED, asked for in `init`); the divided run makes one collective call at a
// time, from whichever thread runs the step.
unsafe impl Send for MpiComm {}
// SAFETY: as above; `&MpiComm` is only used for one call at a time.
unsafe impl Sync for MpiComm {}

impl MpiComm {
    /// Initialises MPI; `None` when it cannot be (already initialised, or the threading level
    /// is not available).
    pub fn init() -> Option<MpiComm> {
        let (universe, level) =
            mpi::initialize_with_threading(mpi::environment::Threading::Serialized)?;
        if level < mpi::environment::Threading::Serialized {
            return None;
        }
        let world = universe.world();
        Some(MpiComm {
            _universe: universe,
            world,
            scratch: Default::default(),
        })
    }
}

impl Comm for MpiComm {
    fn rank(&self) -> usize {
        self.world.rank() as usize
    }

    fn size(&self) -> usize {
        self.world.size() as usize
    }

    fn max(&self, v: &mut [f64]) {
        let local = v.to_vec();
        self.world
            .all_reduce_into(&local[..], v, mpi::collective::SystemOperation::max());
    }

    fn sum(&self, v: &mut [f64]) {
        let n = self.size();
        let mut all = vec![0.0; v.len() * n];
        self.world.all_gather_into(&v[..], &mut all[..]);
        v.iter_mut().for_each(|a| *a = 0.0);
        for part in all.chunks_exact(v.len().max(1)) {
            for (a, b) in v.iter_mut().zip(part) {
                *a += b;
            }
        }
    }

    fn exchange(&self, send: &[Vec<f64>], recv: &mut [Vec<f64>]) {
        let n = self.size();
        let mut guard = self.scratch.lock().unwrap_or_else(|e| e.into_inner());
        let Scratch {
            counts,
            rcounts,
            sd,
            rd,
            flat,
            got,
        } = &mut *guard;
        counts.clear();
        counts.extend(send.iter().map(|m| m.len() as Count));
        rcounts.clear();
        rcounts.resize(n, 0);
        self.world.all_to_all_into(&counts[..], &mut rcounts[..]);
        displacements(counts, sd);
        displacements(rcounts, rd);
        flat.clear();
        send.iter().for_each(|m| flat.extend_from_slice(m));
        got.clear();
        got.resize(rcounts.iter().map(|&c| c as usize).sum(), 0.0);
        {
            let s = Partition::new(&flat[..], &counts[..], &sd[..]);
            let mut r = PartitionMut::new(&mut got[..], &rcounts[..], &rd[..]);
            self.world.all_to_all_varcount_into(&s, &mut r);
        }
        for (r, inbox) in recv.iter_mut().enumerate() {
            inbox.clear();
            inbox.extend_from_slice(&got[rd[r] as usize..(rd[r] + rcounts[r]) as usize]);
        }
    }
}
