#!/usr/bin/env bash
# Checks that the manylinux wheel in target/wheels/ keeps the run-time CPU dispatch:
#   1. its extension contains AVX-512 code (instructions on zmm registers) and
#      AVX2+FMA code (vfmadd on ymm registers) beside the portable code;
#   2. scripts/wheel_smoke.py gives bit-identical results natively (on a CPU with
#      AVX-512, as here, the AVX-512 kernels) and under qemu's user-mode emulation
#      of a Haswell (AVX2 and FMA, no AVX-512: the same extension must pick its
#      AVX2 kernels) and of a Nehalem (no AVX at all: the portable code); numpy's
#      own run-time detection is printed as the witness of what each CPU offers;
#   3. after `bash scripts/test-release.sh`, the same results as the sdist's
#      plain (not zig-linked) build.
# Usage: bash scripts/check-dispatch.sh
# Needs objdump (binutils) and qemu-x86_64 (Debian's qemu-user, installed here
# with apt-get when missing and run as root; otherwise the emulated runs are
# skipped with a note). .ci/run runs it after scripts/test-release.sh; the output
# of such a run is kept in scripts/check-dispatch.out.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
export PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1
version=$(cargo metadata --no-deps --format-version 1 --offline \
  | python3 -c "import json, sys; print(json.load(sys.stdin)['packages'][0]['version'])")
wheel=$(ls "$root"/target/wheels/smartigan-"$version"-cp39-abi3-manylinux*_x86_64*.whl)
work="$root/target/dispatch-check"
rm -rf "$work"
mkdir -p "$work"

echo "host: $(lscpu | sed -n 's/^Model name: *//p'); CPU flags: $(grep -o -w -E 'avx2|fma|avx512f' /proc/cpuinfo | sort -u | tr '\n' ' ')"
echo "wheel: $(basename "$wheel")"

python3 -m zipfile -e "$wheel" "$work/unpacked"
so=$(ls "$work"/unpacked/smartigan/_core*.so)
objdump -d --no-show-raw-insn "$so" >"$work/disassembly.txt"
zmm=$(grep -c '%zmm' "$work/disassembly.txt" || true)
fma_ymm=$(grep -E -c 'vfmadd[0-9a-z]+ .*%ymm' "$work/disassembly.txt" || true)
echo "extension: $zmm instructions on zmm registers (AVX-512), $fma_ymm vfmadd on ymm registers (AVX2+FMA)"
if [ "$zmm" -eq 0 ] || [ "$fma_ymm" -eq 0 ]; then
  echo "check-dispatch: the wheel's extension lacks the AVX-512 or the AVX2 code" >&2
  exit 1
fi

python3 -m venv "$work/venv"
"$work/venv/bin/python" -m pip install -q --only-binary :all: "$wheel"
features='from numpy._core._multiarray_umath import __cpu_features__ as f; print("  numpy sees", {k: f[k] for k in ("AVX2", "FMA3", "AVX512F")})'
smoke="$root/scripts/wheel_smoke.py"

echo "native run:"
"$work/venv/bin/python" -c "$features"
"$work/venv/bin/python" "$smoke" "$version" --no-sklearn >"$work/native.json"

digests=("$work/native.json")

if ! command -v qemu-x86_64 >/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "installing qemu-user (Debian) for the emulated CPUs"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-user; } >"$work/apt.log" 2>&1 \
    || echo "  apt-get failed: $(tail -n 1 "$work/apt.log")"
fi
if command -v qemu-x86_64 >/dev/null; then
  for cpu in Haswell Nehalem; do
    echo "emulated $cpu ($(qemu-x86_64 --version | head -n 1)):"
    # TCG warns about CPUID bits it does not emulate (TSX, INVPCID); irrelevant here.
    # numpy's OpenBLAS is told the emulated CPU's kernel: its own detection,
    # under qemu on an AVX-512 AMD host, picks AVX kernels for the emulated
    # Nehalem, and importing numpy dies of an illegal instruction before our
    # extension is loaded (the extension's dispatch reads CPUID alone).
    OPENBLAS_CORETYPE="$cpu" qemu-x86_64 -cpu "$cpu" "$work/venv/bin/python" -c "$features" 2>/dev/null
    OPENBLAS_CORETYPE="$cpu" qemu-x86_64 -cpu "$cpu" "$work/venv/bin/python" "$smoke" "$version" --no-sklearn \
      >"$work/qemu-$cpu.json" 2>"$work/qemu-$cpu.err" || { cat "$work/qemu-$cpu.err" >&2; exit 1; }
    digests+=("$work/qemu-$cpu.json")
  done
else
  echo "NOTE: no qemu-x86_64, so the AVX2 and portable paths were not run (only the native one)"
fi

sdist_digest="$root/target/release-test/digests/sdist.json"
if [ -f "$sdist_digest" ]; then
  digests+=("$sdist_digest")
  echo "compared with the sdist's build: $sdist_digest"
else
  echo "no sdist digest (run scripts/test-release.sh first to compare with the plain build)"
fi
python3 "$smoke" compare "${digests[@]}"
rm -rf "$work/venv" "$work/unpacked"
