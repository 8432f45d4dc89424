#!/usr/bin/env bash
# Benchmarks `btfgate encode` against the reference pahole 1.31 on the corpus kernel
# and on ext4.ko as split BTF (--btf_base): wall time (the clock around
# the run, to the millisecond), CPU time (user+sys) and peak RSS of the
# whole process (from /usr/bin/time), median of N rounds
# in which btfgate and pahole runs alternate, and the ratios btfgate/pahole.
# btfgate runs at -j1 and -j2 every round; -j8 runs once per input, and the
# -j1, -j2 and -j8 outputs are compared byte for byte. Per-phase times come
# from `btfgate encode --summary=json`. After the rounds, one extra run per
# vmlinux command is traced (VmRSS sampled from /proc) for the memory
# timeline; traced runs are not in the medians.
#
#   scripts/bench.sh [-n N] [--kernel PATH] [--no-modules] [--pahole-only]
#                    [--no-trace] [--interval S] [--json FILE] [--plot SVG]
#                    [--keep DIR]
#
#   -n N            rounds (default 5); the order of the commands flips
#                   each round, and btfgate and pahole runs alternate
#   --kernel PATH   vmlinux to encode instead of the corpus kernel
#   --no-modules    skip the ext4.ko split-BTF rows
#   --pahole-only   time pahole only (btfgate is neither built nor run)
#   --no-trace      skip the traced runs (no RSS timeline, no RSS per phase)
#   --interval S    VmRSS sampling interval of the traced runs (default 0.02)
#   --json FILE     also write everything measured as JSON to FILE
#   --plot SVG      draw wall time and RSS per phase and per -j as SVG
#                   (go run ./internal/benchplot), and print RSS per phase
#   --keep DIR      keep the built binary, outputs and logs in DIR
#
# Read the CPU column first: wall time on a shared machine depends on what
# else runs, so the 1-minute load average is recorded before every run and
# printed with the medians.
#
# The corpus comes from ${BTFGATE_SHARED:-../shared}; compressed files are
# unpacked once into ${BTFGATE_CACHE:-~/.cache/btfgate/corpus} with the same
# .stamp files that internal/corpus writes, so tests and this script share
# them. The reference pahole is ${BTFGATE_SHARED}/tools/pahole-1.31/pahole
# (the build that wrote the reference output; it needs libdw1 and libelf1),
# or PAHOLE=PATH.
# Exits non-zero, naming the command, when any run fails.
set -euo pipefail

die() {
  echo "bench: $*" >&2
  exit 1
}

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }

runs=5
kernel=
modules=1
pahole_only=0
trace=1
interval=0.02
json_out=
plot_out=
keep=
while [ $# -gt 0 ]; do
  case $1 in
  -n) [ $# -ge 2 ] || die "-n needs a number"; runs=$2; shift 2 ;;
  -n*) runs=${1#-n}; shift ;;
  --kernel) [ $# -ge 2 ] || die "--kernel needs a path"; kernel=$2; shift 2 ;;
  --kernel=*) kernel=${1#--kernel=}; shift ;;
  --no-modules) modules=0; shift ;;
  --pahole-only) pahole_only=1; shift ;;
  --no-trace) trace=0; shift ;;
  --interval) [ $# -ge 2 ] || die "--interval needs seconds"; interval=$2; shift 2 ;;
  --interval=*) interval=${1#--interval=}; shift ;;
  --json) [ $# -ge 2 ] || die "--json needs a file"; json_out=$2; shift 2 ;;
  --json=*) json_out=${1#--json=}; shift ;;
  --plot) [ $# -ge 2 ] || die "--plot needs a file"; plot_out=$2; shift 2 ;;
  --plot=*) plot_out=${1#--plot=}; shift ;;
  --keep) [ $# -ge 2 ] || die "--keep needs a directory"; keep=$2; shift 2 ;;
  --keep=*) keep=${1#--keep=}; shift ;;
  -h | --help) usage; exit 0 ;;
  *) usage >&2; die "unknown argument: $1" ;;
  esac
done
case $runs in
'' | *[!0-9]* | 0) die "-n wants a positive whole number, got '$runs'" ;;
esac
# Absolute paths: the plot program runs from the repository.
[ -z "$json_out" ] || json_out=$(realpath -m -- "$json_out")
[ -z "$plot_out" ] || plot_out=$(realpath -m -- "$plot_out")
case $interval in
'' | *[!0-9.]* | *.*.*) die "--interval wants seconds such as 0.02, got '$interval'" ;;
esac

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
shared=${BTFGATE_SHARED:-$(dirname "$repo")/shared}
ref=$shared/reference/pahole-1.31

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

