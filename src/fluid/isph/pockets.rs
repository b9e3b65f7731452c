//! Pockets of the pressure Poisson equation: groups of unknowns that no particle of known
//! pressure holds down (equations in the parent module).

use crate::fluid::grid::Neighbours;

/// Not an unknown of the pressure Poisson equation (a free-surface particle, holding the
/// surface pressure): the PPE's numbering marks such a particle with this index.
pub(super) const DIRICHLET: u32 = u32::MAX;

/// The pocket label of an unknown connected, through unknowns, to a free-surface particle.
pub(super) const ANCHORED: u32 = u32::MAX;

/// Labels the pockets: groups of unknowns connected through fluid neighbours that are
/// unknowns, none of which has a free-surface neighbour — the whole water of a closed
/// domain, or, with a free surface elsewhere, a few particles that the walls' share of
/// their kernel sums keeps off the free surface (a film or a drop on a wall). Without a
/// particle of known pressure such a group's pressure is defined up to a constant, and
/// its right-hand side need not be consistent: CG diverged on one (in the sloshing tank at
/// 0.005 m, a lone particle sliding down the right wall 0.77 m up, with no fluid neighbour and
/// a kernel sum of 0.90–0.95 from the wall's particles; pressures of 1e10 Pa at t = 3.114 s,
/// the run blown apart).
/// `index` holds each particle's unknown or [`DIRICHLET`] (the PPE's numbering) and `m` the
/// number of unknowns. Writes the pocket of each unknown (or [`ANCHORED`]) into `pocket` and
/// returns the number of pockets; `stack` is scratch.
pub(super) fn label_pockets(
    index: &[u32],
    ff: &Neighbours,
    m: usize,
    pocket: &mut Vec<u32>,
    stack: &mut Vec<u32>,
) -> usize {
    const UNSEEN: u32 = u32::MAX - 1;
    pocket.clear();
    pocket.resize(m, UNSEEN);
    let mut count = 0;
    for start in 0..index.len() {
        let row = index[start];
        if row == DIRICHLET || pocket[row as usize] != UNSEEN {
            continue;
        }
        // Search the group from `start`, labelled `count` until it meets the surface.
        let label = count as u32;
        let mut anchored = false;
        stack.clear();
        stack.push(start as u32);
        pocket[row as usize] = label;
        let mut k = 0;
        while k < stack.len() {
            let i = stack[k] as usize;
            k += 1;
            for &j in ff.of(i) {
                match index[j as usize] {
                    DIRICHLET => anchored = true,
                    c => match pocket[c as usize] {
                        UNSEEN => {
                            pocket[c as usize] = label;
                            stack.push(j);
                        }
                        // Met through a one-sided neighbour pair.
                        ANCHORED => anchored = true,
                        _ => {}
                    },
                }
            }
        }
        if anchored {
            for &i in stack.iter() {
                pocket[index[i as usize] as usize] = ANCHORED;
            }
        } else {
            count += 1;
        }
    }
    count
}
