#!/usr/bin/env bash
# Measures what honest compressed debug sections claim, for the bound
# elffile.Limits.MaxInflation puts on them (docs/threat-model.md): each
# corpus file (the kernel and its modules) is compressed with
# `objcopy --compress-debug-sections=zlib|zstd`, and for each result this
# prints the file's size, the decompressed sizes its compressed sections
# claim (added up, and as a multiple of the file's size: what the limit
# bounds) and the largest claim of one section over its compressed size.
#   scripts/inflation.sh [FILE...]     default: the corpus (unpacked by the tests)
set -euo pipefail
cache=${BTFGATE_CACHE:-$HOME/.cache/btfgate/corpus}
shared=${BTFGATE_SHARED:-$(cd "$(dirname "$0")/../.." && pwd)/shared}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  for z in "$shared"/corpus/vmlinux-*.zst "$shared"/corpus/modules/*.zst; do
    name=$(basename "$z" .zst)
    if [ -f "$cache/$name" ]; then files+=("$cache/$name"); else zstd -q -d "$z" -o "$tmp/$name"; files+=("$tmp/$name"); fi
  done
fi
printf '%-40s %-5s %12s %12s %8s %8s  %s\n' file algo bytes claimed x-file max-x section
for f in "${files[@]}"; do
  for algo in zlib zstd; do
    out=$tmp/$(basename "$f").$algo
    objcopy --compress-debug-sections=$algo "$f" "$out"
    size=$(stat -c %s "$out")
    # readelf -t: a section's line "[ N] NAME", then its type and sizes
    # (the 4th field sh_size, hex), then flags, then "ZLIB, CH_SIZE, ALIGN".
    readelf -tW "$out" | awk -v size="$size" -v file="$(basename "$f")" -v algo=$algo '
      function hex(s,   i, v) { v = 0; for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", tolower(substr(s, i, 1))) - 1; return v }
      /^  \[ *[0-9]+\]/ { name = $NF; next }
      name != "" && $1 ~ /^[A-Z_]+$/ && NF >= 6 && !/,/ { shsize = hex($4); next }
      /^ +(ZLIB|ZSTD),/ {
        ch = hex(substr($2, 1, length($2) - 1)); claimed += ch
        if (shsize > 0 && ch / shsize > maxx) { maxx = ch / shsize; maxname = name }
      }
      END { printf "%-40s %-5s %12d %12d %8.2f %8.1f  %s\n", file, algo, size, claimed, claimed / size, maxx, maxname }'
    rm -f "$out"
  done
done
