//! The solvers' vector passes over the rows: in parallel above one chunk of rows, with sums
//! taken chunk by chunk and then over the chunks in order, so that results do not depend on the
//! thread count (and, below one chunk, equal a plain serial loop).

use crate::math::Real;
use rayon::prelude::*;

/// Rows per chunk.
pub(crate) const CHUNK: usize = 4096;

/// Four sums at once: `Σ_k f(k)` for k in `0..n`, componentwise; `partial` is scratch.
pub(crate) fn sums4(
    n: usize,
    partial: &mut Vec<[Real; 4]>,
    f: impl Fn(usize) -> [Real; 4] + Sync,
) -> [Real; 4] {
    let chunk_sum = |c: usize| {
        let mut s = [0.0; 4];
        for k in c * CHUNK..((c + 1) * CHUNK).min(n) {
            let v = f(k);
            for i in 0..4 {
                s[i] += v[i];
            }
        }
        s
    };
    let chunks = n.div_ceil(CHUNK);
    if chunks <= 1 {
        return chunk_sum(0);
    }
    (0..chunks)
        .into_par_iter()
        .map(chunk_sum)
        .collect_into_vec(partial);
    let mut s = [0.0; 4];
    for p in partial.iter() {
        for i in 0..4 {
            s[i] += p[i];
        }
    }
    s
}

/// `out[k] = f(k)` for every k.
pub(crate) fn fill(out: &mut [Real], f: impl Fn(usize) -> Real + Sync) {
    if out.len() <= CHUNK {
        for (k, o) in out.iter_mut().enumerate() {
            *o = f(k);
        }
    } else {
        out.par_chunks_mut(CHUNK).enumerate().for_each(|(c, os)| {
            for (i, o) in os.iter_mut().enumerate() {
                *o = f(c * CHUNK + i);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sums equal a serial loop below one chunk, and do not depend on the thread count above.
    #[test]
    fn sums_are_serial_below_a_chunk_and_thread_count_independent_above() {
        let small: Vec<Real> = (0..1000).map(|k| (k as Real * 0.37).sin()).collect();
        let mut partial = Vec::new();
        let s = sums4(small.len(), &mut partial, |k| [small[k], 1.0, 0.0, 0.0]);
        let serial = small.iter().fold(0.0, |a, b| a + b);
        assert_eq!(s[0], serial);
        assert_eq!(s[1], 1000.0);
        let big: Vec<Real> = (0..50_000).map(|k| (k as Real * 0.37).sin()).collect();
        let by = |threads: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| sums4(big.len(), &mut Vec::new(), |k| [big[k]; 4])[0])
        };
        assert_eq!(by(1), by(2));
        assert_eq!(by(1), by(3));
        let mut out = vec![0.0; big.len()];
        fill(&mut out, |k| 2.0 * big[k]);
        assert!(out.iter().zip(&big).all(|(o, b)| *o == 2.0 * b));
    }
}
