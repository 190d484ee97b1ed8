#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# Extract the FlashMLA sources that the sm90 peer build needs, and the
# CUTLASS headers they include, from local bare git mirrors into a
# git-ignored folder that travels to the GPU machine (device tool: carry).
#
#   bash bench/peers/flashmla/extract.sh [FLASHMLA_GIT_DIR [CUTLASS_GIT_DIR [DEST]]]
#
# Defaults: the mirrors under /work/.mirror and DEST=<repo>/.device/flashmla-src.
# Runs on the development machine (needs git, tar); the GPU machine has no
# mirror and no network. DEST is replaced as a whole.
set -euo pipefail

FLASHMLA_GIT=${1:-/work/.mirror/deepseek-ai+FlashMLA/repo}
CUTLASS_GIT=${2:-/work/.mirror/NVIDIA+cutlass/repo}
REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
DEST=${3:-$REPO_ROOT/.device/flashmla-src}

# FlashMLA commit 9241ae3: the last one with the Hopper (sm90) kernels.
FLASHMLA_COMMIT=9241ae3
# What FlashMLA needs, nothing else: the binding and its headers, the sm90
# kernels, the arch-neutral decode helpers (scheduler metadata, combine), the
# header-only kerutils, the declarations of the sm100 entry points (which
# our stub file defines), and the Python interface.
FLASHMLA_PATHS=(
  LICENSE
  flash_mla/__init__.py
  flash_mla/flash_mla_interface.py
  csrc/api
  csrc/params.h
  csrc/defines.h
  csrc/utils.h
  csrc/kerutils/include
  csrc/sm90
  csrc/smxx
  csrc/sm100/prefill/sparse/fwd/head64/phase1.h
  csrc/sm100/prefill/sparse/fwd/head128/phase1.h
  csrc/sm100/prefill/sparse/fwd_for_small_topk/head128/phase1.h
  csrc/sm100/decode/head64/kernel.h
  csrc/sm100/prefill/dense/interface.h
)
CUTLASS_PATHS=(LICENSE.txt include tools/util/include)

die() { echo "extract.sh: $*" >&2; exit 1; }
git -C "$FLASHMLA_GIT" cat-file -e "$FLASHMLA_COMMIT^{commit}" 2>/dev/null \
  || die "FlashMLA commit $FLASHMLA_COMMIT not in $FLASHMLA_GIT"
FLASHMLA_FULL=$(git -C "$FLASHMLA_GIT" rev-parse "$FLASHMLA_COMMIT^{commit}")

# The CUTLASS commit is the one FlashMLA pins as its csrc/cutlass submodule.
CUTLASS_COMMIT=$(git -C "$FLASHMLA_GIT" ls-tree "$FLASHMLA_FULL" csrc/cutlass | awk '$2 == "commit" {print $3}')
[ -n "$CUTLASS_COMMIT" ] || die "no csrc/cutlass submodule entry at $FLASHMLA_COMMIT"
if [ "$(git -C "$CUTLASS_GIT" cat-file -t "$CUTLASS_COMMIT" 2>/dev/null)" != commit ]; then
  die "CUTLASS commit $CUTLASS_COMMIT (FlashMLA's submodule) is not in $CUTLASS_GIT"
fi

TMP=$(mktemp -d "${DEST%/*}/.flashmla-src.XXXXXX" 2>/dev/null || { mkdir -p "${DEST%/*}"; mktemp -d "${DEST%/*}/.flashmla-src.XXXXXX"; })
trap 'rm -rf "$TMP"' EXIT

git -C "$FLASHMLA_GIT" archive --format=tar "$FLASHMLA_FULL" -- "${FLASHMLA_PATHS[@]}" | tar -x -C "$TMP"
mkdir -p "$TMP/csrc/cutlass"
git -C "$CUTLASS_GIT" archive --format=tar "$CUTLASS_COMMIT" -- "${CUTLASS_PATHS[@]}" | tar -x -C "$TMP/csrc/cutlass"

# The kernels build.py compiles must all be there.
for f in csrc/api/api.cpp \
         csrc/smxx/decode/get_decoding_sched_meta/get_decoding_sched_meta.cu \
         csrc/smxx/decode/combine/combine.cu \
         csrc/sm90/decode/dense/instantiations/bf16.cu \
         csrc/sm90/decode/sparse_fp8/instantiations/{v32,model1}_persistent_h{64,128}.cu \
         csrc/sm90/prefill/sparse/instantiations/phase1_k{512,576}{,_topklen}.cu \
         csrc/cutlass/include/cute/tensor.hpp; do
  [ -f "$TMP/$f" ] || die "missing after extraction: $f"
done

cat > "$TMP/EXTRACTED.txt" <<INFO
flashmla_commit=$FLASHMLA_FULL
cutlass_commit=$CUTLASS_COMMIT
cutlass_describe=$(git -C "$CUTLASS_GIT" describe --tags "$CUTLASS_COMMIT" 2>/dev/null || echo unknown)
flashmla_paths=${FLASHMLA_PATHS[*]}
cutlass_paths=${CUTLASS_PATHS[*]}
INFO

rm -rf "$DEST"
mv "$TMP" "$DEST"
trap - EXIT
chmod -R u+rwX,go+rX "$DEST"

echo "FlashMLA $FLASHMLA_FULL + CUTLASS $CUTLASS_COMMIT -> $DEST"
echo "files: $(find "$DEST" -type f | wc -l)"
echo "size:  $(du -sb "$DEST" | cut -f1) bytes ($(du -sh "$DEST" | cut -f1))"
