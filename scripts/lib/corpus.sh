# shellcheck shell=bash
# The one way scripts reach the corpus: sourced, it defines
#   corpus_unpacked REL   prints the path of the unpacked copy of
#                         $BTFGATE_SHARED/REL.zst (default ../shared beside
#                         the repository), unpacking it once into
#                         ${BTFGATE_CACHE:-~/.cache/btfgate/corpus}.
# The cache and its .stamp files (the source's size and mtime in
# nanoseconds) are the ones internal/corpus keeps for the tests, so
# scripts and tests share one copy. Returns non-zero, saying why on
# stderr, when the source is missing or zstd fails.

corpus_unpacked() {
	local repo shared cache src dst stamp
	repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	shared=${BTFGATE_SHARED:-$(dirname "$repo")/shared}
	cache=${BTFGATE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/btfgate/corpus}
	src=$shared/$1.zst
	dst=$cache/$(basename "$1")
	if [ ! -f "$src" ]; then
		echo "no corpus file $src (set BTFGATE_SHARED)" >&2
		return 2
	fi
	stamp="$(stat -c %s "$src") $(date -r "$src" +%s%N)"
	if [ -f "$dst" ] && [ -f "$dst.stamp" ] && [ "$(cat "$dst.stamp")" = "$stamp" ]; then
		echo "$dst"
		return 0
	fi
	if ! command -v zstd >/dev/null; then
		if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq zstd >/dev/null 2>&1 ||
				{ apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq zstd >/dev/null; }
		fi
		command -v zstd >/dev/null || { echo "zstd is missing: install the Debian package zstd" >&2; return 2; }
	fi
	echo "unpacking $src into $cache" >&2
	mkdir -p "$cache" || return 2
	zstd -q -d -f "$src" -o "$dst.tmp.$$" || { rm -f "$dst.tmp.$$"; echo "unpacking $src failed" >&2; return 2; }
	mv "$dst.tmp.$$" "$dst" && printf '%s' "$stamp" >"$dst.stamp" || return 2
	echo "$dst"
}
