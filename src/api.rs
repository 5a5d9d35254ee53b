//! The operations, as methods of the validated parameters: a fit
//! ([`ValidParams::fit`]), a path of fits over a range of `k`
//! ([`ValidParams::path`]), the k-means++ start alone
//! ([`ValidParams::plus_plus`]) and a fit advanced step by step
//! ([`ValidParams::run`]), each on a [`Dataset`] of dense or sparse rows,
//! each with a `*_with` form that takes a [`Control`] (cancellation,
//! progress). Predictions are methods of the result
//! ([`Clustering::predict`](crate::Clustering::predict)).

use crate::clustering::Clustering;
use crate::control::{Control, Progress};
use crate::data::Scalar;
use crate::dataset::{Dataset, Setup, SourceJob};
use crate::engine::plus_plus::Draw;
use crate::engine::source::Source;
use crate::error::{Error, Result};
use crate::fit::multistart::{build_pool, fit_source};
use crate::fit::path::{checked_path, run_path, search_top, Path, PathKeep};
use crate::fit::restart::init_stream;
use crate::fit::run::Run;
use crate::fit::sample::seeded;
use crate::params::ValidParams;
use ndarray::Array1;
use std::ops::RangeInclusive;
use std::sync::atomic::{AtomicBool, Ordering};

