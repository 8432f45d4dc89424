#!/usr/bin/env bash
# Runs btfgate's tests the way CI does: installs the tools the tests use
# (when run as root on Debian), checks formatting and vet, then go test.
# Corpus tests need ../shared beside the repository; without it they skip
# and say why.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v gcc >/dev/null || need+=(gcc)
command -v clang >/dev/null || need+=(clang)
command -v llvm-dwarfdump >/dev/null || need+=(llvm)
command -v bpftool >/dev/null || need+=(bpftool)
command -v zstd >/dev/null || need+=(zstd)
command -v pahole >/dev/null || need+=(dwarves)
command -v objcopy >/dev/null || need+=(binutils)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing: ${need[*]}"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  else
    echo "warning: missing ${need[*]}; tests that need them will skip" >&2
  fi
fi

unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi
go vet ./...
# staticcheck, U1000 (unused code) included, from the Go module proxy.
staticcheck=$(go env GOPATH)/bin/staticcheck
if ! "$staticcheck" -version 2>/dev/null | grep -q '^staticcheck 2026.2'; then
  go install honnef.co/go/tools/cmd/staticcheck@v0.8.2 # 2026.2.2
fi
"$staticcheck" ./...
# Suites that count what they tried write it here (go test hides a passing
# package's output); printed after the run.
BTFGATE_TEST_SUMMARY=$(mktemp)
export BTFGATE_TEST_SUMMARY
trap 'rm -f "$BTFGATE_TEST_SUMMARY"' EXIT
go test -count=1 -timeout 60m ./...
cat "$BTFGATE_TEST_SUMMARY"
