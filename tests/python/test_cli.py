"""The smartigan command line: reading data, fit, compare, demo, exit codes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import smartigan
from smartigan import _criteria, cli
from smartigan.cli import CliError, main, read_table
from smartigan.datasets import load_iris

IRIS, _ = load_iris()
NAMES = ["sepal length", "sepal width", "petal length", "petal width"]


def run_cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """The command in a subprocess, stdout and stderr captured (so: piped, no terminal)."""
    return subprocess.run([sys.executable, "-m", "smartigan", *args], capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture
def iris_csv(tmp_path: Path) -> Path:
    path = tmp_path / "iris.csv"
    with path.open("w") as f:
        f.write(",".join(NAMES) + ",species\n")
        for row, s in zip(IRIS, load_iris()[1]):
            f.write(",".join(repr(float(v)) for v in row) + f",{'abc'[s]}\n")
    return path


@pytest.fixture
def iris_npy(tmp_path: Path) -> Path:
    path = tmp_path / "iris.npy"
    np.save(path, IRIS)
    return path


# -- reading ------------------------------------------------------------------


def test_csv_header_is_detected(tmp_path):
    p = tmp_path / "a.csv"
    p.write_text("x,y\n1,2\n3,4.5\n")
    t = read_table(str(p))
    assert t.names == ["x", "y"]
    assert t.data.tolist() == [[1.0, 2.0], [3.0, 4.5]]
    p.write_text("1,2\n3,4.5\n")
    t = read_table(str(p))
    assert t.names is None
    assert t.data.tolist() == [[1.0, 2.0], [3.0, 4.5]]


@pytest.mark.parametrize("text", [
    "a;b\n1;2\n3;4\n",
    "a\tb\n1\t2\n3\t4\n",
    "a b\n1 2\n3   4\n",
    "a|b\n1|2\n3|4\n",
    '"a","b"\n1,2\n3,4\n',
    "# comment\na,b\n\n1,2\n# another\n3,4\n",
])
def test_csv_delimiters_quotes_comments(tmp_path, text):
    p = tmp_path / "d.txt"
    p.write_text(text)
    t = read_table(str(p))
    assert t.names == ["a", "b"]
    assert t.data.tolist() == [[1.0, 2.0], [3.0, 4.0]]


def test_csv_rows_ending_with_a_delimiter_the_header_lacks(tmp_path):
    # Issue 68: read as one column, "column 0 ('a,b,c') is not a number: '1,2,3,'".
    p = tmp_path / "t.csv"
    rows = "".join(f"{i},{i + 0.5},{-i}, \n" for i in range(30))  # more rows than the delimiter is sniffed from
    p.write_text("a,b,c\n" + rows)
    for delimiter in (None, ","):
        t = read_table(str(p), delimiter=delimiter)
        assert t.names == ["a", "b", "c"]
        assert t.data.tolist() == [[i, i + 0.5, -i] for i in range(30)]
    p.write_text('a;b\n1;"2";\n3;4;\n')
    assert read_table(str(p)).data.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert read_table(str(p), columns="b").data.tolist() == [[2.0], [4.0]]
    # Every data row must end so once the first does.
    p.write_text("a,b,c\n1,2,3,\n4,5,6\n")
    with pytest.raises(CliError, match=r"line 3 \(data row 1\), column 3: the row ends after 3 fields, where the "
                                       r"data rows before have the header's 3 fields and a delimiter after them"):
        read_table(str(p))
    p.write_text("a,b,c\n1,2,3,\n4,5,6,7\n")
    with pytest.raises(CliError, match=r"line 3 \(data row 1\), column 3 is '7', a field beyond the header's 3"):
        read_table(str(p), delimiter=",")


def test_csv_header_override_and_columns(tmp_path, iris_csv):
    p = tmp_path / "n.csv"
    p.write_text("1,2\n3,4\n")
    t = read_table(str(p), header=True)
    assert t.names == ["1", "2"] and t.data.tolist() == [[3.0, 4.0]]
    t = read_table(str(iris_csv), columns="petal width,0")
    assert t.names == ["petal width", "sepal length"]
    np.testing.assert_array_equal(t.data, IRIS[:, [3, 0]])
    with pytest.raises(CliError, match="no column named 'petal'.*columns are: sepal length"):
        read_table(str(iris_csv), columns="petal")
    with pytest.raises(CliError, match="index 9 is out of range; the data has 5 columns"):
        read_table(str(iris_csv), columns="9")


def test_pandas_index_column_is_left_out(tmp_path, capsys):
    pd = pytest.importorskip("pandas")
    p = tmp_path / "df.csv"
    pd.DataFrame({"a": [0.0, 0.1, 5.0, 5.1], "b": [1.0, 1.0, 2.0, 2.0]}, index=[10, 20, 30, 40]).to_csv(p)
    t = read_table(str(p))
    assert t.names == ["a", "b"]
    assert t.data.tolist() == [[0.0, 1.0], [0.1, 1.0], [5.0, 2.0], [5.1, 2.0]]
    assert "pandas index" in t.notes[0]
    assert read_table(str(p), columns="0,a").data[:, 0].tolist() == [10, 20, 30, 40]
    assert main(["fit", str(p), "-k", "2", "--seed", "0"]) == 0
    out = capsys.readouterr()
    assert "smartigan fit: note: the first column has no name" in out.err
    assert "4 points, 2 features (a, b)" in out.out


def test_csv_errors_point_at_the_cell(tmp_path, iris_csv):
    with pytest.raises(CliError, match=r"line 2 \(data row 0\), column 4 \('species'\) is not a number: 'a'.*--columns"):
        read_table(str(iris_csv))
    p = tmp_path / "bad.csv"
    p.write_text("x,y\n1,2\n3\n")
    with pytest.raises(CliError, match="line 3 \\(data row 1\\), column 1 \\('y'\\): the row ends after 1 fields, but the first row has 2"):
        read_table(str(p))
    p.write_text("x,y\n1,2\n3,\n")
    with pytest.raises(CliError, match="line 3 \\(data row 1\\), column 1 \\('y'\\) is empty"):
        read_table(str(p))
    p.write_text("x,y\n1,2\n\n3,nan\n")
    with pytest.raises(CliError, match="line 4 \\(data row 1\\), column 1 \\('y'\\) is nan; k-means needs finite numbers"):
        read_table(str(p))
    p.write_text("")
    with pytest.raises(CliError, match="is empty"):
        read_table(str(p))
    p.write_text("x,y\n")
    with pytest.raises(CliError, match="no data rows"):
        read_table(str(p))
    with pytest.raises(CliError, match="no such file"):
        read_table(str(tmp_path / "missing.csv"))
    with pytest.raises(CliError, match="is a directory"):
        read_table(str(tmp_path))
    p.write_bytes(b"\xff\xfe\x00\x01garbage")
    with pytest.raises(CliError, match="not a text CSV"):
        read_table(str(p))


def test_npy(tmp_path):
    p = tmp_path / "v.npy"
    np.save(p, np.arange(4, dtype=np.int32))
    assert read_table(str(p)).data.tolist() == [[0.0], [1.0], [2.0], [3.0]]
    np.save(p, np.zeros((2, 2, 2)))
    with pytest.raises(CliError, match="3-d array"):
        read_table(str(p))
    np.save(p, np.array(["a", "b"]))
    with pytest.raises(CliError, match="expected real numbers"):
        read_table(str(p))
    np.save(p, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(CliError, match="not a plain numeric .npy"):
        read_table(str(p))
    np.save(p, np.array([[1.0, np.inf]]))
    with pytest.raises(CliError, match="row 0, column 1 is inf"):
        read_table(str(p))
    np.save(p, np.eye(3))
    assert cli.read_matrix(str(p)).tolist() == np.eye(3).tolist()


def _npy_with_header(path: Path, header: dict, payload: bytes, version=(1, 0)) -> Path:
    """A .npy file with ``header`` (as NumPy writes it) followed by ``payload``."""
    with path.open("wb") as f:
        if version == (1, 0):
            np.lib.format.write_array_header_1_0(f, header)
        else:
            np.lib.format.write_array_header_2_0(f, header)
        f.write(payload)
    return path


def test_npy_header_claiming_a_huge_shape_is_exit_2_not_a_traceback(tmp_path):
    # 900 bytes whose header claims 200,000 x 100,000 float64 values (160 GB)
    path = tmp_path / "huge.npy"
    header = {"descr": "<f8", "fortran_order": False, "shape": (200_000, 100_000)}
    _npy_with_header(path, header, b"\0" * 900)
    path.write_bytes(path.read_bytes()[:900])
    out = run_cli("fit", str(path), "-k", "2")
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr
    assert "smartigan fit: error:" in out.stderr
    assert "(200000, 100000)" in out.stderr and "truncated or corrupt" in out.stderr


def test_npy_files_that_lie_are_refused_before_reading(tmp_path, capsys):
    good = np.arange(12.0).reshape(4, 3)
    p = tmp_path / "x.npy"
    np.save(p, good)
    raw = p.read_bytes()
    f8 = {"descr": "<f8", "fortran_order": False, "shape": (4, 3)}
    cases = {
        "truncated": (raw[:-8], "holds 88 bytes after the header; the file is truncated or corrupt"),
        "trailing data": (raw + b"\0" * 8, "96 bytes, but the file holds 104 bytes"),
        "wrong magic": (b"\x93NUMPX" + raw[6:], "not a plain numeric .npy file"),
        "too short for a magic": (raw[:5], "not a plain numeric .npy file"),
        "header not a dict": (raw[:10] + b"[1, 2, 3]".ljust(len(raw) - 10 - 96 - 1) + b"\n" + raw[-96:],
                              "not a plain numeric .npy file"),
        "unknown version": (raw[:6] + b"\x07\x00" + raw[8:], "version 7.0 is not read"),
    }
    for name, (content, fragment) in cases.items():
        p.write_bytes(content)
        with pytest.raises(CliError, match=re.escape(fragment)):
            read_table(str(p))
        assert main(["fit", str(p), "-k", "2"]) == 2, name
        assert fragment in capsys.readouterr().err, name
    headers = {
        "fortran order not a flag": (dict(f8, fortran_order="yes"), "not a plain numeric .npy file"),
        "negative shape": (dict(f8, shape=(-4, 3)), "negative size"),
        "object dtype": (dict(f8, descr="|O"), "Python objects, which are never unpickled"),
    }
    for name, (header, fragment) in headers.items():
        _npy_with_header(p, header, raw[-96:])
        with pytest.raises(CliError, match=re.escape(fragment)):
            read_table(str(p))
    # honest files read as before: Fortran order, big-endian, version 2.0, 1-d
    for header, payload, version in [
        (dict(f8, fortran_order=True), np.asfortranarray(good).tobytes(order="F"), (1, 0)),
        (dict(f8, descr=">f8"), good.astype(">f8").tobytes(), (1, 0)),
        (f8, good.tobytes(), (2, 0)),
    ]:
        _npy_with_header(p, header, payload, version)
        assert read_table(str(p)).data.tolist() == good.tolist()
    _npy_with_header(p, {"descr": "<i4", "fortran_order": False, "shape": (0, 3)}, b"")
    with pytest.raises(CliError, match=re.escape("holds no data (shape (0, 3))")):
        read_table(str(p))


def test_csv_with_a_byte_order_mark(tmp_path, capsys):
    p = tmp_path / "bom.csv"
    p.write_bytes("\ufeffa,b\n0,1\n0.5,1\n10,11\n10.5,11\n".encode("utf-8"))
    t = read_table(str(p))
    assert t.names == ["a", "b"]
    assert t.data.tolist() == [[0.0, 1.0], [0.5, 1.0], [10.0, 11.0], [10.5, 11.0]]
    out = tmp_path / "res"
    assert main(["fit", str(p), "-k", "2", "--seed", "0", "--columns", "a", "--out", str(out)]) == 0
    capsys.readouterr()
    assert (tmp_path / "res.centroids.csv").read_bytes().startswith(b"a\n")
    p.write_bytes("\ufeff1,2\n3,4\n".encode("utf-8"))  # no header: the mark is not part of the number
    assert read_table(str(p)).data.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    p.write_bytes("\ufeffa,b\n1,x\n".encode("utf-8"))  # and lines are still counted right
    with pytest.raises(CliError, match=re.escape("line 2 (data row 0), column 1 ('b') is not a number: 'x'")):
        read_table(str(p))


def test_parquet_roundtrip_or_clear_error(tmp_path, monkeypatch, iris_npy):
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        p = tmp_path / "x.parquet"
        p.write_bytes(b"PAR1")
        with pytest.raises(CliError, match="Parquet needs pyarrow.*pip install pyarrow"):
            read_table(str(p))
        assert main(["fit", str(iris_npy), "-k", "3", "--out", str(tmp_path / "o"), "--format", "parquet"]) == 2
        return
    import pyarrow as pa
    import pyarrow.parquet as pq

    p = tmp_path / "x.parquet"
    pq.write_table(pa.table({"a": IRIS[:, 0], "b": IRIS[:, 1].astype(np.float32), "s": ["x"] * 150}), p)
    t = read_table(str(p), columns="a,b")
    assert t.names == ["a", "b"]
    np.testing.assert_allclose(t.data, IRIS[:, :2], rtol=1e-6)
    with pytest.raises(CliError, match="column 's' has type string"):
        read_table(str(p))
    prefix = tmp_path / "out"
    assert main(["fit", str(p), "-k", "3", "--columns", "a,b", "--seed", "1", "--out", str(prefix),
                 "--format", "parquet"]) == 0
    assert pq.read_table(f"{prefix}.centroids.parquet").column_names == ["a", "b"]
    labels = pq.read_table(f"{prefix}.labels.parquet").column("label").to_numpy()
    assert labels.shape == (150,)
    truncated = tmp_path / "truncated.parquet"
    truncated.write_bytes(p.read_bytes()[:-40])
    with pytest.raises(CliError, match=f"{re.escape(str(truncated))} could not be read as Parquet"):
        read_table(str(truncated))


def test_parquet_without_pyarrow_is_exit_2(tmp_path, monkeypatch, iris_npy, capsys):
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    p = tmp_path / "x.parquet"
    p.write_bytes(b"PAR1")
    assert main(["fit", str(p), "-k", "2"]) == 2
    assert "Parquet needs pyarrow, which is not installed: pip install pyarrow" in capsys.readouterr().err
    assert main(["fit", str(iris_npy), "-k", "2", "--out", str(tmp_path / "o"), "--format", "parquet"]) == 2
    assert not list(tmp_path.glob("o.*"))


# -- fit -------------------------------------------------------------------------


def test_fit_summary_matches_the_library(iris_csv, capsys):
    code = main(["fit", str(iris_csv), "-k", "3", "--seed", "5", "--columns", "0,1,2,3"])
    out = capsys.readouterr()
    assert code == 0
    r = smartigan.cluster(IRIS, 3, seed=5)
    lines = dict(line.split(None, 1) for line in out.out.splitlines())
    assert float(lines["objective"]) == pytest.approx(r.objective, rel=1e-9)
    assert lines["sweeps"].startswith(f"{r.n_sweeps} (converged)")
    assert lines["sizes"].split() == [str(s) for s in np.bincount(r.labels)]
    assert "150 points, 4 features (sepal length, sepal width, petal length, petal width)" in lines["data"]
    assert "seed 5" in lines["method"]
    assert lines["time"].endswith("s")
    assert out.err == ""


def test_fit_options_reach_the_library(iris_npy, capsys):
    args = ["fit", str(iris_npy), "-k", "4", "--method", "hartigan", "--init", "random-partition",
            "--n-iter", "7", "--n-init", "3", "--seed", "11", "--threads", "1", "--json"]
    assert main(args) == 0
    s = json.loads(capsys.readouterr().out)
    r = smartigan.cluster(IRIS, 4, "hartigan", 7, 11, init="random-partition", n_init=3)
    assert s["objective"] == r.objective
    assert s["sweeps"] == r.n_sweeps
    assert s["restart_objectives"] == r.restart_objectives.tolist()
    assert (s["method"], s["init"], s["n_init"], s["n_iter"], s["seed"]) == ("hartigan", "random-partition", 3, 7, 11)
    assert sum(s["sizes"]) == 150 and len(s["sizes"]) == 4


@pytest.mark.parametrize("fmt", ["csv", "npy"])
def test_fit_writes_labels_and_centroids(tmp_path, iris_csv, fmt, capsys):
    prefix = tmp_path / "res"
    assert main(["fit", str(iris_csv), "-k", "3", "--seed", "2", "--columns", "0,1,2,3",
                 "--out", str(prefix), "--format", fmt]) == 0
    r = smartigan.cluster(IRIS, 3, seed=2)
    if fmt == "npy":
        labels = np.load(f"{prefix}.labels.npy")
        centroids = np.load(f"{prefix}.centroids.npy")
    else:
        labels_t = read_table(f"{prefix}.labels.csv")
        assert labels_t.names == ["label"]
        labels = labels_t.data[:, 0].astype(np.int64)
        cent_t = read_table(f"{prefix}.centroids.csv")
        assert cent_t.names == NAMES
        centroids = cent_t.data
    np.testing.assert_array_equal(labels, r.labels)
    np.testing.assert_array_equal(centroids, r.centroids)  # %.17g round-trips exactly
    assert f"wrote       {prefix}.labels.{fmt}" in capsys.readouterr().out


@pytest.mark.parametrize("existing", [True, False])
def test_out_naming_a_directory_writes_into_it(tmp_path, iris_npy, existing, capsys):
    folder = tmp_path / "adir"
    if existing:
        folder.mkdir()
        out = str(folder)  # an existing directory, with or without a separator
    else:
        out = str(folder) + os.sep
        assert main(["fit", str(iris_npy), "-k", "3", "--out", out]) == 2  # refused before the fit
        assert f"--out: directory {str(folder)!r} does not exist" in capsys.readouterr().err
        folder.mkdir()
    assert main(["fit", str(iris_npy), "-k", "3", "--seed", "2", "--out", out]) == 0
    assert f"wrote       {folder / 'labels.csv'}" in capsys.readouterr().out
    assert sorted(p.name for p in folder.iterdir()) == ["centroids.csv", "labels.csv"]
    r = smartigan.cluster(IRIS, 3, seed=2)
    np.testing.assert_array_equal(read_table(str(folder / "labels.csv")).data[:, 0], r.labels)
    # a prefix that is not a directory is a prefix, as before
    assert main(["fit", str(iris_npy), "-k", "3", "--seed", "2", "--out", str(folder / "run")]) == 0
    assert (folder / "run.labels.csv").exists() and (folder / "run.centroids.csv").exists()


def test_exit_codes_and_messages(tmp_path, iris_npy, capsys):
    assert main(["fit", str(iris_npy), "-k", "151"]) == 2
    assert "-k 151 is larger than the number of points (150)" in capsys.readouterr().err
    assert main(["fit", str(tmp_path / "nope.csv"), "-k", "2"]) == 2
    assert "smartigan fit: error: no such file" in capsys.readouterr().err
    assert main(["fit", str(iris_npy), "-k", "2", "--out", str(tmp_path / "no" / "dir" / "x")]) == 2
    assert "--out: directory" in capsys.readouterr().err
    assert main(["fit", str(iris_npy), "-k", "2", "--n-iter", "200000"]) == 2
    assert "n_iter" in capsys.readouterr().err
    for bad in (["fit", str(iris_npy)], ["fit", str(iris_npy), "-k", "0"], ["fit", str(iris_npy), "-k", "x"],
                ["fit", str(iris_npy), "-k", "2", "--method", "elkan"], ["fit", str(iris_npy), "-k", "2", "--seed", "-1"],
                ["frobnicate"], []):
        with pytest.raises(SystemExit) as exc:
            main(bad)
        assert exc.value.code == 2, bad
        capsys.readouterr()


def test_plot_without_matplotlib_fails_before_fitting(tmp_path, iris_npy, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert main(["fit", str(iris_npy), "-k", "2", "--plot", str(tmp_path / "p.png"), "--out", str(tmp_path / "o")]) == 2
    assert "--plot needs matplotlib" in capsys.readouterr().err
    assert not list(tmp_path.glob("o.*")), "nothing should be written when a precondition fails"


def test_unknown_plot_format_fails_before_fitting(tmp_path, iris_npy, capsys):
    pytest.importorskip("matplotlib")
    assert main(["fit", str(iris_npy), "-k", "2", "--plot", str(tmp_path / "p.xyz"), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "unknown picture format 'xyz'" in err and ".png" in err
    assert not list(tmp_path.glob("o.*"))


class _SecondPerReading:
    """A clock for the progress bar that advances a second at every reading,
    so that the bar draws every update however fast the fit runs (it redraws
    at most ten times a second)."""

    now = 0.0

    @classmethod
    def perf_counter(cls) -> float:
        cls.now += 1.0
        return cls.now


def test_progress_bar_of_a_schedule_its_first_sweep_lengthens(tmp_path, capsys, monkeypatch):
    # Uniform noise in 8 dimensions, k = 20: a larger problem whose first
    # sweep moves about 70 % of the points, so its schedule runs 20 sweeps,
    # past the bar's 5: those are labelled as schedule sweeps too.
    from smartigan import _params
    from smartigan.cli import progress

    monkeypatch.setattr(progress, "time", _SecondPerReading)
    path = tmp_path / "noise.npy"
    np.save(path, np.random.default_rng(2).random((20_000, 8)))
    assert main(["fit", str(path), "-k", "20", "--seed", "0", "--progress", "always", "--json"]) == 0
    out = capsys.readouterr()
    assert f"sweep 1/{_params.DEFAULT_N_ITER_LARGE}" in out.err
    assert "schedule, polishing or refining" in out.err
    assert json.loads(out.out)["sweeps"] > _params.DEFAULT_N_ITER


def test_progress_bar(iris_npy, capsys):
    assert main(["fit", str(iris_npy), "-k", "5", "--seed", "3", "--progress", "always", "--json"]) == 0
    out = capsys.readouterr()
    stepped = json.loads(out.out)
    from smartigan import _params

    assert f"sweep 1/{_params.DEFAULT_N_ITER}" in out.err and "restarts by work (n_init='auto')" in out.err
    assert "\r" in out.err
    assert main(["fit", str(iris_npy), "-k", "5", "--seed", "3", "--progress", "never", "--json"]) == 0
    out2 = capsys.readouterr()
    assert out2.err == ""
    plain = json.loads(out2.out)
    # driving the fit sweep by sweep must not change the result
    for key in ("objective", "sweeps", "restart_objectives", "sizes", "seed"):
        assert stepped[key] == plain[key], key
    # auto: capsys is not a terminal, so nothing is drawn
    assert main(["fit", str(iris_npy), "-k", "5", "--seed", "3"]) == 0
    assert capsys.readouterr().err == ""


def test_progress_auto_waits_for_long_runs():
    class FakeTTY:
        def __init__(self):
            self.text = ""

        def isatty(self):
            return True

        def write(self, s):
            self.text += s

        def flush(self):
            pass

    tty = FakeTTY()
    bar = cli.Progress("lloyd", 10, 2, stream=tty, mode="auto", delay=3600)
    bar.update(1, 1.0)
    assert tty.text == "", "a quick run must stay silent"
    bar = cli.Progress("lloyd", 10, 2, stream=tty, mode="auto", delay=0.0)
    bar.update(12, 1.0)
    bar.close()
    assert "sweep 12, polishing" in tty.text and tty.text.endswith("\r")
    tty.text = ""
    bar = cli.Progress("smartigan", 10, 2, stream=tty, mode="always", beyond="polishing or refining")
    bar.update(15, 1.0)
    assert "sweep 15, polishing or refining" in tty.text


def test_piped_subprocess_is_quiet_and_correct(iris_npy):
    res = run_cli("fit", str(iris_npy), "-k", "3", "--seed", "0", "--json")
    assert res.returncode == 0, res.stderr
    assert res.stderr == ""
    assert json.loads(res.stdout)["objective"] == smartigan.cluster(IRIS, 3, seed=0).objective
    bad = run_cli("fit", str(iris_npy), "-k", "500")
    assert bad.returncode == 2
    assert bad.stderr.startswith("smartigan fit: error:") and "Traceback" not in bad.stderr
    usage = run_cli("fit", str(iris_npy))
    assert usage.returncode == 2 and "-k" in usage.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX pipes")
def test_closed_output_pipe_is_exit_141_not_a_bug(iris_npy):
    # `smartigan fit ... | head` after head has gone: the pipe's read end is
    # closed before the command starts; unbuffered, its first line fails.
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        res = subprocess.run([sys.executable, "-u", "-m", "smartigan", "fit", str(iris_npy), "-k", "3", "--seed", "0"],
                             stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(write_end)
    assert res.returncode == 141 == cli.EXIT_BROKEN_PIPE
    assert res.stderr == ""


# -- compare ---------------------------------------------------------------------


def test_compare_uses_paired_starts(iris_npy, capsys):
    assert main(["compare", str(iris_npy), "-k", "5", "--seed", "8", "--init", "random-partition",
                 "--n-init", "20", "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert [row["method"] for row in s["methods"]] == ["lloyd", "hartigan", "smartigan"]
    for row in s["methods"]:
        r = smartigan.cluster(IRIS, 5, row["method"], seed=8, init="random-partition", n_init=20)
        assert row["objective"] == r.objective
        assert row["mean"] == pytest.approx(r.restart_objectives.mean())
    for pair in s["paired"]:
        assert pair["better"] + pair["tied"] + pair["worse"] == 20
    # same seed => the same initial partition for every method (paired starts)
    starts = {m: smartigan.cluster(IRIS, 5, m, n_iter=1, seed=8, init="random-partition", n_init=1).initial_objective
              for m in ("lloyd", "hartigan", "smartigan")}
    assert len(set(starts.values())) == 1
    assert s["methods"][0]["vs"] == 0.0


def test_compare_table_and_seed(iris_npy, capsys):
    assert main(["compare", str(iris_npy), "-k", "3", "--methods", "hartigan,smartigan", "--n-init", "4"]) == 0
    out = capsys.readouterr().out
    assert "vs hartigan" in out and "lloyd" not in out
    seed = int(out.split("(seed ")[1].split(")")[0])
    assert "smartigan vs hartigan: better in" in out
    # the printed seed repeats the comparison
    assert main(["compare", str(iris_npy), "-k", "3", "--methods", "hartigan,smartigan", "--n-init", "4",
                 "--seed", str(seed)]) == 0
    again = capsys.readouterr().out
    def strip_times(text):
        return [ln.rsplit(None, 1)[0] if ln.endswith("s") and "%" in ln else ln for ln in text.splitlines()]

    assert strip_times(again) == strip_times(out)
    assert main(["compare", str(iris_npy), "-k", "3", "--methods", "lloyd,elkan"]) == 2
    assert "unknown method 'elkan'" in capsys.readouterr().err


def test_compare_under_size_bounds_skips_lloyd_unless_asked_for(iris_npy, capsys):
    # Issue 68: --balanced alone failed on lloyd, a method the user never named.
    assert main(["compare", str(iris_npy), "-k", "3", "--seed", "0", "--balanced", "--json"]) == 0
    captured = capsys.readouterr()
    assert [row["method"] for row in json.loads(captured.out)["methods"]] == ["hartigan", "smartigan"]
    assert captured.err == ("smartigan compare: note: size bounds (--balanced) need hartigan or smartigan; "
                            "lloyd skipped\n")
    # Asked for by name, lloyd is an error that says how to choose.
    assert main(["compare", str(iris_npy), "-k", "3", "--size-min", "40", "--methods", "lloyd,smartigan"]) == 2
    err = capsys.readouterr().err
    assert "--methods lloyd,smartigan: compare was asked for lloyd under size bounds (--size-min 40)" in err
    assert "--methods hartigan,smartigan" in err
    # Bounds that bind nothing (a maximum of n - k + 1 = 148 rows) keep every method.
    assert main(["compare", str(iris_npy), "-k", "3", "--seed", "0", "--size-max", "148", "--json"]) == 0
    captured = capsys.readouterr()
    assert [row["method"] for row in json.loads(captured.out)["methods"]] == ["lloyd", "hartigan", "smartigan"]
    assert captured.err == ""
    assert main(["compare", str(iris_npy), "-k", "3", "--seed", "0", "--size-max", "147", "--json"]) == 0
    assert "lloyd skipped" in capsys.readouterr().err


# -- plots -----------------------------------------------------------------------


def _check_png(path: Path) -> None:
    import matplotlib.image

    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    img = matplotlib.image.imread(str(path))
    assert img.ndim == 3 and img.shape[0] > 300 and img.shape[1] > 600
    assert float(img[..., :3].std()) > 0.05, "the picture is blank"


def test_fit_and_compare_plot(tmp_path, iris_csv, capsys):
    pytest.importorskip("matplotlib")
    png = tmp_path / "fit.png"
    assert main(["fit", str(iris_csv), "-k", "3", "--columns", "0,1,2,3", "--seed", "0", "--plot", str(png)]) == 0
    assert f"wrote       {png}" in capsys.readouterr().out
    _check_png(png)
    png2 = tmp_path / "cmp.png"
    assert main(["compare", str(iris_csv), "-k", "4", "--columns", "0,3", "--seed", "0", "--plot", str(png2)]) == 0
    _check_png(png2)


# -- demo and entry points ------------------------------------------------------------


def test_demo_in_process(capsys):
    assert main(["demo", "--runs", "20", "-k", "3", "4"]) == 0
    out = capsys.readouterr().out
    rows = [ln for ln in out.splitlines() if ln.strip()[:2] in ("3 ", "4 ")]
    assert [r.split()[0] for r in rows] == ["3", "4"]
    ours_and_paper = [(float(a), float(b)) for a, b in re.findall(r"([\d.]+) \[\s*([\d.]+)\]", rows[0])]
    assert [p for _, p in ours_and_paper] == [96.88, 78.85, 79.23]
    (lloyd, _), (hartigan, _), _ = ours_and_paper
    assert hartigan < lloyd


def test_default_demo_is_fast_and_works():
    # `smartigan demo` is the README's first command: it must work and stay quick.
    res = run_cli("demo", timeout=120)
    assert res.returncode == 0, res.stderr
    assert "Fisher's Iris" in res.stdout
    total = float(res.stdout.split("total ")[1].split("s.")[0])
    assert total < 30, f"the default demo took {total}s"


def test_console_script_and_version():
    exe = Path(sys.executable).with_name("smartigan")
    if not exe.exists():
        pytest.skip("the smartigan console script is not installed next to this interpreter")
    res = subprocess.run([str(exe), "--version"], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0
    assert res.stdout.strip() == f"smartigan {smartigan.__version__}"
    res = subprocess.run([str(exe), "--help"], capture_output=True, text=True, timeout=60)
    assert "compare" in res.stdout and "Exit status" in res.stdout


# -- choose-k -------------------------------------------------------------------


def test_choose_k_summary_matches_the_library(iris_npy, capsys):
    criteria = ("elbow", "calinski_harabasz", "gap")
    argv = ["choose-k", str(iris_npy), "--k", "2:6", "--seed", "1", "--criteria", ",".join(criteria),
            "--gap-references", "3"]
    assert main(argv + ["--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    path = smartigan.cluster_path(IRIS, range(2, 7), seed=1, criteria=criteria, gap_references=3)
    assert got["ks"] == [2, 3, 4, 5, 6] and got["objectives"] == path.objectives.tolist()
    assert got["suggested"] == path.suggested and got["seed"] == 1
    for name in criteria:
        assert got["criteria"][name] == [None if np.isnan(v) else v for v in path.criteria[name].tolist()], name
    assert got["gap_standard_errors"] == path.gap_standard_errors.tolist()
    assert main(argv) == 0
    out = capsys.readouterr().out
    shown = ", ".join(f"{name} {path.suggested[name] or '-'}" for name in criteria)
    assert f"suggested   {shown}" in out
    # The suggested k's row carries a star in the criterion's column.
    row = next(line for line in out.splitlines() if line.split()[:1] == [str(path.suggested["calinski_harabasz"])])
    assert "*" in row


def test_choose_k_writes_criteria_labels_and_plot(tmp_path, iris_csv, capsys):
    pytest.importorskip("matplotlib")
    out, picture = tmp_path / "run", tmp_path / "k.png"
    assert main(["choose-k", str(iris_csv), "--columns", "0,1,2,3", "-k", "2:5", "--seed", "0", "--criteria",
                 "silhouette", "--out", str(out), "--plot", str(picture)]) == 0
    printed = capsys.readouterr().out
    path = smartigan.cluster_path(IRIS, range(2, 6), seed=0, criteria=("silhouette",))
    table = (tmp_path / "run.criteria.csv").read_text().splitlines()
    assert table[0] == "k,objective,silhouette"
    np.testing.assert_array_equal(np.loadtxt(table[1:], delimiter=","),
                                  np.column_stack([path.ks, path.objectives, path.criteria["silhouette"]]))
    labels = (tmp_path / "run.labels.csv").read_text().splitlines()
    assert labels[0] == "k=2,k=3,k=4,k=5"
    np.testing.assert_array_equal(np.loadtxt(labels[1:], delimiter=",", dtype=np.int64),
                                  np.column_stack([path.result(k).labels for k in range(2, 6)]))
    assert picture.read_bytes()[:4] == b"\x89PNG"
    assert f"wrote       {picture}" in printed


def test_choose_k_errors_are_exit_2(tmp_path, iris_npy, capsys):
    for bad in (["--k", "5:2"], ["--k", "0:3"], ["--k", "3,2"], ["--k", "2:8:0"], ["--k", "2:"], ["--k", "0,4"],
                ["--criteria", "aic"], ["--gap-sample", "0"]):
        with pytest.raises(SystemExit) as exit_info:
            main(["choose-k", str(iris_npy), *bad])
        assert exit_info.value.code == 2, bad
    assert "expected KMIN:KMAX" in capsys.readouterr().err
    assert main(["choose-k", str(iris_npy), "--k", "2:500"]) == 2
    assert "-k 500 is larger than the number of points (150)" in capsys.readouterr().err
    assert main(["choose-k", str(iris_npy), "--k", "2:4", "--out", str(tmp_path / "no" / "x")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_choose_k_progress_bar_changes_nothing(iris_npy, capsys):
    argv = ["choose-k", str(iris_npy), "--k", "2:8", "--seed", "2", "--criteria", "gap", "--gap-references", "2",
            "--json"]
    assert main(argv + ["--progress", "always"]) == 0
    shown = capsys.readouterr()
    assert "choose-k [" in shown.err and "\r" in shown.err
    assert main(argv + ["--progress", "never"]) == 0
    quiet = capsys.readouterr()
    assert quiet.err == ""
    for key in ("objectives", "criteria", "suggested"):
        assert json.loads(shown.out)[key] == json.loads(quiet.out)[key], key


def test_choose_k_progress_status_names_the_path_and_k():
    status = cli.commands._path_status(2, 5, n_refs=2)
    data = 4 + 3 * 3  # growing k = 2..5, then three refining passes over 3 k
    total = data + 2 * 4  # then a unit per k of each reference path
    assert status(0, total) == "data: k=2/5"
    assert status(2, total) == "data: k=4/5"
    assert status(5, total) == "data: refining"
    assert status(data + 1, total) == "gap reference 1/2: k=3/5"
    assert status(total, total) == "gap reference 2/2: k=5/5"


def test_choose_k_takes_a_grid_of_k(iris_npy, capsys):
    for text, ks in (("2:10:4", [2, 6, 10]), ("3,5,9", [3, 5, 9]), ("4", [4])):
        assert main(["choose-k", str(iris_npy), "--k", text, "--seed", "1", "--json"]) == 0
        got = json.loads(capsys.readouterr().out)
        path = smartigan.cluster_path(IRIS, ks, seed=1)
        assert got["ks"] == ks and got["objectives"] == path.objectives.tolist(), text
        assert got["suggested"] == path.suggested and list(got["criteria"]) == list(_criteria.DEFAULT_CRITERIA)
    assert main(["choose-k", str(iris_npy), "--k", "3,5,9", "--seed", "1"]) == 0
    assert "path        k = 3, 5, 9," in capsys.readouterr().out


# -- whole inputs read once, every row and column kept (issue 58) ------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from smartigan.cli import writers  # noqa: E402

# Wider than any sample a reader might take of a line (the old reader read 64 KiB).
WIDE = 8000


def _bits(a: np.ndarray) -> np.ndarray:
    """float64 values as their bit patterns: equal arrays hold the same numbers, -0.0 included."""
    return np.ascontiguousarray(a, dtype=np.float64).view(np.int64)


def read_through_fifo(tmp_path: Path, content: bytes, **options):
    """``read_table`` on a named pipe fed by a thread: a stream that can be read once only.

    A reader that opened it twice would wait for a second writer for ever;
    after 60 s the pipe is released and the test fails.
    """
    import threading

    fifo = tmp_path / f"pipe{len(list(tmp_path.iterdir()))}.csv"
    os.mkfifo(fifo)

    def feed() -> None:
        try:
            with open(fifo, "wb") as f:
                f.write(content)
        except BrokenPipeError:  # the reader stopped early (an error it reports)
            pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    outcome: dict = {}

    def read() -> None:
        try:
            outcome["table"] = read_table(str(fifo), **options)
        except BaseException as exc:  # reported below
            outcome["error"] = exc

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(60)
    if reader.is_alive():
        # Let a reader blocked in a second open() go: give it a writer that closes at once.
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(10)
        pytest.fail("the reader opened the pipe a second time and waited for another writer")
    writer.join(10)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["table"]


def test_csv_wider_than_a_sample_keeps_every_column(tmp_path, capsys):
    rng = np.random.default_rng(0)
    values = rng.normal(size=(6, WIDE))
    p = tmp_path / "w.csv"
    np.savetxt(p, values, delimiter=",", fmt="%.17g")
    assert len(p.read_text().splitlines()[0]) > 2**17  # far beyond 64 KiB
    np.testing.assert_array_equal(read_table(str(p)).data, values)
    assert main(["fit", str(p), "-k", "2", "--seed", "0"]) == 0
    assert f"6 points, {WIDE} features" in capsys.readouterr().out
    # A header of 20,000 names, and two rows of 100,000 columns without one.
    names = [f"feature{i}" for i in range(20_000)]
    header_values = rng.normal(size=(3, 20_000))
    p.write_text(",".join(names) + "\n" + "\n".join(",".join(map(repr, row)) for row in header_values.tolist()) + "\n")
    t = read_table(str(p))
    assert t.names == names
    np.testing.assert_array_equal(t.data, header_values)
    two_rows = rng.normal(size=(2, 100_000))
    np.savetxt(p, two_rows, delimiter=",", fmt="%.17g")
    t = read_table(str(p))
    assert t.names is None and t.data.shape == (2, 100_000)
    np.testing.assert_array_equal(t.data, two_rows)
    if sys.platform != "win32":  # the same through a pipe
        t = read_through_fifo(tmp_path, p.read_bytes())
        np.testing.assert_array_equal(t.data, two_rows)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX pipes")
def test_piped_csv_keeps_every_row(tmp_path):
    rng = np.random.default_rng(1)
    values = rng.normal(size=(10_000, 3))
    p = tmp_path / "a.csv"
    np.savetxt(p, values, delimiter=",", fmt="%.17g")
    content = p.read_bytes()
    for source in ("/dev/stdin", "-"):
        res = subprocess.run([sys.executable, "-m", "smartigan", "fit", source, "-k", "2", "--seed", "0", "--json"],
                             input=content, capture_output=True, timeout=120)
        assert res.returncode == 0, res.stderr
        summary = json.loads(res.stdout)
        assert (summary["n_samples"], summary["n_features"]) == (10_000, 3), source
        assert summary["objective"] == smartigan.cluster(values, 2, seed=0).objective
    # The same through a named pipe, read in-process; with a header, and
    # lines that straddle every buffer boundary.
    text = "x,y,z\n" + "".join(f"{a!r},{b!r},{c!r}\n" for a, b, c in values.tolist())
    t = read_through_fifo(tmp_path, text.encode())
    assert t.names == ["x", "y", "z"]
    np.testing.assert_array_equal(_bits(t.data), _bits(values))


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX pipes")
def test_piped_npy_and_parquet(tmp_path):
    values = np.random.default_rng(2).normal(size=(50, 4))
    buffer = tmp_path / "v.npy"
    np.save(buffer, values)
    t = read_through_fifo(tmp_path, buffer.read_bytes(), fmt="npy")
    np.testing.assert_array_equal(t.data, values)
    # A header that claims more data than the stream holds is refused without allocating it.
    raw = buffer.read_bytes()
    with pytest.raises(CliError, match="truncated or corrupt"):
        read_through_fifo(tmp_path, raw[:-8], fmt="npy")
    res = subprocess.run([sys.executable, "-m", "smartigan", "fit", "-", "-k", "3", "--seed", "0", "--json",
                          "--input-format", "npy"], input=raw, capture_output=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["n_samples"] == 50
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"a": values[:, 0], "b": values[:, 1]}), tmp_path / "v.parquet")
    t = read_through_fifo(tmp_path, (tmp_path / "v.parquet").read_bytes(), fmt="parquet")
    assert t.names == ["a", "b"]
    np.testing.assert_array_equal(t.data, values[:, :2])


def test_csv_quoting_follows_rfc_4180(tmp_path):
    p = tmp_path / "q.csv"
    p.write_text('"a""b","c,d"\n1,2\n3,4\n')
    t = read_table(str(p))
    assert t.names == ['a"b', "c,d"]
    assert t.data.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    # Line breaks inside quotes, CRLF line ends, quoted numbers.
    p.write_bytes(b'"first\r\nname",second\r\n"1.5",2\r\n3,"-4e-3"\r\n')
    t = read_table(str(p))
    assert t.names == ["first\r\nname", "second"]
    assert t.data.tolist() == [[1.5, 2.0], [3.0, -4e-3]]
    # A comment line is one only between rows, not inside a quoted field.
    p.write_text('x,"y\n# not a comment"\n# a comment, with a "quote\n1,2\n')
    t = read_table(str(p))
    assert t.names == ["x", "y\n# not a comment"] and t.data.tolist() == [[1.0, 2.0]]
    assert read_table(str(p), columns="y\n# not a comment").data.tolist() == [[2.0]]
    # One column: its name is never split, whatever it holds.
    for header in ("petal length", "a,b", "a;b|c", '"x, ""y"""'):
        p.write_text(f"{header}\n1\n2\n3\n")
        t = read_table(str(p))
        assert t.data.tolist() == [[1.0], [2.0], [3.0]], header
        assert t.names == [header if not header.startswith('"') else 'x, "y"'], header