paholebin=${PAHOLE:-$shared/tools/pahole-1.31/pahole}
[ -x "$paholebin" ] || die "no reference pahole at $paholebin (set PAHOLE=PATH)"
if ! "$paholebin" --version >/dev/null 2>&1; then install_pkg libdw1; install_pkg libelf1; fi
"$paholebin" --version >/dev/null 2>&1 || die "$paholebin does not run"
[ -x /usr/bin/time ] || install_pkg time
command -v zstd >/dev/null || install_pkg zstd
command -v jq >/dev/null || install_pkg jq

# unpacked REL: the cached, unpacked copy of $shared/REL.zst.
. "$repo/scripts/lib/corpus.sh"
unpacked() { BTFGATE_SHARED=$shared corpus_unpacked "$1" || die "cannot unpack $1 (set BTFGATE_SHARED, or use --kernel / --no-modules)"; }

[ -n "$kernel" ] || kernel=$(unpacked corpus/vmlinux-6.1.0-57-amd64.norela)
[ -r "$kernel" ] || die "cannot read kernel $kernel"
module=
if [ "$modules" = 1 ]; then
  module=$(unpacked corpus/modules/ext4.ko)
  base_btf=$ref/amd64.default.btf
  [ -f "$base_btf" ] || die "no base BTF $base_btf for the module rows (use --no-modules)"
fi

if [ -n "$keep" ]; then
  mkdir -p "$keep"
  work=$(cd "$keep" && pwd)
  rm -rf "$work/times" "$work/traces"
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/btfgate-bench.XXXXXX")
  trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work/times" "$work/out" "$work/logs" "$work/traces"
# Prepared bases (encode.BaseCache) go to a cache of this run's own: the
# first btfgate run on ext4.ko stores the base, the others map it, as the
# modules of a kernel build after the first do. The "--base-cache=off" row
# is the encode without it.
export BTFGATE_BASE_CACHE=$work/basecache

btfgate=$work/btfgate
summary=0
base_ok=0
cache_ok=0
if [ "$pahole_only" = 0 ]; then
  echo "bench: building btfgate" >&2
  (cd "$repo" && CGO_ENABLED=0 go build -o "$btfgate" ./cmd/btfgate) || die "go build ./cmd/btfgate failed"
  help=$("$btfgate" encode --help 2>&1) || die "btfgate encode --help failed: $help"
  case $help in *--summary*json*) summary=1 ;; esac
  case $help in *--btf_base*) base_ok=1 ;; esac
  case $help in *--base-cache*) cache_ok=1 ;; esac
fi

# Rows: "label|target|tool|jobs|command words" (words are split on spaces,
# so paths with spaces are refused).
for p in "$kernel" "$work" "$module" "$ref"; do
  case $p in *' '*) die "paths with spaces are not supported: $p" ;; esac
done
sum_flag=
[ "$summary" = 1 ] && sum_flag=--summary=json
bg_row() { # JOBS TARGET INPUT [EXTRA FLAGS]
  local j=$1 target=$2 input=$3
  shift 3
  echo "btfgate -j$j $target|$target|btfgate|$j|$btfgate encode --features=default -j$j $sum_flag $* -o $work/out/btfgate-$target-j$j.btf $input"
}
rows=()
once=() # -j8 rows, run once
if [ "$pahole_only" = 0 ]; then rows+=("$(bg_row 1 vmlinux "$kernel")"); fi
rows+=("pahole -j2 vmlinux|vmlinux|pahole|2|$paholebin -J -j2 --btf_encode_detached=$work/out/pahole-vmlinux.btf $kernel")
if [ "$pahole_only" = 0 ]; then
  rows+=("$(bg_row 2 vmlinux "$kernel")")
  once+=("$(bg_row 8 vmlinux "$kernel")")
