#!/usr/bin/env bash
# Kernel-build end to end: builds Debian's linux-source-6.1 with btfgate as
# PAHOLE, compares every BTF it wrote with what the reference pahole 1.31
# writes for the same objects with the same flags, boots each kernel under
# qemu and checks from inside that BPF attaches by that BTF.
#
#   scripts/kbuild-e2e.sh [options]
#     --variants LIST   gcc,clang,lto (default: all three)
#                         gcc:   gcc + ld.bfd
#                         clang: LLVM=-19 (clang-19 + ld.lld-19)
#                         lto:   LLVM=-19 and CONFIG_LTO_CLANG_THIN=y
#     -j N              make -j (default: nproc)
#     --work DIR        work directory (default: $BTFGATE_KBUILD_WORK or
#                       ~/.cache/btfgate/kbuild): the unpacked source (shared),
#                       one directory per variant (build tree, logs, results)
#     --keep            keep the build trees after the run (default)
#     --clean           remove each variant's build tree once it is checked
#                       (its logs and results stay)
#     --no-build        check the build trees of an earlier --keep run again
#                       (compare, boot) without building
#     --fail-check LIST variants whose tree then checks that a failing
#                       encode is seen (default: gcc; none for none): see
#                       fail_check below
#     --no-install      do not install missing packages
#     --update-doc FILE replace the rows and the reports of the variants run
#                       in FILE (docs/kbuild-e2e.md; see doc_update below)
#
# Each build starts from a fresh tree: make tinyconfig, merge
# testdata/kbuild/e2e.config (and e2e-lto.config for lto) with
# scripts/kconfig/merge_config.sh -m, make olddefconfig, make. PAHOLE (at
# config time too: Kconfig asks it for its version) is a wrapper written
# here that copies each file it is asked to -J, records the arguments, runs
# btfgate and records its exit status. The gcc build also gets a rules file
# (BTFGATE_RULES) that leaves out one vmlinux function, $EXCLUDE below.
#
# Then, per variant:
#   build ok      make passed, every btfgate call exited 0 (the wrapper's
#                 record), and vmlinux and every module were encoded.
#   failing encode (--fail-check, gcc by default), after the checks:
#                 btfgate made to fail inside Kbuild must fail the build.
#                 For a module Kbuild stops on pahole's exit status
#                 (Makefile.modfinal's command runs under set -e); for
#                 vmlinux it does not (link-vmlinux.sh runs pahole inside
#                 `if ! gen_btf`, where set -e does not apply) and the build
#                 fails at resolve_btfids, which finds no .BTF.
#   vmlinux/modules equal
#                 the reference pahole runs on each copy with the recorded
#                 arguments but --btf_encode_detached, and `btfgate diff`
#                 compares its BTF with the .BTF of vmlinux or the module by
#                 content. Modules are encoded on `--btf_base vmlinux`, the
#                 build's vmlinux, whose BTF is btfgate's: both encoders get
#                 the very base the kernel loads the modules on, so a
#                 module's comparison is about the module alone (on pahole's
#                 own vmlinux BTF, any vmlinux difference would show again
#                 in every module, with other type ids).
#                 With the rules file, the build's vmlinux BTF must differ
#                 from pahole's by exactly FUNC $EXCLUDE and the prototype
#                 only it used, and btfgate without the rules (an extra
#                 encode of the same copy) must equal pahole.
#   boot, checks  qemu-system-x86_64 (KVM when it boots, else TCG) with an
#                 initramfs (cpio -o -H newc) whose /init is
#                 internal/kbuilde2e/guest; it reports one line per check on
#                 the serial console.
# The script prints one table and exits non-zero when anything failed.
#
# Needs: Go, and (installed when run as root on Debian, unless --no-install)
# linux-source-6.1, gcc, make, flex, bison, bc, libelf-dev, libssl-dev,
# cpio, xz-utils, jq, qemu-system-x86, libdw1 (the reference pahole),
# clang-19, lld-19 and llvm-19 for clang and lto; and the reference pahole
# at ../shared/tools/pahole-1.31/pahole beside the repository
# (BTFGATE_SHARED names another shared directory, PAHOLE_REF the program).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)

# The vmlinux function the gcc build's rules file leaves out; the guest
# checks that it is in kallsyms and cannot be attached to.
EXCLUDE=${EXCLUDE:-__x64_sys_getpgid}
# Functions the guest attaches to: fentry on a vmlinux function getpid(2)
# calls, fexit on a function of binfmt_misc.ko that reading its status
# file calls.
FENTRY=__task_pid_nr_ns
FEXIT_MODULE=binfmt_misc
FEXIT=bm_status_read
TRIGGERS=5

