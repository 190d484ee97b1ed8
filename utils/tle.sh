#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# One entry point for a fresh Debian 12 machine (run as root):
#   utils/tle.sh run    install what is missing, build, run the main job
#   utils/tle.sh test   install what is missing, build, run every test
# Both are idempotent: a second run installs nothing and rebuilds only what
# changed.
#
# On a GPU machine without LLVM/MLIR, `run` builds the runtime and tle-run
# alone (-DTLE_RUNTIME_ONLY=ON) and runs the kernels a compiler machine
# compiled: carry build/kernels-out and build/third_party from there
# (docs/Runtime.md, "utils/tle.sh run on a GPU machine").
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${TLE_BUILD_DIR:-$root/build}
llvm=${TLE_LLVM_DIR:-/usr/lib/llvm-22}
# The compiled kernels, with their metadata and sync plans: written by the
# main job on a compiler machine, read there and on a GPU machine.
out="$build/kernels-out"
# Headers a runtime-only build takes where it cannot install packages.
third_party="$build/third_party/include"

# The Python packages build the wheel of python/ (pip, setuptools, wheel)
# and run its CPU tests (pytest, torch for the tests of the PyTorch call);
# nlohmann-json3-dev is the JSON library the runtime reads metadata with.
packages=(cmake ninja-build g++ lld python3 git clang-format libgtest-dev llvm-22-dev
          libmlir-22-dev mlir-22-tools llvm-22-tools nlohmann-json3-dev python3-pip
          python3-setuptools python3-wheel python3-pytest python3-torch python3-dev)