def test_csv_errors_name_the_file_row_and_column(tmp_path):
    p = tmp_path / "bad.csv"
    name = re.escape(str(p))
    cases = [
        ("x,y,z\n1,2,3\n4,5\n", rf"{name}: line 3 \(data row 1\), column 2 \('z'\): the row ends after 2 fields, "
                                r"but the first row has 3"),
        ("x,y\n1,2\n3,4,5\n", rf"{name}: line 3 \(data row 1\), column 2: a field beyond the 2 of the first row"),
        ("x,y\n1,2\n3,0x10\n", rf"{name}: line 3 \(data row 1\), column 1 \('y'\) is not a number: '0x10'"),
        ('x,y\n1,2\n"3"4,5\n', rf"{name}: line 3 \(data row 1\), column 0: malformed quoting"),
        ('x,y\n1,2\n3,"4\n5,6\n', rf"{name}: line 3 \(data row 1\), column 1: a quoted field is not closed"),
        ('"x"y,z\n1,2\n', rf"{name}: line 1 \(the header\), column 0: malformed quoting"),
        ("x,y\n1,2\n\n3,nan\n", rf"{name}: line 4 \(data row 1\), column 1 \('y'\) is nan; k-means needs finite"),
    ]
    for text, message in cases:
        p.write_text(text)
        with pytest.raises(CliError, match=message):
            read_table(str(p))
    # One rule for what a number is (Python's float()): whatever it reads is read.
    p.write_text("x,y\n1_000,2\n3, 4 \n")
    assert read_table(str(p)).data.tolist() == [[1000.0, 2.0], [3.0, 4.0]]


