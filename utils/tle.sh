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

packages=(cmake ninja-build g++ lld python3 llvm-22-dev libmlir-22-dev
          mlir-22-tools llvm-22-tools)

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

# The main job: derive the synchronization of every shipped example and
# print its sync plan.
run_main_job() {
  local example
  for example in "$root"/examples/*/*.mlir; do
    echo "== ${example#$root/}"
    "$build/bin/tle-opt" "$example" --tle-derive-sync --tle-sync-plan \
      -o /dev/null
  done
}

# Runs the lit suite and ends with a plain "N passed, N failed" line.
run_tests() {
  local log
  log=$(mktemp)
  local status=0
  "$llvm/bin/lit" -sv "$build/test" "$build/examples" | tee "$log" || status=$?
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
    configure_and_build tle-opt
    run_main_job
    ;;
  test)
    install_missing
    configure_and_build tle-opt
    run_tests
    ;;
  *)
    echo "usage: $0 run|test" >&2
    exit 2
    ;;
esac
