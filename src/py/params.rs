//! `_core.Params`: the one parameter object that crosses the boundary, a
//! thin wrapper around the core's [`Params`].
//!
//! Python builds it once per fit (`smartigan._params.core_params`, after
//! checking the Python types), with the names of `smartigan.cluster`;
//! settings left out keep the core's defaults. Names are parsed and counts
//! must fit `usize` here; the core checks the ranges when it runs
//! ([`Params::check`]), together with what depends on the data.

use crate::{
    error::Error,
    params::{Init, NInit, Params, SizeBound},
};
use numpy::PyReadonlyArray2;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::PyDict;

/// Unchecked parameters, handed to `fit`, `kmeans_plusplus` and `Run`.
#[pyclass(module = "smartigan._core", name = "Params", frozen)]
pub(super) struct PyParams {
    inner: Params,
}

impl PyParams {
    /// The core's parameters (a copy: every fit consumes its own).
    pub(super) fn core(&self) -> Params {
        self.inner.clone()
    }
}

#[pymethods]
impl PyParams {
    /// `Params(k, **settings)`, `settings` among `method`, `n_iter`, `seed`,
    /// `init` (a name or a float64 array of centroids), `metric`, `n_init`
    /// (a count, `"auto"`, `"best"` or `"fast"`), `schedule`, `polish`, `refine`,
    /// `n_threads`, `tol`, `size_min` and `size_max` (a count, a list of `k`
    /// counts or `"balanced"`); `None` for `n_iter`, `seed`, `n_init`,
    /// `n_threads` or `tol` leaves the choice to the core, for `size_min` or
    /// `size_max` sets no bound.
    #[new]
    #[pyo3(signature = (k, **settings))]
    fn new(k: i64, settings: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let mut settings = Settings::copy(settings)?;
        let mut p = Params::new(count("k", k, "must be at least 1")?);
        // This order (k, init, method, then the counts) decides which of
        // several bad values is reported.
        if let Some(init) = settings.take::<InitArg<'_>>("init")? {
            p.init = match init {
                InitArg::Name(name) => Init::from_name(&name)?,
                InitArg::Centroids(c) => Init::Centroids(c.as_array().to_owned()),
            };
        }
        if let Some(method) = settings.take::<PyBackedStr>("method")? {
            p.method = method.parse()?;
        }
        if let Some(metric) = settings.take::<PyBackedStr>("metric")? {
            p.metric = metric.parse()?;
        }
        if let Some(schedule) = settings.take("schedule")? {
            p.schedule = schedule;
        }
        if let Some(polish) = settings.take("polish")? {
            p.polish = polish;
        }
        if let Some(refine) = settings.take("refine")? {
            p.refine = refine;
        }
        p.tol = settings.take::<Option<f64>>("tol")?.flatten();
        p.seed = settings.take::<Option<u64>>("seed")?.flatten();
        p.n_iter = settings.count(
            "n_iter",
            &format!(
                "must be between 1 and {}, or None",
                crate::params::MAX_N_ITER
            ),
        )?;
        if let Some(n_init) = settings.take::<Option<NInitArg>>("n_init")?.flatten() {
            p.n_init = match n_init {
                NInitArg::Count(v) => NInit::Count(count(
                    "n_init",
                    v,
                    &format!("must be between 1 and {}", crate::params::MAX_N_INIT),
                )?),
                NInitArg::Name(name) => name.parse()?,
            };
        }
        p.n_threads = settings.count("n_threads", "must be at least 1, or None for all cores")?;
        p.size_min = settings.size_bound("size_min")?;
        p.size_max = settings.size_bound("size_max")?;
        settings.finish()?;
        Ok(PyParams { inner: p })
    }

    fn __repr__(&self) -> String {
        format!("{:?}", self.inner)
    }

    /// Whether the size bounds bind for `n` rows: whether some clustering
    /// the unconstrained engine may return breaks them (the core's rule;
    /// `False` without bounds, and for bounds that no clustering of `n`
    /// rows meets, which a fit refuses).
    fn bounds_bind(&self, n: usize) -> PyResult<bool> {
        Ok(self.inner.clone().check()?.size_bounds(n).is_some())
    }
}

/// A count as the core takes it; a negative one fails here, naming it.
pub(super) fn count(name: &'static str, v: i64, expected: &str) -> crate::error::Result<usize> {
    usize::try_from(v).map_err(|_| Error::invalid(name, v, expected))
}

/// `n_init`: a number of restarts, or a name (`"auto"`, `"best"`, `"fast"`).
#[derive(FromPyObject)]
enum NInitArg {
    Count(i64),
    Name(PyBackedStr),
}

/// `size_min`, `size_max`: one count for every cluster, one per cluster,
/// or a name (`"balanced"`).
#[derive(FromPyObject)]
enum SizeArg {
    Count(i64),
    PerCluster(Vec<i64>),
    Name(PyBackedStr),
}

/// `init`: a name, or the centroids every restart starts from.
#[derive(FromPyObject)]
enum InitArg<'py> {
    Name(PyBackedStr),
    Centroids(PyReadonlyArray2<'py, f64>),
}

/// The keyword settings of one `Params(...)` call, taken by name; a name
/// left over at the end is not a setting.
struct Settings<'py>(Option<Bound<'py, PyDict>>);

impl<'py> Settings<'py> {
    fn copy(settings: Option<&Bound<'py, PyDict>>) -> PyResult<Self> {
        Ok(Settings(settings.map(|d| d.copy()).transpose()?))
    }

    /// The setting `name` if given, converted to `V`.
    fn take<V>(&mut self, name: &str) -> PyResult<Option<V>>
    where
        V: for<'a> FromPyObject<'a, 'py>,
        for<'a> <V as FromPyObject<'a, 'py>>::Error: Into<PyErr>,
    {
        let Some(dict) = &self.0 else {
            return Ok(None);
        };
        let Some(value) = dict.get_item(name)? else {
            return Ok(None);
        };
        dict.del_item(name)?;
        value.extract().map(Some).map_err(Into::into)
    }

    /// The optional count `name` (`None`: the core chooses).
    fn count(&mut self, name: &'static str, expected: &str) -> PyResult<Option<usize>> {
        let value = self.take::<Option<i64>>(name)?.flatten();
        Ok(value.map(|v| count(name, v, expected)).transpose()?)
    }

    /// The size bound `name` (`None`: no bound).
    fn size_bound(&mut self, name: &'static str) -> PyResult<Option<SizeBound>> {
        let expected = "must be a count >= 0, a list of k counts or 'balanced'";
        let Some(arg) = self.take::<Option<SizeArg>>(name)?.flatten() else {
            return Ok(None);
        };
        Ok(Some(match arg {
            SizeArg::Count(v) => SizeBound::Each(count(name, v, expected)?),
            SizeArg::PerCluster(v) => SizeBound::PerCluster(
                v.into_iter()
                    .map(|b| count(name, b, expected))
                    .collect::<crate::error::Result<_>>()?,
            ),
            SizeArg::Name(s) if &*s == "balanced" => SizeBound::Balanced,
            SizeArg::Name(s) => return Err(Error::invalid(name, format!("'{s}'"), expected).into()),
        }))
    }

    fn finish(self) -> PyResult<()> {
        match self.0.and_then(|dict| dict.keys().iter().next()) {
            Some(name) => Err(PyTypeError::new_err(format!(
                "Params() got an unexpected keyword argument '{name}'"
            ))),
            None => Ok(()),
        }
    }
}
