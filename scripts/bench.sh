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
#                    [--keep DIR] [--no-standard] [--scaling]
#                    [--module-set] [--module-package PKG] [--module-dir DIR]
#                    [--module-base BTF] [--module-limit N]
#
#   -n N            rounds (default 5); the order of the commands flips
#                   each round, and btfgate and pahole runs alternate
#   --kernel PATH   vmlinux to encode instead of the corpus kernel
#   --no-modules    skip the ext4.ko split-BTF rows (and, with --scaling,
#                   the corpus modules of the size table)
#   --pahole-only   time pahole only (btfgate is neither built nor run)
#   --no-trace      skip the traced runs (no RSS timeline, no RSS per phase)
#   --interval S    VmRSS sampling interval of the traced runs (default 0.02)
#   --json FILE     also write everything measured as JSON to FILE
#   --plot SVG      draw wall time and RSS per phase and per -j as SVG
#                   (go run ./internal/benchplot), and print RSS per phase
#   --keep DIR      keep the built binary, outputs and logs in DIR
#   --no-standard   skip the vmlinux and ext4.ko rows above (to run only
#                   --scaling or --module-set)
#   --scaling       btfgate -j1, -j2, -j4 and -j8 on vmlinux every round,
#                   printed as a scaling table with the median time of each
#                   phase (the phases other than decode+convert and policy
#                   are the serial part); and a size table: btfgate -j2 and pahole
#                   -j2 on vmlinux, the four corpus modules and, when the
#                   module set is at hand (unpacked already, or
#                   --module-dir), five of its modules (the smallest, the
#                   median, the 90th and 99th percentile and the largest
#                   by file size, of the first --module-limit), against
#                   file and .debug_info size
#   --module-set    the module-set run: every module of the Debian package
#                   --module-package (default linux-image-6.1.0-57-amd64-dbg,
#                   the corpus kernel's) encoded as split BTF as a kernel
#                   build does it: one process per module, two at a time
#                   (internal/modsetrun -P 2, with MAKEFLAGS as make -j2 gives
#                   it), each -j2; once with btfgate (through its
#                   base cache: the first encode stores the base, the others
#                   map it; the policies compiled before the set, as a
#                   kernel build's vmlinux encode leaves them) and once
#                   with pahole (-J -j2
#                   --btf_features=default --btf_base BASE), per round,
#                   alternating which goes first. Reports per tool the wall
#                   time of the whole set, the sum of the modules' own wall
#                   times (the clock around each process, without the
#                   driver's), the sum of CPU time, the largest
#                   and the sum of the per-module peak RSS, failures, the
#                   ratios, and how many modules' btfgate peak RSS exceeds
#                   pahole's; then checks every module (both encodes
#                   succeed, bpftool dumps ours on the base, `btfgate diff`
#                   finds it equal to pahole's) and lists the mismatches.
#                   The package is fetched with `apt-get download` and
#                   unpacked with `dpkg -x` into
#                   ${BTFGATE_MODSET_CACHE:-~/.cache/btfgate/modset}/PKG
#                   once (scripts/lib/modset.sh); later runs reuse it. The
#                   base is the reference pahole's vmlinux BTF (the corpus
#                   vmlinux is that package's).
#   --module-package PKG  another kernel debug package (implies --module-set;
#                   give --module-base for a kernel other than the corpus')
#   --module-dir DIR      the *.ko files under DIR instead (a kernel build
#                   or install directory; implies --module-set); the base is
#                   DIR/vmlinux when it has a .BTF section, else pahole's
#                   BTF of DIR/vmlinux, made once per run
#   --module-base BTF     the base for the module set (raw BTF, or an ELF
#                   file with .BTF)
#   --module-limit N      only the first N modules, sorted by path
#
# What the full module set costs (4,023 modules): the download is 860 MB
# (deleted after unpacking), the unpacked package 5.4 GB in the cache
# (kept); the run writes both tools' BTF of every module (about 50 MB in
# all) into the work directory. Fetching and unpacking take about 5
# minutes once; on a quiet 2-CPU machine one round takes about 9 minutes
# (btfgate about 2.5, pahole about 6.5) and the checks about 5 more. Each
# -n round runs the whole set twice, so use -n 1 (or --no-standard -n 1)
# for it; --module-limit 30 makes a check of the script take seconds.
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
standard=1
scaling=0
modset=0
modset_pkg=linux-image-6.1.0-57-amd64-dbg
modset_dir=
modset_base=
modset_limit=
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
  --no-standard) standard=0; shift ;;
  --scaling) scaling=1; shift ;;
  --module-set) modset=1; shift ;;
  --module-package) [ $# -ge 2 ] || die "--module-package needs a package name"; modset_pkg=$2; modset=1; shift 2 ;;
  --module-package=*) modset_pkg=${1#--module-package=}; modset=1; shift ;;
  --module-dir) [ $# -ge 2 ] || die "--module-dir needs a directory"; modset_dir=$2; modset=1; shift 2 ;;
  --module-dir=*) modset_dir=${1#--module-dir=}; modset=1; shift ;;
  --module-base) [ $# -ge 2 ] || die "--module-base needs a file"; modset_base=$2; shift 2 ;;
  --module-base=*) modset_base=${1#--module-base=}; shift ;;
  --module-limit) [ $# -ge 2 ] || die "--module-limit needs a number"; modset_limit=$2; shift 2 ;;
  --module-limit=*) modset_limit=${1#--module-limit=}; shift ;;
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
case $modset_limit in
*[!0-9]* | 0*) die "--module-limit wants a positive whole number, got '$modset_limit'" ;;
esac
case $modset_pkg in
'' | *[!A-Za-z0-9.+-]*) die "--module-package wants a Debian package name, got '$modset_pkg'" ;;
esac
[ "$standard" = 1 ] || [ "$scaling" = 1 ] || [ "$modset" = 1 ] ||
  die "--no-standard leaves nothing to run: add --scaling or --module-set"
