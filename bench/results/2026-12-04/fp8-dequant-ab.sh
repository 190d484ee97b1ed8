#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A/B of the FP8 gather's dequantization (v0: the wheel, main; v1: one
# bf16x2 multiply per two values, cubins swapped in), its GPU tests, and
# where the gather's time goes (ncu).
set -u
cd "$(dirname "$0")/../.."
exec > >(tee $OUT/exp.log) 2>&1
export TLE_FLASHMLA_PEER=$PWD/.device/flashmla-build
for v in 0 1; do
  rm -rf /tmp/site$v && pip install -q --no-deps --no-index --root-user-action=ignore --target /tmp/site$v .device/exp/*.whl
  [ $v != 0 ] && cp .device/exp/v$v/*.cubin /tmp/site$v/tle/sparse_mla/kernels/
done
echo "== tests (v1)"
PYTHONPATH=/tmp/site1 timeout 300 python3 -m pytest -q -m gpu -p no:cacheprovider python/tests/test_decode_gpu.py python/tests/test_sparse_mla_fp8_gpu.py python/tests/test_flash_mla_gpu.py 2>&1 | tail -3
for round in 1 2; do
for v in 0 1; do
  echo "== v$v round $round"
  PYTHONPATH=/tmp/site$v python3 -m tle.bench.sparse_mla --kv-format v32 --impl tle_fp8,flashmla --check --rounds 2 --skv 8192,65536,131072 --json $OUT/prefill_v${v}_r$round.json 2>&1 | grep -E "^\|"
  PYTHONPATH=/tmp/site$v python3 -m tle.bench.sparse_mla_decode --batches 32,128 --s-q 1,2 --heads 128 --topk 2048 --tokens 65536 --rounds 2 --rep-ms 40 --calls 50 --json $OUT/decode_v${v}_r$round.json 2>&1 | grep -E "^\|"
done
done
NCU="ncu --clock-control none --kernel-name regex:sparse_attn_fwd_kernel|sparse_mla --section SourceCounters --section WarpStateStats --section ComputeWorkloadAnalysis --section InstructionStats --section SchedulerStats"
for c in "v1 tle_fp8 8192 v32" "v1 tle_fp8 65536 v32" "v1 tle_seesaw 8192 bf16" "v1 flashmla 8192 bf16"; do
  set -- $c
  r=$OUT/ncu_$2_$3
  PYTHONPATH=/tmp/site${1#v} SKV=$3 KV_FORMAT=$4 timeout 200 $NCU -o $r python3 bench/probes/sparse_mla_ncu_case.py $2 > /dev/null 2>&1
  ncu --import $r.ncu-rep --page details > $r.txt 2>&1
  ncu --import $r.ncu-rep --page source --print-source sass --csv > $r.csv 2>/dev/null
  echo "== ncu $c"; grep -E "Duration|Issue Slots Busy|Issued Warp|No Eligible|Executed Ipc A|Warp Cycles Per Issued|Pipe" $r.txt | head -20
  python3 utils/ncu_stalls.py $r.csv --top 6 2>&1 | head -60
  gzip $r.csv
  rm -f $r.ncu-rep
done
