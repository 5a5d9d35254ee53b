"""One parameter object and one result object across the boundary: the
names come from the core, ``cluster`` forwards every parameter of
``Clusterer``, and the core's result has exactly ``ClusterResult``'s fields."""

from __future__ import annotations

import dataclasses
import inspect
from typing import get_args

import numpy as np
import pytest

import smartigan
from smartigan import ClusterResult, Clusterer, _core, _params, cluster


def test_method_and_init_names_are_the_cores():
    assert _params.METHODS == _core.METHODS == ("lloyd", "hartigan", "smartigan")
    assert set(_params.INITS) == {"random-partition", "forgy", "k-means++"}
    # The Literal types that type checkers see spell out the same names.
    assert get_args(_params.Method) == _core.METHODS
    assert get_args(_params.InitName) == _core.INITS
    assert _core.DEFAULT_METHOD in _core.METHODS and _core.DEFAULT_INIT in _core.INITS


def test_cluster_takes_exactly_the_clusterers_parameters():
    wrapper = inspect.signature(cluster).parameters
    model = inspect.signature(Clusterer).parameters
    assert [n for n in wrapper if n not in ("X", "sample_weight")] == list(model)
    for name, p in model.items():
        assert (wrapper[name].default, wrapper[name].kind) == (p.default, p.kind), name
    assert smartigan._api.PARAMETERS == tuple(model)


def test_cluster_path_takes_every_parameter_of_cluster_but_k():
    path = inspect.signature(smartigan.cluster_path).parameters
    model = inspect.signature(Clusterer).parameters
    for name, p in model.items():
        if name != "k":
            assert (path[name].default, path[name].kind) == (p.default, inspect.Parameter.KEYWORD_ONLY), name


def test_every_parameter_reaches_the_core():
    X = np.random.default_rng(0).normal(size=(60, 2))
    settings = dict(k=3, method="hartigan", n_iter=7, seed=11, init="forgy", n_init=2, schedule=(1.2, 1.0),
                    polish=False, refine=False, n_threads=1, tol=0.0)
    one = cluster(X, **settings)
    assert (one.seed, one.restart_objectives.shape, one.refinements) == (11, (2,), 0)
    assert one.n_sweeps <= 7
    # The same settings through the core's parameter object give the same bits.
    direct = _core.fit(X, _params.core_params(**settings))
    assert direct.objective == one.objective
    np.testing.assert_array_equal(direct.labels, one.labels)


def test_core_params_rejects_unknown_settings():
    with pytest.raises(TypeError, match="unknown parameters: colour"):
        _params.core_params(k=2, colour="red")
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        _core.Params(2, colour="red")


def test_left_out_settings_are_the_cores_defaults():
    X = np.random.default_rng(1).normal(size=(80, 3))
    explicit = _params.core_params(k=4, seed=2, method=_core.DEFAULT_METHOD, init=_core.DEFAULT_INIT,
                                   schedule=_core.DEFAULT_SCHEDULE, polish=_core.DEFAULT_POLISH,
                                   refine=_core.DEFAULT_REFINE, tol="auto")
    implicit = _params.core_params(k=4, seed=2)
    a, b = _core.fit(X, explicit), _core.fit(X, implicit)
    assert a.objective == b.objective
    np.testing.assert_array_equal(a.labels, b.labels)


def test_the_core_result_has_the_fields_of_cluster_result():
    X = np.random.default_rng(2).normal(size=(40, 2)).astype(np.float32)
    raw = _core.fit(X, _params.core_params(k=2, seed=0))
    exposed = {name for name in dir(raw) if not name.startswith("_")}
    assert exposed == {f.name for f in dataclasses.fields(ClusterResult)}
    result = ClusterResult._from_core(raw)
    assert result.centroids.dtype == np.float32 and result.labels.dtype == np.int64
    assert result.cluster_sizes.dtype == np.int64 and result.moves.dtype == np.int64
    assert result.objective == raw.objective and result.seed == 0


def test_default_n_iter_is_the_cores_rule():
    assert _params.default_n_iter("smartigan") == _core.DEFAULT_N_ITER
    assert _params.default_n_iter("smartigan", 150, 4, 3) == _core.DEFAULT_N_ITER
    assert _params.default_n_iter("smartigan", 100_000, 32, 100) == _core.DEFAULT_N_ITER_LARGE == 5
    assert _params.default_n_iter("hartigan", 100_000, 32, 100) == _core.DEFAULT_MAX_ITER
    with pytest.raises(ValueError, match="n_samples"):
        _params.default_n_iter("smartigan", -1, 32, 100)
    assert _params.default_n_iter("lloyd") == _params.default_n_iter("hartigan") == _core.DEFAULT_MAX_ITER
    with pytest.raises(ValueError, match="invalid method: 'kmeans'"):
        _params.default_n_iter("kmeans")


