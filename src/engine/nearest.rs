//! Nearest-centroid search: the tie rule that Lloyd's assignment, the
//! initial assignments, zero-weight points and prediction share, dense or
//! sparse.

/// Index of the smallest `dist(j)` over `0..k`, starting from `current` so
/// that a tie keeps the current label; other ties go to the lowest index.
#[inline]
pub(crate) fn nearest_by(
    k: usize,
    current: Option<usize>,
    mut dist: impl FnMut(usize) -> f64,
) -> usize {
    let (mut best_j, mut best) = match current {
        Some(r) => (r, dist(r)),
        None => (0, f64::INFINITY),
    };
    for j in 0..k {
        let d = dist(j);
        if d < best {
            best = d;
            best_j = j;
        }
    }
    best_j
}
