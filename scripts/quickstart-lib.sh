# Shared by scripts/quickstart.sh and scripts/quickstart-tcpao.sh (sourced):
# output helpers, waiting, and the clean-up of what a quickstart started.
# The sourcing script sets QS_NAME (for messages) and fills PIDS (processes
# it started) and NSS (namespaces it made).

say() { printf '    %s\n' "$*"; }
die() {
	printf '\n%s: FAILED: %s\n' "$QS_NAME" "$*" >&2
	exit 1
}

# wait_for SECONDS DESCRIPTION COMMAND... : poll COMMAND every 0.2 s.
wait_for() {
	local secs=$1 what=$2
	shift 2
	local deadline=$(($(date +%s) + secs))
	while ! "$@" >/dev/null 2>&1; do
		if [ "$(date +%s)" -ge "$deadline" ]; then
			die "$what: not within ${secs}s"
		fi
		sleep 0.2
	done
}

# qs_show_logs FILE...: the last lines of each non-empty log (after a failure).
qs_show_logs() {
	local f
	for f in "$@"; do
		[ -s "$f" ] || continue
		printf '\n---- last lines of %s ----\n' "$f" >&2
		tail -n 25 "$f" >&2 || true
	done
}

# qs_stop: stop what we started, by PID (SIGTERM, then SIGKILL after 5 s),
# and delete the namespaces we made.
qs_stop() {
	local pid i ns
	for pid in "${PIDS[@]}"; do
		kill -TERM "$pid" 2>/dev/null || true
	done
	for pid in "${PIDS[@]}"; do
		for ((i = 0; i < 50; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	for ns in "${NSS[@]}"; do
		ip netns del "$ns" 2>/dev/null || true
	done
}
