#!/usr/bin/env bash
# Builds the release artefacts into target/wheels/:
#   - the abi3 wheel for CPython >= 3.9 on x86_64 Linux, tagged manylinux2014
#     (glibc >= 2.17: RHEL/CentOS 7 and later, Ubuntu 14.04 and later), and
#   - the sdist (smartigan-VERSION.tar.gz), which builds with Rust and maturin;
#     the wheel above is built from it.
# Usage: bash scripts/build-wheels.sh
#
# The wheel is linked by zig (the `ziglang` package from PyPI) against glibc 2.17
# symbols, so no manylinux container is needed. The compiled code is the same
# rustc output as a plain `maturin build`: the AVX2/AVX-512 kernels are chosen
# at run time (is_x86_feature_detected), not by the build.
# Tools: maturin, ziglang and auditwheel from the active environment when it has
# all three, else from a virtualenv the script makes under target/release-tools.
# The build fails unless `auditwheel show` finds the wheel consistent with
# manylinux_2_17_x86_64 and both file names carry Cargo.toml's version.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out="$root/target/wheels"
target=x86_64-unknown-linux-gnu

if ! { command -v maturin >/dev/null && python3 -c "import ziglang, auditwheel" 2>/dev/null; }; then
  tools="$root/target/release-tools"
  if [ ! -x "$tools/bin/maturin" ] || ! "$tools/bin/python" -c "import ziglang, auditwheel" 2>/dev/null; then
    echo "build-wheels: installing maturin, ziglang and auditwheel into $tools"
    rm -rf "$tools"
    python3 -m venv "$tools"
    "$tools/bin/python" -m pip install -q --disable-pip-version-check -r scripts/build-requirements.txt
  fi
  # maturin finds zig through `python3 -m ziglang`, so the venv goes first on PATH.
  export PATH="$tools/bin:$PATH"
fi

version=$(cargo metadata --no-deps --format-version 1 --offline \
  | python3 -c "import json, sys; print(json.load(sys.stdin)['packages'][0]['version'])")
echo "build-wheels: smartigan $version, $(maturin --version), zig $(python3 -m ziglang version)"

rm -rf "$out"
maturin sdist --out "$out" 2>&1 | tail -n 1
# The wheel is built from the unpacked sdist, so what ships as source is shown to
# build the wheel that ships: a file missing from the sdist fails here. The
# target folder stays the project's, so a second run reuses the dependencies.
unpacked="$root/target/sdist-unpacked"
rm -rf "$unpacked"
mkdir -p "$unpacked"
tar -xzf "$out/smartigan-$version.tar.gz" -C "$unpacked"
(cd "$unpacked/smartigan-$version" \
  && CARGO_TARGET_DIR="$root/target" maturin build --release --zig --compatibility manylinux2014 \
    --target "$target" --out "$out" 2>&1 | { grep -v '^ *Compiling ' || true; })

shopt -s nullglob
wheels=("$out"/smartigan-"$version"-cp39-abi3-manylinux2014_x86_64*.whl)
sdists=("$out"/smartigan-"$version".tar.gz)
if [ ${#wheels[@]} -ne 1 ] || [ ${#sdists[@]} -ne 1 ]; then
  echo "build-wheels: expected one manylinux2014 abi3 wheel and one sdist of version $version in $out, found:" >&2
  ls -l "$out" >&2
  exit 1
fi

# auditwheel reads the symbol versions the extension actually needs.
report=$(python3 -m auditwheel show "${wheels[0]}" | tr -s ' \n' ' ')
echo "auditwheel: $report"
if ! grep -q 'is consistent with the following platform tag: "manylinux_2_17_x86_64"' <<<"$report"; then
  echo "build-wheels: the wheel is not manylinux_2_17 (manylinux2014) compatible" >&2
  exit 1
fi
ls -l "$out"