install_missing() {
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
      missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return
  echo "tle: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# PyTorch >= 2.4 for the CPU tests of the PyTorch operators (fake tensors,
# torch.compile tracing), beside the build: Debian's python3-torch is 1.13.
# Outside CI a failed download only leaves those tests unsupported.
torch_ops="$build/torch-ops"
install_torch_ops() {
  [ -f "$torch_ops/.complete" ] && return
  echo "tle: installing the PyTorch of the operator tests into $torch_ops"
  rm -rf "$torch_ops"
  if python3 -m pip install --quiet --no-deps --disable-pip-version-check \
      --root-user-action=ignore --target "$torch_ops" \
      -r "$root/test/python/torch-ops.txt"; then
    touch "$torch_ops/.complete"
  else
    echo "tle: could not install test/python/torch-ops.txt: the operator tests" \
         "are unsupported" >&2
    rm -rf "$torch_ops"
  fi
}

configure_and_build() {
  if [ ! -f "$build/build.ninja" ]; then
    cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
      -DMLIR_DIR="$llvm/lib/cmake/mlir" -DLLVM_DIR="$llvm/lib/cmake/llvm"
  fi
  ninja -C "$build" "$@"
}

ptxas=${TLE_PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}

# ptxas's resource line for $1.ptx, where ptxas exists.
assemble() {
  local name=$1
  if [ -x "$ptxas" ]; then
    "$ptxas" -arch=sm_90a -v "$out/$name.ptx" -o "$out/$name.cubin" 2>&1 |
      grep -E "Used|spill|warning"
  else
    echo "ptxas not found: PTX not assembled"
  fi
}

# The main job: for every shipped kernel, example and the tutorial's kernel
# (docs/tutorial), print the sync plan the compiler derived, compile it to
# PTX for sm_90a (with its metadata) under $out, and print ptxas's
# resource line where ptxas exists. The plans
# are kept beside the PTX, and the JSON headers under $third_party, for a
# GPU machine that runs these kernels without a compiler.
run_main_job() {
  local example name
  mkdir -p "$out"
  for example in "$root"/kernels/*/*.mlir "$root"/examples/*/*.mlir \
                 "$root"/docs/tutorial/*.mlir; do
    name=$(basename "$example" .mlir)
    echo "== ${example#"$root"/}"
    "$build/bin/tle-opt" "$example" --tle-derive-sync --tle-sync-plan \
      -o /dev/null | tee "$out/$name.plan"
    "$build/bin/tle-opt" "$example" --tle-to-llvm -o "$out/$name.llvm.mlir"
    "$build/bin/tle-translate" --tle-to-ptx "$out/$name.llvm.mlir" \
      --tle-metadata="$out/$name.json" -o "$out/$name.ptx"
    echo "ptx: $out/$name.ptx (metadata: $out/$name.json)"
    assemble "$name"
  done
  git -C "$root" describe --always --dirty >"$out/COMMIT" 2>/dev/null || true
  local json
  json=$(sed -n 's/^TLE_JSON_INCLUDE_DIR:[A-Z]*=//p' "$build/CMakeCache.txt")
  if [ -n "$json" ] && [ "$json" != "$third_party" ]; then
    mkdir -p "$third_party"
    rm -rf "$third_party/nlohmann"
    cp -r "$json/nlohmann" "$third_party/"
  fi
}

# The main job on a GPU machine without the compiler: the kernels and sync
# plans a compiler machine left in $out, assembled by this machine's ptxas.
show_carried_kernels() {
  local ptx name
  echo "tle: no LLVM/MLIR here: the kernels of $out were compiled on another" \
       "machine (commit $(cat "$out/COMMIT" 2>/dev/null || echo unknown))"
  for ptx in "$out"/*.ptx; do
    name=$(basename "$ptx" .ptx)
    echo "== $name"
    cat "$out/$name.plan" 2>/dev/null || true
    echo "ptx: $ptx (metadata: $out/$name.json)"
    assemble "$name"
  done
}

# The runtime and tle-run alone, without LLVM (a GPU machine); prints the
# path of tle-run. $TLE_RUN names one built already instead. (It runs in a
# command substitution, where set -e does not reach: failures return.)
build_runtime_only() {
  if [ -n "${TLE_RUN:-}" ]; then
    echo "$TLE_RUN"
    return
  fi
  local rt=${TLE_RUNTIME_BUILD_DIR:-$root/build-rt} flags=()
  [ -f "$third_party/nlohmann/json.hpp" ] &&
    flags+=("-DTLE_JSON_INCLUDE_DIR=$third_party")
  if [ ! -f "$rt/build.ninja" ]; then
    cmake -G Ninja -S "$root" -B "$rt" -DTLE_RUNTIME_ONLY=ON \
      ${flags[@]+"${flags[@]}"} >&2 || return 1
  fi
  ninja -C "$rt" tle-run tle_runtime >&2 || return 1
  echo "$rt/bin/tle-run"
}

# On a machine with a GPU: JIT (the driver compiles the PTX), check against
# the CPU reference and time every shipped SparseMLA variant with tle-run,
# on the benchmark case at each kv length of $TLE_SPARSE_MLA_SKV; its JSON
# reports go to $out/runs. Elsewhere: say why not.
run_sparse_mla() {
  local tle_run=$1 device ptx name skv failed=0
  if ! device=$("$tle_run" --probe 2>&1); then
    echo "== SparseMLA on the GPU: not run here (${device#tle-run: });" \
         "utils/tle.sh run on a GPU machine runs it (docs/Runtime.md)"
    return 0
  fi
  echo "== SparseMLA on the GPU: $device"
  mkdir -p "$out/runs"
  for ptx in "$out"/{seesaw,pipe,naive}.ptx; do
    name=$(basename "$ptx" .ptx)
    for skv in ${TLE_SPARSE_MLA_SKV:-8192 131072}; do
      echo "-- $name, skv=$skv"
      "$tle_run" "$ptx" --problem sparse_mla --shape "skv=$skv" --check \
        --bench --json "$out/runs/sparse_mla-$name-skv$skv.json" || failed=1
    done
  done
  return $failed
}

# On a machine with a GPU, the last two steps of docs/Tutorial.md: tle-run
# checks the tutorial's kernel on the pipes problem, and
# docs/tutorial/first.py launches it from PyTorch (where python3 has torch
# and libtle_runtime.so sits beside tle-run, in ../lib).
run_tutorial() {
  local tle_run=$1 lib
  "$tle_run" --probe >/dev/null 2>&1 || return 0
  lib="$(dirname "$tle_run")/../lib/libtle_runtime.so"
  echo "== the tutorial's kernel on the GPU (docs/Tutorial.md, steps 8 and 9)"
  "$tle_run" "$out/first.ptx" --problem pipes --shape ctas=132,n=64 --check \
    --bench || return 1
  if [ ! -f "$lib" ]; then
    echo "no $lib: docs/tutorial/first.py not run"
  elif ! python3 -c "import torch" 2>/dev/null; then
    echo "python3 has no torch: docs/tutorial/first.py not run"
  else
    (cd "$out" && PYTHONPATH="$root/python" TLE_RUNTIME_LIB="$lib" \
      python3 "$root/docs/tutorial/first.py")
  fi
}

# Runs the lit suite and ends with a plain "N passed, N failed" line.
run_tests() {
  local log
  log=$(mktemp)
  local status=0
  "$llvm/bin/lit" -sv "$build/test" "$build/kernels" "$build/examples" | tee "$log" || status=$?
  local passed failed
  passed=$(sed -n 's/^ *Passed *: *\([0-9]*\).*/\1/p' "$log")
  failed=$(sed -n 's/^ *Failed *: *\([0-9]*\).*/\1/p' "$log")
  rm -f "$log"
  echo "tests: ${passed:-0} passed, ${failed:-0} failed"
  return $status
}

# A GPU machine: no compiler here (and none asked for), but kernels compiled
# elsewhere; TLE_RUNTIME_ONLY=1 chooses it.
runtime_only() {
  [ "${TLE_RUNTIME_ONLY:-}" = 1 ] && return 0
  [ ! -f "$llvm/lib/cmake/mlir/MLIRConfig.cmake" ] &&
    compgen -G "$out/*.ptx" >/dev/null
}

case "${1:-}" in
  run)
    if runtime_only; then
      [ -f "$out/seesaw.ptx" ] || {
        echo "tle: no compiled kernels in $out: run utils/tle.sh run on a" \
             "compiler machine and carry build/kernels-out" >&2
        exit 1
      }
      tle_run=$(build_runtime_only) || exit 1
      show_carried_kernels
    else
      install_missing
      configure_and_build tle-opt tle-translate tle-run tle_runtime
      run_main_job
      tle_run="$build/bin/tle-run"
    fi
    status=0
    run_sparse_mla "$tle_run" || status=1
    run_tutorial "$tle_run" || status=1
    exit $status
    ;;
  test)
    install_missing
    configure_and_build tle-test-depends
    install_torch_ops
    run_tests
    ;;
  *)
    echo "usage: $0 run|test" >&2
    exit 2
    ;;
esac