impl ValidParams {
    /// Clusters the rows of `data` (dense or sparse, optionally weighted)
    /// with every restart run in parallel on a per-call thread pool. Same
    /// seed and input give bit-identical results for any number of threads.
    ///
    /// ```
    /// use ndarray::array;
    /// use smartigan::{Method, Params};
    /// let x = array![[0.0, 0.0], [0.1, 0.0], [5.0, 5.0], [5.1, 5.0]];
    /// let params = Params::new(2).method(Method::Hartigan).seed(1).check().unwrap();
    /// let c = params.fit(&x).unwrap();
    /// assert_eq!(c.labels[0], c.labels[1]);
    /// assert_ne!(c.labels[0], c.labels[2]);
    /// assert!((c.objective - 0.01).abs() < 1e-12);
    /// ```
    ///
    /// Sparse rows are clustered without densifying them (centroids come
    /// back dense); with the same seed the restarts draw the same starts
    /// and visiting orders as on the dense copy, so results agree up to
    /// floating-point ties.
    ///
    /// ```
    /// use smartigan::{CsrView, Params};
    /// // rows: [1, 0, 0], [1, 0, 0.1], [0, 5, 0], [0, 5, 0.1]
    /// let x = CsrView::new(3, &[0, 1, 3, 4, 6], &[0, 0, 2, 1, 1, 2], &[1.0f64, 1.0, 0.1, 5.0, 5.0, 0.1]).unwrap();
    /// let r = Params::new(2).seed(0).check().unwrap().fit(x).unwrap();
    /// assert_eq!(r.labels[0], r.labels[1]);
    /// assert_ne!(r.labels[0], r.labels[2]);
    /// assert!((r.objective - 0.01).abs() < 1e-12);
    /// ```
    pub fn fit<'a, T: Scalar>(&self, data: impl Into<Dataset<'a, T>>) -> Result<Clustering<T>> {
        self.fit_with(data, Control::default())
    }

    /// [`ValidParams::fit`] under `control`: it stops with
    /// [`Error::Interrupted`] soon after the control's flag is set (each
    /// restart checks it between sweeps, and its k-means++ start between
    /// centres and within each pass over the data).
    pub fn fit_with<'a, T: Scalar>(
        &self,
        data: impl Into<Dataset<'a, T>>,
        control: Control<'_>,
    ) -> Result<Clustering<T>> {
        let cancel = control.cancel_flag();
        self.fit_in(data.into(), Setup::fit(cancel), cancel)
    }

    /// The fit of [`ValidParams::fit_with`] on the representation `setup`
    /// builds (the equivalence tests run the plain definitions through it).
    pub(crate) fn fit_in<'a, T: Scalar>(
        &self,
        data: Dataset<'a, T>,
        setup: Setup<'_>,
        cancel: &AtomicBool,
    ) -> Result<Clustering<T>> {
        data.with_source(
            self,
            self.k(),
            setup,
            Fit {
                params: self,
                data,
                cancel,
            },
        )
    }

    /// The solutions for every `k` of `ks` on the rows of `data`, each from
    /// the one before: the usual fit at `k_min`, then for each next `k` the
    /// split of the cluster whose 2-means split lowers the objective most
    /// and Hartigan sweeps until no point moves; with refinement, then the
    /// fits at each `k` (small problems, or every `k` with `n_init` given),
    /// merges from the `k` above and growing again from below (see
    /// `docs/choosing-k.md`, also for why the objective never rises with
    /// `k`). `keep` says whether each `k`'s whole clustering is kept.
    ///
    /// The parameters' own `k` is not read: the fit at `k_min` uses them
    /// with `k = k_min` (method, starts, restarts, schedule), and every
    /// later `k` is reached by Hartigan sweeps whatever the method. With
    /// `tol` left to the default, the search runs at the size's default
    /// tolerance and every `k`'s solution is then finished by Hartigan
    /// sweeps until no point moves, so each is a Hartigan local optimum; a
    /// given `tol` is used throughout. Same seed and input give
    /// bit-identical paths for any number of threads.
    ///
    /// ```
    /// use ndarray::array;
    /// use smartigan::{Params, PathKeep};
    /// let x = array![[0.0, 0.0], [0.2, 0.1], [5.0, 5.0], [5.1, 4.8], [9.0, 0.0], [9.2, 0.3]];
    /// let params = Params::new(1).seed(7).check().unwrap();
    /// let path = params.path(&x, 1..=4, PathKeep::Summaries).unwrap();
    /// assert_eq!(path.ks(), vec![1, 2, 3, 4]);
    /// let f = path.objectives();
    /// assert!(f.windows(2).all(|w| w[1] <= w[0]));
    /// assert!((f[2] - 0.115).abs() < 1e-9); // three pairs: 0.025 + 0.025 + 0.065
    /// ```
    pub fn path<'a, T: Scalar>(
        &self,
        data: impl Into<Dataset<'a, T>>,
        ks: RangeInclusive<usize>,
        keep: PathKeep,
    ) -> Result<Path<T>> {
        self.path_with(data, ks, keep, Control::default())
    }

    /// [`ValidParams::path`] under `control`: it stops with
    /// [`Error::Interrupted`] soon after the control's flag is set (checked
    /// between sweeps and between steps), and counts its work into the
    /// control's [`Progress`] as it runs.
    pub fn path_with<'a, T: Scalar>(
        &self,
        data: impl Into<Dataset<'a, T>>,
        ks: RangeInclusive<usize>,
        keep: PathKeep,
        control: Control<'_>,
    ) -> Result<Path<T>> {
        let data = data.into();
        if self.has_size_bounds() {
            // Each k of a path is reached from the one before by splits and
            // merges, which no size bound survives; a bounded fit per k is
            // `fit` with that k.
            let given = self
                .size_min()
                .or(self.size_max())
                .map_or(String::new(), |b| b.to_string());
            let name = if self.size_min().is_some() {
                "size_min"
            } else {
                "size_max"
            };
            return Err(Error::invalid(
                name,
                given,
                "a path over k takes no size bounds: fit each k with its own bounds instead",
            ));
        }
        let (params, k_max) = checked_path(&ks, self, data.shape())?;
        let k_top = search_top(&params, k_max, data.shape().0, data.sample_weight());
        let cancel = control.cancel_flag();
        let own = Progress::default();
        let setup = Setup {
            accelerated: true,
            // Most of a path is one descent at a time, whose steps may then
            // use every thread (the bits are the same either way).
            one_at_a_time: true,
            cancel,
        };
        let job = PathJob {
            params: &params,
            k_max,
            k_top,
            keep,
            cancel,
            progress: control.progress_counter().unwrap_or(&own),
        };
        data.with_source(&params, k_max, setup, job)
    }

    /// The greedy k-means++ start on its own (what scikit-learn's
    /// `kmeans_plusplus` offers): the indices of the `k` rows chosen as
    /// centres, in the order chosen (`2 + ln k` candidates per centre, the
    /// one leaving the lowest potential kept). They are the centres that
    /// restart 0 of [`ValidParams::fit`] starts from on the same data when
    /// `init` is k-means++ (the default): passing those rows as
    /// [`Init::Centroids`](crate::Init::Centroids) with `n_init(1)`
    /// reproduces that restart. Only `k`, `seed` and `n_threads` are used;
    /// the data and weights are checked as a fit checks them.
    ///
    /// ```
    /// use ndarray::{array, Axis};
    /// use smartigan::{Init, Params};
    /// let x = array![[0.0f64, 0.0], [0.1, 0.0], [5.0, 5.0], [5.1, 5.0]];
    /// let rows = Params::new(2).seed(3).check().unwrap().plus_plus(&x).unwrap();
    /// assert_eq!(rows.len(), 2);
    /// let start = Init::Centroids(x.select(Axis(0), rows.as_slice().unwrap()));
    /// let a = Params::new(2).seed(3).n_init(1).init(start).check().unwrap().fit(&x).unwrap();
    /// let b = Params::new(2).seed(3).n_init(1).check().unwrap().fit(&x).unwrap();
    /// assert_eq!(a.labels, b.labels);
    /// ```
    pub fn plus_plus<'a, T: Scalar>(
        &self,
        data: impl Into<Dataset<'a, T>>,
    ) -> Result<Array1<usize>> {
        self.plus_plus_with(data, Control::default())
    }

    /// [`ValidParams::plus_plus`] under `control`: it stops with
    /// [`Error::Interrupted`] soon after the control's flag is set (polled
    /// between centres and within each pass over the data).
    ///
    /// ```
    /// use ndarray::array;
    /// use smartigan::{Control, Error, Params};
    /// use std::sync::atomic::AtomicBool;
    /// let x = array![[0.0f64], [0.1], [5.0], [5.1]];
    /// let set = AtomicBool::new(true);
    /// let p = Params::new(2).check().unwrap();
    /// let e = p.plus_plus_with(&x, Control::default().cancel(&set)).unwrap_err();
    /// assert_eq!(e, Error::Interrupted);
    /// ```
    pub fn plus_plus_with<'a, T: Scalar>(
        &self,
        data: impl Into<Dataset<'a, T>>,
        control: Control<'_>,
    ) -> Result<Array1<usize>> {
        let cancel = control.cancel_flag();
        let job = PlusPlus {
            params: self,
            cancel,
        };
        data.into()
            .with_source(self, self.k(), Setup::fit(cancel), job)
    }

    /// A fit advanced one step at a time ([`Run`]), its restarts' starts
    /// drawn: the state machine behind Python's `Clusterer.start/step/finish`.
    pub fn run<'a, T: Scalar>(&self, data: impl Into<Dataset<'a, T>>) -> Result<Run> {
        self.run_with(data, Control::default())
    }

    /// [`ValidParams::run`] under `control`: drawing the starts stops with
    /// [`Error::Interrupted`] soon after the control's flag is set (every
    /// restart checks it before its start; k-means++ of many restarts on
    /// large data can take a while).
    pub fn run_with<'a, T: Scalar>(
        &self,
        data: impl Into<Dataset<'a, T>>,
        control: Control<'_>,
    ) -> Result<Run> {
        Run::start(self, data.into(), control.cancel_flag())
    }
}

