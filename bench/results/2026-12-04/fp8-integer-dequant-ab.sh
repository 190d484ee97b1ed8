#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A/B of the FP8 gather's dequantization: old (e4m3 -> f16 -> f32 -> bf16
# conversions, one multiply), new (integer moves, x 2^120, x scale: the
# wheel), one (integer moves, one multiply by 2^120 * scale: not safe past
# scale 2^7, measured only for what the second multiply costs). Ran as
# .device/exp3/run.sh (its paths are relative to that folder), with the
# wheel and the old and one cubins of 2026-12-04's third session.
set -u
cd "$(dirname "$0")/../.."
exec > >(tee $OUT/exp3.log) 2>&1
export TLE_FLASHMLA_PEER=$PWD/.device/flashmla-build
for v in old new one; do
  rm -rf /tmp/site$v && pip install -q --no-deps --no-index --root-user-action=ignore --target /tmp/site$v .device/exp3/*.whl
  [ -d .device/exp3/$v ] && cp .device/exp3/$v/*.cubin /tmp/site$v/tle/sparse_mla/kernels/
done
echo "== tests (new)"
PYTHONPATH=/tmp/sitenew timeout 400 python3 -m pytest -q -m gpu -p no:cacheprovider python/tests/test_decode_gpu.py python/tests/test_sparse_mla_fp8_gpu.py 2>&1 | tail -4
for round in 1 2; do
for v in old new one; do
  echo "== $v round $round"
  PYTHONPATH=/tmp/site$v python3 -m tle.bench.sparse_mla --kv-format v32 --impl tle_fp8,flashmla --check --rounds 2 --skv 8192,32768,65536,131072 $( [ $v = new ] && echo --json $OUT/prefill_new_r$round.json ) 2>&1 | grep -E "^\|"
  PYTHONPATH=/tmp/site$v python3 -m tle.bench.sparse_mla_decode --batches 32,128 --s-q 1,2 --heads 128 --topk 2048 --tokens 65536 --rounds 2 --rep-ms 40 --calls 50 $( [ $v = new ] && echo --json $OUT/decode_new_r$round.json ) 2>&1 | grep -E "^\|"
done
done