variants=gcc,clang,lto
jobs=$(nproc)
work=${BTFGATE_KBUILD_WORK:-$HOME/.cache/btfgate/kbuild}
keep=1
build=1
install=1
update_doc=
failcheck=gcc
while [ $# -gt 0 ]; do
  case $1 in
  --variants) variants=$2; shift ;;
  --variants=*) variants=${1#*=} ;;
  -j) jobs=$2; shift ;;
  -j*) jobs=${1#-j} ;;
  --work) work=$2; shift ;;
  --work=*) work=${1#*=} ;;
  --keep) keep=1 ;;
  --clean) keep=0 ;;
  --no-build) build=0 ;;
  --no-install) install=0 ;;
  --fail-check) failcheck=$2; shift ;;
  --fail-check=*) failcheck=${1#*=} ;;
  --update-doc) update_doc=$2; shift ;;
  --update-doc=*) update_doc=${1#*=} ;;
  -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  *) echo "kbuild-e2e: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
IFS=, read -r -a vlist <<<"$variants"
for v in "${vlist[@]}"; do
  case $v in gcc | clang | lto) ;; *) echo "kbuild-e2e: unknown variant $v (gcc, clang, lto)" >&2; exit 2 ;; esac
done
[ "$jobs" -gt 0 ] 2>/dev/null || { echo "kbuild-e2e: bad -j $jobs" >&2; exit 2; }
mkdir -p "$work"
work=$(cd "$work" && pwd)
shared=${BTFGATE_SHARED:-$repo/../shared}
pahole_ref=${PAHOLE_REF:-$shared/tools/pahole-1.31/pahole}