def test_core_names_arrays_it_cannot_read():
    # The package converts every input first; calling _core directly with
    # the wrong arrays is a TypeError naming the argument, never a crash.
    X = np.zeros((3, 2))
    cases = [
        (lambda: _core.predict(X, np.zeros((2, 2), np.float32)), "x and centroids must have the same dtype"),
        (lambda: _core.transform(X, np.zeros(2)), "centroids must be a 2-d float32 or float64"),
        (lambda: _core.fit(X.astype(np.int64), _core.Params(1)), "x must be a 2-d float32 or float64"),
        (lambda: _core.fit(np.zeros(3), _core.Params(1)), "x must be a 2-d float32 or float64"),
    ]
    sparse = _core.CsrMatrix(2, np.array([0, 1, 1, 1], np.uintp), np.array([0], np.uintp), np.ones(1))
    cases += [
        (lambda: _core.fit(_core.CsrMatrix(2, np.array([0, 1], np.uintp), np.array([0], np.uintp),
                                           np.ones(1, int)), _core.Params(1)), "x.data must be a contiguous 1-d"),
    ]
    for call, message in cases:
        with pytest.raises(TypeError, match=message):
            call()
    # The same sparse matrix is read fine where sparse rows are supported.
    assert _core.predict(sparse, np.zeros((1, 2))).tolist() == [0, 0, 0]


def test_n_threads_reaches_the_core_unchanged():
    # How many threads actually run is the core's decision (it may use fewer
    # when there is less parallel work); Python neither caps nor raises it.
    for n in (1, 3, 1024):
        assert f"n_threads: Some({n})" in repr(_params.core_params(k=2, n_threads=n))
    assert "n_threads: None" in repr(_params.core_params(k=2))


# -- the parameter table (issue 56) ------------------------------------------------------

import ast  # noqa: E402
import re  # noqa: E402
from pathlib import Path  # noqa: E402

from smartigan import _api, _path  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def _front_ends():
    """Every front end with a signature: (callable, its declaration)."""
    out = [(cluster, _api.CLUSTER), (Clusterer, _api.CLUSTERER), (smartigan.kmeans_plusplus, _api.KMEANS_PLUSPLUS),
           (smartigan.cluster_path, _path.CLUSTER_PATH)]
    try:
        from smartigan import sklearn as sk

        out.append((sk.KMeans, sk.KMEANS))
    except ImportError:
        pass
    try:
        from smartigan.dask import _kmeans as dk

        out.append((dk.KMeans, dk.KMEANS))
    except ImportError:
        pass
    return out


# Where a front end's parameter shares a table name but not every field,
# and why. Anything else that shares a name is the table's entry itself.
VARIANTS = {
    ("smartigan.sklearn.KMeans", "n_clusters"): {"type", "check"},  # also "auto": a path chooses k
    ("smartigan.sklearn.KMeans", "method"): {"type", "default", "check"},  # None: from `algorithm`
    ("smartigan.sklearn.KMeans", "init"): {"type", "check"},  # also scikit-learn's "random" and a callable
    ("smartigan.dask.KMeans", "n_clusters"): {"type", "check"},  # also "auto": a path on the coreset chooses k
    ("smartigan.dask.KMeans", "tol"): {"type", "default", "summary", "details", "check"},  # the polish's
}


@pytest.mark.parametrize("front, declared", _front_ends(), ids=lambda v: getattr(v, "name", ""))
def test_every_signature_is_its_declaration_and_the_table(front, declared):
    signature = inspect.signature(front).parameters
    assert tuple(signature) == declared.names
    for name, p in signature.items():
        assert p.default == declared[name].default, (declared.name, name)
    for p in declared.parameters:
        if p.name not in _params.PARAMETERS:
            continue
        table = _params.PARAMETERS[p.name]
        differs = {f for f in ("type", "default", "summary", "details") if getattr(p, f) != getattr(table, f)}
        differs |= {"check"} if p.check is not table.check else set()
        assert differs == VARIANTS.get((declared.name, p.name), set()), (declared.name, p.name)


def parameter_entries(doc: str):
    """The entries of a numpydoc Parameters section: name -> (heading, text with whitespace collapsed)."""
    lines = doc.expandtabs().split("\n")
    start = next(i for i, line in enumerate(lines) if line.strip() == "Parameters") + 2
    indent = len(lines[start]) - len(lines[start].lstrip())
    entries, name = {}, None
    for i in range(start, len(lines)):
        line = lines[i]
        if i + 1 < len(lines) and set(lines[i + 1].strip()) == {"-"} and line.strip():
            break  # the next section
        stripped = line.strip()
        if not stripped:
            continue
        if len(line) - len(line.lstrip()) == indent:
            name = stripped.split(" : ")[0]
            entries[name] = [stripped, []]
        else:
            entries[name][1].append(stripped)
    return {n: (heading, " ".join(body)) for n, (heading, body) in entries.items()}