[ -z "$modset_dir" ] || [ -d "$modset_dir" ] || die "--module-dir $modset_dir is not a directory"
[ -z "$modset_base" ] || [ -r "$modset_base" ] || die "cannot read --module-base $modset_base"
[ -z "$modset_dir" ] || modset_dir=$(realpath -- "$modset_dir")
[ -z "$modset_base" ] || modset_base=$(realpath -- "$modset_base")
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

# The vmlinux and ext4.ko rows are the standard ones; --scaling needs them
# too (at -j4 as well), the module set alone does not.
rows_on=0
{ [ "$standard" = 1 ] || [ "$scaling" = 1 ]; } && rows_on=1
module=
base_btf=$ref/amd64.default.btf
if [ "$rows_on" = 1 ]; then
  [ -n "$kernel" ] || kernel=$(unpacked corpus/vmlinux-6.1.0-57-amd64.norela)
  [ -r "$kernel" ] || die "cannot read kernel $kernel"
  if [ "$modules" = 1 ]; then
    module=$(unpacked corpus/modules/ext4.ko)
    [ -f "$base_btf" ] || die "no base BTF $base_btf for the module rows (use --no-modules)"
  fi
fi

if [ -n "$keep" ]; then
  mkdir -p "$keep"
  work=$(cd "$keep" && pwd)
  rm -rf "$work/times" "$work/traces" "$work/out"
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/btfgate-bench.XXXXXX")
  trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work/times" "$work/out" "$work/logs" "$work/traces"
# Prepared bases (encode.BaseCache) go to a cache of this run's own: the
# first btfgate run on ext4.ko stores the base, the others map it, as the
# modules of a kernel build after the first do. The "--base-cache=off" row
# is the encode without it. Compiled policies (engine's policy cache) go
# to one of the run's own too: its first btfgate encode compiles and
# stores them, the others load them.
export BTFGATE_BASE_CACHE=$work/basecache
export BTFGATE_POLICY_CACHE=$work/policycache

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

# The module set: its modules (sorted by path, the first --module-limit)
# and its base. --scaling takes a few of them for the size table when the
# set is at hand without fetching it.
. "$repo/scripts/lib/modset.sh"
modset_mods=()
modset_total=0
modset_root_dir=
modset_src=
if [ "$modset" = 1 ] || [ "$scaling" = 1 ]; then
  if [ -n "$modset_dir" ]; then
    modset_root_dir=$modset_dir
    modset_src="directory $modset_dir"
  elif [ "$modset" = 1 ]; then
    modset_root_dir=$(modset_root "$modset_pkg") || die "cannot fetch and unpack $modset_pkg"
    modset_root_dir+=/usr/lib/debug/lib/modules
    modset_src="package $modset_pkg"
  elif modset_root_dir=$(modset_cached "$modset_pkg"); then
    modset_root_dir+=/usr/lib/debug/lib/modules
    modset_src="package $modset_pkg"
  fi
  if [ -n "$modset_root_dir" ]; then
    [ -d "$modset_root_dir" ] || die "no directory $modset_root_dir"
    mapfile -t modset_mods < <(modset_list "$modset_root_dir")
    modset_total=${#modset_mods[@]}
    [ "$modset_total" -gt 0 ] || die "no *.ko files under $modset_root_dir"
    if [ -n "$modset_limit" ] && [ "$modset_limit" -lt "$modset_total" ]; then
      modset_mods=("${modset_mods[@]:0:modset_limit}")
    fi
    for m in "${modset_mods[@]}"; do
      case $m in *' '*) die "paths with spaces are not supported: $m" ;; esac
    done
  fi
