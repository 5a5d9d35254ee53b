//! A candidate descended on a sample of the rows, then on all of them (the
//! decomposition of Big-means, Mussabayev et al., 2023): where one restart
//! on all rows already spends the default's budget, restarts on an eighth
//! of the rows cost an eighth each, and the best of them, descended again
//! on every row from its centroids, is one more candidate of the search
//! ([`crate::fit::search::Spec::Seeded`]). A sample keeps the shape of the
//! large clusters and loses detail at the small ones, so the candidate runs
//! beside the fresh restart on all rows, never in its place: the search
//! keeps whichever ends lower. Where the sample holds many rows per
//! cluster ([`defaults::sample_searched`]) its descents are the fit's
//! whole search instead (`n_init = "auto"` on the sample, with the fit's
//! budget), and the candidate, descended on all rows, is the result.
//!
//! The sample is drawn uniformly without replacement from its own stream
//! of the seed ([`Stream::Sample`]), rows in their order, each with its
//! weight (a uniform sample's weighted objective estimates the whole one's
//! without bias); its restarts are the fit's own (method, start, schedule,
//! refinement), run as a fit of [`defaults::SAMPLE_RESTARTS`] restarts.
//! Nothing depends on the thread count.

use crate::data::Scalar;
use crate::dataset::{Dataset, Setup, SourceJob};
use crate::engine::init::forgy_indices;
use crate::engine::source::Source;
use crate::error::Result;
use crate::fit::multistart::best_restart;
use crate::fit::search::Seeded;
use crate::params::defaults;
use crate::params::{NInit, ValidParams};
use crate::rng::{Stream, Xoshiro256PlusPlus};
use crate::rows::Rows;
use crate::sparse::CsrView;
use ndarray::{Array1, Array2, Axis};
use std::sync::atomic::AtomicBool;

/// The seeded candidate's centroids for a fit of `params` on `data` (whose
/// rows were checked), where the fit runs one ([`defaults::sample_rows`]);
/// else `None`. A sample whose weights cannot carry `k` clusters (fewer
/// than `k` positive) gives none either. Its restarts run on `pool`, the
/// fit's. (Whether the sample's restarts agree says little: on data whose
/// small, remote clusters make the landscape rugged, a sample that misses
/// them has one optimum.)
pub(crate) fn seeded<T: Scalar>(
    params: &ValidParams,
    data: Dataset<'_, T>,
    pool: &rayon::ThreadPool,
    cancel: &AtomicBool,
) -> Result<Option<Seeded>> {
    let (n, d) = data.shape();
    let k = params.k();
    if params.n_init() != NInit::Auto || params.size_bounds(n).is_some() {
        return Ok(None);
    }
    let Some(m) = defaults::sample_rows(n, d, k) else {
        return Ok(None);
    };
    let mut rng = Xoshiro256PlusPlus::stream(params.seed(), 0, Stream::Sample);
    let mut rows = forgy_indices(n, m, &mut rng);
    rows.sort_unstable();
    let weights: Option<Array1<f64>> = data.sample_weight().map(|w| w.select(Axis(0), &rows));
    // The rows passed the fit's checks, so the sample's pass them too; only
    // its weights may hold fewer than `k` positive ones.
    if let Some(w) = &weights {
        if w.iter().filter(|&&v| v > 0.0).count() < k {
            return Ok(None);
        }
    }
    let sample_params = params.for_sample(n, d, m);
    let job = SampleFit {
        params: &sample_params,
        pool,
        cancel,
    };
    let fitted = match data.rows() {
        Rows::Dense(x) => {
            let x = x.select(Axis(0), &rows);
            Dataset::new(&x)
                .maybe_weights(weights.as_ref().map(|w| w.view()))
                .with_source(&sample_params, k, Setup::fit(cancel), job)
        }
        Rows::Sparse(x) => {
            let (indptr, indices, values) = sparse_rows(x, &rows);
            let x = CsrView::new(x.n_cols(), &indptr, &indices, &values)?;
            Dataset::new(x)
                .maybe_weights(weights.as_ref().map(|w| w.view()))
                .with_source(&sample_params, k, Setup::fit(cancel), job)
        }
    };
    let (centroids, sample_passes) = fitted?;
    Ok(Some(Seeded {
        centroids,
        passes: sample_passes * m as f64 / n as f64,
    }))
}

/// The rows `rows` of `x` as the parts of a CSR matrix.
fn sparse_rows<T: Scalar>(x: CsrView<'_, T>, rows: &[usize]) -> (Vec<usize>, Vec<usize>, Vec<T>) {
    let mut indptr = Vec::with_capacity(rows.len() + 1);
    indptr.push(0);
    let (mut indices, mut values) = (Vec::new(), Vec::new());
    for &i in rows {
        let (cols, vals) = x.row(i);
        indices.extend_from_slice(cols);
        values.extend_from_slice(vals);
        indptr.push(indices.len());
    }
    (indptr, indices, values)
}

/// The sample's fit: its best restart's centroids (in the caller's
/// coordinates, as a clustering returns them) and the passes over the
/// sample its search spent.
struct SampleFit<'p> {
    params: &'p ValidParams,
    pool: &'p rayon::ThreadPool,
    cancel: &'p AtomicBool,
}

impl<T: Scalar> SourceJob<T> for SampleFit<'_> {
    type Output = (Array2<f64>, f64);

    fn run<S: Source<Out = T>>(self, source: S, _exponent: i32) -> Result<Self::Output> {
        let best = best_restart(self.pool, &source, self.params, None, self.cancel)?;
        let passes = best.passes;
        let clustering =
            best.restart
                .clustering(&source, best.objectives, best.index, self.params.seed());
        Ok((clustering.centroids.mapv(|v| v.to_f64()), passes))
    }
}