def drift(front, declared):
    """Where ``front``'s docstring says of a parameter other than the table does."""
    found = parameter_entries(front.__doc__)
    wrong = [] if list(found) == list(declared.names) else [f"documents {list(found)}"]
    for name in declared.names:
        want = parameter_entries("Parameters\n----------\n" + declared.entry(name))[name]
        if found.get(name) != want:
            wrong.append(f"{name}: {found.get(name)} instead of {want}")
    return wrong


@pytest.mark.parametrize("front, declared", _front_ends(), ids=lambda v: getattr(v, "name", ""))
def test_every_docstring_documents_its_parameters_as_the_table_does(front, declared):
    assert drift(front, declared) == []


def test_a_docstring_that_drifts_from_the_table_fails():
    # The check above can fail: an n_init entry written by hand, with the
    # rule n_init="auto" once had, differs from the table's.
    def fit(X, k, n_init="auto"):
        """Fit.

        Parameters
        ----------
        X : array-like or SciPy sparse matrix of shape (n_samples, n_features)
            whatever
        k : int
            Number of clusters.
        n_init : int, "auto" or "best", default="auto"
            Restarts. ``"auto"``: 20 while ``n_samples * n_features * k`` is at
            most 2**20, else 4.
        """

    declared = _params.front_end("fit", "X", "k", "n_init")
    wrong = drift(fit, declared)
    assert [w.split(":")[0] for w in wrong] == ["X", "k", "n_init"]
    assert "else 4" in wrong[2]
    assert drift(declared.document(_with_placeholder(fit)), declared) == []


def _with_placeholder(f):
    f.__doc__ = "Fit.\n\n    Parameters\n    ----------\n    {parameters}\n\n    Returns\n    -------\n    None\n"
    return f


def test_the_table_states_the_cores_rules():
    # n_init: by work and the best-effort search, with the budgets' functions
    # (the rule "20 while ... else 4" is gone from the core).
    n_init = _params.PARAMETERS["n_init"].doc
    assert "auto_budget" in n_init and "best_budget" in n_init and "else 4" not in n_init
    assert _params.best_budget(100_000, 32, 100) == 100 * _params.auto_budget(100_000, 32, 100)
    assert _params.best_budget(150, 4, 3) == 100 * _params.auto_budget(150, 4, 3)
    # The numbers in the table's text are the core's.
    n_iter = _params.PARAMETERS["n_iter"].doc
    for value in (_core.DEFAULT_N_ITER, _core.DEFAULT_N_ITER_LARGE, _core.DEFAULT_MAX_ITER):
        assert re.search(rf"\b{value}\b", n_iter)
    assert f"else {_core.AUTO_TOL_LARGE}" in _params.PARAMETERS["tol"].doc
    assert "2**20" in n_iter and _core.AUTO_SMALL_PROBLEM == 2**20


def _docs_parameter_rows():
    """The first table of docs/parameters.md: cluster's name -> (estimator's name, option, default cell)."""
    rows = {}
    for line in (ROOT / "docs" / "parameters.md").read_text().split("\n"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0].startswith("`") and not cells[0].startswith("`smartigan"):
            rows[cells[0].strip("`")] = (cells[1], cells[2], cells[3])
        elif rows and not line.startswith("|"):
            break
    return rows


def test_docs_parameters_table_agrees_with_the_table():
    rows = _docs_parameter_rows()
    assert set(rows) == set(_api.CLUSTER.names) - {"X"}
    for name, (estimator, option, default) in rows.items():
        if name == "k":
            assert default == "(required; 8 in `KMeans`)" and _params.PARAMETERS["n_clusters"].default == 8
            continue
        if default == "all cores":
            assert _params.PARAMETERS[name].default is None
            continue
        assert ast.literal_eval(default.strip("`")) == _params.PARAMETERS[name].default, name
    # The estimator's names are the table's.
    assert rows["k"][0] == "`n_clusters`" and rows["n_iter"][0] == "`max_iter`" and rows["seed"][0] == "`random_state`"


