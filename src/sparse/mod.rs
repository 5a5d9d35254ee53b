//! Sparse (CSR) input, clustered without densifying `x`.
//!
//! Per cluster we keep the weighted sum `S_j` of its points and `‖S_j‖²`, so
//! that the squared distance to the mean `μ_j = S_j / W_j` is
//! `‖x‖² − 2·x·S_j/W_j + ‖S_j‖²/W_j²`: scoring a point against all `k`
//! clusters costs O(nnz(x)·k), and moving it costs O(nnz(x)). The sums are
//! stored column-major (`d × k`), so the `k` dot products of one nonzero run
//! over contiguous memory. As for dense data, the sums and norms are
//! recomputed exactly after every sweep.
//!
//! The expansion loses relative accuracy when a point is far closer to a
//! centroid than both are to the origin (its rounding error is about
//! ε·(‖x‖² + ‖μ‖²)): harmless for the data sparse input is made for (counts,
//! TF-IDF), fatal at a large offset. So what is reported never comes from
//! it: the objective, the clusters' objectives, the initial assignments and
//! (in [`centroids`]) `predict` and `transform` are computed in a form that
//! does not cancel where the expansion could be wrong. And the decisions of
//! the sweeps, which must stay O(nnz·k), are checked once a fit ends
//! ([`SparseData`]'s `check_precision`): if the decisions the expansion's
//! error leaves to chance carry more than [`PRECISION_TOLERANCE`] of the
//! objective (measured exactly), the fit is refused with an error naming
//! the remedy (centre the data, or pass it dense).

mod centroids;
mod csr;
mod data;
mod precision;
mod source;

pub(crate) use centroids::SparseCentroids;
pub(crate) use csr::CsrRow;
pub use csr::CsrView;
pub(crate) use data::{checked_sparse, SparseData, SparseState};

use std::sync::atomic::{AtomicBool, Ordering};

/// Points between two polls of the cancellation flag in the sparse passes
/// (and between two checks of their results' precision): a poll is one
/// relaxed load, and a chunk of points costs far more. The pass to the
/// nearest centroid, whose rows each scan every centroid, polls before
/// every row instead (a chunk of it can take seconds).
const POLL_POINTS: usize = 1024;

/// Whether `cancel` is set.
#[inline(always)]
fn cancelled(cancel: &AtomicBool) -> bool {
    cancel.load(Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::engine::source::Descent;

    #[test]
    fn a_candidate_sweep_gives_the_objective_its_moves_left() {
        // Overlapping blobs, about half the entries zeroed.
        let x =
            crate::testing::testdata::blobs(1500, 12, 20, 12)
                .mapv(|v| if v < 2.5 { 0.0 } else { v });
        let (mut indptr, mut indices, mut values) = (vec![0], Vec::new(), Vec::new());
        for row in x.rows() {
            for (j, &v) in row.iter().enumerate().filter(|(_, &v)| v != 0.0) {
                indices.push(j);
                values.push(v);
            }
            indptr.push(values.len());
        }
        let csr = CsrView::new(12, &indptr, &indices, &values).unwrap();
        let cancel = AtomicBool::new(false);
        let data = SparseData::new(csr, None, &cancel);
        let k = 6;
        let mut st = data.state_from_labels(k, (0..1500).map(|i| i % k).collect());
        let before = data.objective(&st);
        let order: Vec<usize> = (0..1500).step_by(3).collect();
        let (moved, objective) = data.candidate_sweep(&mut st, &order, before);
        assert!(moved > 50 && objective < before);
        data.recompute(&mut st);
        let exact = data.objective(&st);
        assert!(
            (objective - exact).abs() <= 1e-10 * exact,
            "{objective} {exact}"
        );
    }
}
