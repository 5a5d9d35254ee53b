#!/usr/bin/env bash
# Tests the release artefacts that scripts/build-wheels.sh left in target/wheels/:
#   1. the abi3 wheel, installed from PyPI's packages into a fresh virtualenv of
#      every CPython from 3.9 to 3.13 found on this machine (one not found is
#      reported as skipped), with scikit-learn wherever PyPI has a wheel of it for
#      that Python; scripts/wheel_smoke.py runs a few fits and the estimator;
#   2. the sdist, built from scratch by `pip install smartigan-VERSION.tar.gz` in a
#      fresh virtualenv (its own cargo target folder, no cached wheel, no
#      optimisation: see sdist_check).
# Every run must give bit-identical results: one wheel on every Python, and the
# sdist's unoptimised native build against the optimised, zig-linked manylinux
# wheel.
# Usage: bash scripts/test-release.sh [--no-sdist]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
export PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1
with_sdist=1
[ "${1:-}" = "--no-sdist" ] && with_sdist=0

version=$(cargo metadata --no-deps --format-version 1 --offline \
  | python3 -c "import json, sys; print(json.load(sys.stdin)['packages'][0]['version'])")
wheel=$(ls "$root"/target/wheels/smartigan-"$version"-cp39-abi3-manylinux*_x86_64*.whl)
sdist="$root/target/wheels/smartigan-$version.tar.gz"
work="$root/target/release-test"
rm -rf "$work"
mkdir -p "$work/digests"
smoke="$root/scripts/wheel_smoke.py"

