#!/usr/bin/env bash
# Benchmarks `btfgate encode` against Debian's pahole on the corpus kernel
# (and ext4.ko as split BTF): wall time, CPU time (user+sys) and peak RSS
# of the whole process under /usr/bin/time, median of N alternating runs,
# and the ratios btfgate/pahole.
#
#   scripts/bench.sh [-n N] [--kernel PATH] [--no-modules] [--pahole-only]
#                    [--json FILE] [--keep DIR]
#
#   -n N            runs per command (default 3); commands alternate per round
#   --kernel PATH   vmlinux to encode instead of the corpus kernel
#   --no-modules    skip the ext4.ko split-BTF rows
#   --pahole-only   time pahole only (btfgate is neither built nor run)
#   --json FILE     also write the medians and ratios as JSON to FILE
#   --keep DIR      keep the built binary, outputs and logs in DIR
#
# The corpus comes from ${BTFGATE_SHARED:-../shared}; compressed files are
# unpacked once into ${BTFGATE_CACHE:-~/.cache/btfgate/corpus} with the same
# .stamp files that internal/corpus writes, so tests and this script share
# them. Debian's pahole 1.24 (package dwarves) stands in for the reference
# pahole: the reference README measures them at the same speed.
# Exits non-zero, naming the command, when any run fails.
set -euo pipefail

die() {
  echo "bench: $*" >&2
  exit 1
}

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }

runs=3
kernel=
modules=1
pahole_only=0
json_out=
keep=
while [ $# -gt 0 ]; do
  case $1 in
  -n) [ $# -ge 2 ] || die "-n needs a number"; runs=$2; shift 2 ;;
  -n*) runs=${1#-n}; shift ;;
  --kernel) [ $# -ge 2 ] || die "--kernel needs a path"; kernel=$2; shift 2 ;;
  --kernel=*) kernel=${1#--kernel=}; shift ;;
  --no-modules) modules=0; shift ;;
  --pahole-only) pahole_only=1; shift ;;
  --json) [ $# -ge 2 ] || die "--json needs a file"; json_out=$2; shift 2 ;;
  --json=*) json_out=${1#--json=}; shift ;;
  --keep) [ $# -ge 2 ] || die "--keep needs a directory"; keep=$2; shift 2 ;;
  --keep=*) keep=${1#--keep=}; shift ;;
  -h | --help) usage; exit 0 ;;
  *) usage >&2; die "unknown argument: $1" ;;
  esac
done
case $runs in
'' | *[!0-9]* | 0) die "-n wants a positive whole number, got '$runs'" ;;
esac

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
shared=${BTFGATE_SHARED:-$(dirname "$repo")/shared}
ref=$shared/reference/pahole-1.31
cache=${BTFGATE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/btfgate/corpus}

# install_pkg PKG: installs a Debian package when running as root.
install_pkg() {
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    die "$1 is missing; install the Debian package $1 (needs root)"
  fi
  echo "bench: installing $1" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq "$1" >/dev/null 2>&1 ||
    { apt-get update -qq >/dev/null && apt-get install -y -qq "$1" >/dev/null; } ||
    die "apt-get install $1 failed"
}

command -v pahole >/dev/null || install_pkg dwarves
[ -x /usr/bin/time ] || install_pkg time
command -v zstd >/dev/null || install_pkg zstd
command -v pahole >/dev/null || die "pahole still missing after installing dwarves"

# unpacked REL: the cached, unpacked copy of $shared/REL.zst. The stamp
# holds the source's size and mtime in nanoseconds, as internal/corpus has it.
unpacked() {
  local src=$shared/$1.zst dst
  dst=$cache/$(basename "$1")
  [ -f "$src" ] || die "no corpus file $src (set BTFGATE_SHARED, or use --kernel / --no-modules)"
  local stamp
  stamp="$(stat -c %s "$src") $(date -r "$src" +%s%N)"
  if [ -f "$dst" ] && [ -f "$dst.stamp" ] && [ "$(cat "$dst.stamp")" = "$stamp" ]; then
    echo "$dst"
    return
  fi
  echo "bench: unpacking $src" >&2
  mkdir -p "$cache"
  zstd -q -d -f "$src" -o "$dst.tmp.$$" || die "unpacking $src failed"
  mv "$dst.tmp.$$" "$dst"
  printf '%s' "$stamp" >"$dst.stamp"
  echo "$dst"
}

[ -n "$kernel" ] || kernel=$(unpacked corpus/vmlinux-6.1.0-57-amd64.norela)
[ -r "$kernel" ] || die "cannot read kernel $kernel"
if [ "$modules" = 1 ]; then
  module=$(unpacked corpus/modules/ext4.ko)
  base_btf=$ref/amd64.default.btf
  [ -f "$base_btf" ] || die "no base BTF $base_btf for the module rows (use --no-modules)"
