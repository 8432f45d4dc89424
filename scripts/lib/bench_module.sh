#!/usr/bin/env bash
# The check of one module of scripts/bench.sh's module-set run (the run
# itself is internal/modsetrun); xargs -P starts one process of this per
# module.
#
#   bench_module.sh check GDIR PDIR CHECKDIR IDX
#       compares the outputs of one module, GDIR/IDX.btf (btfgate's) and
#       PDIR/IDX.btf (pahole's), and writes one word to CHECKDIR/IDX:
#       ok; both-failed or btfgate-failed (no output from both or from
#       btfgate); bpftool-failed (bpftool cannot dump ours on the base,
#       its error in CHECKDIR/IDX.bpftool); pahole-failed (ours dumps,
#       pahole wrote nothing: it reports some errors and exits 0); differs
#       or diff-failed (`btfgate diff` pahole's ours exits 1 or 2, its
#       output in CHECKDIR/IDX.diff).
#
# Exits 0 whatever the check gave, so that xargs checks every module; a
# missing or malformed argument exits 2.
set -uo pipefail

die() {
	echo "bench_module: $*" >&2
	exit 2
}

case ${1:-} in
check)
	[ $# = 5 ] || die "check wants GDIR PDIR CHECKDIR IDX"
	ours=$2/$5.btf theirs=$3/$5.btf res=$4/$5
	: "${BENCH_BASE:?}" "${BENCH_BTFGATE:?}"
	if [ ! -s "$ours" ] && [ ! -s "$theirs" ]; then
		verdict=both-failed
	elif [ ! -s "$ours" ]; then
		verdict=btfgate-failed
	elif ! bpftool -B "$BENCH_BASE" btf dump file "$ours" >/dev/null 2>"$res.bpftool"; then
		verdict=bpftool-failed
	elif [ ! -s "$theirs" ]; then
		verdict=pahole-failed
	else
		rm -f "$res.bpftool"
		rc=0
		"$BENCH_BTFGATE" diff --base "$BENCH_BASE" "$theirs" "$ours" >"$res.diff" 2>&1 || rc=$?
		case $rc in
		0) verdict=ok; rm -f "$res.diff" ;;
		1) verdict=differs ;;
		*) verdict=diff-failed ;;
		esac
	fi
	echo "$verdict" >"$res"
	;;
*) die "usage: bench_module.sh run|check ..." ;;
esac
exit 0
