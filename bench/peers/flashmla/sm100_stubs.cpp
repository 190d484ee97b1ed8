// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Definitions of the sm100 (Blackwell) entry points that FlashMLA's binding
// (csrc/api/api.cpp, 9241ae3) references, for the sm90-only peer build:
// FlashMLA's own api.cpp and Python interface are used unchanged, and every
// call that would reach an sm100 kernel raises instead. On an H200 none of
// these is reached (the dispatch picks the sm90 kernels); they only satisfy
// the linker. The signatures are the declarations in FlashMLA's headers, so
// the symbols (explicit instantiations) match those its sm100 .cu files
// would have provided.

#include <ATen/Tensor.h>
#include <c10/util/Exception.h>

#include "params.h"

#include "sm100/decode/head64/kernel.h"
#include "sm100/prefill/dense/interface.h"
#include "sm100/prefill/sparse/fwd/head128/phase1.h"
#include "sm100/prefill/sparse/fwd/head64/phase1.h"
#include "sm100/prefill/sparse/fwd_for_small_topk/head128/phase1.h"

namespace {

[[noreturn]] void not_built(const char *what) {
  TORCH_CHECK(false, "FlashMLA ", what,
              ": not built: sm100 kernels are left out of this peer build "
              "(TLE bench/peers/flashmla builds the sm90a kernels only)");
}

} // namespace

namespace sm100::fwd::head64 {
template <int D_QK> void run_fwd_phase1_kernel(const SparseAttnFwdParams &) {
  not_built("sm100 sparse prefill (head64)");
}
template void run_fwd_phase1_kernel<512>(const SparseAttnFwdParams &);
template void run_fwd_phase1_kernel<576>(const SparseAttnFwdParams &);
} // namespace sm100::fwd::head64

namespace sm100::fwd::head128 {
template <int D_QK> void run_fwd_phase1_kernel(const SparseAttnFwdParams &) {
  not_built("sm100 sparse prefill (head128)");
}
template void run_fwd_phase1_kernel<512>(const SparseAttnFwdParams &);
template void run_fwd_phase1_kernel<576>(const SparseAttnFwdParams &);
} // namespace sm100::fwd::head128

namespace sm100::fwd_for_small_topk::head128 {
template <SparseAttnFwdMode FWD_MODE, int D_QK>
void run_fwd_for_small_topk_phase1_kernel(const SparseFwdArgT<FWD_MODE> &) {
  not_built("sm100 small-topk sparse attention (head128)");
}
template void
run_fwd_for_small_topk_phase1_kernel<SparseAttnFwdMode::Prefill, 512>(
    const SparseFwdArgT<SparseAttnFwdMode::Prefill> &);
template void
run_fwd_for_small_topk_phase1_kernel<SparseAttnFwdMode::DecodeWithSplitKV, 512>(
    const SparseFwdArgT<SparseAttnFwdMode::DecodeWithSplitKV> &);
} // namespace sm100::fwd_for_small_topk::head128

namespace sm100::decode::head64 {
template <ModelType MODEL_TYPE>
void run_flash_splitkv_mla_fp8_sparse_kernel(const SparseAttnDecodeParams &) {
  not_built("sm100 sparse FP8 decode (head64)");
}
template void run_flash_splitkv_mla_fp8_sparse_kernel<ModelType::V32>(
    const SparseAttnDecodeParams &);
template void run_flash_splitkv_mla_fp8_sparse_kernel<ModelType::MODEL1>(
    const SparseAttnDecodeParams &);
} // namespace sm100::decode::head64

void FMHACutlassSM100FwdRun(at::Tensor, at::Tensor, at::Tensor, at::Tensor,
                            at::Tensor, at::Tensor, at::Tensor, at::Tensor, int,
                            float, int, int, bool) {
  not_built("dense prefill (sm100 only)");
}

void FMHACutlassSM100BwdRun(at::Tensor, at::Tensor, at::Tensor, at::Tensor,
                            at::Tensor, at::Tensor, at::Tensor, at::Tensor,
                            at::Tensor, at::Tensor, at::Tensor, at::Tensor, int,
                            float, int, int, bool) {
  not_built("dense prefill backward (sm100 only)");
}