def test_the_command_line_checks_through_the_table(capsys):
    from smartigan.cli.parser import build_parser

    parser = build_parser()
    args = parser.parse_args(["fit", "d.csv", "-k", "3"])
    for option, name in (("method", "method"), ("init", "init"), ("n_iter", "n_iter"), ("n_init", "n_init"),
                         ("tol", "tol"), ("seed", "seed"), ("threads", "n_threads"), ("refine", "refine")):
        assert getattr(args, option) == _params.PARAMETERS[name].default, option
    best = parser.parse_args(["fit", "d.csv", "-k", "3", "--n-init", "best", "--tol", "0", "--seed", str(2**64 - 1)])
    assert (best.n_init, best.tol, best.seed) == ("best", 0.0, 2**64 - 1)
    assert parser.parse_args(["fit", "d.csv", "-k", "3", "--n-init", "fast"]).n_init == "fast"
    for argv, message in ((["--seed", "-1"], "invalid seed: -1 (must be in [0, 2**64) or None)"),
                          (["--seed", str(2**64)], "invalid seed: 18446744073709551616"),
                          (["--n-init", "0"], "invalid n_init: 0 (must be at least 1)"),
                          (["--n-init", "many"], "expected an integer or 'auto' or 'best' or 'fast', got 'many'"),
                          (["--tol", "nan"], "invalid tol: nan"),
                          (["--threads", "0"], "invalid n_threads: 0 (must be at least 1)"),
                          (["--n-iter", "1.5"], "expected an integer, got '1.5'")):
        with pytest.raises(SystemExit):
            parser.parse_args(["fit", "d.csv", "-k", "3", *argv])
        assert message in capsys.readouterr().err, argv


def test_one_seed_check_for_every_front_end():
    X = np.random.default_rng(3).normal(size=(20, 2))
    calls = {
        "cluster": lambda s: cluster(X, 2, seed=s),
        "Clusterer": lambda s: Clusterer(2, seed=s).fit(X),
        "kmeans_plusplus": lambda s: smartigan.kmeans_plusplus(X, 2, seed=s),
        "cluster_path": lambda s: smartigan.cluster_path(X, range(2, 4), seed=s, criteria=None),
    }
    for name, call in calls.items():
        with pytest.raises(TypeError, match=r"seed must be an integer in \[0, 2\*\*64\) or None, got True \(bool\)"):
            call(True)
        for bad in (-1, 2**64):
            with pytest.raises(ValueError, match=rf"invalid seed: {bad} \(must be in \[0, 2\*\*64\) or None\)"):
                call(bad)
        assert call(2**64 - 1) is not None, name


def test_one_integer_check_names_the_parameter():
    X = np.random.default_rng(4).normal(size=(20, 2))
    with pytest.raises(ValueError, match=r"invalid gap_references: 0 \(must be at least 1\)"):
        smartigan.cluster_path(X, range(2, 4), gap_references=0)
    with pytest.raises(TypeError, match=r"silhouette_sample must be an integer, got True \(bool\)"):
        smartigan.cluster_path(X, range(2, 4), silhouette_sample=True)
    with pytest.raises(TypeError, match=r"k must be an integer, got 2.0 \(float\)"):
        cluster(X, 2.0)


def test_weights_of_another_kind_are_refused_alike():
    X = np.random.default_rng(5).normal(size=(20, 2))
    for call in (lambda w: cluster(X, 2, sample_weight=w), lambda w: smartigan.kmeans_plusplus(X, 2, sample_weight=w),
                 lambda w: smartigan.cluster_path(X, range(2, 4), sample_weight=w, criteria=None)):
        with pytest.raises(TypeError, match="sample_weight must be real numbers, got dtype bool"):
            call(np.ones(20, dtype=bool))
        with pytest.raises(TypeError, match="sample_weight could not be converted to a numeric array"):
            call([1.0, [2.0]])


def test_the_package_imports_without_docstrings():
    # python -OO strips the docstrings that the table writes into.
    import subprocess
    import sys

    code = "import smartigan, smartigan.cli, smartigan.sklearn; print(smartigan.cluster([[0.0], [1.0]], 2, seed=0).objective)"
    out = subprocess.run([sys.executable, "-OO", "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "0.0"


def test_docs_choosing_k_table_agrees_with_cluster_path_and_the_estimators():
    from smartigan import _path
    from smartigan.cli.parser import build_parser

    text = (ROOT / "docs" / "parameters.md").read_text()
    section = text.split("## Choosing k\n", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.split("\n"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0].startswith("`") and cells[0] != "`cluster_path`":
            rows[cells[0].strip("`")] = cells[1:4]
    own = [p.name for p in _path.CLUSTER_PATH.parameters
           if p.name not in _params.PARAMETERS and p.name not in ("X", "keep", "progress")]
    assert set(rows) == set(own)
    for name, (estimators, option, default) in rows.items():
        # The cell is the default's repr, written with double quotes.
        assert default.strip("`").replace('"', "'") == repr(_path.CLUSTER_PATH[name].default), name
    # The estimators' k_range and criterion, with their defaults, and the command line's options.
    assert rows["ks"][0] == f"`k_range` (default `{_path.K_RANGE.default}`)"
    assert rows["criteria"][0] == f'`criterion` (one, default `"{_path.CRITERION.default}"`)'
    choose = build_parser()._subparsers._group_actions[0].choices["choose-k"]
    options = {o for action in choose._actions for o in action.option_strings}
    for name, (_, option, _) in rows.items():
        if option != "—":
            assert option.strip("`") in options, name
