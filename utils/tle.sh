#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine (run as root):
#   utils/tle.sh run    install what is missing, build, run the main job
#   utils/tle.sh test   install what is missing, build, run every test
# Both are idempotent: a second run installs nothing and rebuilds only what
# changed.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${TLE_BUILD_DIR:-$root/build}
llvm=/usr/lib/llvm-22

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

configure_and_build() {
  if [ ! -f "$build/build.ninja" ]; then
    cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
      -DMLIR_DIR="$llvm/lib/cmake/mlir" -DLLVM_DIR="$llvm/lib/cmake/llvm"
  fi
  ninja -C "$build" "$@"
}

ptxas=${TLE_PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}

# The main job: for every shipped kernel and example, print the sync plan
# the compiler derived, compile it to PTX for sm_90a (with its metadata)
# under $build/kernels-out, and print ptxas's resource line where ptxas
# exists.
run_main_job() {
  local example name out="$build/kernels-out"
  mkdir -p "$out"
  for example in "$root"/kernels/*/*.mlir "$root"/examples/*/*.mlir; do
    name=$(basename "$example" .mlir)
    echo "== ${example#$root/}"
    "$build/bin/tle-opt" "$example" --tle-derive-sync --tle-sync-plan \
      -o /dev/null
    "$build/bin/tle-opt" "$example" --tle-to-llvm -o "$out/$name.llvm.mlir"
    "$build/bin/tle-translate" --tle-to-ptx "$out/$name.llvm.mlir" \
      --tle-metadata="$out/$name.json" -o "$out/$name.ptx"
    echo "ptx: $out/$name.ptx (metadata: $out/$name.json)"
    if [ -x "$ptxas" ]; then
      "$ptxas" -arch=sm_90a -v "$out/$name.ptx" -o "$out/$name.cubin" 2>&1 |
        grep -E "Used|spill|warning"
    else
      echo "ptxas not found: PTX not assembled"
    fi
  done
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

case "${1:-}" in
  run)
    install_missing
    configure_and_build tle-opt tle-translate
    run_main_job
    ;;
  test)
    install_missing
    configure_and_build tle-test-depends
    run_tests
    ;;
  *)
    echo "usage: $0 run|test" >&2
    exit 2
    ;;
esac