def test_ambiguous_and_repeated_column_names(tmp_path, capsys):
    p = tmp_path / "dup.csv"
    p.write_text("a,a,b\n1,10,100\n2,20,200\n3,30,300\n")
    t = read_table(str(p))
    assert t.names == ["a", "a", "b"] and t.data.shape == (3, 3)
    with pytest.raises(CliError, match=r"--columns: 'a' names columns 0 and 1"):
        read_table(str(p), columns="a")
    assert main(["fit", str(p), "--columns", "a", "-k", "1"]) == 2
    assert "--columns: 'a' names columns 0 and 1; use 0-based indices" in capsys.readouterr().err


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_out_keeps_every_centroid_column(tmp_path, fmt, capsys):
    if fmt == "parquet":
        pytest.importorskip("pyarrow")
    p = tmp_path / "dup.csv"
    p.write_text("a,a,b,a.1\n1,10,100,7\n2,20,200,8\n3,30,300,9\n")
    prefix = tmp_path / "run"
    assert main(["fit", str(p), "-k", "1", "--out", str(prefix), "--format", fmt]) == 0
    assert "written as a, a.2, b, a.1" in capsys.readouterr().err
    written = read_table(f"{prefix}.centroids.{fmt}")
    assert written.names == ["a", "a.2", "b", "a.1"]
    np.testing.assert_array_equal(written.data, [[2.0, 20.0, 200.0, 8.0]])
    # The same column chosen twice is two features, and two columns out.
    assert main(["fit", str(p), "-k", "1", "--columns", "b,b,0", "--out", str(prefix), "--format", fmt]) == 0
    written = read_table(f"{prefix}.centroids.{fmt}")
    assert written.names == ["b", "b.1", "a"]
    np.testing.assert_array_equal(written.data, [[200.0, 200.0, 2.0]])