fi
if [ "$modules" = 1 ]; then
  if [ "$pahole_only" = 0 ]; then
    if [ "$base_ok" = 1 ]; then
      rows+=("$(bg_row 1 ext4.ko "$module" --btf_base "$base_btf")")
    else
      rows+=("btfgate -j1 ext4.ko|ext4.ko|btfgate|1|n/a")
    fi
  fi
  rows+=("pahole -j2 ext4.ko|ext4.ko|pahole|2|$paholebin -J -j2 --btf_base $base_btf --btf_encode_detached=$work/out/pahole-ext4.ko.btf $module")
  if [ "$pahole_only" = 0 ] && [ "$base_ok" = 1 ]; then
    rows+=("$(bg_row 2 ext4.ko "$module" --btf_base "$base_btf")")
    once+=("$(bg_row 8 ext4.ko "$module" --btf_base "$base_btf")")
    if [ "$cache_ok" = 1 ]; then
      rows+=("btfgate -j2 --base-cache=off ext4.ko|ext4.ko|btfgate|2|$btfgate encode --features=default -j2 $sum_flag --base-cache=off --btf_base $base_btf -o $work/out/btfgate-ext4.ko-nocache.btf $module")
    fi
  fi
fi

slug() { echo "$1" | tr -c 'A-Za-z0-9\n' '_'; }
load1() { cut -d' ' -f1 /proc/loadavg; }
out_of() { echo "$1" | sed -n 's/.*\(-o \|--btf_encode_detached=\)\([^ ]*\).*/\2/p'; }

# summary_phases FILE...: the "name seconds" lines of the --summary=json
# output in the first FILE that has one, then "@total seconds".
summary_phases() {
  local f
  for f in "$@"; do
    grep -q '^[{]' "$f" || continue
    awk '/^[{]/{p=1} p' "$f" |
      jq -r '(.phases[] | "\(.name | gsub("\\s"; "_")) \(.seconds)"), "@total \(.total_seconds)"'
    return
  done
  return 1
}

# run ROUND ROW: one timed run; appends "wall cpu rss_kib load1" to the
# row's times file and, for btfgate with --summary=json, "round phase
# seconds" lines (the time outside Encode as the phase startup+exit).
run() {
  local round=$1 label target tool jobs cmd
  IFS='|' read -r label target tool jobs cmd <<<"$2"
  [ "$cmd" = n/a ] && return
  local s log tf out load
  s=$(slug "$label")
  log=$work/logs/$s.$round
  tf=$work/times/$s.time
  out=$(out_of "$cmd")
  rm -f "$out"
  local -a argv
  read -r -a argv <<<"$cmd"
  local rc=0
  load=$(load1)
  local t0 t1
  t0=$(date +%s%N)
  /usr/bin/time -f '%e %U %S %M' -o "$log.time" "${argv[@]}" >"$log.out" 2>"$log.err" || rc=$?
  t1=$(date +%s%N)
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
  # Wall time from the clock around the run, to the millisecond (time's
  # %e has 10 ms steps: 8 % of a module's encode).
  local wall
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e9 }')
  tail -n 1 "$log.time" | awk -v l="$load" -v w="$wall" '{ printf "%s %.3f %s %s\n", w, $2 + $3, $4, l }' >>"$tf"
  if [ "$tool" = btfgate ] && [ "$summary" = 1 ]; then
    local ph
    if ph=$(summary_phases "$log.out" "$log.err"); then
      echo "$ph" | awk -v w="$wall" -v r="$round" '
        $1 == "@total" { printf "%s startup+exit %.3f\n", r, (w - $2 > 0 ? w - $2 : 0); next }
        { print r, $1, $2 }' >>"$work/times/$s.phases"
    else
      echo "bench: no phases in the --summary=json output of '$label'" >&2
    fi
  fi
}

