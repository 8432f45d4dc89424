#!/usr/bin/env bash
# Runs one fuzz target for a while and prints what it did: the execs, the
# new inputs it kept, the wall time, and whether it found a failure (the
# failing input is then in the package's testdata/fuzz/TARGET/, as go test
# writes it).
#   scripts/fuzz.sh [-t TIME] [-m MINIMIZE] [-p WORKERS] PACKAGE TARGET
#     TIME      -fuzztime, default 10m
#     MINIMIZE  -fuzzminimizetime, default 50x: go test spends up to this
#               shrinking every new input before it counts it, with no
#               new inputs tried meanwhile (its own default, 60s, leaves
#               a slow target minimizing most of the time)
#     WORKERS   -parallel, default 1
# Example: scripts/fuzz.sh ./encode FuzzEncodeOutputValid
# The inputs the fuzzer kept are under $(go env GOCACHE)/fuzz/MODULE/PKG/TARGET.
set -euo pipefail
fuzztime=10m minimize=50x workers=1
while getopts t:m:p: opt; do
  case $opt in
    t) fuzztime=$OPTARG ;;
    m) minimize=$OPTARG ;;
    p) workers=$OPTARG ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if [ $# -ne 2 ]; then
  sed -n '2,14p' "$0" >&2
  exit 2
fi
pkg=$1 target=$2
cd "$(dirname "$0")/.."
log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$(date +%s)
rc=0
go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimize" \
  -parallel "$workers" "$pkg" >"$log" 2>&1 || rc=$?
end=$(date +%s)
last=$(grep '^fuzz: elapsed' "$log" | tail -1 || true)
execs=$(sed -n 's/.*execs: \([0-9]*\).*/\1/p' <<<"$last")
kept=$(sed -n 's/.*new interesting: \([0-9]*\) (total: \([0-9]*\)).*/\1 new, \2 in all/p' <<<"$last")
if [ $rc -eq 0 ]; then result=ok; else result="FAILED (rc $rc)"; fi
echo "$target: ${execs:-0} execs in $((end - start)) s wall (-fuzztime $fuzztime, -fuzzminimizetime $minimize, $workers worker(s)); inputs kept: ${kept:-none}; $result"
if [ $rc -ne 0 ]; then
  grep -v '^fuzz: elapsed' "$log" | head -60
fi
exit $rc