def _names(draw) -> list:
    """Header names: letters first (so that the row reads as a header), then
    anything a CSV field may hold, delimiters, quotes and line breaks included."""
    inner = st.text(alphabet=st.sampled_from(list("ab Z09_.,;|\t\"#'\n\r") + ["\u00e9", "\u4e2d"]), max_size=6)
    first = st.sampled_from(list("abcXYZ\u00e9"))
    return draw(st.builds(lambda f, rest: (f + rest).rstrip(), first, inner))


@st.composite
def csv_files(draw):
    """A table, how it is written (delimiter, quoting, line ends, comments,
    blank lines) and how it is read (file or pipe)."""
    wide = draw(st.booleans())
    n_cols = draw(st.integers(WIDE // 2, WIDE)) if wide else draw(st.integers(1, 6))
    n_rows = draw(st.integers(1, 3 if wide else 12))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    values = rng.normal(size=(n_rows, n_cols)) * 10.0 ** rng.integers(-300, 300, size=(n_rows, n_cols))
    values[rng.random(size=values.shape) < 0.05] = -0.0
    if wide:
        names = [f"c{i}" for i in range(n_cols)]
        names[draw(st.integers(0, n_cols - 1))] = "c0"  # a repeated name
    else:
        names = [_names(draw) for _ in range(n_cols)]
        if n_cols > 1 and draw(st.booleans()):
            names[-1] = names[0]
    delimiter = draw(st.sampled_from([",", ";", "\t", "|"]))
    quote_all = draw(st.booleans())
    newline = draw(st.sampled_from(["\n", "\r\n"]))

    def field(text: str) -> str:
        if quote_all or any(c in text for c in (delimiter, '"', "\n", "\r")) or text.startswith("#"):
            return '"' + text.replace('"', '""') + '"'
        return text

    lines = [delimiter.join(field(n) for n in names)]
    for row in values.tolist():
        if draw(st.integers(0, 9)) == 0:
            lines.append(draw(st.sampled_from(["", "# a comment, \"with a quote", "   "])))
        lines.append(delimiter.join(field(repr(v)) for v in row))
    text = newline.join(lines) + (newline if draw(st.booleans()) else "")
    return text.encode(), names, values, draw(st.sampled_from(["file", "pipe"]))


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX pipes")
@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])
@given(csv_files())
def test_csv_round_trips_rows_and_columns_exactly(tmp_path_factory, case):
    content, names, values, source = case
    folder = tmp_path_factory.mktemp("csv")
    if source == "pipe":
        t = read_through_fifo(folder, content)
    else:
        (folder / "t.csv").write_bytes(content)
        t = read_table(str(folder / "t.csv"))
    assert t.names == names
    assert t.data.shape == values.shape
    np.testing.assert_array_equal(_bits(t.data), _bits(values))
    # Written back, every column survives, repeated names told apart.
    out = folder / "back.csv"
    written = writers.write_table(str(out), "csv", list(zip(names, values.T)))
    assert written == writers.unique_names(names) and len(set(written)) == len(names)
    back = read_table(str(out))
    assert back.names == written
    np.testing.assert_array_equal(_bits(back.data), _bits(values))


