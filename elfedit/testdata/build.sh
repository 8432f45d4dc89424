#!/bin/sh
# Rebuilds lld-empty-btf.elf: a static executable linked by ld.lld with a
# linker script that, like the kernel's (include/asm-generic/vmlinux.lds.h),
# has a .BTF output section with __start_BTF/__stop_BTF but no .BTF input,
# so ld.lld leaves it allocated and empty (ld.bfd drops it). This is the
# shape of the .tmp_vmlinux.btf that kbuild hands to "pahole -J" in an
# LLVM=1 build. Needs clang-19 and lld-19 (Debian bookworm).
set -eu
cd "$(dirname "$0")"
CLANG=${CLANG:-clang-19}
LLD=${LLD:-ld.lld-19}
"$CLANG" -g -O2 -c -ffile-prefix-map="$PWD"=. -fno-stack-protector -fcf-protection=none lld.c -o lld.o
"$LLD" -T lld.lds lld.o -o lld-empty-btf.elf
rm -f lld.o
