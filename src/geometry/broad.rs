//! Broad phase: sweep and prune along x over axis-aligned bounding boxes.
//!
//! Sorting the boxes by their lower x bound and sweeping keeps the cost at O(n log n + k) for k
//! overlapping pairs, adequate for the body counts of multibody models (fluid particles use the
//! cell grid of the fluid module instead).

use parry3d_f64::bounding_volume::{Aabb, BoundingVolume};

/// Writes into `out` the sorted pairs `(i, j)`, `i < j`, of overlapping boxes accepted by `keep`.
pub fn sweep_and_prune(
    aabbs: &[Aabb],
    out: &mut Vec<(u32, u32)>,
    keep: impl Fn(usize, usize) -> bool,
) {
    out.clear();
    let mut order: Vec<usize> = (0..aabbs.len()).collect();
    order.sort_by(|&a, &b| aabbs[a].mins.x.total_cmp(&aabbs[b].mins.x).then(a.cmp(&b)));
    for (n, &i) in order.iter().enumerate() {
        for &j in &order[n + 1..] {
            if aabbs[j].mins.x > aabbs[i].maxs.x {
                break;
            }
            if aabbs[i].intersects(&aabbs[j]) && keep(i.min(j), i.max(j)) {
                out.push((i.min(j) as u32, i.max(j) as u32));
            }
        }
    }
    out.sort_unstable();
}