def _strict_json(text: str):
    """``json.loads`` that refuses NaN and infinities, as strict parsers do."""
    def refuse(constant: str) -> None:
        raise ValueError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


def test_json_output_is_strict(tmp_path, capsys):
    # Three distinct points, each twice: at k = 3 the objective is 0, the
    # Calinski-Harabasz ratio infinite, and at k = n the gap's spread undefined.
    p = tmp_path / "dups.npy"
    np.save(p, np.repeat([[0.0, 0.0], [1.0, 0.0], [0.0, 5.0]], 2, axis=0))
    assert main(["choose-k", str(p), "--k", "1:6", "--seed", "0", "--criteria", ",".join(_criteria.CRITERIA),
                 "--gap-references", "3", "--json"]) == 0
    summary = _strict_json(capsys.readouterr().out)
    path = smartigan.cluster_path(np.load(p), range(1, 7), seed=0, criteria=_criteria.CRITERIA, gap_references=3)
    assert not np.isfinite(path.criteria["calinski_harabasz"]).all()
    for name, values in path.criteria.items():
        assert summary["criteria"][name] == [float(v) if np.isfinite(v) else None for v in values], name
    assert summary["gap_standard_errors"] == [float(v) if np.isfinite(v) else None
                                              for v in path.gap_standard_errors]
    assert None in summary["gap_standard_errors"] or None in summary["criteria"]["calinski_harabasz"]
    for command in (["fit", str(p), "-k", "3"], ["compare", str(p), "-k", "3"]):
        assert main(command + ["--seed", "0", "--json"]) == 0
        _strict_json(capsys.readouterr().out)


