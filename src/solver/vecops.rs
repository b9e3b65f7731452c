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

/// `dst = src` (lengths equal).
pub(crate) fn copy(dst: &mut [Real], src: &[Real]) {
    if dst.len() <= CHUNK {
        dst.copy_from_slice(src);
    } else {
        dst.par_chunks_mut(CHUNK)
            .zip(src.par_chunks(CHUNK))
            .for_each(|(d, s)| d.copy_from_slice(s));
    }
}

/// `f(k, &mut out[k])` for every k.
pub(crate) fn update(out: &mut [Real], f: impl Fn(usize, &mut Real) + Sync) {
    if out.len() <= CHUNK {
        for (k, o) in out.iter_mut().enumerate() {
            f(k, o);
        }
    } else {
        out.par_chunks_mut(CHUNK).enumerate().for_each(|(c, os)| {
            for (i, o) in os.iter_mut().enumerate() {
                f(c * CHUNK + i, o);
            }
        });
    }
}

/// The largest `f(k)` for k in `0..n`, at least 0 (`f64::max` ignores NaN). A maximum does not
/// depend on the order it is taken in, so neither does the result on the thread count.
pub(crate) fn max_of(n: usize, f: impl Fn(usize) -> Real + Sync) -> Real {
    let chunk_max = |c: usize| {
        (c * CHUNK..((c + 1) * CHUNK).min(n))
            .map(&f)
            .fold(0.0, Real::max)
    };
    let chunks = n.div_ceil(CHUNK);
    if chunks <= 1 {
        chunk_max(0)
    } else {
        (0..chunks)
            .into_par_iter()
            .map(chunk_max)
            .reduce(|| 0.0, Real::max)
    }
}

/// Splits `x` into the runs of consecutive `blocks` (sorted by start, not overlapping, as
/// every [`super::RowSet`] lists them) of [`CHUNK`] blocks, and calls `f(at, the blocks, xs)`
/// on each, `xs[k − at]` being row k, in parallel above one chunk.
pub(crate) fn for_blocks_mut(
    blocks: &[super::Block],
    x: &mut [Real],
    f: impl Fn(usize, &[super::Block], &mut [Real]) + Sync + Send,
) {
    if blocks.len() <= CHUNK {
        f(0, blocks, x);
        return;
    }
    let runs = {
        let mut rest = x;
        let mut offset = 0;
        blocks.chunks(CHUNK).enumerate().map(move |(c, bs)| {
            let end = blocks
                .get((c + 1) * CHUNK)
                .map_or(offset + rest.len(), |b| b.start);
            let (head, tail) = std::mem::take(&mut rest).split_at_mut(end - offset);
            rest = tail;
            let at = offset;
            offset = end;
            (bs, head, at)
        })
    };
    runs.par_bridge().for_each(|(bs, xs, at)| f(at, bs, xs));
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

    /// Blocks of mixed lengths visited by runs (in parallel above one chunk) touch each of
    /// their rows once, with the offset the runs report; the maximum equals a serial fold.
    #[test]
    fn block_runs_cover_every_row_once() {
        use crate::solver::{Block, BlockKind};
        let mut blocks = Vec::new();
        let mut start = 0;
        for k in 0..20_000 {
            let kind = if k % 7 == 0 {
                BlockKind::Bilateral { len: 3 }
            } else {
                BlockKind::Unilateral
            };
            blocks.push(Block { start, kind });
            start += kind.len();
        }
        let mut x = vec![0.0; start];
        for_blocks_mut(&blocks, &mut x, |at, bs, xs| {
            for b in bs {
                for r in b.start..b.start + b.kind.len() {
                    xs[r - at] += r as Real;
                }
            }
        });
        assert!(x.iter().enumerate().all(|(r, v)| *v == r as Real));
        let f = |k: usize| ((k as Real) * 0.37).sin();
        let serial = (0..50_000).map(f).fold(0.0, Real::max);
        assert_eq!(max_of(50_000, f), serial);
        let mut y = vec![1.0; 50_000];
        update(&mut y, |k, o| *o += k as Real);
        let mut z = vec![0.0; 50_000];
        copy(&mut z, &y);
        assert!(z.iter().enumerate().all(|(k, v)| *v == 1.0 + k as Real));
    }
}
