#!/bin/sh
# Stands in for tle-opt --tle-sync-plan: the partition table of a kernel
# whose second partition keeps the entry budget (no USETMAXREG).
cat <<'PLAN'
sync plan for @k
partitions: 3 warp groups, 384 threads, 60416 of 64512 registers
  partition  warps  first warp  registers  named barrier
  mma        4      0           240        1
  idle       4      4           168        2
  copy       4      8           40         3
pipes:
PLAN
