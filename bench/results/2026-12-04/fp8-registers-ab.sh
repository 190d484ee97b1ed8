#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A/B of the FP8 kernels' register split (v1: 216/216/72, v200: 200/200/104,
# v208: 208/208/88), all with the bf16x2 dequantization; cubins swapped in.
set -u
cd "$(dirname "$0")/../.."
exec > >(tee $OUT/exp2.log) 2>&1
export TLE_FLASHMLA_PEER=$PWD/.device/flashmla-build
for v in 1 200 208; do
  rm -rf /tmp/site$v && pip install -q --no-deps --no-index --root-user-action=ignore --target /tmp/site$v .device/exp/*.whl
  cp .device/exp/v$v/*.cubin /tmp/site$v/tle/sparse_mla/kernels/
done
for v in 200 208; do
echo "== tests (v$v)"
PYTHONPATH=/tmp/site$v timeout 300 python3 -m pytest -q -m gpu -p no:cacheprovider python/tests/test_decode_gpu.py python/tests/test_sparse_mla_fp8_gpu.py 2>&1 | tail -1
done
for round in 1 2; do
for v in 1 200 208; do
  echo "== v$v round $round"
  PYTHONPATH=/tmp/site$v python3 -m tle.bench.sparse_mla --kv-format v32 --impl tle_fp8,flashmla --check --rounds 2 --skv 8192,32768,65536,131072 --json $OUT/prefill_v${v}_r$round.json 2>&1 | grep -E "^\|"
  PYTHONPATH=/tmp/site$v python3 -m tle.bench.sparse_mla_decode --batches 32,128 --s-q 1,2 --heads 128 --topk 2048 --tokens 65536 --rounds 2 --rep-ms 40 --calls 50 --json $OUT/decode_v${v}_r$round.json 2>&1 | grep -E "^\|"
done
done
r=$OUT/ncu_v200_65536
PYTHONPATH=/tmp/site200 SKV=65536 KV_FORMAT=v32 timeout 200 ncu --clock-control none --kernel-name regex:sparse_mla --section SourceCounters --section WarpStateStats -o $r python3 bench/probes/sparse_mla_ncu_case.py tle_fp8 > /dev/null 2>&1
ncu --import $r.ncu-rep --page source --print-source sass --csv 2>/dev/null | gzip > $r.csv.gz; rm -f $r.ncu-rep
