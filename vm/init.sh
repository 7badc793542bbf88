#!/bin/bash
# vm/init.sh: PID 1 of the VM that scripts/vm.sh boots (init= on the kernel
# command line). The root filesystem is the host's /, read-only over 9p.
# This mounts what a test needs (proc, sysfs, devtmpfs, tmpfs where writes
# must go, tracefs, bpffs, the host's read-write shares), runs the command
# the host left in the control share (/run/vmctl: argv, env, cwd, mounts,
# binds, merged), with its stdout/stderr on the virtio-serial ports "out" and
# "err", writes its exit status to /run/vmctl/status and reboots (qemu runs
# with -no-reboot, so it exits). Messages of its own go to the console
# (ttyS0), which the host keeps in a log and shows when something fails.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
ctl=/run/vmctl
msize=512000

stop() {
	sync
	echo b >/proc/sysrq-trigger
	# Not reached; if it were, PID 1 exiting panics and panic=-1 reboots.
	sleep 10
	exit 1
}

fail() {
	echo "vm init: $*" >&2
	[ -w "$ctl" ] && echo "$*" >"$ctl/error"
	stop
}

mounted() { grep -q "^[^ ]* $1 " /proc/mounts; }

mount -t proc proc /proc || fail "mount /proc"
mounted /sys || mount -t sysfs sysfs /sys || fail "mount /sys"
mounted /dev || mount -t devtmpfs devtmpfs /dev || fail "mount /dev"
mkdir -p /dev/pts /dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
[ -e /dev/stdin ] || ln -s /proc/self/fd/0 /dev/stdin
[ -e /dev/stdout ] || ln -s /proc/self/fd/1 /dev/stdout
[ -e /dev/stderr ] || ln -s /proc/self/fd/2 /dev/stderr
[ -e /dev/ptmx ] || ln -s pts/ptmx /dev/ptmx

# / is read-only: these are fresh and empty in every VM.
for d in /tmp:1777 /var/tmp:1777 /run:755 /root:700 /var/log:755; do
	mount -t tmpfs -o "mode=${d#*:}" tmpfs "${d%:*}" || fail "mount tmpfs on ${d%:*}"
done
mkdir -p /run/lock /run/netns

[ -d /sys/kernel/tracing ] && mount -t tracefs tracefs /sys/kernel/tracing
[ -d /sys/fs/bpf ] && mount -t bpf bpf /sys/fs/bpf

mkdir -p "$ctl"
opts=trans=virtio,version=9p2000.L,msize=$msize,cache=mmap
mount -t 9p -o "$opts" ctl "$ctl" || fail "mount the control share"
# Read-write shares, parents before children.
sort -k2 "$ctl/mounts" | while read -r tag path; do
	mkdir -p "$path" && mount -t 9p -o "$opts" "$tag" "$path" || fail "mount share $tag at $path"
done || fail "mount the shares"

# The host's / once more at /run/host, without the mounts above: host
# directories a tmpfs hides (Go's module cache under /root) are bound back,
# read-only.
mkdir -p /run/host
mount --bind / /run/host || fail "bind / at /run/host" # not recursive: no tmpfs
while read -r path; do
	[ -n "$path" ] && [ ! -d "$path" ] && [ -d "/run/host$path" ] || continue
	mkdir -p "$path" && mount --bind "/run/host$path" "$path" || fail "bind $path"
done <"$ctl/binds"

echo authbgpd-vm >/proc/sys/kernel/hostname
ip link set lo up || fail "ip link set lo up"
# The clock comes from the emulated RTC; set it from the host if it is off.
now=$(cat "$ctl/now")
[ $(($(date +%s) - now)) -lt -5 ] || [ $(($(date +%s) - now)) -gt 120 ] && date -s "@$now" >/dev/null

# The command's environment: the host's, less what cannot apply here.
declare -a envs=()
gocache=/tmp/go-build
while IFS= read -r -d '' kv; do
	name=${kv%%=*}
	[[ $name =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || continue
	case $name in
	PWD | OLDPWD | SHLVL | _ | TMPDIR | GOTMPDIR | HOME | GOCACHE | GOTOOLCHAIN | GOPROXY | AUTHBGPD_VM) continue ;;
	VM_GOCACHE) gocache=${kv#*=} ;;
	esac
	envs+=("$kv")
done <"$ctl/env"
mkdir -p "$gocache"
envs+=(HOME=/root TMPDIR=/tmp "GOCACHE=$gocache" GOTOOLCHAIN=local GOPROXY=off AUTHBGPD_VM=1)

argv=()
while IFS= read -r -d '' a; do argv+=("$a"); done <"$ctl/argv"
[ ${#argv[@]} -gt 0 ] || fail "no command"

port() {
	local p
	for p in /sys/class/virtio-ports/*; do
		[ "$(cat "$p/name" 2>/dev/null)" = "$1" ] && { echo "/dev/${p##*/}"; return; }
	done
	return 1
}
out=$(port out) || fail "no virtio-serial port 'out'"
err=$(port err) || fail "no virtio-serial port 'err'"

cwd=$(cat "$ctl/cwd")
cd "$cwd" || fail "cd $cwd"
# A port can be open only once: one stream is a dup.
if [ "$(cat "$ctl/merged")" = 1 ]; then
	env -i "${envs[@]}" "${argv[@]}" </dev/null >"$out" 2>&1
else
	env -i "${envs[@]}" "${argv[@]}" </dev/null >"$out" 2>"$err"
fi
rc=$?
echo "$rc" >"$ctl/status.tmp" && mv "$ctl/status.tmp" "$ctl/status"
stop
