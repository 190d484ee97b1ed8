#!/bin/bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Device run 2: sanitizers, GPU tests and the bench with the five-pass interim rows.
D=$PWD/.device/decode
pip install --quiet --no-deps --no-index --root-user-action=ignore --target /tmp/site $D/*.whl 2>&1 | tail -2
export PYTHONPATH=/tmp/site TLE_FLASHMLA_PEER=$PWD/.device/flashmla-build
cd /tmp
echo "== sanitizers"
for t in memcheck racecheck synccheck; do
  echo "-- $t"; timeout 45 compute-sanitizer --tool $t --error-exitcode 9 --kernel-name kns=sparse_mla python3 $D/sparse_mla_decode_sanitizer_case.py > $OUT/sanitizer-$t.log 2>&1; echo "rc $?"; tail -3 $OUT/sanitizer-$t.log
done
echo "== pytest"
timeout 60 python3 -m pytest -q -m gpu -p no:cacheprovider $D/tests/test_decode_gpu.py 2>&1 | tail -5
echo "== bench"
timeout 100 python3 -m tle.bench.sparse_mla_decode --batches 1,32,64,128 --s-q 1,2 --heads 64,128 --topk 2048 --tokens 65536 --rounds 3 --rep-ms 40 --calls 50 --json $OUT/decode-bench.json 2>&1 | tail -20