log() { printf '%s kbuild-e2e: %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "$*"; exit 1; }
now() { date +%s.%N; }
# dur START [END]: seconds as 4m51s.
dur() {
  local s
  s=$(awk -v a="$1" -v b="${2:-$(now)}" 'BEGIN { printf "%d", b - a + 0.5 }')
  if [ "$s" -ge 60 ]; then printf '%dm%02ds' $((s / 60)) $((s % 60)); else printf '%ds' "$s"; fi
}

# --- tools -----------------------------------------------------------------

install_packages() {
  local need=() clang=0 v
  for v in "${vlist[@]}"; do [ "$v" = gcc ] || clang=1; done
  [ -f /usr/src/linux-source-6.1.tar.xz ] || need+=(linux-source-6.1)
  local cmd pkg
  while read -r cmd pkg; do
    command -v "$cmd" >/dev/null || need+=("$pkg")
  done <<'EOF'
gcc gcc
make make
flex flex
bison bison
bc bc
cpio cpio
xz xz-utils
jq jq
objcopy binutils
qemu-system-x86_64 qemu-system-x86
EOF
  if [ $clang = 1 ]; then
    command -v clang-19 >/dev/null || need+=(clang-19)
    command -v ld.lld-19 >/dev/null || need+=(lld-19)
    command -v llvm-objcopy-19 >/dev/null || need+=(llvm-19)
  fi
  for pkg in libelf-dev libssl-dev libdw1 libelf1; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed' || need+=("$pkg")
  done
  [ ${#need[@]} -gt 0 ] || return 0
  if [ $install = 1 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    log "installing: ${need[*]}"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  else
    die "missing: ${need[*]} (run as root on Debian to install them)"
  fi
}

# Builds btfgate and the guest, static, from this repository.
build_tools() {
  [ -x "$pahole_ref" ] || die "no reference pahole at $pahole_ref (set BTFGATE_SHARED or PAHOLE_REF)"
  "$pahole_ref" --version | grep -qx v1.31 || die "$pahole_ref is not pahole v1.31"
  mkdir -p "$work/bin"
  (cd "$repo" && CGO_ENABLED=0 go build -o "$work/bin/btfgate" ./cmd/btfgate &&
    CGO_ENABLED=0 go build -o "$work/bin/guest" ./internal/kbuilde2e/guest) ||
    die "go build failed"
  btfgate=$work/bin/btfgate
  btfgate_rev=$(cd "$repo" && git rev-parse --short HEAD 2>/dev/null || echo unknown)
  if ! (cd "$repo" && git diff --quiet HEAD -- 2>/dev/null); then btfgate_rev=$btfgate_rev+; fi
}

# Unpacks the source once into $work/src (a stamp names the tarball).
unpack_source() {
  local tar=/usr/src/linux-source-6.1.tar.xz stamp
  [ -f "$tar" ] || die "no $tar (apt-get install linux-source-6.1)"
  src=$work/src/linux-source-6.1
  stamp="$(stat -c '%s %Y' "$tar")"
  if [ -f "$work/src/.stamp" ] && [ "$(cat "$work/src/.stamp")" = "$stamp" ] && [ -f "$src/Makefile" ]; then
    return 0
  fi
  log "unpacking $tar"
  rm -rf "$work/src"
  mkdir -p "$work/src.tmp"
  tar -C "$work/src.tmp" -xf "$tar"
  [ -f "$work/src.tmp/linux-source-6.1/Makefile" ] || die "$tar has no linux-source-6.1/Makefile"
  echo "$stamp" >"$work/src.tmp/.stamp"
  mv "$work/src.tmp" "$work/src"
}

# --- one build ---------------------------------------------------------------

# The PAHOLE of variant directory $1: records and copies each -J input,
# runs btfgate, records its exit status.
write_wrapper() {
  local vdir=$1
  cat >"$vdir/pahole" <<EOF
#!/bin/sh
# Written by scripts/kbuild-e2e.sh: the PAHOLE of this build. For each -J
# call it copies the input (before btfgate rewrites it), records the
# directory and the arguments (NUL-separated), runs btfgate and records its
# exit status, which it returns. KBUILD_E2E_CALLS records elsewhere.
btfgate='$btfgate'
calls=\${KBUILD_E2E_CALLS:-'$vdir/calls'}
case " \$* " in
*" -J "* | *" --btf_encode "*) ;;
*) exec "\$btfgate" "\$@" ;;
esac
for a in "\$@"; do input=\$a; done
d=\$(mktemp -d "\$calls/call-\$(basename "\$input").XXXXXX") || exit 1
cp -- "\$input" "\$d/input" || exit 1
pwd >"\$d/cwd"
printf '%s\\0' "\$@" >"\$d/args"
"\$btfgate" "\$@"
rc=\$?
echo \$rc >"\$d/rc"
exit \$rc
EOF
  chmod +x "$vdir/pahole"
}

# make_args VARIANT VDIR: the make command line of a variant.
make_args() {
  local v=$1 vdir=$2
  margs=(-C "$src" O="$vdir/out" ARCH=x86_64 PAHOLE="$vdir/pahole")
  [ "$v" = gcc ] || margs+=(LLVM=-19)
}

configure() {
  local v=$1 vdir=$2 frag=("$repo/testdata/kbuild/e2e.config")
  [ "$v" = lto ] && frag+=("$repo/testdata/kbuild/e2e-lto.config")
  make_args "$v" "$vdir"
  # (Called where errexit does not apply: each step says if it failed.)
  make -s "${margs[@]}" tinyconfig >>"$vdir/build.log" 2>&1 || return 1
  "$src/scripts/kconfig/merge_config.sh" -m -O "$vdir/out" "$vdir/out/.config" "${frag[@]}" >>"$vdir/build.log" 2>&1 || return 1
  make -s "${margs[@]}" olddefconfig >>"$vdir/build.log" 2>&1 || return 1
  # Every option of the fragments must have come through (a dependency
  # Kconfig could not meet drops it silently).
  local line name val missing=()
  while IFS= read -r line; do
    case $line in CONFIG_*=*) ;; *) continue ;; esac
    name=${line%%=*} val=${line#*=}
    grep -qx "$name=$val" "$vdir/out/.config" || missing+=("$line")
  done < <(cat "${frag[@]}")
  if [ ${#missing[@]} -gt 0 ]; then
    echo "options the config did not take: ${missing[*]}" >>"$vdir/build.log"
    log "$v: options the config did not take: ${missing[*]}"
    return 1
  fi
}

# build_env VARIANT VDIR: the environment of a variant's make: its own base
# and policy caches, and the rules file for gcc only.
build_env() {
  export BTFGATE_BASE_CACHE="$2/base-cache"
  export BTFGATE_POLICY_CACHE="$2/policy-cache"
  unset BTFGATE_RULES
  if [ "$1" = gcc ]; then export BTFGATE_RULES="$2/rules.yaml"; fi
}

# build VARIANT: configure and make; sets build_time and make_rc.
build_variant() {
  local v=$1 vdir=$work/$1 t0
  rm -rf "$vdir/out" "$vdir/calls" "$vdir/build.log"
  mkdir -p "$vdir/out" "$vdir/calls"
  write_wrapper "$vdir"
  if [ "$v" = gcc ]; then
    printf '# Written by scripts/kbuild-e2e.sh for the gcc build.\ndata:\n  deny:\n    - {name: "%s", reason: "kbuild-e2e: left out on purpose"}\n' \
      "$EXCLUDE" >"$vdir/rules.yaml"
  fi
  log "$v: building in $vdir/out (make -j$jobs, log $vdir/build.log)"
  t0=$(now)
  make_rc=0
  (
    build_env "$v" "$vdir"
    configure "$v" "$vdir" || exit 1
    make -s -j"$jobs" "${margs[@]}" >>"$vdir/build.log" 2>&1
  ) || make_rc=$?
  build_time=$(dur "$t0")
  echo "$build_time" >"$vdir/build-time"
  echo "$make_rc" >"$vdir/make-rc"
  echo "$btfgate_rev" >"$vdir/btfgate-rev"
  log "$v: make exited $make_rc after $build_time"
}

# --- comparison ---------------------------------------------------------------

# call_args DIR: the recorded arguments of a call, into the array cargs.
call_args() {
  cargs=()
  local a
  while IFS= read -r -d '' a; do cargs+=("$a"); done <"$1/args"
}

# compare_variant VARIANT: runs the reference on every recorded call and
# compares; sets build_ok, vmlinux_eq, mods_eq, mods_n and ok.
compare_variant() {
  local v=$1 vdir=$work/$1 d out=$work/$1/out
  local calls_bad=0 vmlinux_calls=0 mod_calls=0
  rm -rf "$vdir/compare"
  mkdir -p "$vdir/compare"
  mapfile -t mods < <(sed 's/\.o$/.ko/' "$out/modules.order" 2>/dev/null)
  mods_n=${#mods[@]}
  mods_eq=0
  vmlinux_eq=no
  declare -A mod_ok=()
  local calldirs
  mapfile -t calldirs < <(find "$vdir/calls" -mindepth 1 -maxdepth 1 -type d | LC_ALL=C sort)
  for d in "${calldirs[@]}"; do
    local rc
    rc=$(cat "$d/rc" 2>/dev/null || echo missing)
    if [ "$rc" != 0 ]; then
      calls_bad=$((calls_bad + 1))
      echo "btfgate exited $rc: $(tr '\0' ' ' <"$d/args")" >>"$vdir/compare/failures.txt"
      continue
    fi
    call_args "$d"
    local n=${#cargs[@]} input=${cargs[$((${#cargs[@]} - 1))]} cwd ref=("$pahole_ref") i is_mod=0
    cwd=$(cat "$d/cwd")
    for ((i = 0; i < n - 1; i++)); do
      case ${cargs[$i]} in
      -J | --btf_encode) ;;
      --btf_base | --btf_base=*) is_mod=1; ref+=("${cargs[$i]}") ;;
      *) ref+=("${cargs[$i]}") ;;
      esac
    done
    ref+=("--btf_encode_detached=$d/pahole.btf" "$d/input")
    if ! (cd "$cwd" && "${ref[@]}") >"$d/pahole.log" 2>&1; then
      echo "reference pahole failed on $d: $(tail -1 "$d/pahole.log")" >>"$vdir/compare/failures.txt"
      continue
    fi
    local name rel
    case $input in /*) rel=$input ;; *) rel=$cwd/$input ;; esac
    if [ $is_mod = 1 ]; then
      mod_calls=$((mod_calls + 1))
      name=$(basename "$input")
      if "$btfgate" diff --base "$out/vmlinux" "$d/pahole.btf" "$rel" >"$vdir/compare/$name.diff" 2>&1; then
        mod_ok[$name]=1
      fi
    else
      vmlinux_calls=$((vmlinux_calls + 1))
      compare_vmlinux "$v" "$d"
    fi
  done
  local m
  for m in "${mods[@]}"; do [ -n "${mod_ok[$(basename "$m")]:-}" ] && mods_eq=$((mods_eq + 1)); done
  build_ok=yes
  local why=()
  [ "$(cat "$vdir/make-rc")" = 0 ] || why+=("make exited $(cat "$vdir/make-rc")")
  [ $calls_bad = 0 ] || why+=("$calls_bad btfgate calls failed")
  [ $vmlinux_calls = 1 ] || why+=("$vmlinux_calls vmlinux encodes")
  [ $mod_calls = "$mods_n" ] || why+=("$mod_calls of $mods_n modules encoded")
  if [ ${#why[@]} -gt 0 ]; then
    local joined
    joined=$(printf '%s, ' "${why[@]}")
    build_ok="no (${joined%, })"
  fi
}

# compare_vmlinux VARIANT CALLDIR: pahole's BTF against the build's vmlinux.
# With the rules file (gcc), the difference must be exactly FUNC $EXCLUDE
# and its prototype if nothing else uses it, and btfgate without rules must
# equal pahole.
compare_vmlinux() {
  local v=$1 d=$2 out=$work/$1/out c=$work/$1/compare
  if "$btfgate" diff "$d/pahole.btf" "$out/vmlinux" >"$c/vmlinux.diff" 2>&1; then
    vmlinux_eq=yes
    [ "$v" != gcc ] || vmlinux_eq="no (FUNC $EXCLUDE is in, the rules should have left it out)"
    return 0
  fi
  if [ "$v" != gcc ]; then
    vmlinux_eq="no ($(diff_summary "$c/vmlinux.diff"))"
    return 0
  fi
  # The build's BTF, with the rules.
  "$btfgate" diff --json "$d/pahole.btf" "$out/vmlinux" >"$c/vmlinux.diff.json" 2>/dev/null || true
  local unexpected
  unexpected=$(jq -r --arg f "$EXCLUDE" '
    ( [.functions.removed[] | select(.name == $f)] | .[0].old[0] // "" ) as $key
    | ($key | sub("^[^>]*-> "; "")) as $proto
    | [ (if ([.functions.removed[].name] == [$f]) then empty else "functions removed: \([.functions.removed[].name] | join(" "))" end),
        (.functions.added[], .functions.changed[] | "function \(.kind) \(.name)"),
        (.variables.added[], .variables.removed[], .variables.changed[], .types.added[], .types.removed[], .types.changed[] | "type \(.kind) \(.name)"),
        (.only_b[] | "only in btfgate: \(.key)"),
        (.only_a[] | select(((.key == $key and .count == 1) or (.kind == "FUNC_PROTO" and .key == $proto and .count == 1)) | not) | "only in pahole: \(.key)")
      ] | .[]' "$c/vmlinux.diff.json" 2>&1) || unexpected="jq failed: $unexpected"
  # btfgate without the rules, on the same copy with the same flags.
  call_args "$d"
  local i n=${#cargs[@]} plain=()
  for ((i = 0; i < n - 1; i++)); do
    case ${cargs[$i]} in -J | --btf_encode) ;; *) plain+=("${cargs[$i]}") ;; esac
  done
  local plain_eq=no
  if (cd "$(cat "$d/cwd")" && env -u BTFGATE_RULES "$btfgate" "${plain[@]}" --btf_encode_detached="$d/btfgate-norules.btf" "$d/input") >"$c/norules.log" 2>&1 &&
    "$btfgate" diff "$d/pahole.btf" "$d/btfgate-norules.btf" >"$c/vmlinux-norules.diff" 2>&1; then
    plain_eq=yes
  fi
  if [ -z "$unexpected" ] && [ "$(jq '.functions.removed | length' "$c/vmlinux.diff.json")" = 1 ] && [ $plain_eq = yes ]; then
    local only
    only=$(jq '.only_a | length' "$c/vmlinux.diff.json")
    vmlinux_eq="yes, but for FUNC $EXCLUDE (rules)"
    echo "rules: pahole's BTF has FUNC $EXCLUDE and $((only - 1)) more type(s) only it used; btfgate without rules: equal" >"$c/rules.txt"
  else
    vmlinux_eq=no
    {
      echo "rules: unexpected differences:"
      printf '  %s\n' "$unexpected"
      echo "btfgate without rules equal to pahole: $plain_eq"
    } >"$c/rules.txt"
  fi
}

# diff_summary FILE: the sections of a `btfgate diff` output that are not
# empty, on one line: "functions: 3 added, 2 removed, 0 changed; ...".
diff_summary() {
  awk '/^(functions|variables|named types): / && $0 !~ /: 0 added, 0 removed, 0 changed$/ { out = out sep $0; sep = "; " }
    /^other types only in [AB]/ { sub(/ \(anonymous types, decl tags\)/, ""); out = out sep $0; sep = "; " }
    /^btfgate: / { out = out sep $0; sep = "; " }
    END { print (out == "" ? "different" : out) }' "$1"
}

# --- boot ------------------------------------------------------------------

# kvm_works KERNEL: whether qemu boots the kernel with KVM (it prints its
# banner within seconds); the answer is kept for the run.
kvm_works() {
  if [ -n "${kvm_ok:-}" ]; then [ "$kvm_ok" = 1 ]; return; fi
  kvm_ok=0
  if [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
    local logf=$work/kvm-probe.log
    rm -f "$logf"
    timeout 20 qemu-system-x86_64 -accel kvm -m 256 -display none -monitor none -nodefaults -no-reboot \
      -kernel "$1" -append "console=ttyS0 panic=-1" -serial "file:$logf" >/dev/null 2>&1 &
    local pid=$! i
    for i in $(seq 1 30); do
      if grep -q 'Linux version' "$logf" 2>/dev/null; then kvm_ok=1; break; fi
      kill -0 $pid 2>/dev/null || break
      sleep 0.5
    done
    kill $pid 2>/dev/null || true
    wait $pid 2>/dev/null || true
  fi
  [ "$kvm_ok" = 1 ]
}

btf_sha256() {
  local tmp
  tmp=$(mktemp)
  objcopy --dump-section .BTF="$tmp" "$1" /dev/null 2>/dev/null || { rm -f "$tmp"; echo none; return; }
  sha256sum "$tmp" | cut -d' ' -f1
  rm -f "$tmp"
}

# boot_variant VARIANT: initramfs, qemu, the guest's report; sets boot_time,
# checks and accel.
boot_variant() {
  local v=$1 vdir=$work/$1 out=$work/$1/out root=$work/$1/initramfs
  boot_time=- checks="0/0"
  rm -rf "$root" "$vdir/initramfs.cpio" "$vdir/serial.log"
  mkdir -p "$root/modules"
  cp "$work/bin/guest" "$root/init"
  local m mj=() b name
  for m in "${mods[@]}"; do
    b=$(basename "$m")
    cp "$out/$m" "$root/modules/$b"
    name=${b%.ko}
    mj+=("$(jq -cn --arg p "/modules/$b" --arg n "${name//-/_}" --arg s "$(btf_sha256 "$out/$m")" '{path: $p, name: $n, btf_sha256: $s}')")
  done
  local excluded=
  [ "$v" = gcc ] && excluded=$EXCLUDE
  jq -n --arg vs "$(btf_sha256 "$out/vmlinux")" --argjson mods "[$(IFS=,; echo "${mj[*]}")]" \
    --arg fe "$FENTRY" --arg fm "$FEXIT_MODULE" --arg fx "$FEXIT" --arg ex "$excluded" --argjson n $TRIGGERS \
    '{vmlinux_btf_sha256: $vs, modules: $mods, fentry: $fe, fexit_module: $fm, fexit: $fx, excluded: $ex, triggers: $n}' \
    >"$root/e2e.json"
  (cd "$root" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet) >"$vdir/initramfs.cpio"
  # The checks the guest makes: mount, btf-vmlinux, two per module, fentry,
  # fexit, excluded.
  local want=$((4 + 2 * ${#mods[@]}))
  [ -n "$excluded" ] && want=$((want + 1))
  local kernel=$out/arch/x86/boot/bzImage accel=(-accel tcg -cpu max)
  [ -f "$kernel" ] || { checks="0/$want"; return; }
  if kvm_works "$kernel"; then accel=(-accel kvm); boot_accel=KVM; else boot_accel=TCG; fi
  log "$v: booting under qemu ($boot_accel)"
  local t0 rc=0
  t0=$(now)
  timeout 600 qemu-system-x86_64 "${accel[@]}" -m 512 -display none -monitor none -nodefaults -no-reboot \
    -kernel "$kernel" -initrd "$vdir/initramfs.cpio" \
    -append "console=ttyS0 panic=-1 oops=panic loglevel=4" -serial "file:$vdir/serial.log" \
    >"$vdir/qemu.log" 2>&1 || rc=$?
  boot_time=$(dur "$t0")
  local done_line
  done_line=$(grep -a '^E2E done ' "$vdir/serial.log" | tail -1 | tr -d '\r' || true)
  if [ -z "$done_line" ]; then
    checks="0/$want (no report; qemu exited $rc)"
    return
  fi
  local got=${done_line#E2E done }
  checks=$got
  [ "${got#*/}" = "$want" ] || checks="$got (want $want checks)"
}

# --- a failing encode -----------------------------------------------------------

# fail_check VARIANT: after the checks, makes btfgate fail inside Kbuild
# (a rules file it cannot load, through BTFGATE_RULES): first for one
# module (its .ko removed, make modules), then for vmlinux (removed, make
# vmlinux). btfgate must exit non-zero each time (the wrapper's record),
# and both makes must fail. Then a plain make rebuilds the tree, and its
# BTF must be the same bytes as before. Sets fail_note and fail_ok.
fail_check() {
  local v=$1 vdir=$work/$1 out=$work/$1/out m before after
  m=${mods[$((${#mods[@]} - 1))]}
  printf 'no_such_key: true\n' >"$vdir/broken-rules.yaml"
  before=$(btf_shas "$out")
  make_args "$v" "$vdir"
  local mrc=0 vrc=0 rrc=0 cm cv
  rm -rf "$vdir/calls-fail-module" "$vdir/calls-fail-vmlinux" "$vdir/calls-restore"
  mkdir -p "$vdir/calls-fail-module" "$vdir/calls-fail-vmlinux" "$vdir/calls-restore"
  log "$v: failing encode: $m, then vmlinux"
  rm -f "$out/$m"
  KBUILD_E2E_CALLS=$vdir/calls-fail-module BTFGATE_RULES=$vdir/broken-rules.yaml BTFGATE_BASE_CACHE=$vdir/base-cache \
    make -s -j"$jobs" "${margs[@]}" modules >"$vdir/fail-module.log" 2>&1 || mrc=$?
  cm=$(call_rcs "$vdir/calls-fail-module")
  local mbtf=without
  [ "$(btf_sha256 "$out/$m")" = none ] || mbtf=with
  rm -f "$out/vmlinux"
  KBUILD_E2E_CALLS=$vdir/calls-fail-vmlinux BTFGATE_RULES=$vdir/broken-rules.yaml \
    make -s -j"$jobs" "${margs[@]}" vmlinux >"$vdir/fail-vmlinux.log" 2>&1 || vrc=$?
  cv=$(call_rcs "$vdir/calls-fail-vmlinux")
  # The tree as it was: the variant's own environment.
  (
    build_env "$v" "$vdir"
    export KBUILD_E2E_CALLS=$vdir/calls-restore
    make -s -j"$jobs" "${margs[@]}" >"$vdir/fail-restore.log" 2>&1
  ) || rrc=$?
  after=$(btf_shas "$out")
  fail_note="failing encode ($v): module ${m##*/}: btfgate exited ${cm:-(not run) }-> make exited $mrc, .ko $mbtf .BTF; vmlinux: btfgate exited ${cv:-(not run) }-> make exited $vrc; rebuilt (make exited $rrc): BTF $( [ "$before" = "$after" ] && echo same bytes || echo DIFFERENT)"
  fail_ok=1
  case " $cm" in *" 0 "* | " ") fail_ok=0 ;; esac
  case " $cv" in *" 0 "* | " ") fail_ok=0 ;; esac
  if [ "$mrc" = 0 ] || [ "$vrc" = 0 ] || [ "$rrc" != 0 ] || [ "$before" != "$after" ]; then fail_ok=0; fi
  log "$fail_note"
}

# call_rcs DIR: the exit statuses recorded under DIR, sorted, unique, each
# followed by a space.
call_rcs() {
  find "$1" -mindepth 2 -maxdepth 2 -name rc -exec cat {} + | sort -u | tr '\n' ' '
}

# btf_shas OUT: the .BTF hash of vmlinux and of each module, one a line.
btf_shas() {
  local m
  echo "vmlinux $(btf_sha256 "$1/vmlinux")"
  for m in "${mods[@]}"; do echo "$m $(btf_sha256 "$1/$m")"; done
}

# --- report ------------------------------------------------------------------

compiler_of() {
  local cfg=$1/out/.config cc ld
  cc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\(.*\)"$/\1/p' "$cfg" 2>/dev/null)
  case $cc in
  *clang*) cc="clang $(grep -o '[0-9][0-9.]*[0-9]' <<<"${cc#*version}" | head -1)" ;;
  *gcc* | *GCC*) cc="gcc $(grep -o '[0-9][0-9.]*[0-9]' <<<"${cc##*)}" | tail -1)" ;;
  "") cc="?" ;;
  esac
  if grep -q '^CONFIG_LD_IS_LLD=y' "$cfg" 2>/dev/null; then ld=ld.lld; else ld=ld.bfd; fi
  local lto=
  grep -q '^CONFIG_LTO_CLANG_THIN=y' "$cfg" 2>/dev/null && lto=", ThinLTO"
  echo "$cc + $ld$lto"
}

row() { printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$@"; }

main() {
  install_packages
  build_tools
  unpack_source
  local v status=0 rows=() reports=()
  for v in "${vlist[@]}"; do
    local vdir=$work/$v
    mkdir -p "$vdir"
    if [ $build = 1 ]; then
      build_variant "$v"
    else
      if [ ! -d "$vdir/out" ] || [ ! -f "$vdir/make-rc" ]; then die "$v: no build in $vdir (run without --no-build)"; fi
    fi
    build_time=$(cat "$vdir/build-time")
    compare_variant "$v"
    boot_time=- checks=- boot_accel=
    boot_variant "$v"
    local r
    r=$(row "$v" "$(compiler_of "$vdir")" "$build_time" "$build_ok" "$vmlinux_eq" "$mods_eq/$mods_n" \
      "$boot_time${boot_accel:+ ($boot_accel)}" "$checks")
    rows+=("$r")
    echo "$r" >"$vdir/row"
    local note=
    if [[ ",$failcheck," == *",$v,"* ]]; then
      if [ "$build_ok" = yes ]; then
        fail_check "$v"
        note=$fail_note
        [ "$fail_ok" = 1 ] || status=1
      else
        note="failing encode ($v): not checked, the build did not pass"
      fi
    fi
    local c=${checks%% *}
    if [ "$build_ok" != yes ] || [ "${vmlinux_eq%%,*}" != yes ] || [ "$mods_eq" != "$mods_n" ] || [ "$mods_n" = 0 ] ||
      [ "${c%/*}" != "${c#*/}" ] || [ "$c" != "${checks}" ] || [ "${c%/*}" = 0 ]; then
      status=1
    fi
    {
      [ -z "$note" ] || echo "$note"
      variant_details "$v"
    } >"$vdir/report.txt"
    reports+=("$vdir/report.txt")
    [ $keep = 1 ] || rm -rf "$vdir/out" "$vdir/calls" "$vdir"/calls-* "$vdir/initramfs" "$vdir/initramfs.cpio"
  done
  local head
  head=$(row variant compiler "build time" "build ok" "vmlinux BTF equal" "modules equal" "boot time" "checks passed"
    echo "|---|---|---|---|---|---|---|---|")
  {
    echo
    echo "kbuild-e2e: btfgate $btfgate_rev, linux-source-6.1 $(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || echo '?'), -j$jobs, $(nproc) CPUs"
    echo "$head"
    printf '%s\n' "${rows[@]}"
    local f
    for f in "${reports[@]}"; do [ ! -s "$f" ] || { echo; cat "$f"; }; done
  } | tee "$work/table.md"
  [ -z "$update_doc" ] || doc_update "$update_doc" "${vlist[@]}"
  return $status
}

# variant_details VARIANT: what the comparisons and the guest found beyond
# the table: failed calls, the rules check, the differences of every
# comparison that was not equal, the guest's failed checks.
variant_details() {
  local v=$1 c=$work/$1/compare f
  if [ -f "$c/failures.txt" ]; then sed "s/^/$v: /" "$c/failures.txt"; fi
  if [ -f "$c/rules.txt" ]; then sed "s/^/$v: /" "$c/rules.txt"; fi
  for f in "$c"/*.diff; do
    [ -f "$f" ] || continue
    grep -qx equal "$f" && continue
    echo "$v: $(basename "$f" .diff): pahole (A) against btfgate (B)"
    awk '/^kind/ { k = 1; print "    " $0; next }
      k && NF == 0 { k = 0 }
      k && ($5 != 0 || $6 != 0) { print "    " $0 }
      /^(functions|variables|named types):/ { print "    " $0 }
      /^other types only in/ { print "    " $0 }' "$f"
  done
  if [ -f "$work/$v/serial.log" ]; then
    grep -a '^E2E check .* fail' "$work/$v/serial.log" | sed "s/^/$v: /" || true
  fi
}

# doc_update FILE VARIANT...: in FILE (docs/kbuild-e2e.md), replaces each
# variant's row of the table under "<!-- kbuild-e2e table -->" (adding
# the commit of the btfgate that built it and the date) and what is between "<!-- kbuild-e2e VARIANT -->"
# and "<!-- kbuild-e2e VARIANT end -->" (the variant's report), keeping the
# rest.
doc_update() {
  local file=$1 r v tmp
  shift
  grep -q '^<!-- kbuild-e2e table -->$' "$file" || die "$file has no '<!-- kbuild-e2e table -->' marker"
  tmp=$(mktemp)
  cp "$file" "$tmp"
  for v in "$@"; do
    r="$(cat "$work/$v/row")"
    r="${r% |} | $(cat "$work/$v/btfgate-rev" 2>/dev/null || echo "$btfgate_rev"), $(date -u +%Y-%m-%d) |"
    awk -v v="$v" -v r="$r" -v rep="$work/$v/report.txt" '
      /^<!-- kbuild-e2e table -->$/ { intable = 1; print; next }
      intable && /^\| variant / { print; next }
      intable && /^\|---/ { print; next }
      intable && /^\| / { split($0, f, " [|] "); name = f[1]; sub(/^\| /, "", name)
        if (name == v) { if (!done) print r; done = 1; next } print; next }
      intable { if (!done) print r; done = 1; intable = 0 }
      $0 == "<!-- kbuild-e2e " v " -->" { print; print "```"; n = 0; while ((getline line < rep) > 0) { print line; n++ }
        if (n == 0) print v ": nothing beyond the table"; print "```"; skip = 1; next }
      $0 == "<!-- kbuild-e2e " v " end -->" { skip = 0 }
      skip { next }
      { print }
      END { if (intable && !done) print r }' "$tmp" >"$tmp.new"
    mv "$tmp.new" "$tmp"
  done
  mv "$tmp" "$file"
  log "updated $file"
}

main "$@"; exit $? # on one line: bash has read it whole before main runs, so editing the script meanwhile is safe
