#!/usr/bin/env bash
# scripts/vm.sh CMD...  runs CMD as root in a small VM whose kernel has what
# this machine's kernel lacks (TCP-AO, VRF devices): Debian's
# linux-source-6.12 built from `make tinyconfig` + vm/kernel.config, booted
# by qemu with the host's / as its root filesystem over 9p, read-only
# (virtme style: the host's FRR, ExaBGP, tcpdump, Go... are all there).
# CMD runs in the same working directory, which is shared read-write, as is
# $VM_SHARE if set (both at the same paths). CMD's stdout and stderr come
# back as this script's (one stream, in order, when both go to the same
# place), its stdin is /dev/null, and its exit status is this script's.
#
#   scripts/vm.sh CMD...     run CMD (builds the kernel first if needed)
#   scripts/vm.sh --check    can a VM run here? installs what is missing
#                            (root), builds the kernel, boots `true`; exit 0
#                            if so, else 1 with the reason on stderr
#   scripts/vm.sh --kernel   build the kernel if needed; print its path
#
# Environment:
#   VM_TIMEOUT   seconds before qemu is killed and this fails (default 1800)
#   VM_SHARE     another directory shared read-write at the same path
#   VM_GOCACHE   the guest's GOCACHE, shared read-write (default: a tmpfs;
#                VM_GOCACHE=$(go env GOCACHE) lets go build reuse the host's)
#   VM_MEM       guest memory (default 2G); VM_SMP cpus (default 2)
#   VM_ACCEL     kvm or tcg (default: kvm if /dev/kvm works, else tcg)
#   VM_CACHE     kernel cache (default /var/cache/authbgpd-vm)
#   VM_JOBS      make -j for the kernel build (default 2)
#   VM_VERBOSE=1 kernel messages on, and the console log printed at the end
# The host's environment is passed to CMD, except PWD, OLDPWD, SHLVL, _,
# TMPDIR and GOTMPDIR; in the guest HOME=/root, TMPDIR=/tmp,
# GOCACHE=$VM_GOCACHE or /tmp/go-build (tmpfs), GOMODCACHE the host's
# (`go env GOMODCACHE`), GOTOOLCHAIN=local, GOPROXY=off (no network in the
# guest) and AUTHBGPD_VM=1.
#
# Exit status: CMD's; 124 when VM_TIMEOUT expired; 125 when the VM could
# not be built or booted or did not report CMD's status; 130 interrupted.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd -P)
frag=$repo/vm/kernel.config
init=$repo/vm/init.sh
cache=${VM_CACHE:-/var/cache/authbgpd-vm}
src_pkg=linux-source-6.12
src_tar=/usr/src/linux-source-6.12.tar.xz
# Bump when the build procedure below changes what it produces.
recipe=1
# The options the VM exists for: the build fails unless they are =y.
# (Every other line of the fragment is checked too.)
required_opts="TCP_AO TCP_MD5SIG NET_VRF 9P_FS NET_9P_VIRTIO VIRTIO_PCI VIRTIO_CONSOLE NET_NS VETH IPV6_SEG6_HMAC IPV6_SEG6_LWTUNNEL DEVTMPFS TMPFS BINFMT_SCRIPT SERIAL_8250_CONSOLE"
msize=512000

say() { echo "vm: $*" >&2; }
die() { say "$*"; exit 125; }

# ---- what the VM needs on the host --------------------------------------

# missing_pkgs prints the Debian packages the VM needs that are missing.
missing_pkgs() {
	local need=()
	command -v qemu-system-x86_64 >/dev/null 2>&1 || need+=(qemu-system-x86)
	[ -f "$src_tar" ] || need+=("$src_pkg")
	command -v xz >/dev/null 2>&1 || need+=(xz-utils)
	{ command -v gcc && command -v make; } >/dev/null 2>&1 || need+=(build-essential)
	command -v bc >/dev/null 2>&1 || need+=(bc)
	command -v bison >/dev/null 2>&1 || need+=(bison)
	command -v flex >/dev/null 2>&1 || need+=(flex)
	[ -f /usr/include/gelf.h ] || need+=(libelf-dev) # objtool
	command -v pahole >/dev/null 2>&1 || need+=(dwarves) # BTF (CONFIG_DEBUG_INFO_BTF)
	echo "${need[@]}"
}