def test_a_plot_path_that_is_a_directory_fails_before_the_fit(tmp_path, iris_npy, capsys, monkeypatch):
    pytest.importorskip("matplotlib")
    fits = []
    monkeypatch.setattr(cli.commands, "fit_once", lambda *a: fits.append(a))
    folder = tmp_path / "picture.png"
    folder.mkdir()
    assert main(["fit", str(iris_npy), "-k", "2", "--plot", str(folder)]) == 2
    assert f"--plot: {folder} is a directory" in capsys.readouterr().err
    out = tmp_path / "run"
    (tmp_path / "run.centroids.csv").mkdir()
    assert main(["fit", str(iris_npy), "-k", "2", "--out", str(out)]) == 2
    assert f"--out: {out}.centroids.csv is a directory" in capsys.readouterr().err
    (tmp_path / "run.criteria.csv").mkdir()
    assert main(["choose-k", str(iris_npy), "--k", "2:3", "--out", str(out)]) == 2
    assert f"--out: {out}.criteria.csv is a directory" in capsys.readouterr().err
    assert fits == [] and not (tmp_path / "run.labels.csv").exists()


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root writes anywhere")
def test_an_unwritable_directory_fails_before_the_fit(tmp_path, iris_npy, capsys, monkeypatch):
    fits = []
    monkeypatch.setattr(cli.commands, "fit_once", lambda *a: fits.append(a))
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        assert main(["fit", str(iris_npy), "-k", "2", "--out", str(locked / "run")]) == 2
        assert f"--out: cannot write {locked / 'run'}.labels.csv" in capsys.readouterr().err
    finally:
        locked.chmod(0o700)
    assert fits == []


