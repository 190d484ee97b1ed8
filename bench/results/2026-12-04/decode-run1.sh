#!/bin/bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Device run 1: tests, sanitizers, bench.
D=$PWD/.device/decode
pip install --quiet --no-deps --no-index --target /tmp/site $D/*.whl 2>&1 | tail -2
export PYTHONPATH=/tmp/site TLE_FLASHMLA_PEER=$PWD/.device/flashmla-build
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
cd /tmp
echo "== pytest"
timeout 110 python3 -m pytest -q -m gpu -p no:cacheprovider $D/tests/test_decode_gpu.py 2>&1 | tail -25
echo "== bench"
timeout 110 python3 -m tle.bench.sparse_mla_decode --batches 1,32,64,128 --s-q 1,2 --heads 64,128 --topk 2048 --tokens 65536 --rounds 3 --rep-ms 60 --calls 200 --json $OUT/decode-bench.json 2>&1 | tail -25
echo "== sanitizers"
for t in memcheck racecheck synccheck; do
  echo "-- $t"; timeout 40 compute-sanitizer --tool $t --error-exitcode 9 --kernel-name regex:sparse_mla python3 $D/sparse_mla_decode_sanitizer_case.py 2>&1 | tail -4; echo "rc ${PIPESTATUS[0]}"
done
