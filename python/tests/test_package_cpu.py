# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The package as users get it: `import tle` without torch, and, where tle
is installed from the wheel, everything it needs inside it."""

import json
import os
import re
import subprocess
import sys
from importlib import metadata

import pytest

import tle
import tle.runtime as rt
from conftest import PYTHON

INSTALLED = not os.path.abspath(tle.__file__).startswith(PYTHON + os.sep)
needs_wheel = pytest.mark.skipif(not INSTALLED, reason="tle comes from the source "
                                 "folder, not from the wheel (test/python tests that)")


def _python(code):
    """Runs `code` in a new Python that finds this tle and no torch."""
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(tle.__file__)))
    prelude = "import sys; sys.modules['torch'] = None\n"
    return subprocess.run([sys.executable, "-c", prelude + code], env=env,
                          capture_output=True, text=True)


def test_import_without_torch():
    done = _python("import tle, tle.runtime, tle.bench, tle.gemm, tle.sparse_mla\n"
                   "import tle.attention\n"
                   "print(sorted(v.name for v in tle.sparse_mla.VARIANTS))\n"
                   "print(sorted(v.name for v in tle.attention.VARIANTS))")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == [
        "['naive', 'pipe', 'seesaw', 'seesaw_fp8', 'seesaw_k512']",
        "['fwd_d128', 'fwd_d128_causal', 'fwd_d64', 'fwd_d64_causal']"]


def test_sparse_mla_fwd_says_it_needs_torch():
    done = _python("import tle\ntle.sparse_mla_fwd")
    assert done.returncode != 0
    assert "ImportError: tle's SparseMLA call needs PyTorch" in done.stderr
    done = _python("import tle\ntle.attention_fwd")
    assert "ImportError: tle's attention call needs PyTorch" in done.stderr


def test_the_face():
    assert set(tle.__all__) == {"sparse_mla_fwd", "sparse_mla_decode", "attention_fwd",
                                "attention", "bench", "gemm", "runtime", "sparse_mla"}
    assert isinstance(tle.__version__, str)
    with pytest.raises(AttributeError, match="no attribute 'sparse_mla_fwd_typo'"):
        tle.sparse_mla_fwd_typo


@needs_wheel
def test_the_wheel_carries_the_library_and_kernels():
    assert os.path.isfile(rt.BUNDLED_LIBRARY)
    assert rt.find_library({}) == rt.BUNDLED_LIBRARY
    for variant in tle.sparse_mla.VARIANTS:
        path = variant.kernel_file()
        assert path.startswith(tle.sparse_mla.variants.KERNELS)
        kernel = rt.Metadata(os.path.splitext(path)[0] + ".json").kernel()
        # q, kv, indices, out, max_logits, lse, sm_scale, attn_sink,
        # topk_length, and out_map for the kernels with TMA stores
        kinds = ("memref",) * 6 + ("f32",) + ("memref",) * 2
        if variant.name.startswith("seesaw"):
            kinds += ("tensor_map",)
        assert tuple(arg.kind for arg in kernel.signature) == kinds, variant.name
        # q and kv of the variant's d_qk (kv of the FP8 cache: its 656-byte
        # tokens), each with free strides but the last.
        kv_columns = 656 if variant.kv_format == "v32" else variant.d_qk
        assert kernel.signature[0].sizes[-1] == variant.d_qk
        assert kernel.signature[1].sizes[-1] == kv_columns
        assert kernel.signature[1].strides == kernel.signature[2].strides == (-1, -1, -1, 1)
        with open(os.path.splitext(path)[0] + ".ptx") as f:
            assert ".target sm_90a" in f.read()
    # The decode kernels (decode_kernels.json): the split kernels' q, kv
    # (bf16 rows or the FP8 cache), indices, o_acc, lse_acc, sm_scale,
    # topk_length; the combine's o_acc, lse_acc, attn_sink, out, lse.
    split_kinds = ("memref",) * 5 + ("f32", "memref")
    decode_kinds = {"seesaw_decode": split_kinds, "seesaw_decode_fp8": split_kinds,
                    "combine": ("memref",) * 5}
    with open(os.path.join(os.path.dirname(tle.sparse_mla.variants.__file__),
                           "decode_kernels.json")) as f:
        names = [entry["name"] for entry in json.load(f)]
    assert sorted(names) == sorted(decode_kinds)
    for name in names:
        path = tle.sparse_mla.Variant(name, 576, 64, 64).kernel_file()
        kernel = rt.Metadata(os.path.splitext(path)[0] + ".json").kernel()
        assert tuple(arg.kind for arg in kernel.signature) == decode_kinds[name], name
        if name.startswith("seesaw_decode"):
            kv_columns = 656 if name.endswith("_fp8") else 576
            assert kernel.signature[1].sizes[-1] == kv_columns, name
    # q, k, v and out as tensor maps, lse, sm_scale, S_k, H_kv.
    for variant in tle.attention.VARIANTS:
        path = variant.kernel_file()
        assert path.startswith(tle.attention.variants.KERNELS)
        kernel = rt.Metadata(os.path.splitext(path)[0] + ".json").kernel()
        assert tuple(arg.kind for arg in kernel.signature) == (
            ("tensor_map",) * 4 + ("memref", "f32", "index", "index"))
        assert kernel.persistent == variant.persistent, variant.name


@needs_wheel
def test_the_wheel_fits_any_python_3():
    """cp39-abi3 with tle._launch (limited API 3.9), py3-none without; the
    platform a manylinux policy (or plain linux where none fits)."""
    wheel = metadata.distribution("tle-mlir").read_text("WHEEL")
    tags = [line.split(": ")[1] for line in wheel.splitlines() if line.startswith("Tag")]
    launch = os.path.exists(os.path.join(os.path.dirname(tle.__file__), "_launch.abi3.so"))
    expected = r"cp39-abi3-" if launch else r"py3-none-"
    platform = r"(manylinux_2_\d+|linux)_x86_64"
    assert len(tags) == 1 and re.fullmatch(expected + platform, tags[0]), wheel


@needs_wheel
def test_the_version_counts_the_commits():
    """The wheel's version is 0.2.N, N the commits it was built from, and
    tle.__version__ says the same without asking git."""
    version = metadata.version("tle-mlir")
    assert re.fullmatch(r"\d+\.\d+\.\d+", version), version
    assert tle.__version__ == version
    from tle import _version
    assert _version.VERSION == version
