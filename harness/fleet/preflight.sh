#!/bin/sh
# preflight.sh - `dmalab preflight` as Slurm's HealthCheckProgram (or Prolog).
#
# slurm.conf(5): "Any action to be taken must be explicitly performed by the
# program" (https://slurm.schedmd.com/slurm.conf.html#OPT_HealthCheckProgram),
# so an exit code alone drains nothing.  This runs `dmalab preflight --brief`
# (the dmalab of this build: make copies this script to <build>/fleet/) and,
# when it says unhealthy (exit 1), drains the node with its status line as
# the reason:
#   scontrol update NodeName=<node> State=DRAIN Reason="dmalab preflight: ..."
# Exit 2 (the check could not run) and 128+N (signal N stopped it) drain
# nothing: they are logged with logger (syslog) and the exit code is passed
# on.  The node is $SLURMD_NODENAME when slurmd sets it, else `hostname -s`.
#
# Slurm runs the program without arguments: options go in a file beside
# this script, preflight.args (one line, e.g. "--expect-gpus 8"), or on
# this script's command line.  Test hooks: DMALAB_BIN (the dmalab to run),
# SCONTROL (the scontrol to run).
set -u
here=$(dirname "$0")
dmalab=${DMALAB_BIN:-$here/../dmalab}
scontrol=${SCONTROL:-scontrol}
args_file=$here/preflight.args

set -f # the options file's words are words, not patterns
if [ -r "$args_file" ]; then
	# shellcheck disable=SC2046 # split on purpose: one line of options; a file saved
	# with CRLF line ends would give '3\r', a bad option, and the node would go unchecked
	set -- $(tr -d '\r' <"$args_file") "$@"
fi
set +f

line=$("$dmalab" preflight --brief "$@")
rc=$?
[ -n "$line" ] || line="dmalab preflight printed nothing (exit $rc)"
printf '%s\n' "$line"
case $rc in
0) exit 0 ;;
1)
	node=${SLURMD_NODENAME:-$(hostname -s)}
	# Slurm keeps the reason as given; one line, the check's own words
	reason=$(printf '%s' "$line" | sed 's/^preflight: unhealthy: /dmalab preflight: /' |
		cut -c1-240)
	if ! "$scontrol" update NodeName="$node" State=DRAIN Reason="$reason"; then
		echo "preflight.sh: $scontrol update NodeName=$node State=DRAIN failed" >&2
	fi
	exit 1
	;;
*)
	logger -t dmalab-preflight "exit $rc: $line" 2>/dev/null || true
	exit "$rc"
	;;
esac
