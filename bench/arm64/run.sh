#!/bin/bash
# Re-run the embedder (bench.cpus) on emulated aarch64 CPUs, one run at a time.
# Needs: the arm64 bookworm root at $R (see README.md beside this script), binfmt for aarch64
# (qemu-user-static + binfmt-support: `update-binfmts --enable qemu-aarch64`), run as root.
# Usage: [MODE=cpuinfo|hwcap] [OUT=dir] bench/arm64/run.sh [CPU ...]   (default CPUs: cortex-a53 cortex-a76 neoverse-n1 max)
# MODE=cpuinfo (default): a fake /sys/devices/system/cpu/{possible,present} and an arm64 /proc/cpuinfo
#   (Features from the emulated HWCAPs) are mounted in the root, so ONNX Runtime's cpuinfo library
#   initialises as on real hardware (it then also sees SME, which gates the KleidiAI DynamicQuantizeMatMul).
# MODE=hwcap: neither is there, cpuinfo_initialize fails and ONNX Runtime falls back to getauxval
#   (dot product, i8mm, bf16 only: SME is then never detected).
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$REPO/bench/arm64
R=${R:-/var/tmp/remember-arm64/root}
MODE=${MODE:-cpuinfo}
OUT=${OUT:-/tmp/arm/results}
declare -A MIDR=([cortex-a53]="0x41 0x0 0xd03 4" [cortex-a76]="0x41 0x4 0xd0b 1" [neoverse-n1]="0x41 0x4 0xd0c 1" [max]="0x00 0x0 0x051 0")
CPUS=("$@"); [ ${#CPUS[@]} -gt 0 ] || CPUS=(cortex-a53 cortex-a76 neoverse-n1 max)
mkdir -p "$OUT"
# refresh the project's code in the root (read-only copy of $REPO's work tree)
rm -rf "$R/opt/remember" && mkdir -p "$R/opt/remember/tests/search/data"
cp -a $REPO/src $REPO/bench "$R/opt/remember/"
cp $REPO/tests/search/data/minilm_reference.json "$R/opt/remember/tests/search/data/"
$REPO/.venv/bin/python -c "import json; print(json.dumps(json.load(open('$REPO/tests/search/data/minilm_reference.json'))['sentences']))" > "$R/opt/texts.json"
cp $HERE/hwcap.py "$R/opt/hwcap.py"
mountpoint -q "$R/proc" || mount -t proc proc "$R/proc"
cp $HERE/fakecpuinfo.py "$R/opt/fakecpuinfo.py"
mountpoint -q "$R/proc/cpuinfo" && umount "$R/proc/cpuinfo"
mountpoint -q "$R/sys" && umount "$R/sys"
if [ "$MODE" = cpuinfo ]; then
  mkdir -p ${R%/root}/fakesys/devices/system/cpu/cpu0 ${R%/root}/fakesys/devices/system/cpu/cpu1 ${R%/root}/fake
  echo 0-1 > ${R%/root}/fakesys/devices/system/cpu/possible; echo 0-1 > ${R%/root}/fakesys/devices/system/cpu/present
  mount --bind ${R%/root}/fakesys "$R/sys"
  trap 'mountpoint -q "$R/proc/cpuinfo" && umount "$R/proc/cpuinfo"; umount "$R/sys"' EXIT
fi
mkdir -p "$R/opt/out"
inside() {  # run a command in the root on emulated CPU $1 (QEMU_CPU must survive env -i: each exec starts a new qemu), one core, niced
  local cpu=$1; shift
  QEMU_CPU=$cpu taskset -c 1 nice -n 10 chroot "$R" /usr/bin/env -i QEMU_CPU=$cpu PATH=/usr/bin:/bin HOME=/root \
    PYTHONPATH=/opt/remember/src:/opt/remember OMP_NUM_THREADS=1 "$@"
}
for cpu in "${CPUS[@]}"; do
  echo "== $cpu (MODE=$MODE)"
  if [ "$MODE" = cpuinfo ]; then
    mountpoint -q "$R/proc/cpuinfo" && umount "$R/proc/cpuinfo"
    inside "$cpu" /usr/bin/python3 /opt/fakecpuinfo.py ${MIDR[$cpu]:-0x00 0x0 0x000 0} 2 > ${R%/root}/fake/cpuinfo-$cpu
    mount --bind ${R%/root}/fake/cpuinfo-$cpu "$R/proc/cpuinfo"
  fi
  inside "$cpu" /usr/bin/python3 /opt/hwcap.py | tee "$OUT/$cpu-hwcap.txt"
  (cd / && inside "$cpu" /opt/venv/bin/python -c \
    "from remember.search.embedders.int8_kernel import probe; print(probe('signed'), probe('unsigned'))") \
    > "$OUT/$cpu-probe.txt" 2> "$OUT/$cpu-probe.err" || echo "probe exit $?" >> "$OUT/$cpu-probe.txt"
  echo "probe(signed), probe(unsigned): $(cat "$OUT/$cpu-probe.txt")"
  for products in auto signed unsigned float; do
    start=$SECONDS
    if (cd / && inside "$cpu" /bin/sh -c "cd /opt/remember && exec /opt/venv/bin/python -m bench.cpus $products /opt/texts.json /opt/out/$cpu-$products") \
        2> "$OUT/$cpu-$products.err"; then
      cp "$R/opt/out/$cpu-$products.npy" "$R/opt/out/$cpu-$products.json" "$OUT/"
      echo "$products: ran $(cat "$OUT/$cpu-$products.json") in $((SECONDS-start)) s"
    else
      echo "$products: FAILED (exit $?), see $OUT/$cpu-$products.err"
    fi
  done
done