fi

if [ -n "$keep" ]; then
  mkdir -p "$keep"
  work=$(cd "$keep" && pwd)
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/btfgate-bench.XXXXXX")
  trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work/times" "$work/out" "$work/logs"

btfgate=$work/btfgate
summary=0
base_ok=0
if [ "$pahole_only" = 0 ]; then
  echo "bench: building btfgate" >&2
  (cd "$repo" && go build -o "$btfgate" ./cmd/btfgate) || die "go build ./cmd/btfgate failed"
  help=$("$btfgate" encode --help 2>&1) || die "btfgate encode --help failed: $help"
  case $help in *--summary*json*) summary=1 ;; esac
  case $help in *--btf_base*) base_ok=1 ;; esac
  command -v jq >/dev/null || summary=0
fi

# Rows: "label|target|tool|command words" (words are split on spaces, so
# paths with spaces are refused).
for p in "$kernel" "$work" "${module:-}" "$ref"; do
  case $p in *' '*) die "paths with spaces are not supported: $p" ;; esac
done
sum_flag=
[ "$summary" = 1 ] && sum_flag=--summary=json
rows=()
if [ "$pahole_only" = 0 ]; then
  rows+=("btfgate -j2 vmlinux|vmlinux|btfgate|$btfgate encode --features=default -j2 $sum_flag -o $work/out/btfgate-j2.btf $kernel")
  rows+=("btfgate -j1 vmlinux|vmlinux|btfgate|$btfgate encode --features=default -j1 $sum_flag -o $work/out/btfgate-j1.btf $kernel")
fi
rows+=("pahole -j2 vmlinux|vmlinux|pahole|pahole -J -j2 --btf_encode_detached=$work/out/pahole-j2.btf $kernel")
if [ "$modules" = 1 ]; then
  if [ "$pahole_only" = 0 ]; then
    if [ "$base_ok" = 1 ]; then
      rows+=("btfgate ext4.ko|ext4.ko|btfgate|$btfgate encode --features=default $sum_flag --btf_base $base_btf -o $work/out/btfgate-ext4.btf $module")
    else
      rows+=("btfgate ext4.ko|ext4.ko|btfgate|n/a")
    fi
  fi
  rows+=("pahole -j2 ext4.ko|ext4.ko|pahole|pahole -J -j2 --btf_base $base_btf --btf_encode_detached=$work/out/pahole-ext4.btf $module")
fi

slug() { echo "$1" | tr -c 'A-Za-z0-9\n' '_'; }

# run ROUND ROW: one timed run; records "wall cpu rss_kib" and, for btfgate
# with --summary=json, "phase seconds" lines.
run() {
  local round=$1 label target tool cmd
  IFS='|' read -r label target tool cmd <<<"$2"
  [ "$cmd" = n/a ] && return
  local s log tf out
  s=$(slug "$label")
  log=$work/logs/$s.$round
  tf=$work/times/$s.time
  out=$(echo "$cmd" | sed -n 's/.*\(-o \|--btf_encode_detached=\)\([^ ]*\).*/\2/p')
  rm -f "$out"
  local -a argv
  read -r -a argv <<<"$cmd"
  local rc=0
  /usr/bin/time -f '%e %U %S %M' -o "$log.time" "${argv[@]}" >"$log.out" 2>"$log.err" || rc=$?
  if [ "$rc" != 0 ]; then
    echo "bench: run $round of '$label' failed (exit $rc): $cmd" >&2
    tail -n 20 "$log.err" >&2
    exit 1
  fi
  # pahole reports some encoder errors and still exits 0, writing nothing.
  if [ ! -s "$out" ]; then
    echo "bench: run $round of '$label' exited 0 but wrote no output $out: $cmd" >&2
    tail -n 20 "$log.err" "$log.out" >&2
    exit 1
  fi
  tail -n 1 "$log.time" | awk '{ printf "%s %.3f %s\n", $1, $2 + $3, $4 }' >>"$tf"
  if [ "$tool" = btfgate ] && [ "$summary" = 1 ]; then
    # The summary goes to stderr today; take it from whichever stream has it.
    local f
    for f in "$log.out" "$log.err"; do
      grep -q '^[{]' "$f" || continue
      awk '/^[{]/{p=1} p' "$f" |
        jq -r '.phases[] | "\(.name | gsub("[^A-Za-z0-9_.-]"; "_")) \(.seconds)"' >>"$work/times/$s.phases" ||
        echo "bench: no phases in the --summary=json output of '$label' ($f)" >&2
      break
    done
  fi
}

