//! Active waiting during a step: the pool's other workers poll for work instead of sleeping.
//!
//! A step is a chain of parallel passes with short serial stretches between them (a colour of
//! the Gauss–Seidel sweep, a per-particle pass, the copy of a vector). Rayon's idle workers
//! yield a few dozen times and then sleep; a sleeping worker is woken when the next pass
//! starts, which on a virtual machine whose idle vCPU is halted takes tens of microseconds, and
//! the pass waits for it. A 20 000-particle PGS step runs about forty such passes. With
//! [`KeepWarm`] each other worker runs a job that polls the pool for work
//! (`rayon::yield_now`, executing what it finds) until the step ends, as OpenMP runtimes
//! let idle threads spin before they sleep (libgomp's default spin count; its active wait
//! policy spins throughout). It changes only when work starts,
//! never which updates happen in which order, so results stay the same to the bit.
//!
//! The cost: the other cores stay busy (yielding to the OS scheduler while polling) during
//! the step's serial stretches, up to [`IDLE_LIMIT`] without work, after which a worker stops
//! polling until the next step. It is for runs that own their cores (`vcsim run`, a study's
//! cases); [`super::World::active_wait`] turns it on.

use rayon::Yield;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a worker polls without finding work before it stops polling for the rest of the
/// step (and sleeps as rayon's workers do): a step whose serial stretches are long (the
/// impulse resolvers', a single-threaded model's) does not keep a core busy for nothing (with
/// endless polling, five runs of serial steps on two cores took the CPU the interrupt tests'
/// signal delivery needed). The 20k PGS step's serial stretches are below 0.5 ms.
const IDLE_LIMIT: Duration = Duration::from_millis(1);

/// Keeps the pool's other workers polling for work until dropped.
pub(super) struct KeepWarm {
    stop: Arc<AtomicBool>,
}

impl KeepWarm {
    /// Starts one polling job per other worker of the current pool, spawned into `scope`
    /// (which must not end before this guard is dropped). A job that lands on the calling
    /// worker returns at once: it would poll until its own caller stops it.
    pub(super) fn start<'s>(scope: &rayon::Scope<'s>) -> KeepWarm {
        let stop = Arc::new(AtomicBool::new(false));
        let me = rayon::current_thread_index();
        for _ in 1..rayon::current_num_threads() {
            let stop = Arc::clone(&stop);
            scope.spawn(move |_| {
                if rayon::current_thread_index() == me {
                    return;
                }
                let mut busy = Instant::now();
                while !stop.load(Ordering::Acquire) && busy.elapsed() < IDLE_LIMIT {
                    if rayon::yield_now() == Some(Yield::Executed) {
                        busy = Instant::now();
                    } else {
                        std::thread::yield_now();
                    }
                }
            });
        }
        KeepWarm { stop }
    }
}

impl Drop for KeepWarm {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
    }
}
