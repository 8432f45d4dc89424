# shellcheck shell=bash
# The module set of a Debian kernel debug package, for scripts/bench.sh's
# module-set run. Sourced, it defines
#   modset_root PKG   prints the directory PKG (a Debian package name such
#                     as linux-image-6.1.0-57-amd64-dbg) is unpacked in,
#                     fetching it with `apt-get download` and unpacking it
#                     with `dpkg -x` the first time, into
#                     ${BTFGATE_MODSET_CACHE:-~/.cache/btfgate/modset}/PKG.
#   modset_cached PKG prints that directory only when it is complete,
#                     fetching nothing.
#   modset_list DIR   prints the *.ko files under DIR, sorted by path
#                     (LC_ALL=C), one a line.
# The unpacked tree is complete only once its .stamp file (the .deb's file
# name) exists; the .deb is deleted after a successful unpack. An
# interrupted unpack leaves root.tmp, which the next call removes and
# redoes. Returns non-zero, saying why on stderr, when apt-get or dpkg fails.

modset_root() {
	local pkg=$1 cache dir deb
	cache=${BTFGATE_MODSET_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/btfgate/modset}
	dir=$cache/$pkg
	if [ -d "$dir/root" ] && [ -s "$dir/.stamp" ]; then
		echo "$dir/root"
		return 0
	fi
	if ! command -v apt-get >/dev/null || ! command -v dpkg >/dev/null; then
		echo "apt-get and dpkg are needed to fetch $pkg" >&2
		return 2
	fi
	mkdir -p "$dir" || return 2
	deb=$(find "$dir" -maxdepth 1 -name "${pkg}_*.deb" | sort | tail -n 1)
	if [ -z "$deb" ]; then
		echo "fetching $pkg with apt-get download into $dir" >&2
		(cd "$dir" && apt-get download -q "$pkg" >&2) ||
			{ apt-get update -qq >/dev/null 2>&1 && (cd "$dir" && apt-get download -q "$pkg" >&2); } ||
			{ rm -f "$dir"/*.deb; echo "apt-get download $pkg failed" >&2; return 2; }
		deb=$(find "$dir" -maxdepth 1 -name "${pkg}_*.deb" | sort | tail -n 1)
		[ -n "$deb" ] || { echo "apt-get download $pkg wrote no .deb into $dir" >&2; return 2; }
	fi
	echo "unpacking $(basename "$deb") into $dir/root" >&2
	rm -rf "$dir/root" "$dir/root.tmp"
	dpkg -x "$deb" "$dir/root.tmp" || { rm -rf "$dir/root.tmp"; echo "dpkg -x $deb failed" >&2; return 2; }
	mv "$dir/root.tmp" "$dir/root" || return 2
	basename "$deb" >"$dir/.stamp" || return 2
	rm -f "$deb"
	echo "$dir/root"
}

modset_list() {
	find "$1" -type f -name '*.ko' | LC_ALL=C sort
}

# modset_cached PKG: prints the unpacked directory of PKG when an earlier
# modset_root left it complete; returns 1, silently, when it did not.
modset_cached() {
	local dir=${BTFGATE_MODSET_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/btfgate/modset}/$1
	[ -d "$dir/root" ] && [ -s "$dir/.stamp" ] || return 1
	echo "$dir/root"
}
