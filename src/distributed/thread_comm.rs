//! [`Comm`] between threads of one process: ranks as threads, messages through shared
//! mailboxes and a barrier. For tests of the divided run without MPI, and for machines
//! without it.
//!
//! The barrier yields the core a few times and then sleeps on a condition variable. Sleeping
//! at once cost about 170 µs a wake (the 800-particle WCSPH dam break on two ranks took 241 ms
//! for 20 steps with `std::sync::Barrier`, against 119 ms on one), so a rank that arrives soon
//! is met by yielding; yielding without end let four ranks on two cores hand the cores to each
//! other's waits (`tests/distributed.rs` alone, two tests at a time on two cores: 192–193 s of
//! wall and 86–89 s of system time yielding only, 156–169 s and 26–27 s with the sleep; 2026-12-03).

use super::Comm;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};

/// A reusable barrier for `size` threads: a waiter yields a few times (a rank that arrives
/// within microseconds, as on cores of its own, is met without sleeping) and then sleeps on a
/// condition variable until the last one arrives (ranks that share cores — four test ranks on
/// two — hand theirs over instead of yielding to each other).
struct RankBarrier {
    size: usize,
    arrived: AtomicUsize,
    generation: AtomicUsize,
    lock: Mutex<()>,
    woken: Condvar,
}

/// How many times a waiter yields before it sleeps.
const YIELDS: usize = 64;

impl RankBarrier {
    fn wait(&self) {
        let gen = self.generation.load(Ordering::Acquire);
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.size {
            self.arrived.store(0, Ordering::Release);
            // (Under the lock: a waiter between its check and its sleep cannot miss the wake.)
            let g = self.lock.lock().unwrap_or_else(|e| e.into_inner());
            self.generation.fetch_add(1, Ordering::AcqRel);
            drop(g);
            self.woken.notify_all();
            return;
        }
        for _ in 0..YIELDS {
            if self.generation.load(Ordering::Acquire) != gen {
                return;
            }
            std::thread::yield_now();
        }
        let mut g = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        while self.generation.load(Ordering::Acquire) == gen {
            g = self.woken.wait(g).unwrap_or_else(|e| e.into_inner());
        }
    }
}

struct Shared {
    size: usize,
    barrier: RankBarrier,
    /// `boxes[from * size + to]`.
    boxes: Mutex<Vec<Vec<f64>>>,
}

/// One rank's end of a group of threads ([`ThreadComm::group`]).
pub struct ThreadComm {
    rank: usize,
    shared: Arc<Shared>,
}

impl ThreadComm {
    /// `size` connected ranks, one per thread that will use it.
    pub fn group(size: usize) -> Vec<ThreadComm> {
        let size = size.max(1);
        let shared = Arc::new(Shared {
            size,
            barrier: RankBarrier {
                size,
                arrived: AtomicUsize::new(0),
                generation: AtomicUsize::new(0),
                lock: Mutex::new(()),
                woken: Condvar::new(),
            },
            boxes: Mutex::new(vec![Vec::new(); size * size]),
        });
        (0..size)
            .map(|rank| ThreadComm {
                rank,
                shared: shared.clone(),
            })
            .collect()
    }

    fn boxes(&self) -> std::sync::MutexGuard<'_, Vec<Vec<f64>>> {
        // (A rank that panicked poisons the lock; the others then fail too, which is right.)
        self.shared.boxes.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Comm for ThreadComm {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.shared.size
    }

    fn max(&self, v: &mut [f64]) {
        for other in self.all_gather(v) {
            for (a, b) in v.iter_mut().zip(other) {
                *a = a.max(b);
            }
        }
    }

    fn sum(&self, v: &mut [f64]) {
        let all = self.all_gather(v);
        v.iter_mut().for_each(|a| *a = 0.0);
        for other in all {
            for (a, b) in v.iter_mut().zip(other) {
                *a += b;
            }
        }
    }

    fn exchange(&self, send: &[Vec<f64>], recv: &mut [Vec<f64>]) {
        let n = self.size();
        assert_eq!(send.len(), n, "one message per rank");
        assert_eq!(recv.len(), n, "one inbox per rank");
        {
            let mut b = self.boxes();
            for (to, m) in send.iter().enumerate() {
                b[self.rank * n + to].clone_from(m);
            }
        }
        self.shared.barrier.wait();
        {
            // (Swapped: the mailbox keeps the inbox's old buffer for the next message.)
            let mut b = self.boxes();
            for (from, r) in recv.iter_mut().enumerate() {
                std::mem::swap(r, &mut b[from * n + self.rank]);
            }
        }
        self.shared.barrier.wait();
    }
}
