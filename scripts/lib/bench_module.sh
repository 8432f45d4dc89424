#!/usr/bin/env bash
# One module of scripts/bench.sh's module-set run; xargs -P starts one
# process of this per module, as make starts one pahole per module.
#
#   bench_module.sh run TOOL RESDIR OUTDIR IDX MODULE
#       encodes MODULE (split BTF on $BENCH_BASE) with TOOL (btfgate:
#       $BENCH_BTFGATE, pahole: $BENCH_PAHOLE) into OUTDIR/IDX.btf and
#       writes "exit wall_s cpu_s peak_rss_kib" to RESDIR/IDX, stderr to
#       RESDIR/IDX.err. Wall time is the clock around the run; CPU time
#       (user+sys) and peak RSS come from /usr/bin/time.
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
# Exits 0 whatever the encode or the check gave, so that xargs runs every
# module; a missing or malformed argument exits 2.
set -uo pipefail

die() {
	echo "bench_module: $*" >&2
	exit 2
}

case ${1:-} in
run)
	[ $# = 6 ] || die "run wants TOOL RESDIR OUTDIR IDX MODULE"
	tool=$2 res=$3/$5 out=$4/$5.btf module=$6
	: "${BENCH_BASE:?}"
	case $tool in
	btfgate)
		: "${BENCH_BTFGATE:?}"
		cmd=("$BENCH_BTFGATE" encode --features=default -j2 --summary=none --btf_base "$BENCH_BASE" -o "$out" "$module")
		;;
	pahole)
		: "${BENCH_PAHOLE:?}"
		cmd=("$BENCH_PAHOLE" -J -j2 --btf_features=default --btf_base "$BENCH_BASE" --btf_encode_detached="$out" "$module")
		;;
	*) die "unknown tool $tool" ;;
	esac
	rm -f "$out"
	rc=0
	t0=$(date +%s%N)
	/usr/bin/time -f '%e %U %S %M' -o "$res.time" "${cmd[@]}" >/dev/null 2>"$res.err" || rc=$?
	t1=$(date +%s%N)
	# pahole reports some encoder errors and still exits 0, writing nothing.
	[ "$rc" != 0 ] || [ -s "$out" ] || rc=-1
	# A run killed by a signal leaves time's line out: CPU and RSS read 0.
	read -r _ user sys rss _ < <(tail -n 1 "$res.time" 2>/dev/null) || true
	case $user$sys$rss in '' | *[!0-9.]*) user=0 sys=0 rss=0 ;; esac
	awk -v rc="$rc" -v a="$t0" -v b="$t1" -v u="$user" -v s="$sys" -v r="$rss" \
		'BEGIN { printf "%s %.4f %.3f %s\n", rc, (b - a) / 1e9, u + s, r }' >"$res"
	rm -f "$res.time"
	[ -s "$res.err" ] || rm -f "$res.err"
	;;
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