# The newest interpreter of CPython $1 (e.g. 3.9): pyenv's versions first, then
# the usual system places, then PATH (where a pyenv shim of a version that is
# not selected fails to run, so every candidate is run once).
find_python() {
  local v=$1 candidate
  for candidate in \
    $(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$v".[0-9]*/bin/python"$v" 2>/dev/null | sort -V -r) \
    /usr/local/bin/python"$v" /usr/bin/python"$v" "$(command -v python"$v" || true)"; do
    if [ -n "$candidate" ] && [ -x "$candidate" ] \
      && "$candidate" -c "import sys; sys.exit(sys.version_info[:2] != tuple(map(int, '$v'.split('.'))))" 2>/dev/null; then
      echo "$candidate"
      return 0
    fi
  done
  return 1
}

# One interpreter: its line goes to status-$v (SKIPPED when it cannot run); a
# failure is a non-zero exit.
wheel_on() {
  local v=$1 py env sklearn_note
  if ! py=$(find_python "$v"); then
    echo "python $v: SKIPPED, no CPython $v on this machine" >"$work/status-$v"
    return 0
  fi
  env="$work/py$v"
  if ! "$py" -m venv "$env" 2>"$work/venv-$v.err"; then
    echo "python $v: SKIPPED, $py cannot make a virtualenv: $(tail -n 1 "$work/venv-$v.err")" >"$work/status-$v"
    return 0
  fi
  # Wheels only: a source build of numpy or scikit-learn would be slow and is
  # not what a user of this wheel gets either. --no-compile: these environments
  # run one script, and byte-compiling SciPy and scikit-learn on install took
  # longer than the script.
  sklearn_note="with scikit-learn"
  if ! "$env/bin/python" -m pip install -q --no-compile --only-binary :all: "$wheel[sklearn]" 2>"$work/pip-$v.err"; then
    sklearn_note="WITHOUT scikit-learn (no wheel of it for $v: $(tail -n 1 "$work/pip-$v.err"))"
    "$env/bin/python" -m pip install -q --no-compile --only-binary :all: "$wheel"
  fi
  "$env/bin/smartigan" --help >/dev/null
  "$env/bin/python" "$smoke" "$version" >"$work/digests/wheel-py$v.json"
  echo "python $v ($py): wheel installed, fits checked, $sklearn_note" >"$work/status-$v"
  # Each environment holds some 300 MB of numpy, SciPy and scikit-learn.
  rm -rf "$env"
}

# The sdist, as `pip install` builds it on a user's machine (pip's isolated
# build, maturin from PyPI, the shipped sources only). Its build runs beside the
# interpreters below. What this checks is the route: the wheel under test was
# already built from the same unpacked sources with the release profile
# (scripts/build-wheels.sh), so here cargo's environment builds without
# optimisation (opt-level 0, sixteen codegen units, no LTO), which compiles in
# far less time. The results must still equal the wheel's bit for bit:
# the crate's arithmetic is fixed by its source (no fast-math, fused
# multiply-adds written out, kernels chosen at run time), not by how it is
# optimised, and this build is the check of that.
sdist_check() {
  local env="$work/sdist" start=$SECONDS
  python3 -m venv "$env"
  # --no-cache-dir: pip must build the sdist, not reuse a wheel it built before;
  # CARGO_TARGET_DIR unset: cargo compiles everything in the unpacked sdist.
  env -u CARGO_TARGET_DIR CARGO_PROFILE_RELEASE_OPT_LEVEL=0 CARGO_PROFILE_RELEASE_LTO=false \
    CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
    "$env/bin/python" -m pip install -q --no-cache-dir --no-compile \
    --only-binary numpy,scipy,scikit-learn "$sdist[sklearn]"
  "$env/bin/python" "$smoke" "$version" >"$work/digests/sdist.json"
  echo "sdist: built from scratch and installed with $("$env/bin/python" -V) in $((SECONDS - start)) s, fits checked"
  rm -rf "$env"
}
# Whatever ends this script ends the jobs it started.
trap 'kill $(jobs -p) 2>/dev/null || true' EXIT
if [ "$with_sdist" = 1 ]; then
  sdist_check >"$work/log-sdist" 2>&1 &
  sdist_job=$!
fi

# Two interpreters at a time (besides the sdist): most of each one's time is pip
# unpacking wheels, which leaves a core idle. The results are compared only
# after all have run.
versions=(3.9 3.10 3.11 3.12 3.13)
tested=() skipped=() failed=()
loop_start=$SECONDS
declare -A job_of
for v in "${versions[@]}"; do
  # polled rather than `wait -n`, so that each job's exit status stays for `wait PID`
  while [ "$(jobs -r -p | wc -l)" -ge $((2 + with_sdist)) ]; do sleep 0.5; done
  wheel_on "$v" >"$work/log-$v" 2>&1 &
  job_of[$v]=$!
done
for v in "${versions[@]}"; do
  rc=0
  wait "${job_of[$v]}" || rc=$?
  cat "$work/log-$v"
  if [ $rc -ne 0 ] || [ ! -s "$work/status-$v" ]; then
    failed+=("$v"); echo "python $v: FAILED (exit $rc)"
  else
    cat "$work/status-$v"
    if grep -q SKIPPED "$work/status-$v"; then skipped+=("$v"); else tested+=("$v"); fi
  fi
done
echo "the wheel on ${#tested[@]} interpreters took $((SECONDS - loop_start)) s"
if [ ${#failed[@]} -gt 0 ]; then
  echo "test-release: the wheel failed on CPython ${failed[*]}" >&2
  exit 1
fi

if [ "$with_sdist" = 1 ]; then
  rc=0
  wait "$sdist_job" || rc=$?
  cat "$work/log-sdist"
  if [ $rc -ne 0 ]; then
    echo "test-release: the sdist failed to build or to pass (exit $rc)" >&2
    exit 1
  fi
fi

# Versions of the interpreter, numpy and scikit-learn may differ; results may not.
python3 "$smoke" compare "$work"/digests/*.json
echo "tested: CPython ${tested[*]:-none}; skipped: ${skipped[*]:-none}"
if [ ${#tested[@]} -eq 0 ]; then
  echo "test-release: no CPython from 3.9 to 3.13 found" >&2
  exit 1
fi
