"""Print the AT_HWCAP and AT_HWCAP2 features that (emulated) aarch64 Linux reports to this process."""

import ctypes

FIRST = {0: "fp", 1: "asimd", 8: "atomics", 9: "fphp", 10: "asimdhp", 11: "cpuid", 12: "asimdrdm", 20: "asimddp"}
SECOND = {1: "sve2", 13: "i8mm", 14: "bf16", 23: "sme"}

libc = ctypes.CDLL(None)
libc.getauxval.restype = ctypes.c_ulong
first, second = libc.getauxval(16), libc.getauxval(26)
names = [n for b, n in FIRST.items() if first >> b & 1] + [n for b, n in SECOND.items() if second >> b & 1]
print(hex(first), hex(second), " ".join(names))