fi
modset_base_btf=
if [ ${#modset_mods[@]} -gt 0 ]; then
  if [ -n "$modset_base" ]; then
    modset_base_btf=$modset_base
  elif [ -n "$modset_dir" ]; then
    v=$modset_dir/vmlinux
    [ -f "$v" ] || die "no $v to take the module set's base from (give --module-base)"
    # A .BTF with contents (a debug-only file keeps it as NOBITS).
    if readelf -SW "$v" 2>/dev/null | sed -n 's/^ *\[ *[0-9]*\] //p' | awk '$1 == ".BTF" && $2 == "PROGBITS" { f = 1 } END { exit !f }'; then
      modset_base_btf=$v
    else
      echo "bench: $v has no .BTF: encoding it with pahole for the module set's base" >&2
      modset_base_btf=$work/modset-base.btf
      if ! "$paholebin" -J -j2 --btf_features=default --btf_encode_detached="$modset_base_btf" "$v" >"$work/logs/modset-base.log" 2>&1 ||
        [ ! -s "$modset_base_btf" ]; then
        die "pahole could not encode $v (see $work/logs/modset-base.log)"
      fi
    fi
  else
    modset_base_btf=$base_btf
    [ -f "$modset_base_btf" ] || die "no base BTF $modset_base_btf for the module set (give --module-base)"
  fi
  case $modset_base_btf in *' '*) die "paths with spaces are not supported: $modset_base_btf" ;; esac
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
# The reference outputs were made with --btf_features=default, the set
# btfgate's --features=default stands for.
pa_row() { # TARGET INPUT [EXTRA FLAGS]
  local target=$1 input=$2
  shift 2
  echo "pahole -j2 $target|$target|pahole|2|$paholebin -J -j2 --btf_features=default $* --btf_encode_detached=$work/out/pahole-$target.btf $input"
}
rows=()
once=() # -j8 rows, run once
declare -A have_row target_base target_input
add_row() { # ROW: appended unless a row of that label is there
  local l=${1%%|*}
  [ -z "${have_row[$l]:-}" ] || return 0
  have_row[$l]=1
  rows+=("$1")
}
if [ "$standard" = 1 ]; then
  if [ "$pahole_only" = 0 ]; then add_row "$(bg_row 1 vmlinux "$kernel")"; fi
  add_row "$(pa_row vmlinux "$kernel")"
  if [ "$pahole_only" = 0 ]; then
    add_row "$(bg_row 2 vmlinux "$kernel")"
    once+=("$(bg_row 8 vmlinux "$kernel")")
  fi
  if [ "$modules" = 1 ]; then
    if [ "$pahole_only" = 0 ]; then
      if [ "$base_ok" = 1 ]; then
        add_row "$(bg_row 1 ext4.ko "$module" --btf_base "$base_btf")"
      else
        add_row "btfgate -j1 ext4.ko|ext4.ko|btfgate|1|n/a"
      fi
    fi
    add_row "$(pa_row ext4.ko "$module" --btf_base "$base_btf")"
    if [ "$pahole_only" = 0 ] && [ "$base_ok" = 1 ]; then
      add_row "$(bg_row 2 ext4.ko "$module" --btf_base "$base_btf")"
      once+=("$(bg_row 8 ext4.ko "$module" --btf_base "$base_btf")")
      if [ "$cache_ok" = 1 ]; then
        add_row "btfgate -j2 --base-cache=off ext4.ko|ext4.ko|btfgate|2|$btfgate encode --features=default -j2 $sum_flag --base-cache=off --btf_base $base_btf -o $work/out/btfgate-ext4.ko-nocache.btf $module"
      fi
    fi
  fi
fi
[ -z "$kernel" ] || target_input[vmlinux]=$kernel
[ -z "$module" ] || { target_input[ext4.ko]=$module; target_base[ext4.ko]=$base_btf; }

# --scaling: vmlinux at every -j each round, and the size table's inputs
# (btfgate -j2 and pahole -j2 each).
scale_jobs=(1 2 4 8)
size_targets=()
if [ "$scaling" = 1 ]; then
  if [ "$pahole_only" = 0 ]; then add_row "$(bg_row 1 vmlinux "$kernel")"; fi
  add_row "$(pa_row vmlinux "$kernel")"
  if [ "$pahole_only" = 0 ]; then
    for j in "${scale_jobs[@]:1}"; do add_row "$(bg_row "$j" vmlinux "$kernel")"; done
  fi
  size_targets+=(vmlinux)
  size_mods=() # "target input base"
  if [ "$modules" = 1 ]; then
    for name in tcp_bbr virtio_net nf_conntrack ext4; do
      size_mods+=("$name.ko $(unpacked "corpus/modules/$name.ko") $base_btf")
    done
  fi
  if [ ${#modset_mods[@]} -gt 0 ]; then
    # The smallest, the median, the 90th and 99th percentile and the
    # largest module by file size.
    mapfile -t by_size < <(printf '%s\0' "${modset_mods[@]}" | xargs -0 stat -c '%s %n' | sort -n -k1,1 | cut -d' ' -f2-)
    n=${#by_size[@]}
    picked=" "
    for q in 0 50 90 99 100; do
      i=$(((q * (n - 1) + 50) / 100))
      case $picked in *" $i "*) continue ;; esac
      picked+="$i "
      m=${by_size[i]}
      t=$(basename "$m")
      [ -z "${target_input[$t]:-}" ] || t=set-$t
      for sm in "${size_mods[@]}"; do [ "${sm%% *}" != "$t" ] || t=set-$t; done
      size_mods+=("$t $m $modset_base_btf")
    done
  fi
  for sm in "${size_mods[@]}"; do
    read -r t m b <<<"$sm"
    target_input[$t]=$m
    target_base[$t]=$b
    size_targets+=("$t")
    if [ "$pahole_only" = 0 ] && [ "$base_ok" = 1 ]; then add_row "$(bg_row 2 "$t" "$m" --btf_base "$b")"; fi
    add_row "$(pa_row "$t" "$m" --btf_base "$b")"
  done
fi
# A row that runs every round needs no run of its own.
o=()
for r in "${once[@]}"; do [ -n "${have_row[${r%%|*}]:-}" ] || o+=("$r"); done
once=("${o[@]}")

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

# --scaling: the size table's modules map their base from the cache in
# every round; one untimed encode per base stores it first.
if [ "$scaling" = 1 ] && [ "$pahole_only" = 0 ] && [ "$cache_ok" = 1 ]; then
  declare -A primed=()
  for sm in "${size_mods[@]}"; do
    read -r t m b <<<"$sm"
    [ -z "${primed[$b]:-}" ] || continue
    primed[$b]=1
    "$btfgate" encode --features=default -j2 --summary=none --btf_base "$b" -o "$work/out/prime.btf" "$m" >"$work/logs/prime.log" 2>&1 ||
      die "storing the base $b in the base cache failed: $(tail -n 1 "$work/logs/prime.log")"
  done
  rm -f "$work/out/prime.btf"
fi

loadavg_start=$(cut -d' ' -f1-3 /proc/loadavg)
[ ${#rows[@]} -eq 0 ] || echo "bench: $runs round(s); kernel $kernel; pahole $("$paholebin" --version) ($paholebin); $(nproc) CPUs; load average $loadavg_start" >&2
for ((i = 1; i <= runs; i++)); do
  # Flip the order each round so that no command always runs first or
  # after the same neighbour.
  if ((i % 2)); then
    for r in "${rows[@]}"; do run "$i" "$r"; done
  else
    for ((j = ${#rows[@]} - 1; j >= 0; j--)); do run "$i" "${rows[j]}"; done
  fi
  [ ${#rows[@]} -eq 0 ] || echo "bench: round $i of $runs done (load $(load1))" >&2
done
for r in "${once[@]}"; do run 1 "$r"; done

# Determinism: the -j1, -j2, -j4 and -j8 outputs of the last round per
# input (those of them that ran).
det_json=()
if [ "$pahole_only" = 0 ]; then
  for target in vmlinux ${module:+ext4.ko}; do
    files=() jobs=()
    for j in 1 2 4 8; do
      f=$work/out/btfgate-$target-j$j.btf
      [ -s "$f" ] && { files+=("$f"); jobs+=("$j"); }
    done
    also=
    if [ -s "$work/out/btfgate-$target-nocache.btf" ]; then
      files+=("$work/out/btfgate-$target-nocache.btf")
      also=" (and the --base-cache=off run's)"
    fi
    [ ${#files[@]} -ge 2 ] || continue
    same=true
    for f in "${files[@]:1}"; do cmp -s "${files[0]}" "$f" || same=false; done
    echo "bench: $target: $(printf -- '-j%s, ' "${jobs[@]}" | sed 's/, $//') outputs$also byte-identical: $same" >&2
    det_json+=("{\"target\": \"$target\", \"jobs\": [$(printf '%s, ' "${jobs[@]}" | sed 's/, $//')], \"identical\": $same}")
  done
fi

# Against pahole: the last btfgate output of each input (the lowest -j)
# and pahole's, by content (`btfgate diff`, with the base for modules).
same_json=()
if [ "$pahole_only" = 0 ]; then
  for target in $(printf '%s\n' "${!target_input[@]}" | LC_ALL=C sort); do
    p=$work/out/pahole-$target.btf
    [ -s "$p" ] || continue
    g=
    for j in 1 2 4 8; do
      [ -s "$work/out/btfgate-$target-j$j.btf" ] && { g=$work/out/btfgate-$target-j$j.btf; break; }
    done
    [ -n "$g" ] || continue
    dargs=()
    [ -z "${target_base[$target]:-}" ] || dargs=(--base "${target_base[$target]}")
    rc=0
    "$btfgate" diff "${dargs[@]}" "$p" "$g" >"$work/logs/$(slug "$target").diff" 2>&1 || rc=$?
    case $rc in
    0) eq=true ;;
    1) eq=false; echo "bench: $target: btfgate's output differs from pahole's (see $work/logs/$(slug "$target").diff)" >&2 ;;
    *) eq=null; echo "bench: $target: btfgate diff failed: $(tail -n 1 "$work/logs/$(slug "$target").diff")" >&2 ;;
    esac
    same_json+=("{\"target\": \"$target\", \"equal\": $eq}")
  done
  [ ${#same_json[@]} -eq 0 ] || echo "bench: btfgate's output equals pahole's by content: $(printf '%s\n' "${same_json[@]}" | grep -c '"equal": true') of ${#same_json[@]} inputs" >&2
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

# The module-set run: per round, each tool over the whole set through
# internal/modsetrun -P 2, the order of the tools
# flipping each round; then every module's outputs of the last round are
# checked (bench_module.sh check). Files under $work/modset:
#   list                 "IDX PATH" per module, IDX a zero-padded number
#   res/ROUND/TOOL/IDX   "exit wall_s cpu_s peak_rss_kib" (exit -1: exit 0
#                        but no output)
#   res/ROUND/TOOL.tsv   the same lines with IDX in front, sorted
#   res/ROUND/TOOL.set   "wall_s load1" of the whole set
#   out/TOOL/IDX.btf     the last round's outputs
#   check/IDX            the check's verdict (see bench_module.sh)
#   modules.tsv          per module: IDX PATH BYTES, btfgate's and pahole's
#                        exit/wall/cpu/rss (medians over the rounds; exit
#                        the first non-zero one), the verdict
ms=$work/modset
modset_tools=()
if [ ${#modset_mods[@]} -gt 0 ] && [ "$modset" = 1 ]; then
  [ "$pahole_only" = 1 ] || modset_tools+=(btfgate)
  modset_tools+=(pahole)
  command -v bpftool >/dev/null || [ "$pahole_only" = 1 ] || install_pkg bpftool
  rm -rf "$ms"
  mkdir -p "$ms/check"
  for ((k = 0; k < ${#modset_mods[@]}; k++)); do printf '%05d %s\n' "$k" "${modset_mods[k]}"; done >"$ms/list"
  export BENCH_BASE=$modset_base_btf BENCH_BTFGATE=$btfgate
  helper=$repo/scripts/lib/bench_module.sh
  # One process per module, two at a time, each timed by the driver
  # itself (internal/modsetrun): no shell or /usr/bin/time per module.
  modsetrun=$work/modsetrun
  (cd "$repo" && CGO_ENABLED=0 go build -o "$modsetrun" ./internal/modsetrun) || die "go build ./internal/modsetrun failed"
  echo "bench: module set: ${#modset_mods[@]} of the $modset_total modules of the $modset_src, base $modset_base_btf, 2 at a time, $runs round(s)" >&2
  # A kernel build encodes vmlinux with the same btfgate and rules before
  # its modules, so its module encodes find the policies compiled (the
  # policy cache); they do not find the base prepared (the base cache),
  # which the first module encode stores. The set runs so: one encode
  # outside it compiles the policies, without the base cache.
  if [[ " ${modset_tools[*]} " == *" btfgate "* ]]; then
    "$btfgate" encode --features=default -j2 --summary=none --base-cache=off --btf_base "$modset_base_btf" \
      -o "$ms/policies.btf" "$(cut -d' ' -f2- <"$ms/list" | head -1)" ||
      die "module set: the encode that compiles the policies failed"
    echo "bench: module set: policies compiled and cached, as a kernel build's vmlinux encode leaves them; base cache empty" >&2
  fi
  for ((i = 1; i <= runs; i++)); do
    order=("${modset_tools[@]}")
    if ! ((i % 2)) && [ ${#order[@]} = 2 ]; then order=("${order[1]}" "${order[0]}"); fi
    for tool in "${order[@]}"; do
      res=$ms/res/$i/$tool
      mkdir -p "$res" "$ms/out/$tool"
      l=$(load1)
      case $tool in
      btfgate) cmd=("$btfgate" encode --features=default -j2 --summary=none --btf_base "$modset_base_btf" -o '{out}' '{in}') ;;
      pahole) cmd=("$paholebin" -J -j2 --btf_features=default --btf_base "$modset_base_btf" --btf_encode_detached='{out}' '{in}') ;;
      esac
      # The modules in the page cache for each tool, as a kernel build's
      # are, just linked: this host's memory reclaim (DAMON) pages out
      # what was not read for a minute or so, and a round would
      # otherwise wait for the disk in proportion to when it ran.
      cut -d' ' -f2- "$ms/list" | xargs -d '\n' cat "$modset_base_btf" >/dev/null
      t0=$(date +%s%N)
      "$modsetrun" -P 2 -res "$res" -out "$ms/out/$tool" -- "${cmd[@]}" <"$ms/list" ||
        die "module set: modsetrun $tool failed"
      t1=$(date +%s%N)
      awk -v a="$t0" -v b="$t1" -v l="$l" 'BEGIN { printf "%.3f %s\n", (b - a) / 1e9, l }' >"$ms/res/$i/$tool.set"
      find "$res" -maxdepth 1 -type f -name '[0-9]*' ! -name '*.*' -print0 |
        xargs -0 -r awk '{ n = FILENAME; sub(/.*\//, "", n); print n, $0 }' | sort >"$ms/res/$i/$tool.tsv"
      [ "$(wc -l <"$ms/res/$i/$tool.tsv")" = ${#modset_mods[@]} ] ||
        die "module set: round $i of $tool has $(wc -l <"$ms/res/$i/$tool.tsv") results for ${#modset_mods[@]} modules"
      echo "bench: module set round $i: $tool $(cut -d' ' -f1 "$ms/res/$i/$tool.set") s, $(awk '$2 != 0' "$ms/res/$i/$tool.tsv" | wc -l) failed (load $(load1))" >&2
    done
  done
  if [ "$pahole_only" = 0 ]; then
    cut -d' ' -f1 "$ms/list" | xargs -P2 -L1 "$helper" check "$ms/out/btfgate" "$ms/out/pahole" "$ms/check" ||
      die "module set: xargs $helper check failed"
  fi
  # Per module, medians over the rounds.
  per_module() { # TOOL: "IDX exit wall cpu rss" per module
    cat "$ms"/res/*/"$1".tsv | sort -k1,1 -s | awk '
      function med(a, n,   i, j, t) {
        for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
      }
      function flush() { if (have) printf "%s %s %.4f %.3f %.0f\n", k, rc, med(w, n), med(c, n), med(r, n) }
      NR == 1 || $1 "" != k { flush(); k = $1 ""; n = 0; rc = 0; have = 1 }
      { n++; w[n] = $3 + 0; c[n] = $4 + 0; r[n] = $5 + 0; if (rc == 0 && $2 != 0) rc = $2 }
      END { flush() }'
  }
  for tool in btfgate pahole; do
    if [ -n "$(ls "$ms"/res/*/"$tool".tsv 2>/dev/null)" ]; then per_module "$tool"; else awk '{ print $1, "n/a", "n/a", "n/a", "n/a" }' "$ms/list"; fi >"$ms/$tool.med"
    [ "$(wc -l <"$ms/$tool.med")" = ${#modset_mods[@]} ] || die "module set: $tool's medians cover $(wc -l <"$ms/$tool.med") of ${#modset_mods[@]} modules"
  done
  awk '{ print $2 }' "$ms/list" | xargs -r stat -c '%s' >"$ms/bytes"
  awk -v d="$ms/check" '{ f = d "/" $1; v = "unchecked"; if ((getline l <f) > 0 && l != "") v = l; close(f); print v }' \
    "$ms/list" >"$ms/verdicts"
  paste -d' ' "$ms/list" "$ms/bytes" <(cut -d' ' -f2- "$ms/btfgate.med") <(cut -d' ' -f2- "$ms/pahole.med") "$ms/verdicts" >"$ms/modules.tsv"
fi

# median COLUMN FILE
median() {
  awk -v c="$1" '{ print $c }' "$2" | sort -g | awk '
    { v[NR] = $1 }
    END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
column() { awk -v c="$1" '{ printf "%s%s", (NR > 1 ? ", " : ""), $c }' "$2"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "null" }'; }

# phase_medians LABEL: "phase median-seconds" per phase of the row's
# --summary=json outputs, in the order the phases first appear.
phase_medians() {
  local f
  f=$work/times/$(slug "$1").phases
  [ -s "$f" ] || return 0
  awk '
    !($2 in cnt) { names[++n] = $2 }
    { v[$2, ++cnt[$2]] = $3 + 0 }
    END {
      for (i = 1; i <= n; i++) {
        p = names[i]; m = cnt[p]
        for (j = 1; j <= m; j++) a[j] = v[p, j]
        for (j = 2; j <= m; j++) for (k = j; k > 1 && a[k - 1] > a[k]; k--) { t = a[k]; a[k] = a[k - 1]; a[k - 1] = t }
        print p, (m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2)
      }
    }' "$f"
}

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

json_rows=()
if [ ${#rows[@]} -gt 0 ]; then
  # The fastest run is the one least disturbed by other load; pahole slows
  # down more than btfgate under load, so on a busy machine "min x" is the
  # fairer wall ratio.
  # The label column is as wide as the longest label (at least 20).
  lw=20
  for r in "${rows[@]}" "${once[@]}"; do l=${r%%|*}; [ ${#l} -le "$lw" ] || lw=${#l}; done
  printf '\n%-*s %4s %8s %8s %8s %8s %5s   %6s %6s %6s %6s\n' "$lw" command runs "wall s" "min s" "CPU s" "RSS MiB" load \
    "wall x" "min x" "CPU x" "RSS x"
  for r in "${rows[@]}" "${once[@]}"; do
    IFS='|' read -r label target tool jobs cmd <<<"$r"
    if [ "$cmd" = n/a ]; then
      printf '%-*s %4s %8s %8s %8s %8s %5s   %6s %6s %6s %6s\n' "$lw" "$label" 0 n/a n/a n/a n/a n/a n/a n/a n/a n/a
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
    printf '%-*s %4d %8.3f %8.3f %8.2f %8d %5.1f   %6s %6s %6s %6s\n' "$lw" "$label" "${nruns[$label]}" "${wall[$label]}" \
      "${wmin[$label]}" "${cpu[$label]}" "${rss[$label]}" "${load[$label]}" "$rw" "$rm" "$rc" "$rr"
    phases=null
    s=$(slug "$label")
    if [ -s "$work/times/$s.phases" ]; then
      line="    phases (median s):"
      phases="["
      while read -r ph m; do
        line+=$(printf ' %s %.3f' "$ph" "$m")
        phases+="{\"name\": \"$ph\", \"seconds\": $m}, "
      done < <(phase_medians "$label")
      phases="${phases%, }]"
      echo "$line"
    fi
    tf=$work/times/$s.time
    cmd_json=$(printf '%s' "$cmd" | sed 's/\\/\\\\/g; s/"/\\"/g')
    json_rows+=("{\"name\": \"$label\", \"target\": \"$target\", \"tool\": \"$tool\", \"jobs\": $jobs, \"supported\": true, \"runs\": ${nruns[$label]}, \"command\": \"$cmd_json\", \"wall_s\": ${wall[$label]}, \"wall_min_s\": ${wmin[$label]}, \"cpu_s\": ${cpu[$label]}, \"rss_mib\": ${rss[$label]}, \"load1\": ${load[$label]}, \"ratio_to_pahole\": $ratios, \"phases\": $phases, \"wall_runs\": [$(column 1 "$tf")], \"cpu_runs\": [$(column 2 "$tf")], \"rss_kib_runs\": [$(column 3 "$tf")], \"load1_runs\": [$(column 4 "$tf")]}")
  done
  echo "(medians of $runs rounds, -j8 once unless --scaling; min = the fastest run; load = median 1-minute load average before the runs;"
  echo " x = btfgate / pahole -j2 on the same input; min x = fastest / fastest)"
  echo "load average: $loadavg_start at the start, $loadavg_end at the end"
fi

# Where we stand against issue 20's targets: vmlinux at most 0.25x pahole's
# wall and 0.5x its peak RSS; a module (ext4.ko here, the module set below)
# at most 0.3x the wall and 1.0x the RSS.
for target in vmlinux ${module:+ext4.ko}; do
  case $target in
  vmlinux) tw=0.25 tr=0.5 ;;
  *) tw=0.3 tr=1.0 ;;
  esac
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
  echo "targets $target (fastest: $best): wall ${rw}x pahole, fastest runs ${rm}x (target <= $tw: $(met "$rw" "$tw") by medians, $(met "$rm" "$tw") by fastest runs), RSS ${rr}x (target <= $tr: $(met "$rr" "$tr"))"
done

# --scaling: btfgate on vmlinux per -j, with the phases (only
# decode+convert and policy run on -j goroutines: the others are the
# serial part), and cost against input size.
scaling_json=null
sizes_json=()
if [ "$scaling" = 1 ]; then
  l1="btfgate -j1 vmlinux"
  if [ -n "${wall[$l1]:-}" ]; then
    phase_cols=$(phase_medians "$l1" | awk '{ print $1 }')
    printf '\nscaling: btfgate on %s (medians of %d rounds; speedup = wall -j1 / wall; CPU/wall = CPUs kept busy)\n' "$(basename "$kernel")" "$runs"
    hdr=$(printf '%-4s %8s %8s %8s %8s %7s %8s' -j "wall s" "min s" "CPU s" "RSS MiB" speedup CPU/wall)
    for ph in $phase_cols; do hdr+=$(printf ' %14s' "$ph"); done
    echo "$hdr"
    sj=()
    for j in "${scale_jobs[@]}"; do
      l="btfgate -j$j vmlinux"
      [ -n "${wall[$l]:-}" ] || continue
      sp=$(ratio "${wall[$l1]}" "${wall[$l]}")
      busy=$(ratio "${cpu[$l]}" "${wall[$l]}")
      line=$(printf '%-4s %8.3f %8.3f %8.2f %8d %7s %8s' "$j" "${wall[$l]}" "${wmin[$l]}" "${cpu[$l]}" "${rss[$l]}" "$sp" "$busy")
      declare -A pm=()
      while read -r ph m; do pm[$ph]=$m; done < <(phase_medians "$l")
      pj=
      for ph in $phase_cols; do
        line+=$(printf ' %14s' "$(printf '%.3f' "${pm[$ph]:-0}")")
        [ -z "${pm[$ph]:-}" ] || pj+="\"$ph\": ${pm[$ph]}, "
      done
      unset pm
      echo "$line"
      sj+=("{\"jobs\": $j, \"wall_s\": ${wall[$l]}, \"wall_min_s\": ${wmin[$l]}, \"cpu_s\": ${cpu[$l]}, \"rss_mib\": ${rss[$l]}, \"speedup\": $sp, \"cpu_per_wall\": $busy, \"phases\": {${pj%, }}}")
    done
    scaling_json="[$(printf '%s, ' "${sj[@]}" | sed 's/, $//')]"
  fi

  # debug_info_bytes FILE: the size of its .debug_info section (0 if none).
  debug_info_bytes() {
    local x
    x=$(readelf -SW "$1" 2>/dev/null | sed -n 's/^ *\[ *[0-9]*\] //p' | awk '$1 == ".debug_info" { print $5; exit }')
    echo $((16#${x:-0}))
  }
  printf '\nsize: btfgate -j2 and pahole -j2 against input size (medians of %d rounds; modules as split BTF; ms/MiB = btfgate CPU per MiB of .debug_info)\n' "$runs"
  printf '%-22s %9s %9s   %8s %8s %8s %7s   %8s %8s %8s   %6s %6s %6s\n' input "file MiB" "dinfo MiB" \
    "wall s" "CPU s" "RSS MiB" ms/MiB "p wall s" "p CPU s" "p RSS" "wall x" "CPU x" "RSS x"
  # Smallest .debug_info first.
  sized=()
  for t in "${size_targets[@]}"; do
    sized+=("$(debug_info_bytes "${target_input[$t]}") $t")
  done
  mapfile -t sized < <(printf '%s\n' "${sized[@]}" | sort -n -k1,1)
  for st_line in "${sized[@]}"; do
    read -r db t <<<"$st_line"
    f=${target_input[$t]}
    fb=$(stat -c %s "$f")
    g="btfgate -j2 $t" p="pahole -j2 $t"
    gw=${wall[$g]:-} pw=${wall[$p]:-}
    line=$(printf '%-22s %9.1f %9.1f' "$t" "$(awk -v b="$fb" 'BEGIN { print b / 1048576 }')" "$(awk -v b="$db" 'BEGIN { print b / 1048576 }')")
    gj=null pj=null rj=null
    if [ -n "$gw" ]; then
      msmib=$(awk -v c="${cpu[$g]}" -v b="$db" 'BEGIN { if (b > 0) printf "%.1f", c * 1000 / (b / 1048576); else print "null" }')
      line+=$(printf '   %8.3f %8.2f %8d %7s' "$gw" "${cpu[$g]}" "${rss[$g]}" "$msmib")
      gj="{\"wall_s\": $gw, \"cpu_s\": ${cpu[$g]}, \"rss_mib\": ${rss[$g]}, \"cpu_ms_per_debug_info_mib\": $msmib}"
    else
      line+=$(printf '   %8s %8s %8s %7s' - - - -)
    fi
    if [ -n "$pw" ]; then
      line+=$(printf '   %8.3f %8.2f %8d' "$pw" "${cpu[$p]}" "${rss[$p]}")
      pj="{\"wall_s\": $pw, \"cpu_s\": ${cpu[$p]}, \"rss_mib\": ${rss[$p]}}"
    else
      line+=$(printf '   %8s %8s %8s' - - -)
    fi
    if [ -n "$gw" ] && [ -n "$pw" ]; then
      rw=$(ratio "$gw" "$pw") rc=$(ratio "${cpu[$g]}" "${cpu[$p]}") rr=$(ratio "${rss[$g]}" "${rss[$p]}")
      line+=$(printf '   %6s %6s %6s' "$rw" "$rc" "$rr")
      rj="{\"wall\": $rw, \"cpu\": $rc, \"rss\": $rr}"
    fi
    echo "$line"
    sizes_json+=("{\"target\": \"$t\", \"input\": \"$f\", \"file_bytes\": $fb, \"debug_info_bytes\": $db, \"btfgate\": $gj, \"pahole\": $pj, \"ratio_to_pahole\": $rj}")
  done
  if [ "$modules" = 1 ] && [ ${#modset_mods[@]} = 0 ]; then
    echo "(no module-set modules in the size table: the module set is not unpacked; run --module-set once, or give --module-dir)"
  fi
fi

# The module set's report.
modset_json=null
if [ -s "$ms/modules.tsv" ]; then
  # set_totals TOOL: "wall_median wall_min load_median cpu_sum rss_max_kib
  # rss_sum_kib failed encode_wall_sum" over the rounds (medians of each
  # round's totals). The encode wall sum adds each module's own wall time
  # (the clock around its process): the tools' cost without xargs and
  # bench_module.sh's, which the set's wall includes.
  set_totals() {
    local tool=$1 f
    for f in "$ms"/res/*/"$tool".tsv; do
      awk -v set="${f%.tsv}.set" '
        BEGIN { getline line <set; split(line, w, " ") }
        { ws += $3; c += $4; r += $5; if ($5 > m) m = $5; if ($2 != 0) bad++ }
        END { printf "%s %s %.3f %d %d %d %.3f\n", w[1], w[2], c, m, r, bad, ws }' "$f"
    done >"$ms/$tool.rounds"
    printf '%s %s %s %s %s %s %s %s\n' "$(median 1 "$ms/$tool.rounds")" "$(minimum 1 "$ms/$tool.rounds")" \
      "$(median 2 "$ms/$tool.rounds")" "$(median 3 "$ms/$tool.rounds")" "$(median 4 "$ms/$tool.rounds")" \
      "$(median 5 "$ms/$tool.rounds")" "$(awk '$6 > m { m = $6 } END { print m + 0 }' "$ms/$tool.rounds")" \
      "$(median 7 "$ms/$tool.rounds")"
  }
  nmods=$(wc -l <"$ms/modules.tsv")
  lim=
  [ "$nmods" = "$modset_total" ] || lim=" (the first $nmods by path)"
  printf '\nmodule set: %d of the %d modules of the %s%s, split BTF on %s; one process per module, 2 at a time (modsetrun -P 2, MAKEFLAGS -j2 as make gives it), each -j2; %d round(s)\n' \
    "$nmods" "$modset_total" "$modset_src" "$lim" "$modset_base_btf" "$runs"
  printf '%-8s %9s %9s %5s %15s %11s %12s %12s %7s\n' tool "wall s" "min s" load "encode wall s" "CPU sum s" "RSS max MiB" "RSS sum MiB" failed
  declare -A st=()
  tools_json=
  for tool in "${modset_tools[@]}"; do
    st[$tool]=$(set_totals "$tool")
    read -r w wm l c m r bad ews <<<"${st[$tool]}"
    printf '%-8s %9.3f %9.3f %5.1f %15.3f %11.2f %12.1f %12.1f %7d\n' "$tool" "$w" "$wm" "$l" "$ews" "$c" \
      "$(awk -v k="$m" 'BEGIN { print k / 1024 }')" "$(awk -v k="$r" 'BEGIN { print k / 1024 }')" "$bad"
    tools_json+="\"$tool\": {\"wall_s\": $w, \"wall_min_s\": $wm, \"load1\": $l, \"encode_wall_sum_s\": $ews, \"cpu_sum_s\": $c, \"rss_max_mib\": $(awk -v k="$m" 'BEGIN { printf "%.1f", k / 1024 }'), \"rss_sum_mib\": $(awk -v k="$r" 'BEGIN { printf "%.1f", k / 1024 }'), \"failed\": $bad, \"wall_runs\": [$(column 1 "$ms/$tool.rounds")], \"cpu_sum_runs\": [$(column 3 "$ms/$tool.rounds")]}, "
  done
  ratios_json=null above=null checks_json="{}" mism_json="[]"
  if [ -n "${st[btfgate]:-}" ] && [ -n "${st[pahole]:-}" ]; then
    read -r gw gwm _ gc gm gr _ gews <<<"${st[btfgate]}"
    read -r pw pwm _ pc pm pr _ pews <<<"${st[pahole]}"
    printf '%-8s %9s %9s %5s %15s %11s %12s %12s\n' "ratio" "$(ratio "$gw" "$pw")" "$(ratio "$gwm" "$pwm")" "" "$(ratio "$gews" "$pews")" "$(ratio "$gc" "$pc")" "$(ratio "$gm" "$pm")" "$(ratio "$gr" "$pr")"
    ratios_json="{\"wall\": $(ratio "$gw" "$pw"), \"wall_min\": $(ratio "$gwm" "$pwm"), \"encode_wall_sum\": $(ratio "$gews" "$pews"), \"cpu_sum\": $(ratio "$gc" "$pc"), \"rss_max\": $(ratio "$gm" "$pm"), \"rss_sum\": $(ratio "$gr" "$pr")}"
    # Columns of modules.tsv: 1 IDX 2 PATH 3 BYTES 4-7 btfgate exit wall
    # cpu rss, 8-11 pahole's, 12 verdict.
    above=$(awk '$4 == 0 && $8 == 0 && $7 > $11' "$ms/modules.tsv" | wc -l)
    both=$(awk '$4 == 0 && $8 == 0' "$ms/modules.tsv" | wc -l)
    echo "btfgate's peak RSS above pahole's: $above of $both modules both encoded (median over rounds per module)"
    if [ "$above" -gt 0 ]; then
      # The lists are cut by awk, not head: head's early exit would end
      # sort with SIGPIPE, and pipefail the whole script.
      echo "  most above (MiB, btfgate vs pahole):"
      awk -v r="$modset_root_dir/" '$4 == 0 && $8 == 0 && $7 > $11 { p = $2; if (index(p, r) == 1) p = substr(p, length(r) + 1); printf "%d %s %.1f %.1f\n", $7 - $11, p, $7 / 1024, $11 / 1024 }' "$ms/modules.tsv" |
        sort -rn | awk 'NR <= 5 { printf "    %s: %s vs %s\n", $2, $3, $4 }'
    fi
    # The target is judged on the ratio itself, not on its two-decimal
    # print (0.303 prints 0.30).
    echo "targets module set: wall $(awk -v a="$gw" -v b="$pw" 'BEGIN { printf "%.3f", a / b }')x pahole, the modules' own wall $(ratio "$gews" "$pews")x (target <= 0.3: $(awk -v a="$gw" -v b="$pw" 'BEGIN { print (a <= 0.3 * b ? "met" : "not met") }')), modules above pahole's peak RSS $above (target 0: $([ "$above" = 0 ] && echo met || echo not met))"
    checks=$(awk '{ n[$12]++ } END { for (v in n) print v, n[v] }' "$ms/modules.tsv" | sort)
    echo "checks (both encode, bpftool dumps ours, btfgate diff finds it equal to pahole's): $(echo "$checks" | awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2 }')"
    checks_json="{$(echo "$checks" | awk '{ printf "%s\"%s\": %s", (NR > 1 ? ", " : ""), $1, $2 }')}"
    nbad=$(awk '$12 != "ok"' "$ms/modules.tsv" | wc -l)
    if [ "$nbad" -gt 0 ]; then
      echo "mismatches ($nbad; details under $ms/check when --keep is given):"
      # With the failed encode's last line of stderr (from the last round).
      awk -v r="$modset_root_dir/" '$12 != "ok" { p = $2; if (index(p, r) == 1) p = substr(p, length(r) + 1); if (++n <= 20) print $1, p, $12 }' "$ms/modules.tsv" |
        while read -r idx p v; do
          why=
          case $v in
          btfgate-failed | both-failed) why=$(tail -n 1 "$ms/res/$runs/btfgate/$idx.err" 2>/dev/null) ;;
          pahole-failed) why=$(tail -n 1 "$ms/res/$runs/pahole/$idx.err" 2>/dev/null) ;;
          bpftool-failed) why=$(tail -n 1 "$ms/check/$idx.bpftool" 2>/dev/null) ;;
          differs) why=$(grep -m 1 '^total' "$ms/check/$idx.diff" 2>/dev/null | tr -s ' ') ;;
          esac
          echo "  $p: $v${why:+ ($why)}"
        done
      [ "$nbad" -le 20 ] || echo "  ... $((nbad - 20)) more (all in the JSON)"
    fi
    mism_json="[$(awk -v r="$modset_root_dir/" '$12 != "ok" { p = $2; if (index(p, r) == 1) p = substr(p, length(r) + 1); printf "%s{\"module\": \"%s\", \"check\": \"%s\"}", (n++ ? ", " : ""), p, $12 }' "$ms/modules.tsv")]"
  fi
  mods_json="[$(awk -v r="$modset_root_dir/" '
    function tool(e, w, c, s) { return e == "n/a" ? "null" : sprintf("{\"exit\": %s, \"wall_s\": %s, \"cpu_s\": %s, \"rss_kib\": %s}", e, w, c, s) }
    { p = $2; if (index(p, r) == 1) p = substr(p, length(r) + 1)
      printf "%s\n      {\"module\": \"%s\", \"bytes\": %s, \"btfgate\": %s, \"pahole\": %s, \"check\": \"%s\"}", (NR > 1 ? "," : ""), p, $3, tool($4, $5, $6, $7), tool($8, $9, $10, $11), $12 }' "$ms/modules.tsv")]"
  modset_json="{\"source\": \"$modset_src\", \"root\": \"$modset_root_dir\", \"base\": \"$modset_base_btf\", \"modules_total\": $modset_total, \"modules_run\": $nmods, \"limit\": ${modset_limit:-null}, \"parallel\": 2, \"jobs\": 2, \"rounds\": $runs, ${tools_json}\"ratio_to_pahole\": $ratios_json, \"rss_above_pahole\": $above, \"checks\": $checks_json, \"mismatches\": $mism_json, \"modules\": $mods_json}"
fi

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
    printf '  "equal_to_pahole": [\n%s\n  ],\n' "$(join "${same_json[@]}")"
    printf '  "scaling": %s,\n' "$scaling_json"
    printf '  "sizes": [\n%s\n  ],\n' "$(join "${sizes_json[@]}")"
    printf '  "module_set": %s,\n' "$modset_json"
    printf '  "rss_traces": [\n%s\n  ]\n}\n' "$(join "${trace_json[@]}")"
  } >"$json_out"
  jq empty "$json_out" || die "wrote invalid JSON to $json_out"
  echo "bench: wrote $json_out" >&2
fi

if [ -n "$plot_out" ]; then
  (cd "$repo" && go run ./internal/benchplot "$json_out" "$plot_out") || die "go run ./internal/benchplot failed"
  echo "bench: wrote $plot_out" >&2
fi