# A driver that runs the command with a limit on the size of files written
# (as a full disk would refuse them), and says when the fit starts.
_LIMITED = """
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # writes past the limit fail with EFBIG instead
resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit}))
from smartigan.cli import commands, main
real_fit = commands.fit_once
def announced(*args):
    print("FIT STARTS", file=sys.stderr, flush=True)
    return real_fit(*args)
commands.fit_once = announced
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX resource limits")
def test_a_full_disk_fails_before_the_fit_or_names_the_file(tmp_path, iris_npy):
    def limited(limit: int, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", _LIMITED.format(limit=limit), *args], capture_output=True,
                              text=True, timeout=120)

    out = tmp_path / "run"
    # Nothing can be written: found before the fit.
    res = limited(0, "fit", str(iris_npy), "-k", "3", "--out", str(out))
    assert res.returncode == 2, res.stderr
    assert f"--out: cannot write {out}.labels.csv: File too large" in res.stderr
    assert "FIT STARTS" not in res.stderr and not list(tmp_path.glob("run.*"))
    # A byte can be written, a whole file cannot: the failed file is named and removed.
    res = limited(256, "fit", str(iris_npy), "-k", "3", "--out", str(out))
    assert res.returncode == 2, res.stderr
    assert "FIT STARTS" in res.stderr
    assert f"--out: could not write {out}.labels.csv: File too large" in res.stderr
    assert not (tmp_path / "run.labels.csv").exists()


def test_degenerate_data_prints_no_numpy_warnings(tmp_path):
    """Every point alike, and each of three points four times: answers and
    '-' where a criterion is undefined, never a RuntimeWarning on stderr."""
    for name, X in {"same.npy": np.ones((10, 3)),
                    "dups.npy": np.repeat([[0.0, 0.0], [1.0, 1.0], [0.0, 4.0]], 4, axis=0)}.items():
        p = tmp_path / name
        np.save(p, X)
        res = run_cli("choose-k", str(p), "--k", "1:10", "--seed", "0", "--criteria", ",".join(_criteria.CRITERIA),
                      "--gap-references", "3")
        assert res.returncode == 0, res.stderr
        assert res.stderr == "", res.stderr
        res = run_cli("fit", str(p), "-k", str(len(X)), "--seed", "0", "--json")
        assert res.returncode == 0 and res.stderr == "", res.stderr
