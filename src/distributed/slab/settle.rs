//! A divided solve's meeting of the parts ([`crate::fluid::halo::Halo::begin_solve`],
//! [`crate::fluid::halo::Halo::settle`]): the velocity changes each part made to its ghosts go
//! to their owners, the bodies' velocities take the sum of every part's changes, the ghosts
//! take their owners' velocities.

use super::SlabHalo;
use crate::math::Real;

impl SlabHalo {
    /// [`crate::fluid::halo::Halo::begin_solve`].
    pub(super) fn remember(&mut self, v: &[Real], dof0: usize, body_dofs: usize) {
        self.snap.clear();
        self.snap.extend_from_slice(&v[..body_dofs]);
        for &i in self.recv_idx.iter().flatten() {
            let o = dof0 + 3 * i as usize;
            self.snap.extend_from_slice(&v[o..o + 3]);
        }
    }

    /// [`crate::fluid::halo::Halo::settle`]: two exchanges, the first carrying each part's largest change and its
    /// changes to the bodies to every other part.
    pub(super) fn meet(
        &mut self,
        v: &mut [Real],
        dof0: usize,
        body_dofs: usize,
        change: Real,
    ) -> Real {
        let me = self.comm.rank();
        // This part's changes: its largest, the bodies', its ghosts' (to their owners).
        let mut k = body_dofs;
        for (r, out) in self.out.iter_mut().enumerate().filter(|(r, _)| *r != me) {
            out.push(change);
            out.extend((0..body_dofs).map(|d| v[d] - self.snap[d]));
            for &i in &self.recv_idx[r] {
                let o = dof0 + 3 * i as usize;
                out.extend((0..3).map(|a| v[o + a] - self.snap[k + a]));
                k += 3;
            }
        }
        self.exchange();
        let mut largest = change;
        // The bodies: the sum of every part's changes, in part order (the same bits on every
        // part).
        for (d, x) in v[..body_dofs].iter_mut().enumerate() {
            let mut total = 0.0;
            for r in 0..self.comm.size() {
                total += if r == me {
                    *x - self.snap[d]
                } else {
                    self.inbox[r][1 + d]
                };
            }
            *x = self.snap[d] + total;
        }
        for (r, m) in self.inbox.iter().enumerate().filter(|(r, _)| *r != me) {
            largest = largest.max(m[0]);
            let changes = &m[1 + body_dofs..];
            assert_eq!(
                changes.len(),
                3 * self.send_idx[r].len(),
                "a part settled another set of ghosts than it holds"
            );
            for (c, &i) in changes.chunks_exact(3).zip(&self.send_idx[r]) {
                let o = dof0 + 3 * i as usize;
                (0..3).for_each(|a| v[o + a] += c[a]);
            }
        }
        // The ghosts take their owners' (whole) entries.
        for (out, idx) in self.out.iter_mut().zip(&self.send_idx) {
            for &i in idx {
                let o = dof0 + 3 * i as usize;
                out.extend_from_slice(&v[o..o + 3]);
            }
        }
        self.exchange();
        self.snap.truncate(body_dofs);
        self.snap.copy_from_slice(&v[..body_dofs]);
        for (m, idx) in self.inbox.iter().zip(&self.recv_idx) {
            for (c, &i) in m.chunks_exact(3).zip(idx) {
                let o = dof0 + 3 * i as usize;
                v[o..o + 3].copy_from_slice(c);
                self.snap.extend_from_slice(c);
            }
        }
        largest
    }
}
