#!/usr/bin/env bash
# Runs pahole's own regression suite (../shared/peer-tests/dwarves-tests)
# with btfgate as the BTF encoder.
#
#   scripts/peer-tests.sh               btfgate encodes, the reference tools do the rest
#   scripts/peer-tests.sh --reference   every pahole run is the reference pahole 1.31
#                                       (what pahole itself passes here: the bar)
#   scripts/peer-tests.sh [--reference] TEST...   only these tests (e.g. clang_parm_memory)
#
# A temporary bin directory goes first on PATH:
#   pahole  encoding runs (-J, --btf_encode, --btf_encode_detached) go to
#           "bin/btfgate pahole ..."; everything else (pretty printing,
#           --running_kernel_vmlinux, -F dwarf -C ...) to the reference pahole
#   pfunct  the reference pfunct
#   clang   clang-19
# The suite is copied to a temporary directory (it is read-only, and
# btf_functions.sh builds bin/test_bin in it). vmlinux is the corpus kernel,
# unpacked as scripts/encode.sh does, unless the vmlinux variable names one.
#
# Environment: BTFGATE_SHARED (default ../shared), PEER_TESTS (the suite),
# PAHOLE_REF (the reference tools' directory), CLANG (default clang-19),
# VERBOSE (the suite's: its tests then print more), KEEP=1 keeps the
# temporary directory.
#
# Prints one line per test (PASS, FAIL or SKIP, the seconds it took) and a
# final "N passed, N failed, N skipped"; a failed test's output follows its
# line. Exits 1 if any test failed, 2 when something it needs is missing.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
repo=$(pwd)

mode=btfgate
if [ "${1:-}" = --reference ]; then
	mode=reference
	shift
fi

shared=${BTFGATE_SHARED:-$repo/../shared}
suite=${PEER_TESTS:-$shared/peer-tests/dwarves-tests}
ref=${PAHOLE_REF:-$shared/tools/pahole-1.31}
clang=${CLANG:-clang-19}

# What the suite and the reference tools need, on Debian as root.
need=()
command -v gawk >/dev/null || need+=(gawk)
command -v "$clang" >/dev/null || need+=(clang-19)
command -v bpftool >/dev/null || need+=(bpftool)
command -v zstd >/dev/null || need+=(zstd)
command -v gcc >/dev/null || need+=(gcc)
command -v make >/dev/null || need+=(make)
if [ -x "$ref/pahole" ] && ldd "$ref/pahole" 2>/dev/null | grep -q 'not found'; then
	need+=(libdw1 libelf1)
fi
if [ ${#need[@]} -gt 0 ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		echo "installing ${need[*]}" >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null ||
			{ echo "apt-get install ${need[*]} failed" >&2; exit 2; }
	else
		echo "missing: ${need[*]} (run as root on Debian to install them)" >&2
		exit 2
	fi
fi
[ -d "$suite" ] || { echo "no peer test suite at $suite" >&2; exit 2; }
if [ ! -x "$ref/pahole" ] || [ ! -x "$ref/pfunct" ]; then
	echo "no reference pahole/pfunct in $ref" >&2
	exit 2
fi

if [ "$mode" = btfgate ]; then
	CGO_ENABLED=0 go build -o bin/btfgate ./cmd/btfgate || exit 2
fi

# The corpus kernel, from the cache the tests share.
if [ -z "${vmlinux:-}" ]; then
	. scripts/lib/corpus.sh
	vmlinux=$(corpus_unpacked corpus/vmlinux-6.1.0-57-amd64.norela) || exit 2
fi
export vmlinux

tmp=$(mktemp -d /tmp/btfgate-peer-tests.XXXXXX)
if [ "${KEEP:-}" = 1 ]; then
	echo "temporary directory: $tmp" >&2
else
	trap 'rm -rf "$tmp"' EXIT
fi
mkdir -p "$tmp/bin" "$tmp/logs"
cp -r "$suite" "$tmp/tests"
chmod -R u+w "$tmp/tests"

# reproducible_build.sh counts pahole's threads with "ps -L -C pahole":
# btfgate runs its workers as goroutines on however many OS threads the Go
# runtime starts, so the count says nothing about it. Only that count is
# left out; the serial-versus-parallel diff of the BTF still runs for every
# thread count.
if [ "$mode" = btfgate ]; then
	# shellcheck disable=SC2016 # the $((...)) is for the patched script
	sed -i 's/^\(\s*\)nr_threads_started=\$(ps -L -C pahole .*/\1nr_threads_started=$((threads + 1)) # btfgate: thread count not measured (scripts\/peer-tests.sh); the next line takes off the main thread/' \
		"$tmp/tests/reproducible_build.sh"
	grep -q 'thread count not measured' "$tmp/tests/reproducible_build.sh" ||
		{ echo "could not patch reproducible_build.sh's thread count" >&2; exit 2; }
fi

# The tools on PATH.
if [ "$mode" = btfgate ]; then
	cat >"$tmp/bin/pahole" <<EOF
#!/bin/sh
# Encoding runs go to btfgate, the rest to the reference pahole.
for a in "\$@"; do
	case \$a in
	-J | -JV | -VJ | --btf_encode | --btf_encode_detached | --btf_encode_detached=*)
		exec "$repo/bin/btfgate" pahole "\$@" ;;
	esac
done
exec "$ref/pahole" "\$@"
EOF
else
	ln -s "$ref/pahole" "$tmp/bin/pahole"
fi
ln -s "$ref/pfunct" "$tmp/bin/pfunct"
ln -s "$(command -v "$clang")" "$tmp/bin/clang"
chmod +x "$tmp/bin/pahole"
export PATH="$tmp/bin:$PATH"

tests=("$@")
if [ ${#tests[@]} -eq 0 ]; then
	for t in "$tmp"/tests/*.sh; do
		t=$(basename "$t" .sh)
		[ "$t" = test_lib ] || tests+=("$t")
	done
fi

pass=0 fail=0 skip=0
for t in "${tests[@]}"; do
	t=${t%.sh}
	if [ ! -f "$tmp/tests/$t.sh" ]; then
		echo "no test $t in $suite" >&2
		exit 2
	fi
	start=$(date +%s)
	(cd "$tmp/tests" && "./$t.sh" "$vmlinux") >"$tmp/logs/$t.log" 2>&1 </dev/null
	rc=$?
	secs=$(($(date +%s) - start))
	case $rc in
	0) pass=$((pass + 1)); printf 'PASS %-32s %4ss\n' "$t" "$secs" ;;
	2) skip=$((skip + 1)); printf 'SKIP %-32s %4ss  %s\n' "$t" "$secs" "$(grep -m1 'skip' "$tmp/logs/$t.log" | sed 's/^ *//')" ;;
	*)
		fail=$((fail + 1))
		printf 'FAIL %-32s %4ss (exit %s)\n' "$t" "$secs" "$rc"
		tail -n 20 "$tmp/logs/$t.log" | sed 's/^/    | /'
		;;
	esac
done
echo "$pass passed, $fail failed, $skip skipped ($mode)"
[ "$fail" -eq 0 ]
