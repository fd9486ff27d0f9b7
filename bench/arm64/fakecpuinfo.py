"""Write an arm64 /proc/cpuinfo for the emulated CPU this runs on (QEMU user mode 7.2 passes the
host's x86 /proc/cpuinfo through). Features come from AT_HWCAP and AT_HWCAP2; the MIDR fields from
the arguments. Usage (inside the root, under QEMU_CPU=...): fakecpuinfo.py IMPLEMENTER VARIANT PART
REVISION NCPUS
"""

import ctypes
import sys

# Linux's arch/arm64/kernel/cpuinfo.c names: HWCAP bits 0..31, then HWCAP2 bits 0..
HWCAP = [
    "fp",
    "asimd",
    "evtstrm",
    "aes",
    "pmull",
    "sha1",
    "sha2",
    "crc32",
    "atomics",
    "fphp",
    "asimdhp",
    "cpuid",
    "asimdrdm",
    "jscvt",
    "fcma",
    "lrcpc",
    "dcpop",
    "sha3",
    "sm3",
    "sm4",
    "asimddp",
    "sha512",
    "sve",
    "asimdfhm",
    "dit",
    "uscat",
    "ilrcpc",
    "flagm",
    "ssbs",
    "sb",
    "paca",
    "pacg",
]
HWCAP2 = [
    "dcpodp",
    "sve2",
    "sveaes",
    "svepmull",
    "svebitperm",
    "svesha3",
    "svesm4",
    "flagm2",
    "frint",
    "svei8mm",
    "svef32mm",
    "svef64mm",
    "svebf16",
    "i8mm",
    "bf16",
    "dgh",
    "rng",
    "bti",
    "mte",
    "ecv",
    "afp",
    "rpres",
    "mte3",
    "sme",
    "sme_i16i64",
    "sme_f64f64",
    "sme_i8i32",
    "sme_f16f32",
    "sme_b16f32",
    "sme_f32f32",
    "sme_fa64",
    "wfxt",
    "ebf16",
    "sve_ebf16",
    "cssc",
    "rprfm",
    "sve2p1",
    "sme2",
    "sme2p1",
    "sme_i16i32",
    "sme_bi32i32",
    "sme_b16b16",
    "sme_f16f16",
]


def main() -> None:
    libc = ctypes.CDLL(None)
    libc.getauxval.restype = ctypes.c_ulong
    first, second = libc.getauxval(16), libc.getauxval(26)  # AT_HWCAP, AT_HWCAP2
    features = [name for bit, name in enumerate(HWCAP) if first >> bit & 1]
    features += [name for bit, name in enumerate(HWCAP2) if second >> bit & 1]
    implementer, variant, part, revision, count = sys.argv[1:6]
    for i in range(int(count)):
        print(
            f"processor\t: {i}\nBogoMIPS\t: 50.00\nFeatures\t: {' '.join(features)}\n"
            f"CPU implementer\t: {implementer}\nCPU architecture: 8\nCPU variant\t: {variant}\n"
            f"CPU part\t: {part}\nCPU revision\t: {revision}\n"
        )


if __name__ == "__main__":
    main()
