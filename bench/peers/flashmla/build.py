# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Build FlashMLA's sm90a kernels (commit 9241ae3) as a PyTorch extension,
offline, on the GPU machine, and check them.

    python3 bench/peers/flashmla/build.py --src .device/flashmla-src \\
        --out .device/flashmla-build

--src is what extract.sh wrote (FlashMLA's csrc subset, its Python
interface, CUTLASS's headers). The output folder then holds

    flash_mla/            FlashMLA's package: its __init__.py and
                          flash_mla_interface.py, unchanged, and cuda.so,
                          the extension (imported as flash_mla.cuda)
    tle_flashmla_peer.py  our module the benchmark imports (sparse_fwd,
                          flash_mla_with_kvcache, get_mla_metadata)
    tle_flashmla_check.py the check run after the build
    BUILD_INFO.json       commits, flags, versions, build times
    build/                torch.utils.cpp_extension's ninja build

and the benchmark finds it by --flashmla-peer OUT or $TLE_FLASHMLA_PEER=OUT.

The extension is FlashMLA's own binding (csrc/api/api.cpp) over its sm90
kernels, the arch-neutral decode helpers, and sm100_stubs.cpp (ours) in
place of the sm100 kernels, which raise "not built" if ever reached. Flags
are those of FlashMLA's setup.py for sm90a, with fp16 dense decode left out
(-DFLASH_MLA_DISABLE_FP16) and without ptxas's -v. MAX_JOBS (default 16)
compilations run in parallel.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# FlashMLA's translation units for the sm90 entry points; paths under csrc/.
SOURCES = [
    "api/api.cpp",
    "smxx/decode/get_decoding_sched_meta/get_decoding_sched_meta.cu",
    "smxx/decode/combine/combine.cu",
    "sm90/decode/dense/instantiations/bf16.cu",
    "sm90/decode/sparse_fp8/instantiations/v32_persistent_h64.cu",
    "sm90/decode/sparse_fp8/instantiations/v32_persistent_h128.cu",
    "sm90/decode/sparse_fp8/instantiations/model1_persistent_h64.cu",
    "sm90/decode/sparse_fp8/instantiations/model1_persistent_h128.cu",
    "sm90/prefill/sparse/instantiations/phase1_k512.cu",
    "sm90/prefill/sparse/instantiations/phase1_k512_topklen.cu",
    "sm90/prefill/sparse/instantiations/phase1_k576.cu",
    "sm90/prefill/sparse/instantiations/phase1_k576_topklen.cu",
]
# Ours: definitions of the sm100 entry points api.cpp's headers declare.
OUR_SOURCES = [os.path.join(HERE, "sm100_stubs.cpp")]

FEATURES = ["-DFLASH_MLA_DISABLE_FP16"]
CXX_FLAGS = ["-O3", "-std=c++20", "-DNDEBUG", "-Wno-deprecated-declarations"] + FEATURES
NVCC_FLAGS = [
    "-O3", "-std=c++20", "-DNDEBUG", "-D_USE_MATH_DEFINES",
    "-Wno-deprecated-declarations",
    "-U__CUDA_NO_HALF_OPERATORS__", "-U__CUDA_NO_HALF_CONVERSIONS__",
    "-U__CUDA_NO_HALF2_OPERATORS__", "-U__CUDA_NO_BFLOAT16_CONVERSIONS__",
    "--expt-relaxed-constexpr", "--expt-extended-lambda", "--use_fast_math",
    "--ptxas-options=--register-usage-level=10,--warn-on-spills,"
    "--warn-on-local-memory-usage,--warn-on-double-precision-use",
    "-lineinfo",
] + FEATURES + ["-gencode", "arch=compute_90a,code=sm_90a"]


def include_dirs(src):
    """FlashMLA's include paths (its setup.py's)."""
    csrc = os.path.join(src, "csrc")
    return [csrc,
            os.path.join(csrc, "kerutils", "include"),
            os.path.join(csrc, "sm90"),
            os.path.join(csrc, "cutlass", "include"),
            os.path.join(csrc, "cutlass", "tools", "util", "include")]


def cxx_flags(cuda_home):
    """CXX_FLAGS, and CUDA 13's CCCL folder for the host compiler: nvcc finds
    <cuda/std/...> there by itself, g++ compiling api.cpp and the stubs
    (which include CUTLASS headers) does not."""
    for cccl in (os.path.join(cuda_home, "include", "cccl"),
                 os.path.join(cuda_home, "targets", "x86_64-linux", "include", "cccl")):
        if os.path.isdir(cccl):
            return CXX_FLAGS + [f"-I{cccl}"]
    return CXX_FLAGS


def read_extracted(src):
    info = {}
    try:
        with open(os.path.join(src, "EXTRACTED.txt")) as f:
            for line in f:
                key, sep, value = line.rstrip("\n").partition("=")
                if sep:
                    info[key] = value
    except OSError:
        pass
    return info


def nvcc_version(cuda_home):
    try:
        out = subprocess.run([os.path.join(cuda_home, "bin", "nvcc"), "--version"],
                             capture_output=True, text=True, check=True).stdout
        return out.split("release ")[1].split(",")[0].strip()
    except (OSError, IndexError, subprocess.CalledProcessError):
        return None


def ninja_times(build_dir, since_ms=None):
    """{output: seconds} of the last ninja run's edges, from .ninja_log."""
    times = {}
    try:
        with open(os.path.join(build_dir, ".ninja_log")) as f:
            for line in f:
                if line.startswith("#"):
                    continue
                parts = line.split("\t")
                if len(parts) >= 4:
                    start, end, output = int(parts[0]), int(parts[1]), parts[3]
                    times[output] = (end - start) / 1000.0
    except (OSError, ValueError):
        pass
    return times


def build(src, out, jobs, verbose):
    import torch
    from torch.utils import cpp_extension

    if cpp_extension.CUDA_HOME is None:
        sys.exit("build.py: no CUDA toolkit found (set CUDA_HOME)")
    if not cpp_extension.is_ninja_available():
        sys.exit("build.py: ninja is required by torch.utils.cpp_extension (pip install ninja)")
    csrc = os.path.join(src, "csrc")
    sources = [os.path.join(csrc, s) for s in SOURCES] + OUR_SOURCES
    missing = [s for s in sources if not os.path.isfile(s)]
    if missing:
        sys.exit("build.py: missing sources (run extract.sh first):\n  " + "\n  ".join(missing))

    build_dir = os.path.join(out, "build")
    os.makedirs(build_dir, exist_ok=True)
    # A build killed midway (a time limit) leaves torch's lock file behind,
    # and the next load() would wait on it forever; ninja resumes the rest.
    lock = os.path.join(build_dir, "lock")
    if os.path.exists(lock):
        print(f"removing a stale lock from an interrupted build: {lock}")
        os.remove(lock)
    os.environ["MAX_JOBS"] = str(jobs)
    print(f"building FlashMLA sm90a peer: {len(sources)} translation units, "
          f"MAX_JOBS={jobs}, nvcc {nvcc_version(cpp_extension.CUDA_HOME)} "
          f"({cpp_extension.CUDA_HOME}), torch {torch.__version__}", flush=True)
    t0 = time.time()
    # The module is named "cuda" so that its init function is PyInit_cuda:
    # FlashMLA's interface imports it as flash_mla.cuda.
    cpp_extension.load(
        name="cuda",
        sources=sources,
        extra_cflags=cxx_flags(cpp_extension.CUDA_HOME),
        extra_cuda_cflags=NVCC_FLAGS,
        extra_include_paths=include_dirs(src),
        build_directory=build_dir,
        verbose=verbose,
        with_cuda=True,
    )
    seconds = time.time() - t0
    print(f"build time: {seconds:.1f} s", flush=True)
    return build_dir, seconds


def install(src, out, build_dir, seconds):
    """Lay out the importable peer in out/ from the build and the sources."""
    pkg = os.path.join(out, "flash_mla")
    os.makedirs(pkg, exist_ok=True)
    for name in ("__init__.py", "flash_mla_interface.py"):
        shutil.copyfile(os.path.join(src, "flash_mla", name), os.path.join(pkg, name))
    so = os.path.join(build_dir, "cuda.so")
    tmp = os.path.join(pkg, ".cuda.so.tmp")
    shutil.copyfile(so, tmp)
    os.replace(tmp, os.path.join(pkg, "cuda.so"))
    shutil.copyfile(os.path.join(HERE, "tle_flashmla_peer.py"),
                    os.path.join(out, "tle_flashmla_peer.py"))
    shutil.copyfile(os.path.join(HERE, "check.py"), os.path.join(out, "tle_flashmla_check.py"))

    import torch
    from torch.utils import cpp_extension
    extracted = read_extracted(src)
    info = {
        "flashmla_commit": extracted.get("flashmla_commit"),
        "cutlass_commit": extracted.get("cutlass_commit"),
        "sources": SOURCES + ["<tle>/bench/peers/flashmla/sm100_stubs.cpp"],
        "cxx_flags": cxx_flags(cpp_extension.CUDA_HOME),
        "nvcc_flags": NVCC_FLAGS,
        "torch": torch.__version__,
        "nvcc": nvcc_version(cpp_extension.CUDA_HOME),
        "python": sys.version.split()[0],
        "max_jobs": int(os.environ.get("MAX_JOBS", "0")),
        "build_seconds": round(seconds, 1),
        "unit_seconds": ninja_times(build_dir),
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    with open(os.path.join(out, "BUILD_INFO.json"), "w") as f:
        json.dump(info, f, indent=1)
    units = sorted(info["unit_seconds"].items(), key=lambda kv: -kv[1])
    if units:
        print("per unit (s, from ninja's log; includes reused ones):")
        for name, s in units:
            print(f"  {s:7.1f}  {name}")
    print(f"peer: {out} (flash_mla/cuda.so {os.path.getsize(os.path.join(pkg, 'cuda.so')) / 2**20:.1f} MiB)")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", default=".device/flashmla-src", help="extract.sh's output")
    ap.add_argument("--out", default=".device/flashmla-build", help="the peer folder to write")
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("MAX_JOBS", "16")),
                    help="parallel compilations (default $MAX_JOBS or 16)")
    ap.add_argument("--verbose", action="store_true", help="show the ninja build's output")
    ap.add_argument("--no-check", action="store_true", help="build only (no GPU needed)")
    ap.add_argument("--check-only", action="store_true", help="run the check of an existing build")
    args = ap.parse_args(argv)
    src, out = os.path.abspath(args.src), os.path.abspath(args.out)

    if not args.check_only:
        build_dir, seconds = build(src, out, args.jobs, args.verbose)
        install(src, out, build_dir, seconds)
    if args.no_check:
        return 0
    # A fresh process, as the benchmark would import the peer.
    check = os.path.join(out, "tle_flashmla_check.py")
    return subprocess.run([sys.executable, check]).returncode


if __name__ == "__main__":
    sys.exit(main())