/// A multi-start fit on a representation of `data`.
struct Fit<'p, 'a, T> {
    params: &'p ValidParams,
    data: Dataset<'a, T>,
    cancel: &'p AtomicBool,
}

impl<T: Scalar> SourceJob<T> for Fit<'_, '_, T> {
    type Output = Clustering<T>;

    fn run<S: Source<Out = T>>(self, source: S, exponent: i32) -> Result<Clustering<T>> {
        // The rows are checked by now: the candidate descended on a sample
        // draws its rows from them.
        let pool = build_pool(self.params.n_threads())?;
        let seeded = seeded(self.params, self.data, &pool, self.cancel)?;
        let mut result = fit_source(&pool, &source, self.params, seeded, self.cancel)?;
        result.rescale_to_caller_units(exponent)?;
        Ok(result)
    }
}

/// A path over `k` on a representation.
struct PathJob<'p> {
    params: &'p ValidParams,
    k_max: usize,
    k_top: usize,
    keep: PathKeep,
    cancel: &'p AtomicBool,
    progress: &'p Progress,
}

impl<T: Scalar> SourceJob<T> for PathJob<'_> {
    type Output = Path<T>;

    fn run<S: Source<Out = T>>(self, source: S, exponent: i32) -> Result<Path<T>> {
        let pool = build_pool(self.params.n_threads())?;
        run_path(
            &pool,
            &source,
            self.params,
            (self.k_max, self.k_top),
            self.keep,
            (self.cancel, self.progress),
        )?
        .in_caller_units(exponent)
    }
}

/// The k-means++ rows of restart 0 on a representation.
struct PlusPlus<'p> {
    params: &'p ValidParams,
    cancel: &'p AtomicBool,
}

impl<T: Scalar> SourceJob<T> for PlusPlus<'_> {
    type Output = Array1<usize>;

    fn run<S: Source<Out = T>>(self, source: S, _exponent: i32) -> Result<Array1<usize>> {
        let pool = build_pool(self.params.n_threads())?;
        let mut rng = init_stream(self.params, 0);
        let (k, cancel) = (self.params.k(), self.cancel);
        let draw = Draw {
            among: None,
            k,
            rng: &mut rng,
            cancel,
        };
        let rows = pool.install(|| source.plus_plus_rows(draw));
        if self.cancel.load(Ordering::Relaxed) {
            return Err(Error::Interrupted);
        }
        Ok(Array1::from(rows))
    }
}