ensure_deps() {
	local need
	need=$(missing_pkgs)
	[ -z "$need" ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		say "missing Debian packages: $need (not root, so not installing)"
		return 1
	fi
	say "installing $need"
	export DEBIAN_FRONTEND=noninteractive
	# Waits for other users of apt on this machine (lock timeout).
	if ! { apt-get update -qq && apt-get install -y -qq -o DPkg::Lock::Timeout=600 --no-install-recommends $need; } >"${TMPDIR:-/tmp}/authbgpd-vm-apt.log" 2>&1; then
		tail -20 "${TMPDIR:-/tmp}/authbgpd-vm-apt.log" >&2
		say "could not install $need"
		return 1
	fi
	need=$(missing_pkgs)
	if [ -n "$need" ]; then
		say "still missing after install: $need"
		return 1
	fi
}

# ---- the kernel ----------------------------------------------------------

kernel_key() {
	local ver
	ver=$(dpkg-query -W -f '${Version}' "$src_pkg" 2>/dev/null || stat -c '%s-%Y' "$src_tar")
	# The fragment's settings (not its comments), the source, the recipe.
	{ grep -E '^(CONFIG_|# CONFIG_[A-Za-z0-9_]+ is not set)' "$frag"; echo "source=$src_pkg $ver"; echo "recipe=$recipe"; } | sha256sum | cut -c1-16
}

# build_kernel sets $kernel to a bzImage built from the fragment, building
# it (under a lock, once for all concurrent callers) when not cached.
build_kernel() {
	local key dir work log start opt bad line k
	key=$(kernel_key)
	kkey=$key
	dir=$cache/$key
	kernel=$dir/bzImage
	[ -s "$kernel" ] && return 0
	mkdir -p "$cache"
	exec 8>"$cache/lock"
	if ! flock -n 8; then
		say "waiting for another kernel build (lock $cache/lock)"
		flock 8
	fi
	if [ -s "$kernel" ]; then exec 8>&-; return 0; fi
	# Leftovers of builds that were killed (we hold the lock: none is running).
	rm -rf "$cache"/build.*
	work=$(mktemp -d "$cache/build.XXXXXX")
	log=$work/build.log
	start=$(date +%s)
	say "building the VM kernel $key ($src_pkg + tinyconfig + vm/kernel.config, make -j${VM_JOBS:-2} bzImage; about 5-6 minutes on 2 cores); log: $log"
	if ! tar -xf "$src_tar" -C "$work" --strip-components=1 >"$log" 2>&1; then
		tail -20 "$log" >&2; die "cannot unpack $src_tar"
	fi
	(
		cd "$work"
		make tinyconfig
		scripts/kconfig/merge_config.sh -m .config "$frag"
		make olddefconfig
	) >>"$log" 2>&1 || { tail -30 "$log" >&2; die "kernel configuration failed (log: $log)"; }
	# Every line of the fragment must have survived olddefconfig (an option
	# whose dependencies are missing is silently dropped), and the options
	# the VM exists for must be built in.
	bad=()
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*) grep -qxF -- "$line" "$work/.config" || bad+=("$line (got: $(grep -E "^${line%%=*}=|^# ${line%%=*} is not set" "$work/.config" || echo absent))") ;;
		"# CONFIG_"*" is not set")
			k=${line#\# }; k=${k%% *}
			grep -q "^$k=" "$work/.config" && bad+=("$line (got: $(grep "^$k=" "$work/.config"))") ;;
		esac
	done <"$frag"
	for opt in $required_opts; do
		grep -qx "CONFIG_$opt=y" "$work/.config" || bad+=("CONFIG_$opt=y required")
	done
	if [ ${#bad[@]} -gt 0 ]; then
		printf 'vm:   %s\n' "${bad[@]}" >&2
		die "the kernel config lacks what vm/kernel.config asks for (config: $work/.config)"
	fi
	if ! make -C "$work" -j"${VM_JOBS:-2}" bzImage >>"$log" 2>&1; then
		tail -40 "$log" >&2
		die "kernel build failed (log: $log)"
	fi
	rm -rf "$dir.tmp"
	mkdir -p "$dir.tmp"
	cp "$work/arch/x86/boot/bzImage" "$work/.config" "$dir.tmp/"
	cp "$log" "$dir.tmp/build.log"
	echo "$(( $(date +%s) - start ))" >"$dir.tmp/build-seconds"
	rm -rf "$dir"
	mv "$dir.tmp" "$dir"
	rm -rf "$work"
	exec 8>&-
	say "built $kernel in $(cat "$dir/build-seconds")s"
}

# ---- running ---------------------------------------------------------------

# kvm_works: KVM can run this kernel. /dev/kvm may be there and create
# VMs while nested virtualization is too limited to boot (on this project's
# machines the kernel hangs right after the BIOS), so the answer is
# measured once per host boot, qemu and kernel: boot the kernel with no
# root filesystem; it panics and qemu (-no-reboot) exits within a second
# or two, or KVM is no good.
kvm_works() {
	[ -c /dev/kvm ] && [ -r /dev/kvm ] && [ -w /dev/kvm ] || return 1
	local verdict probe
	verdict=$cache/kvm-$(cat /proc/sys/kernel/random/boot_id 2>/dev/null)-$(qemu-system-x86_64 --version | head -1 | md5sum | cut -c1-8)-${kkey:-x}
	if [ ! -f "$verdict" ]; then
		probe=$(mktemp -d "${TMPDIR:-/tmp}/authbgpd-vmprobe.XXXXXX")
		if timeout 15 qemu-system-x86_64 -accel kvm -cpu host -m 256M -smp 1 -nographic -no-reboot \
			-monitor none -serial "file:$probe/console" -nic none -kernel "$kernel" \
			-append "console=ttyS0 panic=-1 loglevel=1 root=/dev/none" </dev/null >"$probe/qemu" 2>&1 &&
			grep -aq 'Kernel panic' "$probe/console"; then
			echo yes >"$verdict"
		else
			echo no >"$verdict"
			say "KVM cannot boot the kernel here (nested virtualization?): using TCG (VM_ACCEL=kvm forces it)"
		fi
		rm -rf "$probe"
	fi
	[ "$(cat "$verdict")" = yes ]
}

abspath() { (cd "$1" && pwd -P); }

# console: the serial console's log without SeaBIOS's terminal escapes.
console() { sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/\x1bc//g; s/\r$//'; }

# run_vm CMD... boots the VM, runs CMD, relays its output; sets $rc.
run_vm() {
	local tmp ctl accel cpu cwd share merged append qpid qrc i tag
	local -a shares=() qemu=()
	build_kernel
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/authbgpd-vm.XXXXXX")
	ctl=$tmp/ctl
	mkdir "$ctl"
	# shellcheck disable=SC2064
	trap "rm -rf '$tmp'" EXIT

	cwd=$(pwd -P)
	[ "$cwd" != / ] || die "run from a directory other than / (it is shared read-write)"
	shares+=("$cwd")
	if [ -n "${VM_SHARE:-}" ]; then
		[ -d "$VM_SHARE" ] || die "VM_SHARE=$VM_SHARE is not a directory"
		share=$(abspath "$VM_SHARE")
		[ "$share" != / ] || die "VM_SHARE=/ cannot be shared read-write"
		[ "$share" = "$cwd" ] || shares+=("$share")
	fi
	# VM_GOCACHE: the guest's GOCACHE, shared read-write (e.g. the host's
	# own, $(go env GOCACHE), so that go build in the guest reuses it).
	if [ -n "${VM_GOCACHE:-}" ]; then
		mkdir -p "$VM_GOCACHE" || die "VM_GOCACHE=$VM_GOCACHE cannot be made"
		VM_GOCACHE=$(abspath "$VM_GOCACHE")
		export VM_GOCACHE
		shares+=("$VM_GOCACHE")
	fi
	# Go's module cache is usually under /root, a tmpfs in the guest: the
	# guest binds the host's (read-only) over it.
	: >"$ctl/binds"
	if [ -z "${GOMODCACHE:-}" ] && command -v go >/dev/null 2>&1; then
		GOMODCACHE=$(go env GOMODCACHE 2>/dev/null || true)
		[ -z "$GOMODCACHE" ] || export GOMODCACHE
	fi
	[ -z "${GOMODCACHE:-}" ] || printf '%s\n' "$GOMODCACHE" >>"$ctl/binds"
	for p in "${shares[@]}" "$init"; do
		case $p in *$'\n'*|*,*) die "path with a newline or comma cannot be shared: $p" ;; esac
	done

	# What the guest's init reads (vm/init.sh): the command (NUL-separated
	# argv), the environment (NUL-separated), the shares, where to run.
	printf '%s\0' "$@" >"$ctl/argv"
	env -0 >"$ctl/env"
	printf '%s\n' "$cwd" >"$ctl/cwd"
	date +%s >"$ctl/now"
	: >"$ctl/mounts"
	i=0
	for p in "${shares[@]}"; do
		printf 'rw%d %s\n' "$i" "$p" >>"$ctl/mounts"
		i=$((i + 1))
	done
	# One stream when stdout and stderr are the same file (a terminal,
	# `2>&1`): the guest then writes both to it and their order is kept.
	merged=0
	if [ "$(stat -L -c "%d:%i" /proc/$$/fd/1 2>/dev/null)" = "$(stat -L -c "%d:%i" /proc/$$/fd/2 2>/dev/null)" ]; then
		merged=1
	fi
	echo "$merged" >"$ctl/merged"

	accel=${VM_ACCEL:-}
	if [ -z "$accel" ]; then
		if kvm_works; then accel=kvm; else accel=tcg; fi
	fi
	case $accel in
	kvm) cpu=host ;;
	tcg) cpu=max ;;
	*) die "VM_ACCEL=$accel: want kvm or tcg" ;;
	esac

	append="root=root rootfstype=9p rootflags=trans=virtio,version=9p2000.L,msize=$msize,cache=loose ro"
	append+=" console=ttyS0 init=$init panic=-1 reboot=t authbgpd_vm=1"
	# The command's output never goes through the console: the console keeps
	# the kernel's warnings and errors (shown when the VM fails).
	if [ "${VM_VERBOSE:-}" = 1 ]; then append+=" loglevel=7"; else append+=" quiet"; fi

	mkfifo "$tmp/out" "$tmp/err"
	qemu=(qemu-system-x86_64 -accel "$accel" -cpu "$cpu" -m "${VM_MEM:-2G}" -smp "${VM_SMP:-2}"
		-nographic -no-reboot -monitor none -serial "file:$tmp/console.log" -nic none
		-kernel "$kernel" -append "$append"
		-virtfs "local,path=/,mount_tag=root,security_model=none,readonly=on,multidevs=remap"
		-virtfs "local,path=$ctl,mount_tag=ctl,security_model=none,multidevs=remap"
		-device virtio-rng-pci
		-device virtio-serial-pci
		-chardev "file,id=out,path=$tmp/out" -device "virtserialport,chardev=out,name=out"
		-chardev "file,id=err,path=$tmp/err" -device "virtserialport,chardev=err,name=err")
	i=0
	for p in "${shares[@]}"; do
		qemu+=(-virtfs "local,path=$p,mount_tag=rw$i,security_model=none,multidevs=remap")
		i=$((i + 1))
	done

	# Relays: the guest's ports are fifos here, read by cat.
	cat "$tmp/out" &
	local cat_out=$!
	cat "$tmp/err" >&2 &
	local cat_err=$!

	local timeout=${VM_TIMEOUT:-1800} interrupted=0
	timeout --kill-after=10 "$timeout" "${qemu[@]}" </dev/null >"$tmp/qemu.log" 2>&1 &
	qpid=$!
	trap 'interrupted=1; kill -TERM $qpid 2>/dev/null || true' INT TERM HUP
	while :; do
		qrc=0
		wait "$qpid" || qrc=$?
		# wait returns >128 when a trapped signal arrived; qemu may still run.
		kill -0 "$qpid" 2>/dev/null || break
	done
	trap - INT TERM HUP
	# A cat still blocked opening its fifo (qemu died before opening it)
	# gets a writer and EOF; a cat that is draining is not disturbed.
	for f in out err; do exec 7<>"$tmp/$f"; exec 7>&-; done
	wait "$cat_out" "$cat_err" 2>/dev/null || true

	if [ "${VM_VERBOSE:-}" = 1 ]; then
		say "console:"; console <"$tmp/console.log" >&2 || true
	fi
	if [ "$interrupted" = 1 ]; then
		say "interrupted"; rc=130; return
	fi
	if [ -s "$ctl/status" ]; then
		rc=$(cat "$ctl/status")
		return
	fi
	if [ "$qrc" = 124 ]; then
		say "timed out after ${timeout}s (VM_TIMEOUT); qemu killed"
		rc=124
	else
		say "the VM stopped without reporting the command's exit status (qemu exit $qrc, accel $accel)"
		rc=125
	fi
	[ -s "$ctl/error" ] && say "guest: $(cat "$ctl/error")"
	if [ -s "$tmp/qemu.log" ]; then say "qemu:"; tail -20 "$tmp/qemu.log" >&2; fi
	if [ "${VM_VERBOSE:-}" != 1 ] && [ -s "$tmp/console.log" ]; then
		say "console (last 40 lines; VM_VERBOSE=1 for all kernel messages):"
		console <"$tmp/console.log" | tail -40 >&2
	fi
}

rc=0
case ${1:-} in
"" | -h | --help)
	sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"
	[ $# -gt 0 ] || exit 2
	;;
--kernel)
	ensure_deps || die "cannot build the VM kernel"
	build_kernel
	echo "$kernel"
	;;
--check)
	ensure_deps || { say "cannot run: missing packages"; exit 1; }
	( build_kernel ) || { say "cannot run: the kernel did not build"; exit 1; }
	chk=$(mktemp -d "${TMPDIR:-/tmp}/authbgpd-vmcheck.XXXXXX")
	out=$(cd "$chk" && VM_TIMEOUT=${VM_CHECK_TIMEOUT:-300} "$repo/scripts/vm.sh" sh -c 'echo vm-ok') && [ "$out" = vm-ok ] || {
		printf '%s\n' "$out" >&2
		rm -rf "$chk"
		say "cannot run: the VM did not boot and run a command"
		exit 1
	}
	rm -rf "$chk"
	say "ok: the VM boots and runs commands"
	;;
-*)
	die "unknown option $1 (see --help)"
	;;
*)
	ensure_deps || die "cannot build or boot the VM"
	run_vm "$@"
	;;
esac
exit "$rc"
