#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The session's GPU run: GPU tests, sanitizers on decode, decode bench.
set -u
cd "$(dirname "$0")/../.."
exec > >(tee $OUT/gpu.log) 2>&1
set -x
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv
rm -rf /tmp/site && pip install -q --no-deps --no-index --target /tmp/site .device/final/*.whl
export PYTHONPATH=/tmp/site TLE_FLASHMLA_PEER=$PWD/.device/flashmla-build
python3 .device/flashmla-build/tle_flashmla_check.py | tail -2
time python3 -m pytest -q -m gpu -p no:cacheprovider python/tests/test_decode_gpu.py python/tests/test_sparse_mla_fp8_gpu.py 2>&1 | tail -15
for t in memcheck racecheck synccheck; do
  compute-sanitizer --tool $t --kernel-name kns=sparse_mla --error-exitcode 9 python3 bench/probes/sparse_mla_decode_sanitizer_case.py > $OUT/decode-sanitizer-$t.log 2>&1; echo "$t rc=$?"; tail -3 $OUT/decode-sanitizer-$t.log
done
time python3 -m tle.bench.sparse_mla_decode --batches 1,32,64,128 --s-q 1,2 --heads 64,128 --topk 2048 --tokens 65536 --rounds 3 --rep-ms 40 --calls 50 --json $OUT/decode.json
time python3 -m pytest -q -m gpu -p no:cacheprovider python/tests 2>&1 | tail -15
