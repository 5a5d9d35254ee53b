//! What the engine reads of the rows, dense, sparse or unit: their weights,
//! each row as something whose squared distance to a dense centre and whose
//! weighted sum can be formed, the distance between two rows, and
//! refinement's split of a cluster. Rows are in the coordinates the
//! centroids are in (shifted for dense data). Refinement
//! ([`crate::engine::refine`]) and the bounded descent
//! ([`crate::engine::constrained`]) read them through [`Points`].

/// The rows as refinement and the bounded descent read them.
pub(crate) trait Points: Sync {
    /// One row, as a visit holds it.
    type Row<'r>
    where
        Self: 'r;
    /// Number of coordinates.
    fn dim(&self) -> usize;
    fn weight(&self, i: usize) -> f64;
    /// Row `i`; dense rows are copied into `buf` (`dim` long), sparse ones
    /// are read in place.
    fn row<'r>(&'r self, i: usize, buf: &'r mut [f64]) -> Self::Row<'r>;
    /// `‖x − c‖²` for a dense `c` with `c_norm = ‖c‖²` (dense rows compute
    /// it directly and ignore `c_norm`).
    fn sq_dist_to(x: &Self::Row<'_>, c: &[f64], c_norm: f64) -> f64;
    /// `sum += w·x`.
    fn add_to(x: &Self::Row<'_>, w: f64, sum: &mut [f64]);
    /// Hints the CPU to start loading row `i` (no effect on results).
    fn prefetch(&self, _i: usize) {}

    /// Number of rows.
    fn len(&self) -> usize;
    /// `‖x_a − x_b‖²`.
    fn pair_sq_dist(&self, a: usize, b: usize) -> f64;
    /// The largest squared norm of a row in the coordinates distances are
    /// formed in: their rounding is relative to it (a centroid, a mean of
    /// rows, is no longer).
    fn sq_norm_bound(&self) -> f64;
    /// The squared distance of each row of `rows` to each of the `k`
    /// centres `centroids` (`k × dim`, with their squared norms `norms`):
    /// `out[r·k + j]` for row `rows[r]` and centre `j`, each exactly as
    /// [`Points::sq_dist_to`] gives it (so a distance computed here and one
    /// computed alone agree to the bit).
    fn distances(&self, rows: &[usize], centroids: &[f64], norms: &[f64], out: &mut [f64]) {
        let (d, k) = (self.dim(), norms.len());
        let mut buf = vec![0.0; d];
        for (&i, dists) in rows.iter().zip(out.chunks_exact_mut(k)) {
            let row = self.row(i, &mut buf);
            for (j, v) in dists.iter_mut().enumerate() {
                *v = Self::sq_dist_to(&row, &centroids[j * d..(j + 1) * d], norms[j]);
            }
        }
    }
    /// The best 2-means split of `members` about `mean`
    /// ([`crate::engine::refine::split_cluster`], or a faster copy with the
    /// same bits).
    fn split(&self, members: &[usize], mean: &[f64]) -> Option<Split>;
}

/// The best 2-means split found for one cluster: how much it lowers the
/// cluster's cost, and which members form the second half.
#[derive(Debug, Clone)]
pub(crate) struct Split {
    pub(crate) gain: f64,
    pub(crate) second: Vec<usize>,
}
