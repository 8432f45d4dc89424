#!/usr/bin/env bash
# Gets Debian's 32-bit x86 kernel with its debug info, for the i386 tests
# (encode/i386_test.go): downloads linux-image-6.1.0-57-686-pae-dbg:i386
# (770 MB) and unpacks it (3.3 GB) into ${BTFGATE_I386:-~/.cache/btfgate/686-pae}.
# Then compares, as those tests do, btfgate with the reference pahole 1.31
# (../shared/tools/pahole-1.31) on its vmlinux, unless NOCHECK=1.
#
# Needs Debian with apt; adding the i386 architecture needs root (run once
# as root, or do `dpkg --add-architecture i386 && apt-get update` first).
# When the package has left the archive, fetch the same file from
# snapshot.debian.org and give its path: scripts/i386-kernel.sh FILE.deb
set -euo pipefail
cd "$(dirname "$0")/.."

pkg=linux-image-6.1.0-57-686-pae-dbg
dir=${BTFGATE_I386:-$HOME/.cache/btfgate/686-pae}
vmlinux=$dir/usr/lib/debug/boot/vmlinux-6.1.0-57-686-pae

if [ ! -f "$vmlinux" ]; then
  deb=${1:-}
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  if [ -z "$deb" ]; then
    if ! dpkg --print-foreign-architectures | grep -qx i386; then
      [ "$(id -u)" = 0 ] || { echo "the i386 architecture is not enabled: run as root, or dpkg --add-architecture i386 && apt-get update" >&2; exit 2; }
      dpkg --add-architecture i386
      apt-get update -qq
    fi
    # apt-get download writes to the working directory; as root, _apt
    # must be able to write there.
    chmod 0777 "$tmp"
    (cd "$tmp" && apt-get download -q "$pkg:i386")
    deb=$(ls "$tmp"/"${pkg}"_*_i386.deb)
  fi
  mkdir -p "$dir.tmp"
  dpkg-deb -x "$deb" "$dir.tmp"
  mkdir -p "$dir"
  mv "$dir.tmp/usr" "$dir/usr"
  rm -rf "$dir.tmp" "$tmp"
  trap - EXIT
fi
echo "i386 kernel: $vmlinux"

[ "${NOCHECK:-}" = 1 ] && exit 0
# The tests make the reference pahole's output on first use (in
# $dir/reference); the shared folder is ../shared beside the repository,
# or BTFGATE_SHARED.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
rc=0
BTFGATE_I386=$dir go test -count=1 -run 'TestI386' -v ./encode/ >"$log" 2>&1 || rc=$?
grep -vE '^=== (RUN|PAUSE|CONT)' "$log"
exit $rc