echo "bench: $runs round(s); kernel $kernel; pahole $(pahole --version); $(nproc) CPUs" >&2
for ((i = 1; i <= runs; i++)); do
  # Alternate the order each round so that neither tool always runs first.
  if ((i % 2)); then
    for r in "${rows[@]}"; do run "$i" "$r"; done
  else
    for ((j = ${#rows[@]} - 1; j >= 0; j--)); do run "$i" "${rows[j]}"; done
  fi
  echo "bench: round $i of $runs done" >&2
done

# median COLUMN FILE
median() {
  awk -v c="$1" '{ print $c }' "$2" | sort -g | awk '
    { v[NR] = $1 }
    END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "null" }'; }

declare -A wall cpu rss
for r in "${rows[@]}"; do
  IFS='|' read -r label target tool cmd <<<"$r"
  [ "$cmd" = n/a ] && continue
  s=$(slug "$label")
  wall[$label]=$(median 1 "$work/times/$s.time")
  cpu[$label]=$(median 2 "$work/times/$s.time")
  rss[$label]=$(awk -v k="$(median 3 "$work/times/$s.time")" 'BEGIN { printf "%.0f", k / 1024 }')
done

printf '\n%-22s %8s %8s %8s   %7s %7s %7s\n' command "wall s" "CPU s" "RSS MiB" "wall x" "CPU x" "RSS x"
json_rows=()
for r in "${rows[@]}"; do
  IFS='|' read -r label target tool cmd <<<"$r"
  if [ "$cmd" = n/a ]; then
    printf '%-22s %8s %8s %8s   %7s %7s %7s\n' "$label" n/a n/a n/a n/a n/a n/a
    json_rows+=("{\"name\": \"$label\", \"target\": \"$target\", \"tool\": \"$tool\", \"supported\": false}")
    continue
  fi
  rw=- rc=- rr=- ratios=null
  ref_label="pahole -j2 $target"
  if [ "$tool" = btfgate ] && [ -n "${wall[$ref_label]:-}" ]; then
    rw=$(ratio "${wall[$label]}" "${wall[$ref_label]}")
    rc=$(ratio "${cpu[$label]}" "${cpu[$ref_label]}")
    rr=$(ratio "${rss[$label]}" "${rss[$ref_label]}")
    ratios="{\"wall\": $rw, \"cpu\": $rc, \"rss\": $rr}"
  fi
  printf '%-22s %8.2f %8.2f %8d   %7s %7s %7s\n' "$label" "${wall[$label]}" "${cpu[$label]}" "${rss[$label]}" "$rw" "$rc" "$rr"
  phases=null
  s=$(slug "$label")
  if [ -s "$work/times/$s.phases" ]; then
    # Median per phase, in the order the phases first appear.
    phase_list=$(awk '!seen[$1]++ { print $1 }' "$work/times/$s.phases")
    line="  phases (median s):"
    phases="{"
    for ph in $phase_list; do
      m=$(awk -v p="$ph" '$1 == p { print $2 }' "$work/times/$s.phases" | sort -g | awk '
        { v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
      line+=$(printf ' %s %.3f' "$ph" "$m")
      phases+="\"$ph\": $m, "
    done
    phases="${phases%, }}"
    echo "$line"
  fi
  cmd_json=$(printf '%s' "$cmd" | sed 's/\\/\\\\/g; s/"/\\"/g')
  json_rows+=("{\"name\": \"$label\", \"target\": \"$target\", \"tool\": \"$tool\", \"supported\": true, \"command\": \"$cmd_json\", \"wall_s\": ${wall[$label]}, \"cpu_s\": ${cpu[$label]}, \"rss_mib\": ${rss[$label]}, \"ratio_to_pahole\": $ratios, \"phases_s\": $phases}")
done
echo "(medians of $runs runs; x = btfgate / pahole on the same input)"

if [ -n "$json_out" ]; then
  {
    printf '{\n  "runs": %d,\n  "cpus": %d,\n  "pahole_version": "%s",\n  "kernel": "%s",\n  "rows": [\n' \
      "$runs" "$(nproc)" "$(pahole --version)" "$kernel"
    for ((j = 0; j < ${#json_rows[@]}; j++)); do
      sep=,
      ((j == ${#json_rows[@]} - 1)) && sep=
      printf '    %s%s\n' "${json_rows[j]}" "$sep"
    done
    printf '  ]\n}\n'
  } >"$json_out"
  if command -v jq >/dev/null; then
    jq empty "$json_out" || die "wrote invalid JSON to $json_out"
  fi
  echo "bench: wrote $json_out" >&2
fi
