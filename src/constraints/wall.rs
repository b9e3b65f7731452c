//! Wall rows: the density rows of boundary particles, stored with the fluid density rows in
//! [`DensityRows`] (rows `nf..nf + nwall`).
//!
//! **Wall rows.** Each boundary particle b with fluid neighbours has a row of its own: its
//! density `ρ_b/ρ0 = Σ_{walls} V W + Σ_{fluid} V W_bj`, `ġ_b = Σ_j V ∇_b W_bj · v_j` (the wall does
//! not move), i.e. `c_bj = V ∇_b W_bj` on each fluid neighbour. Its multiplier is the wall
//! pressure: the fluid–wall force takes the symmetric form `(p_i + p_b)` of the fluid–fluid one,
//! so the wall pushes along its normal (without these rows a wall acts only through the fluid
//! particle's own row, along `s_i`: diagonally in corners, and with twice the pressure next to
//! the wall). Row kinds and bias are those of the fluid rows ([`super::density`]). Fluid
//! particle i sees the wall row of each boundary neighbour k through `c_ki` in its transposed
//! product (`fb_row`, `fb_coef`).

use super::density::{target_gap, DensityRows};
use crate::fluid::kernel::volume_gradient;
use crate::fluid::Fluid;
use crate::math::Real;

impl DensityRows {
    /// Appends the wall rows of `fluid`'s boundary particles that have fluid neighbours, and
    /// for each fluid particle the wall rows of its boundary neighbours. Needs the fluid rows
    /// built (`nf`, `minv`, `fb_coef`); `h` is the step (s), `beta` the gap's feedback per step.
    pub(crate) fn build_wall_rows(&mut self, fluid: &Fluid, h: Real, beta: Real) {
        let p = &fluid.params;
        let (k, v0) = (p.kernel, fluid.volume);
        let (pos, boundary, bf, fb, bdens) = (
            &fluid.pos,
            &fluid.boundary,
            &fluid.bf,
            &fluid.fb,
            &fluid.bdens,
        );
        let per = p.periodic;
        let mask = self.minv;
        self.brow.clear();
        self.brow.resize(boundary.len(), u32::MAX);
        self.bactive.clear();
        self.bstart.begin();
        self.bnbr.clear();
        self.bcoef.clear();
        for b in 0..boundary.len() {
            let nb = bf.of(b);
            if nb.is_empty() {
                continue;
            }
            self.brow[b] = self.bactive.len() as u32;
            self.bactive.push(b as u32);
            let xb = &boundary[b];
            let mut rho = bdens[b];
            let mut dsum = 0.0;
            for &j in nb {
                let d = per.delta(xb, &pos[j as usize]);
                rho += v0 * k.w(d.norm());
                let c = volume_gradient(&k, v0, &d);
                dsum += c.component_mul(&mask).dot(&c);
                self.bnbr.push(j);
                self.bcoef.push(c);
            }
            self.bstart.close_row(self.bnbr.len());
            self.diag.push(dsum);
            let gap = 1.0 - rho;
            self.bias.push(beta / h * target_gap(self.unilateral, gap));
        }
        self.nwall = self.bactive.len();
        // For each fluid particle, the wall rows of its boundary neighbours (their `c_bk` came
        // with the fluid rows).
        self.fb_start.copy_from(&fb.start);
        self.fb_row.clear();
        self.fb_row
            .extend(fb.list.iter().map(|&b| self.brow[b as usize]));
    }
}
