#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The wheel of main with the FP8 gather's bf16x2 dequantization and the
# 200/200/104 split: GPU tests, sanitizers on both FP8 kernels, benches.
set -u
cd "$(dirname "$0")/../.."
exec > >(tee $OUT/gpu2.log) 2>&1
set -x
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv
rm -rf /tmp/site && pip install -q --no-deps --no-index --root-user-action=ignore --target /tmp/site .device/final2/*.whl
export PYTHONPATH=/tmp/site TLE_FLASHMLA_PEER=$PWD/.device/flashmla-build
time timeout 420 python3 -m pytest -q -m gpu -p no:cacheprovider python/tests 2>&1 | tail -4
for t in memcheck racecheck synccheck; do
  compute-sanitizer --tool $t --error-exitcode 9 python3 bench/probes/sparse_mla_sanitizer_case.py seesaw_fp8 > $OUT/fp8-sanitizer-$t.log 2>&1; echo "prefill $t rc=$?"; tail -2 $OUT/fp8-sanitizer-$t.log
  compute-sanitizer --tool $t --kernel-name kns=sparse_mla --error-exitcode 9 python3 bench/probes/sparse_mla_decode_sanitizer_case.py > $OUT/decode-fp8-sanitizer-$t.log 2>&1; echo "decode $t rc=$?"; tail -2 $OUT/decode-fp8-sanitizer-$t.log
done
time python3 -m tle.bench.sparse_mla --kv-format v32 --impl tle_fp8,flashmla,flashmla_dequant,tle.sparse_mla_fwd --check --rounds 4 --rep 100 --json $OUT/fp8.json 2>&1 | grep -vE "^\s*$" | tail -30
time python3 -m tle.bench.sparse_mla_decode --batches 1,32,64,128 --s-q 1,2 --heads 64,128 --topk 2048 --tokens 65536 --rounds 3 --rep-ms 40 --calls 50 --json $OUT/decode-fp8.json 2>&1 | grep -E "^\|"
