#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A stand-in for tle-run in test/utils/tle-sh-run.test: --probe finds a
# device unless $FAKE_NO_DEVICE is set; a run prints its arguments and
# fails the check of $FAKE_FAIL (a kernel file name).
if [ "$1" = --probe ]; then
  if [ -n "$FAKE_NO_DEVICE" ]; then
    echo "tle-run: no CUDA device: no CUDA driver (libcuda.so.1) on this machine" >&2
    exit 2
  fi
  echo "NVIDIA H200 (sm_90, 132 SMs, driver 13.0)"
  exit 0
fi
echo "tle-run $*"
case "$1" in
  *"$FAKE_FAIL") [ -n "$FAKE_FAIL" ] && exit 1 ;;
esac
exit 0
