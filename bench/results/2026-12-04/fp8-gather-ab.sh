#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A/B of the FP8 gather's rows in flight (1: the wheel, 2, 4: cubins swapped in).
set -u
cd "$(dirname "$0")/../.."
exec > >(tee $OUT/ab.log) 2>&1
export TLE_FLASHMLA_PEER=$PWD/.device/flashmla-build
for g in 1 2 4; do
  rm -rf /tmp/site$g && pip install -q --no-deps --no-index --root-user-action=ignore --target /tmp/site$g .device/final/*.whl
  [ $g != 1 ] && cp .device/ab/g$g/*.cubin /tmp/site$g/tle/sparse_mla/kernels/
done
for round in 1 2; do
for g in 1 2 4; do
  echo "== G=$g round $round"
  PYTHONPATH=/tmp/site$g python3 -m tle.bench.sparse_mla --kv-format v32 --impl tle_fp8,flashmla --check --rounds 2 --skv 8192,65536,131072 --json $OUT/prefill_g${g}_r$round.json 2>&1 | grep -E "^\|" 
  PYTHONPATH=/tmp/site$g python3 -m tle.bench.sparse_mla_decode --batches 32,128 --s-q 1,2 --heads 128 --topk 2048 --tokens 65536 --rounds 2 --rep-ms 40 --calls 50 --json $OUT/decode_g${g}_r$round.json 2>&1 | grep -E "^\|"
done
done
PYTHONPATH=/tmp/site2 python3 -m pytest -q -m gpu -p no:cacheprovider python/tests/test_decode_gpu.py python/tests/test_sparse_mla_fp8_gpu.py 2>&1 | tail -2