loadavg_start=$(cut -d' ' -f1-3 /proc/loadavg)
echo "bench: $runs round(s); kernel $kernel; pahole $("$paholebin" --version) ($paholebin); $(nproc) CPUs; load average $loadavg_start" >&2
for ((i = 1; i <= runs; i++)); do
  # Flip the order each round so that no command always runs first or
  # after the same neighbour.
  if ((i % 2)); then
    for r in "${rows[@]}"; do run "$i" "$r"; done
  else
    for ((j = ${#rows[@]} - 1; j >= 0; j--)); do run "$i" "${rows[j]}"; done
  fi
  echo "bench: round $i of $runs done (load $(load1))" >&2
done
for r in "${once[@]}"; do run 1 "$r"; done

# Determinism: the -j1, -j2 and -j8 outputs of the last round per input.
det_json=()
if [ "$pahole_only" = 0 ]; then
  for target in vmlinux ${module:+ext4.ko}; do
    files=()
    for j in 1 2 8; do
      f=$work/out/btfgate-$target-j$j.btf
      [ -s "$f" ] && files+=("$f")
    done
    also=
    if [ -s "$work/out/btfgate-$target-nocache.btf" ]; then
      files+=("$work/out/btfgate-$target-nocache.btf")
      also=" (and the --base-cache=off run's)"
    fi
    [ ${#files[@]} -ge 2 ] || continue
    same=true
    for f in "${files[@]:1}"; do cmp -s "${files[0]}" "$f" || same=false; done
    echo "bench: $target: -j1, -j2, -j8 outputs$also byte-identical: $same" >&2
    det_json+=("{\"target\": \"$target\", \"jobs\": [1, 2, 8], \"identical\": $same}")
  done
fi

# trace ROW: one run with VmRSS sampled every $interval s; writes the
# samples ("seconds-since-start KiB"), the phases and the end time.
trace_run() {
  local label target tool jobs cmd
  IFS='|' read -r label target tool jobs cmd <<<"$1"
  [ "$cmd" = n/a ] && return
  local s tf out
  s=$(slug "$label")
  tf=$work/traces/$s
  out=$(out_of "$cmd")
  rm -f "$out"
  local -a argv
  read -r -a argv <<<"$cmd"
  local t0 pid k v rest rss rc=0
  : >"$tf.samples"
  t0=$EPOCHREALTIME
  "${argv[@]}" >"$tf.out" 2>"$tf.err" &
  pid=$!
  local state
  while :; do
    rss='' state=''
    { while read -r k v rest; do
      case $k in
      State:) state=$v ;;
      VmRSS:) rss=$v; break ;;
      esac
    done; } 2>/dev/null <"/proc/$pid/status" || true
    if [ -n "$rss" ]; then
      echo "$EPOCHREALTIME $rss" >>"$tf.samples"
    elif [ "$state" = Z ] || ! kill -0 "$pid" 2>/dev/null; then
      break # exited (a zombie has no VmRSS)
    fi
    # else a read cut short (a signal): try again
    sleep "$interval"
  done
  echo "$EPOCHREALTIME" >"$tf.end"
  wait "$pid" || rc=$?
  [ "$rc" = 0 ] || die "traced run of '$label' failed (exit $rc): $cmd"
  awk -v t0="$t0" '{ printf "%.3f %d\n", $1 - t0, $2 }' "$tf.samples" >"$tf.rel"
  awk -v t0="$t0" '{ printf "%.3f\n", $1 - t0 }' "$tf.end" >"$tf.wall"
  if [ "$tool" = btfgate ] && [ "$summary" = 1 ]; then
    summary_phases "$tf.out" "$tf.err" >"$tf.phases" || : >"$tf.phases"
  fi
  echo "bench: traced '$label': $(wc -l <"$tf.rel") samples, peak $(awk 'BEGIN{m=0} $2>m{m=$2} END{printf "%.0f", m/1024}' "$tf.rel") MiB" >&2
}
traced=()
if [ "$trace" = 1 ]; then
  for r in "${rows[@]}"; do
    IFS='|' read -r label target _ <<<"$r"
    [ "$target" = vmlinux ] || continue
    trace_run "$r"
    traced+=("$label")
  done
fi
loadavg_end=$(cut -d' ' -f1-3 /proc/loadavg)

# median COLUMN FILE
median() {
  awk -v c="$1" '{ print $c }' "$2" | sort -g | awk '
    { v[NR] = $1 }
    END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
column() { awk -v c="$1" '{ printf "%s%s", (NR > 1 ? ", " : ""), $c }' "$2"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "null" }'; }

# minimum COLUMN FILE
minimum() { awk -v c="$1" 'NR == 1 || $c < m { m = $c } END { print m }' "$2"; }

declare -A wall wmin cpu rss load nruns
for r in "${rows[@]}" "${once[@]}"; do
  IFS='|' read -r label target tool jobs cmd <<<"$r"
  [ "$cmd" = n/a ] && continue
  s=$(slug "$label")
  wall[$label]=$(median 1 "$work/times/$s.time")
  wmin[$label]=$(minimum 1 "$work/times/$s.time")
  cpu[$label]=$(median 2 "$work/times/$s.time")
  rss[$label]=$(awk -v k="$(median 3 "$work/times/$s.time")" 'BEGIN { printf "%.0f", k / 1024 }')
  load[$label]=$(median 4 "$work/times/$s.time")
  nruns[$label]=$(wc -l <"$work/times/$s.time")
done

# The fastest run is the one least disturbed by other load; pahole slows
# down more than btfgate under load, so on a busy machine "min x" is the
# fairer wall ratio.
printf '\n%-20s %4s %8s %8s %8s %8s %5s   %6s %6s %6s %6s\n' command runs "wall s" "min s" "CPU s" "RSS MiB" load \
  "wall x" "min x" "CPU x" "RSS x"
json_rows=()
for r in "${rows[@]}" "${once[@]}"; do
  IFS='|' read -r label target tool jobs cmd <<<"$r"
  if [ "$cmd" = n/a ]; then
    printf '%-20s %4s %8s %8s %8s %8s %5s   %6s %6s %6s %6s\n' "$label" 0 n/a n/a n/a n/a n/a n/a n/a n/a n/a
    json_rows+=("{\"name\": \"$label\", \"target\": \"$target\", \"tool\": \"$tool\", \"jobs\": $jobs, \"supported\": false}")
    continue
  fi
  rw=- rm=- rc=- rr=- ratios=null
  ref_label="pahole -j2 $target"
  if [ "$tool" = btfgate ] && [ -n "${wall[$ref_label]:-}" ]; then
    rw=$(ratio "${wall[$label]}" "${wall[$ref_label]}")
    rm=$(ratio "${wmin[$label]}" "${wmin[$ref_label]}")
    rc=$(ratio "${cpu[$label]}" "${cpu[$ref_label]}")
    rr=$(ratio "${rss[$label]}" "${rss[$ref_label]}")
    ratios="{\"wall\": $rw, \"wall_min\": $rm, \"cpu\": $rc, \"rss\": $rr}"
  fi
  printf '%-20s %4d %8.3f %8.3f %8.2f %8d %5.1f   %6s %6s %6s %6s\n' "$label" "${nruns[$label]}" "${wall[$label]}" \
    "${wmin[$label]}" "${cpu[$label]}" "${rss[$label]}" "${load[$label]}" "$rw" "$rm" "$rc" "$rr"
  phases=null
  s=$(slug "$label")
  if [ -s "$work/times/$s.phases" ]; then
    # Median per phase, in the order the phases first appear.
    phase_list=$(awk '!seen[$2]++ { print $2 }' "$work/times/$s.phases")
    line="    phases (median s):"
    phases="["
    for ph in $phase_list; do
      m=$(awk -v p="$ph" '$2 == p { print $3 }' "$work/times/$s.phases" | sort -g | awk '
        { v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
      line+=$(printf ' %s %.3f' "$ph" "$m")
      phases+="{\"name\": \"$ph\", \"seconds\": $m}, "
    done
    phases="${phases%, }]"
    echo "$line"
  fi
  tf=$work/times/$s.time
  cmd_json=$(printf '%s' "$cmd" | sed 's/\\/\\\\/g; s/"/\\"/g')
  json_rows+=("{\"name\": \"$label\", \"target\": \"$target\", \"tool\": \"$tool\", \"jobs\": $jobs, \"supported\": true, \"runs\": ${nruns[$label]}, \"command\": \"$cmd_json\", \"wall_s\": ${wall[$label]}, \"wall_min_s\": ${wmin[$label]}, \"cpu_s\": ${cpu[$label]}, \"rss_mib\": ${rss[$label]}, \"load1\": ${load[$label]}, \"ratio_to_pahole\": $ratios, \"phases\": $phases, \"wall_runs\": [$(column 1 "$tf")], \"cpu_runs\": [$(column 2 "$tf")], \"rss_kib_runs\": [$(column 3 "$tf")], \"load1_runs\": [$(column 4 "$tf")]}")
done
echo "(medians of $runs rounds, -j8 once; min = the fastest run; load = median 1-minute load average before the runs;"
echo " x = btfgate / pahole -j2 on the same input; min x = fastest / fastest)"
echo "load average: $loadavg_start at the start, $loadavg_end at the end"

# Where we stand against the targets (wall <= 0.5x pahole, RSS <= 1.0x).
for target in vmlinux ${module:+ext4.ko}; do
  ref_label="pahole -j2 $target"
  [ -n "${wall[$ref_label]:-}" ] || continue
  best=
  for j in 1 2; do
    l="btfgate -j$j $target"
    [ -n "${wall[$l]:-}" ] || continue
    if [ -z "$best" ] || awk -v a="${wall[$l]}" -v b="${wall[$best]}" 'BEGIN { exit !(a < b) }'; then best=$l; fi
  done
  [ -n "$best" ] || continue
  rw=$(ratio "${wall[$best]}" "${wall[$ref_label]}")
  rm=$(ratio "${wmin[$best]}" "${wmin[$ref_label]}")
  rr=$(ratio "${rss[$best]}" "${rss[$ref_label]}")
  met() { awk -v r="$1" -v t="$2" 'BEGIN { print (r <= t ? "met" : "not met") }'; }
  echo "targets $target (fastest: $best): wall ${rw}x pahole, fastest runs ${rm}x (target <= 0.50: $(met "$rw" 0.5) by medians, $(met "$rm" 0.5) by fastest runs), RSS ${rr}x (target <= 1.00: $(met "$rr" 1.0))"
done

trace_json=()
for label in "${traced[@]}"; do
  s=$(slug "$label")
  tf=$work/traces/$s
  IFS='|' read -r _ _ tool _ <<<"$(printf '%s\n' "${rows[@]}" | grep -F "$label|")"
  samples=$(awk '{ printf "%s[%s, %.1f]", (NR > 1 ? ", " : ""), $1, $2 / 1024 }' "$tf.rel")
  tphases=null total=null
  if [ -s "$tf.phases" ]; then
    tphases=$(awk '$1 != "@total" { printf "%s{\"name\": \"%s\", \"seconds\": %s}", (n++ ? ", " : ""), $1, $2 }' "$tf.phases")
    tphases="[$tphases]"
    total=$(awk '$1 == "@total" { print $2 }' "$tf.phases")
    [ -n "$total" ] || total=null
  fi
  trace_json+=("{\"name\": \"$label\", \"tool\": \"$tool\", \"interval_s\": $interval, \"wall_s\": $(cat "$tf.wall"), \"encode_total_s\": $total, \"phases\": $tphases, \"samples\": [$samples]}")
done

if [ -n "$plot_out" ] && [ -z "$json_out" ]; then
  json_out=$work/bench.json
fi
if [ -n "$json_out" ]; then
  commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
  if [ -n "$(git -C "$repo" status --porcelain 2>/dev/null)" ]; then commit+="+dirty"; fi
  join() { local IFS=$'\n'; local out="" x; for x in "$@"; do out+="${out:+,$'\n'}    $x"; done; printf '%s' "$out"; }
  {
    printf '{\n  "date": "%s",\n  "runs": %d,\n  "cpus": %d,\n  "cpu_model": "%s",\n  "mem_total_mib": %d,\n' \
      "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$runs" "$(nproc)" \
      "$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo | sed 's/"/\\"/g')" \
      "$(awk '/^MemTotal/ { printf "%d", $2 / 1024 }' /proc/meminfo)"
    printf '  "linux": "%s",\n  "go_version": "%s",\n  "btfgate_commit": "%s",\n  "pahole_version": "%s",\n' \
      "$(uname -r)" "$(cd "$repo" && go env GOVERSION)" "$commit" "$("$paholebin" --version)"
    printf '  "kernel": "%s",\n  "module": "%s",\n  "load_average_start": "%s",\n  "load_average_end": "%s",\n' \
      "$kernel" "$module" "$loadavg_start" "$loadavg_end"
    printf '  "rows": [\n%s\n  ],\n' "$(join "${json_rows[@]}")"
    printf '  "determinism": [\n%s\n  ],\n' "$(join "${det_json[@]}")"
    printf '  "rss_traces": [\n%s\n  ]\n}\n' "$(join "${trace_json[@]}")"
  } >"$json_out"
  jq empty "$json_out" || die "wrote invalid JSON to $json_out"
  echo "bench: wrote $json_out" >&2
fi

if [ -n "$plot_out" ]; then
  (cd "$repo" && go run ./internal/benchplot "$json_out" "$plot_out") || die "go run ./internal/benchplot failed"
  echo "bench: wrote $plot_out" >&2
fi
