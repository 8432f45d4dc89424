#!/usr/bin/env bash
# Builds btfgate and encodes a kernel, printing a summary.
#   scripts/encode.sh            encode the corpus kernel (../shared/corpus)
#   scripts/encode.sh VMLINUX    encode the kernel you name
# The BTF goes to ${OUT:-/tmp/btfgate-vmlinux.btf}; extra flags for
# `btfgate encode` can be given in BTFGATE_FLAGS (e.g. "--features=default -j2").
set -euo pipefail
cd "$(dirname "$0")/.."
CGO_ENABLED=0 go build -buildvcs=auto -o bin/btfgate ./cmd/btfgate # static: no libc to load; the commit for "btfgate version"

kernel=${1:-}
if [ -z "$kernel" ]; then
  . scripts/lib/corpus.sh
  kernel=$(corpus_unpacked corpus/vmlinux-6.1.0-57-amd64.norela) || exit 2
fi
out=${OUT:-/tmp/btfgate-vmlinux.btf}
# shellcheck disable=SC2086
bin/btfgate encode ${BTFGATE_FLAGS:-} -o "$out" "$kernel"
