#!/bin/sh
# test-fleet.sh - `make fleet` through a real one-node Slurm on this machine.
#
# Starts munged (with a key made here), slurmctld and slurmd from a
# slurm.conf in a temporary directory: the one node is this machine, every
# address 127.0.0.1, two free ports, every state, spool, pid and log file
# in that directory, plugins that need no cgroup.conf (proctrack/linuxproc,
# task/none; Slurm 22.05's slurmd starts without one then).  Then checks:
#   - dmalab fleet's usage errors, "not inside a clone" and "no sbatch on
#     PATH": one line on stderr, exit 2, nothing submitted; --dry-run
#     without Slurm on PATH prints its sbatch lines and makes no folder; a
#     made-up sbatch that refuses the merge job or every job: exit 1, the
#     job cancelled, the folders the submission made taken away again;
#   - --dry-run: -N and -w split into jobs of --nodes-per-job, sbatch
#     options passed on, the merge job after all of them;
#   - make fleet LABS="01 04" QUICK=1: one task ran on the node, <node>.json
#     is a results.json of this host with labs 01 and 04, jobs/fleet-nodes.json
#     has it reported and nothing missing, fleet.json and the page fleet.html
#     (dmalab compare --html-out) list it - said pending while compare is not
#     in the build;
#   - a lab id the build lacks: refused before anything is submitted (exit 2);
#   - a node whose check breaks (an errata file it cannot read): missing,
#     with its log's end;
#   - --merge of a fleet whose second job never ran: its nodes missing;
#   - --merge of a fleet with a node's unfinished ("running") results.json:
#     that node missing, fleet.json and fleet.html written for the other;
#   - --build-on-node: the node builds the lab in its own directory.
# Every way out (pass, fail, timeout, Ctrl-C) cancels the cluster's jobs,
# stops the three daemons by the PIDs it started, waits for them, removes
# the directory, and fails if any of those PIDs (or any process of the
# cluster) is still alive.  The whole test runs under `timeout`
# (DMALAB_FLEET_TEST_LIMIT, 300 s); a daemon that cannot start fails it
# with the end of its log.
#   slurm.conf: https://slurm.schedmd.com/slurm.conf.html
#   munged: munged(8) and `munged --help` (-F, -S, --key-file, --pid-file)
set -u
BUILD=${BUILD:-build}
MAKE=${MAKE:-make}
LIMIT=${DMALAB_FLEET_TEST_LIMIT:-300}
if [ -z "${DMALAB_FLEET_TEST_BOUNDED:-}" ]; then
	DMALAB_FLEET_TEST_BOUNDED=1 BUILD=$BUILD MAKE=$MAKE \
		exec timeout -k 60 "$LIMIT" sh "$0" "$@"
fi
clone=$(pwd)
dmalab=$clone/$BUILD/dmalab
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "test-fleet: FAIL: $*"; }
started=$(date +%s)
say() { echo "test-fleet: [$(($(date +%s) - started)) s] $*"; }

sh harness/deps.sh fleet || { echo "test-fleet: FAIL: Slurm or munge missing (above)"; exit 1; }
[ -x "$dmalab" ] && [ -x "$clone/$BUILD/fleet/fleet.sh" ] ||
	{
		echo "test-fleet: FAIL: $dmalab or $BUILD/fleet/ not built (make $BUILD/dmalab)"
		exit 1
	}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/dmalab-fleet-test.XXXXXX") || exit 1
# munged wants its socket's directory searchable by all, and no directory
# on the key's path writable by others
chmod 755 "$tmp"
munged_pid="" ctld_pid="" slurmd_pid="" child=""
host=$(hostname -s)

# ---- the cluster: every daemon started here is stopped by its PID -------
alive() { # running and not yet a zombie
	[ -r "/proc/$1/stat" ] && [ "$(sed 's/.*) //' "/proc/$1/stat" | cut -c1)" != Z ]
}
# Polls "$@" every 0.5 s for at most $1 seconds.
wait_until() {
	tries=$(($1 * 2))
	shift
	until "$@"; do
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || return 1
		sleep 0.5
	done
}
# Stops daemon $1 (started by this test): SIGTERM, then SIGKILL after 10 s;
# reaps it.
stop_pid() {
	[ -n "$1" ] || return 0
	if alive "$1"; then
		kill "$1" 2>/dev/null
		wait_until 10 eval "! alive $1" || kill -9 "$1" 2>/dev/null
	fi
	wait "$1" 2>/dev/null
}
# The processes of this cluster the test did not start itself (job steps,
# their tasks): those whose environment or command line names its directory.
cluster_processes() {
	for p in /proc/[0-9]*; do
		[ "${p#/proc/}" = $$ ] && continue
		grep -qaF "$tmp/" "$p/environ" "$p/cmdline" 2>/dev/null && echo "${p#/proc/}"
	done
}
queue_empty() { [ -z "$(squeue -h -o %i 2>/dev/null)" ]; }

# Runs "$@" under `timeout SECS` in the background and waits for it: a
# trap runs at once during `wait`, but only after a foreground command
# ends.  Sets out (its output) and rc.
run_bounded() {
	limit=$1
	shift
	timeout "$limit" "$@" >"$tmp/run.out" 2>&1 &
	child=$!
	wait "$child"
	rc=$?
	child=""
	out=$(cat "$tmp/run.out")
}

cleanup() {
	rc=$?
	trap '' INT TERM HUP
	# a command still running (timeout passes the signal to its command)
	[ -n "$child" ] && stop_pid "$child"
	if [ -n "$ctld_pid" ] && alive "$ctld_pid"; then
		ids=$(squeue -h -o %i 2>/dev/null)
		[ -z "$ids" ] || scancel $ids 2>/dev/null
		wait_until 20 queue_empty ||
			bad "jobs still queued after scancel: $(squeue -h 2>&1)"
	fi
	unset SLURM_CONF
	stop_pid "$slurmd_pid"
	stop_pid "$ctld_pid"
	stop_pid "$munged_pid"
	for pid in $slurmd_pid $ctld_pid $munged_pid; do
		alive "$pid" &&
			bad "daemon $pid ($(cat "/proc/$pid/comm")) still alive after its stop"
	done
	left=$(cluster_processes)
	if [ -n "$left" ]; then
		bad "processes of the test cluster left:" \
			$(ps -o pid=,comm= -p "$(echo $left | tr ' ' ,)")
		kill -9 $left 2>/dev/null
	elif [ -n "$munged_pid" ]; then
		ok
	fi
	rm -rf "$tmp"
	[ -e "$tmp" ] && bad "'$tmp' not removed"
	say "$pass passed, $fail failed"
	[ "$fail" -eq 0 ] || [ "$rc" -ne 0 ] || rc=1
	exit "$rc"
}

# Says that daemon $1 did not start, with the end of its logs ($2...).
daemon_failed() {
	bad "$1 did not start here; the end of its log:"
	shift
	for f in "$@"; do
		[ -s "$f" ] && tail -n 15 "$f" | sed 's/^/  /'
	done
}

munge_works() {
	munge -S "$tmp/munge.socket" -n 2>/dev/null |
		unmunge -S "$tmp/munge.socket" >/dev/null 2>&1
}

# munged with a key made here (0400, as munged demands), in the foreground
# so that $! is the daemon itself.
start_munged() {
	mungekey -c -k "$tmp/munge.key" >/dev/null 2>&1 ||
		dd if=/dev/urandom of="$tmp/munge.key" bs=1024 count=1 2>/dev/null
	chmod 400 "$tmp/munge.key"
	setsid munged -F -S "$tmp/munge.socket" --key-file="$tmp/munge.key" \
		--log-file="$tmp/munged.log" --pid-file="$tmp/munged.pid" \
		--seed-file="$tmp/munged.seed" >"$tmp/munged.out" 2>&1 &
	munged_pid=$!
	wait_until 10 munge_works ||
		{ daemon_failed munged "$tmp/munged.log" "$tmp/munged.out"; return 1; }
}

# Two TCP ports free on 127.0.0.1 now (bound to port 0, then released).
free_ports() {
	python3 -c 'import socket
socks = [socket.socket() for _ in range(2)]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in socks))'
}

# The address the daemons use: with CommunicationParameters=NoInAddrAny
# and NoCtldInAddrAny they listen only on the address the host name
# resolves to, so when that is a loopback one (127.0.0.1, or Debian's
# 127.0.1.1) it is used everywhere and nothing listens beyond loopback;
# otherwise 127.0.0.1 with the default any-address listening, said so.
#   https://slurm.schedmd.com/slurm.conf.html#OPT_CommunicationParameters
pick_address() {
	addr=$(getent hosts "$host" 2>/dev/null | awk '{ print $1; exit }')
	case $addr in
	127.*) comm_params="CommunicationParameters=NoInAddrAny,NoCtldInAddrAny" ;;
	*)
		say "note: '$host' resolves to '${addr:-nothing}', not loopback:" \
			"the daemons listen on every address (all traffic goes to 127.0.0.1)"
		addr=127.0.0.1 comm_params="" ;;
	esac
}

# Whether every socket listening on port $1 is a loopback one (IPv4
# 127.x.x.x, IPv6 ::1), and there is one (/proc/net/tcp, tcp6).
listens_on_loopback_only() {
	hex=$(printf '%04X' "$1")
	cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk -v port="$hex" '
		$4 == "0A" && substr($2, length($2) - 3) == port {
			n++
			ip = substr($2, 1, length($2) - 5)
			if (!(length(ip) == 8 && substr(ip, 7, 2) == "7F") &&
			    ip != "00000000000000000000000001000000") other++
		}
		END { exit !(n > 0 && other == 0) }'
}

write_slurm_conf() {
	set -- $(free_ports)
	ctld_port=$1 slurmd_port=$2
	mem=$(awk '/^MemTotal:/ { printf "%d", $2 / 1024 * 0.9 }' /proc/meminfo)
	mkdir -p "$tmp/state" "$tmp/spool"
	cat >"$tmp/slurm.conf" <<CONF
ClusterName=dmalabtest
SlurmctldHost=$host($addr)
SlurmctldPort=$1
SlurmdPort=$2
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$tmp/munge.socket
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
$comm_params
MailProg=/bin/true
KillWait=5
ReturnToService=2
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
NodeName=$host NodeAddr=$addr CPUs=$(nproc) RealMemory=$mem State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
}

# Waits up to 60 s for the node to be idle; fails at once, with its log's
# end, when slurmctld or slurmd has died.
wait_node_idle() {
	tries=120
	while [ "$tries" -gt 0 ]; do
		alive "$ctld_pid" || {
			daemon_failed slurmctld "$tmp/slurmctld.log" "$tmp/slurmctld.out"
			return 1
		}
		alive "$slurmd_pid" ||
			{ daemon_failed slurmd "$tmp/slurmd.log" "$tmp/slurmd.out"; return 1; }
		[ "$(timeout 5 sinfo -h -n "$host" -o %T 2>/dev/null)" = idle ] && return 0
		tries=$((tries - 1))
		sleep 0.5
	done
	bad "node $host not idle after 60 s: sinfo says '$(timeout 5 sinfo -h -o '%T %E' 2>&1)'"
	tail -n 5 "$tmp/slurmctld.log" "$tmp/slurmd.log" 2>/dev/null | sed 's/^/  /'
	return 1
}

start_cluster() {
	start_munged || return 1
	pick_address
	write_slurm_conf
	SLURM_CONF=$tmp/slurm.conf
	export SLURM_CONF
	setsid slurmctld -D -f "$SLURM_CONF" >"$tmp/slurmctld.out" 2>&1 &
	ctld_pid=$!
	setsid slurmd -D -N "$host" -f "$SLURM_CONF" >"$tmp/slurmd.out" 2>&1 &
	slurmd_pid=$!
	wait_node_idle || return 1
	if [ -n "$comm_params" ]; then
		for port in $ctld_port $slurmd_port; do
			listens_on_loopback_only "$port" && ok ||
				bad "port $port listens beyond loopback"
		done
	fi
	say "one-node Slurm up: node $host idle" \
		"(munged $munged_pid, slurmctld $ctld_pid, slurmd $slurmd_pid)"
}

# ---- the checks -----------------------------------------------------------
# expect_usage PATTERN ARGS...: `dmalab fleet ARGS` exits 2 with one line
# on stderr that matches PATTERN (grep -E).
expect_usage() {
	pattern=$1
	shift
	err=$("$dmalab" fleet "$@" 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" -eq 2 ] && [ "$(printf '%s\n' "$err" | grep -c .)" -eq 1 ] &&
		printf '%s\n' "$err" | grep -Eq -e "$pattern"; then
		ok
	else
		bad "dmalab fleet $*: exit $rc (want 2), stderr: $err"
	fi
}

# A PATH with every program of this one but Slurm's.
path_without_slurm() {
	mkdir -p "$tmp/bin"
	for f in /usr/local/bin/* /usr/bin/* /bin/*; do
		case ${f##*/} in sbatch|srun|squeue|scontrol|scancel|sinfo|salloc) continue ;; esac
		[ -e "$tmp/bin/${f##*/}" ] || ln -s "$f" "$tmp/bin/${f##*/}"
	done
	echo "$tmp/bin"
}

# A submission that fails (a made-up sbatch: the first job taken as 4242, the
# merge job refused, or every job refused): exit 1, the job cancelled, and
# nothing of the fleet left in the results folder it made.
check_failed_submit() {
	fake=$tmp/fakebin
	mkdir -p "$fake"
	printf '%s\n' '#!/bin/sh' 'case "$*" in *"$FAKE_SBATCH_REFUSE"*)' \
		'	echo "sbatch: error: Batch job submission failed: Invalid qos" >&2' \
		'	exit 1 ;;' 'esac' 'echo 4242' >"$fake/sbatch"
	printf '#!/bin/sh\necho "$*" >>"%s/scancel.log"\n' "$tmp" >"$fake/scancel"
	chmod 755 "$fake/sbatch" "$fake/scancel"
	for refuse in dmalab-fleet-merge dmalab-fleet; do
		rm -f "$tmp/scancel.log"
		err=$(FAKE_SBATCH_REFUSE=$refuse PATH=$fake:$(path_without_slurm) \
			"$dmalab" fleet --results "$tmp/refused/results" -N 1 -- 01 2>&1 >/dev/null)
		rc=$?
		[ "$rc" -eq 1 ] && printf '%s\n' "$err" | grep -q "sbatch refused the job: .*qos" &&
			ok || bad "sbatch refusing $refuse: exit $rc (want 1), stderr: $err"
		if [ "$refuse" = dmalab-fleet-merge ]; then
			[ "$(cat "$tmp/scancel.log" 2>/dev/null)" = 4242 ] && ok ||
				bad "the merge job refused: job 4242 not cancelled"
		fi
		[ ! -e "$tmp/refused/results" ] && ok ||
			bad "sbatch refusing $refuse: left $(find "$tmp/refused" | tr '\n' ' ')"
	done
	# a results folder that was there stays, with what it held
	mkdir -p "$tmp/refused/kept" && : >"$tmp/refused/kept/mine"
	FAKE_SBATCH_REFUSE=dmalab-fleet PATH=$fake:$(path_without_slurm) \
		"$dmalab" fleet --results "$tmp/refused/kept" -N 1 -- 01 >/dev/null 2>&1
	[ "$(ls -A "$tmp/refused/kept")" = mine ] && ok ||
		bad "a failed submission changed the results folder: $(ls -A "$tmp/refused/kept")"
}

check_usage_errors() {
	expect_usage "unexpected 'stray' \(sbatch options come first" stray
	expect_usage "option '-N' needs a value" -N
	expect_usage "bad -N 'x'" -N x
	# a count past 999999 is refused at once: it used to split into jobs without end
	err=$(timeout 10 "$dmalab" fleet --dry-run -N 99999999999999999999 2>&1 >/dev/null)
	rc=$?
	[ "$rc" -eq 2 ] && printf '%s\n' "$err" | grep -q "bad -N '99999999999999999999'" && ok ||
		bad "--dry-run -N 99999999999999999999: exit $rc (want 2 at once), stderr: $err"
	expect_usage "bad --nodes-per-job '0'" --nodes-per-job 0
	expect_usage "bad --timeout-mul 'fast'" --timeout-mul fast
	expect_usage "option '--array=1-3' is set by the fleet" --array=1-3
	expect_usage "option '-o' is set by the fleet" -o out.txt
	expect_usage "bad lab id '9x'" -p test -- 01 9x
	expect_usage "--baseline '$tmp/none': no such readable file" --baseline "$tmp/none"
	# node files collected by hand are no fleet to merge: the way to their page is said
	mkdir -p "$tmp/hand"
	hand="^dmalab fleet: --merge '$tmp/hand': no jobs listed in '$tmp/hand/jobs/jobs.txt'.*"
	hand="$hand: make fleet-report FLEET=$tmp/hand \(or dmalab compare $tmp/hand/\*\.json"
	expect_usage "$hand --html-out FILE\)$" --merge "$tmp/hand"
	"$dmalab" fleet --help | grep -q "make fleet-report FLEET=DIR" && ok ||
		bad "dmalab fleet --help: no route without Slurm (make fleet-report)"
	# a lab the nodes would not find: refused as dmalab check refuses it, nothing submitted
	expect_usage "^dmalab fleet: no lab '99' in '.*/labs' \(build it with make; built: 01 " \
		--dry-run -N 2 -- 01 lab-99
	expect_usage "no lab '12' in '$clone/labs' \(the labs the nodes would build: 01 " \
		--dry-run --build-on-node -N 2 -- 012
	err=$(cd "$tmp" && "$dmalab" fleet -N 1 2>&1 >/dev/null)
	rc=$?
	[ "$rc" -eq 2 ] && printf '%s\n' "$err" | grep -q "not inside a dmalab clone" && ok ||
		bad "outside a clone: exit $rc, stderr: $err"
	err=$(PATH=$(path_without_slurm) "$dmalab" fleet -N 1 2>&1 >/dev/null)
	rc=$?
	[ "$rc" -eq 2 ] && [ "$(printf '%s\n' "$err" | grep -c .)" -eq 1 ] &&
		printf '%s\n' "$err" | grep -q "no sbatch on PATH" && ok ||
		bad "without sbatch: exit $rc, stderr: $err"
	# a dry run submits nothing: it needs no Slurm at all
	out=$(PATH=$(path_without_slurm) "$dmalab" fleet --dry-run --results "$tmp/dry" -N 2 \
		-- 01 2>&1)
	rc=$?
	[ "$rc" -eq 0 ] && [ "$(printf '%s\n' "$out" | grep -c '^sbatch ')" -eq 2 ] && ok ||
		bad "--dry-run without Slurm: exit $rc, output: $out"
	[ ! -e "$tmp/dry" ] && ok || bad "--dry-run made '$tmp/dry': $(ls -R "$tmp/dry")"
	check_failed_submit
	"$dmalab" fleet --help | grep -q -- "--nodes-per-job N" && ok ||
		bad "dmalab fleet --help: no --nodes-per-job"
	# a dmalab with no fleet/ beside it
	cp "$dmalab" "$tmp/dmalab"
	err=$("$tmp/dmalab" fleet -N 1 2>&1 >/dev/null)
	rc=$?
	[ "$rc" -eq 2 ] && printf '%s\n' "$err" | grep -q "cannot run '$tmp/fleet/fleet.sh'" &&
		ok ||
		bad "a dmalab without its fleet script: exit $rc, stderr: $err"
}

# The node jobs' lines of a --dry-run output $1, and their -N values.
job_lines() { printf '%s\n' "$1" | grep "fleet/job\.sh "; }
job_sizes() { job_lines "$1" | grep -o ' -N [0-9]*' | awk '{ printf "%s%s", s, $2; s = " " }'; }

check_dry_run() {
	say "dmalab fleet --dry-run: jobs split, options passed on"
	out=$("$dmalab" fleet --dry-run --nodes-per-job 64 -N 130 -p test -t 5 --gres=gpu:1 \
		--quick --timeout-mul 2 --baseline "$tmp/slurm.conf" -- 01 04 2>&1)
	[ "$(job_sizes "$out")" = "64 64 2" ] && ok || bad "-N 130 in jobs of 64: not 64 64 2: $out"
	[ "$(job_lines "$out" | grep -c " 0 1 2 01 04\$")" = 3 ] && ok ||
		bad "the jobs do not get --quick, --timeout-mul 2 and labs 01 04: $out"
	[ "$(job_lines "$out" | grep -c -- '--exclusive.* -p test -t 5 --gres=gpu:1')" = 3 ] &&
		ok ||
		bad "-N 130: the sbatch options are not on every job: $out"
	merge=$(printf '%s\n' "$out" | grep "fleet/merge\.sh ")
	after_all="--dependency=afterany:JOB1:JOB2:JOB3 .* -p test .*"
	printf '%s\n' "$merge" | grep -q -- "$after_all --baseline $tmp/slurm.conf" &&
		! printf '%s\n' "$merge" | grep -q -- '--gres' && ok ||
		bad "the merge job is not after all three jobs, in partition test alone," \
			"with the baseline: $merge"
	# the long names that end a line of fleet.sh's list of valued options take their value
	# too: --nodes 3 stopped the script (an unbound variable), --clusters c1 left 'c1'
	out=$("$dmalab" fleet --dry-run --nodes 130 --clusters c1 --mail-user me@x -- 01 2>&1)
	[ "$(job_sizes "$out")" = "64 64 2" ] &&
		[ "$(job_lines "$out" | grep -c -- '--clusters c1 --mail-user me@x')" = 3 ] &&
		printf '%s\n' "$out" | grep "fleet/merge\.sh " | grep -q -- '--clusters c1' && ok ||
		bad "--nodes 130 --clusters c1 --mail-user me@x: $out"
	expect_usage "bad --nodes '1-1000000'" --dry-run --nodes 1-1000000
	out=$("$dmalab" fleet --dry-run -N 2 -C h200 -- 01 2>&1)
	job_lines "$out" | grep -q -- '-C h200 -N 2' && ok ||
		bad "-C h200 is not passed to sbatch: $out"
	: >"$tmp/empty.json"
	expect_usage "--baseline '.*empty.json': no such file, or empty" --dry-run -N 2 \
		--baseline "$tmp/empty.json"
	out=$("$dmalab" fleet --dry-run --shared --nodes-per-job 2 -w 'n[1-5]' 2>&1)
	[ "$(job_lines "$out" | grep -o -- '-w [^ ]* -N [0-9]*' | tr '\n' ';')" = \
		"-w n[1-2] -N 2;-w n[3-4] -N 2;-w n5 -N 1;" ] && ok ||
		bad "-w n[1-5] in jobs of 2: $out"
	job_lines "$out" | grep -q -- --exclusive &&
		bad "--shared still asks for --exclusive: $out" || ok
	# a plain list of names: no scontrol asked (one that cannot answer: no slurm.conf)
	mkdir -p "$tmp/deadslurm"
	printf '#!/bin/sh\necho "scontrol: error: no slurm.conf" >&2\nexit 1\n' \
		>"$tmp/deadslurm/scontrol"
	chmod 755 "$tmp/deadslurm/scontrol"
	out=$(PATH=$tmp/deadslurm:$PATH "$dmalab" fleet --dry-run --nodes-per-job 2 -w a,b,c 2>&1)
	[ "$(job_lines "$out" | grep -o -- '-w [^ ]* -N [0-9]*' | tr '\n' ';')" = \
		"-w a,b -N 2;-w c -N 1;" ] && ok ||
		bad "-w a,b,c with a Slurm that does not answer: $out"
	expect_usage "a range over 2 nodes cannot be split" --dry-run --nodes-per-job 2 -N 4-8
	out=$(FLEET_NODES_PER_JOB=100 "$dmalab" fleet --dry-run -N 130 2>&1)
	[ "$(job_sizes "$out")" = "100 30" ] && ok ||
		bad "FLEET_NODES_PER_JOB=100 -N 130: not 100 30: $out"
	run_bounded 60 "$MAKE" --no-print-directory fleet FLEET_NODES_PER_JOB=50 \
		FLEET_OPTS="--dry-run -N 130"
	[ "$(job_sizes "$out")" = "50 50 30" ] && ok ||
		bad "make fleet FLEET_NODES_PER_JOB=50: not 50 50 30: $out"
	# an option sbatch does not know: its line, exit 2, nothing queued
	expect_usage "sbatch refused the job: sbatch: unrecognized option '--no-such-option'" \
		--results "$tmp/results-refused" --no-such-option
	queue_empty && ok || bad "a refused submission left jobs queued: $(squeue -h 2>&1)"
	[ ! -e "$tmp/results-refused" ] && ok ||
		bad "a refused submission left '$tmp/results-refused' behind"
}

# SIGTERM to the waiting command (as a closed login session sends): it
# says the fleet goes on and exits 143, and the fleet's job and its merge
# still run to the end without it.
check_stop_waiting() {
	say "dmalab fleet stopped while it waits: the fleet goes on"
	DMALAB_FLEET_POLL=1 "$dmalab" fleet --results "$tmp/results-left" -t 5 --quick -- 01 \
		>"$tmp/left.out" 2>&1 &
	child=$!
	wait_until 30 grep -q "waiting for the merge job" "$tmp/left.out"
	kill -TERM "$child"
	wait "$child"
	rc=$?
	child=""
	[ "$rc" -eq 143 ] &&
		grep -q "stopped waiting (SIGTERM); the fleet goes on" "$tmp/left.out" && ok ||
		bad "SIGTERM while waiting: exit $rc (want 143): $(cat "$tmp/left.out")"
	fleet=$(fleet_dir "$tmp/results-left")
	wait_until 90 test -s "$fleet/merge.rc" && [ -s "$fleet/$host.json" ] && ok ||
		bad "the fleet did not finish without its command:" \
			"no merge.rc or $host.json in '$fleet'"
}

# python3 CHECK FILE: exits 0 when the Python expression CHECK holds for
# d, the JSON document in FILE (a missing or invalid file fails).
json_holds() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[2]))
sys.exit(0 if eval("(" + sys.argv[1] + ")") else 1)' "$1" "$2" 2>/dev/null
}

# The fleet directory under results directory $1 (the only one there).
fleet_dir() { ls -d "$1"/fleet/[0-9]* 2>/dev/null | head -n 1; }

# fleet.json and fleet.html of fleet $1, or what is pending.
check_merged_report() {
	if "$dmalab" compare --help 2>&1 | grep -q compare; then
		grep -q "\"$host\"" "$1/fleet.json" 2>/dev/null && ok ||
			bad "fleet.json does not list $host"
		grep -qF "<td>$host<div class=\"muted\">$host.json</div></td>" "$1/fleet.html" \
			2>/dev/null && ok ||
			bad "no fleet.html listing $host (dmalab compare --html-out)"
	else
		say "pending: dmalab compare is not in this build; fleet.json not checked"
		grep -q "compare: pending" "$1/summary.txt" && ok ||
			bad "the summary does not say compare is pending"
	fi
}

# A baseline for dmalab compare, which needs one (or 3 nodes) to judge
# against: a one-node fleet has no other node.  A results.json of the same
# labs run here (the same machine type; compare reads it as a baseline of
# one run), once compare exists; until then none.  Sets baseline.
make_baseline() {
	baseline=""
	"$dmalab" compare --help 2>&1 | grep -q compare || return 0
	run_bounded 120 "$dmalab" check --quick --results "$tmp/base" 01 04
	[ -s "$tmp/base/results.json" ] && baseline=$tmp/base/results.json
}

check_fleet_run() {
	make_baseline
	say "make fleet LABS=\"01 04\" QUICK=1${baseline:+ BASELINE=$baseline}"
	run_bounded 150 "$MAKE" --no-print-directory fleet LABS="01 04" QUICK=1 \
		BASELINE="$baseline" RESULTS="$tmp/results" FLEET_OPTS="-p test -t 10"
	[ "$rc" -eq 0 ] && ok || bad "make fleet: exit $rc: $(printf '%s\n' "$out" | tail -n 15)"
	fleet=$(fleet_dir "$tmp/results")
	[ -n "$fleet" ] || { bad "make fleet: no fleet directory in $tmp/results/fleet"; return; }
	id=${fleet##*/}
	[ "$(grep -c '^fleet-task: node .*: task [0-9]* of ' "$fleet/jobs/job-$id.out" \
		2>/dev/null)" = 1 ] &&
		grep -q "^fleet-task: node $host: task 0 of 1, job $id " \
			"$fleet/jobs/job-$id.out" && ok ||
		bad "job $id did not run exactly one task on $host:" \
			"$(cat "$fleet/jobs/job-$id.out" 2>&1)"
	json_holds "d['schema'] == 'dmalab-results/1' and d['machine']['hostname'] == '$host'
		and [l['id'] for l in d['labs']] == ['01', '04'] and d['quick']" \
		"$fleet/$host.json" && ok ||
		bad "$fleet/$host.json is not a --quick results.json of $host with labs 01 and 04"
	others=$(cd "$fleet" && ls -- *.json | grep -vx -e "$host.json" -e fleet.json)
	[ -z "$others" ] && ok ||
		bad "other .json files beside the node files (compare DIR/*.json reads them):" \
			"$others"
	json_holds \
		"d['expected'] == ['$host'] and d['reported'] == ['$host'] and d['missing'] == []" \
		"$fleet/jobs/fleet-nodes.json" && ok ||
		bad "fleet-nodes.json: $(cat "$fleet/jobs/fleet-nodes.json" 2>&1)"
	printf '%s\n' "$out" | grep -q "1 node(s) expected, 1 reported, 0 missing" && ok ||
		bad "make fleet did not print the merge's summary: $out"
	check_merged_report "$fleet"
}

# A check that breaks on the node (an errata file it cannot read, which the
# job's environment names: sbatch passes it on): the node is missing, with
# the end of its log.
check_broken_node() {
	say "a node whose check breaks (DMALAB_ERRATA names no file)"
	run_bounded 90 env DMALAB_ERRATA="$tmp/no-such-errata.md" \
		"$dmalab" fleet --results "$tmp/results-broken" -t 5 -- 01
	[ "$rc" -eq 1 ] && ok || bad "a broken check: exit $rc (want 1): $out"
	fleet=$(fleet_dir "$tmp/results-broken")
	head -n 1 "$fleet/$host.log" 2>/dev/null | grep -q "dmalab check exit 2, no results.json" &&
		grep -q "no-such-errata.md" "$fleet/$host.log" && ok ||
		bad "no $host.log with the check's error in '$fleet'"
	json_holds "[m['node'] for m in d['missing']] == ['$host'] and d['reported'] == []" \
		"$fleet/jobs/fleet-nodes.json" && ok ||
		bad "fleet-nodes.json: $(cat "$fleet/jobs/fleet-nodes.json" 2>&1)"
	printf '%s\n' "$out" | grep -q "missing: $host (job ${fleet##*/}): dmalab check exit 2" &&
		ok ||
		bad "the summary does not list $host missing: $out"
}

# --merge of a fleet whose jobs 900001 (a -w job) and 900002 (-N 3) never
# ran: their nodes are missing, the node that reported is not.
check_merge_missing() {
	say "dmalab fleet --merge of a fleet with jobs that never ran"
	fleet=$tmp/results-merge/fleet/900000
	mkdir -p "$fleet/jobs"
	printf '900000 -N 1\n900001 -w ghost[1-2] -N 2\n900002 -N 3\n' >"$fleet/jobs/jobs.txt"
	echo "$host" >"$fleet/jobs/nodes-900000.txt"
	cp "$(fleet_dir "$tmp/results")/$host.json" "$fleet/" 2>/dev/null
	run_bounded 30 "$dmalab" fleet --merge "$fleet"
	[ "$rc" -eq 1 ] && ok || bad "--merge with missing nodes: exit $rc (want 1): $out"
	json_holds "sorted(m['node'] for m in d['missing'] if m['node']) == ['ghost1', 'ghost2']
		and [m['count'] for m in d['missing'] if not m['node']] == [3]
		and d['reported'] == ['$host']" "$fleet/jobs/fleet-nodes.json" && ok ||
		bad "--merge: fleet-nodes.json: $(cat "$fleet/jobs/fleet-nodes.json" 2>&1)"
	printf '%s\n' "$out" | grep -q "6 node(s) expected, 1 reported, 5 missing" && ok ||
		bad "--merge: the summary does not count 5 missing: $out"
}

# --merge of a fleet where one node's check was killed (SIGKILL leaves its
# results.json "running", which compare refuses): that node is missing as an
# unfinished run, and fleet.json and the page are written for the other.
# Needs no cluster: every job has its node list.
# fleet=FLEET of job JOB, its allocation good1 and killed1: good1.json a
# finished run, killed1.json and each NODE's an unfinished one.
unfinished_fleet() { # FLEET JOB [NODE...]
	fleet=$1 job=$2
	shift 2
	mkdir -p "$fleet/jobs"
	printf '%s -N 2\n' "$job" >"$fleet/jobs/jobs.txt"
	printf 'good1\nkilled1\n' >"$fleet/jobs/nodes-$job.txt"
	node=harness/tests/fixtures/compare/node-h200.json
	cp "$node" "$fleet/good1.json"
	for n in killed1 "$@"; do
		# as dmalab writes it mid-run: indented two spaces a level, "status" last
		python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
d["status"] = "running"; json.dump(d, open(sys.argv[2], "w"), indent=2)' \
			"$node" "$fleet/$n.json"
	done
}

check_merge_unfinished() {
	say "dmalab fleet --merge of a fleet with a node's unfinished results.json"
	unfinished_fleet "$tmp/results-unfinished/fleet/900010" 900010
	echo "# killed1 (job 900010): dmalab check exit 137" >"$fleet/killed1.log"
	run_bounded 30 "$dmalab" fleet --merge "$fleet"
	[ "$rc" -eq 1 ] && ok || bad "--merge with an unfinished node: exit $rc (want 1): $out"
	json_holds "d['reported'] == ['good1'] and [(m['node'], 'unfinished' in m['why']
		and 'exit 137' in m['why']) for m in d['missing']] == [('killed1', True)]" \
		"$fleet/jobs/fleet-nodes.json" && ok ||
		bad "--merge: fleet-nodes.json: $(cat "$fleet/jobs/fleet-nodes.json" 2>&1)"
	printf '%s\n' "$out" | grep -q "missing: killed1 (job 900010): an unfinished run" && ok ||
		bad "--merge: the summary does not list killed1 unfinished: $out"
	grep -q '/good1\.json"' "$fleet/fleet.json" 2>/dev/null &&
		grep -q 'good1\.json' "$fleet/fleet.html" && ok ||
		bad "--merge: no fleet.json and fleet.html for good1: $out"
}

# --merge where an unfinished node's log has no "# NODE (job J): " prefix, and
# an unfinished results.json of a node outside every allocation: the reason
# follows ": " (not glued onto the text before it), and the stray file is named
# in the summary as a finished one outside the allocation is.  Needs no cluster.
check_merge_unfinished_odd() {
	say "dmalab fleet --merge: a log line without prefix, an unfinished stray node file"
	unfinished_fleet "$tmp/results-odd/fleet/900020" 900020 stray1
	echo "oom-killer ended dmalab" >"$fleet/killed1.log"
	run_bounded 30 "$dmalab" fleet --merge "$fleet"
	why="an unfinished run (status 'running'), left out of the comparison"
	printf '%s\n' "$out" |
		grep -qF "missing: killed1 (job 900020): $why: oom-killer ended dmalab" && ok ||
		bad "--merge: killed1's log line is not after ': ': $out"
	printf '%s\n' "$out" | grep -q "not in any allocation .*: stray1 (status 'running')" &&
		ok || bad "--merge: stray1.json (unfinished, no allocation) is not named: $out"
}

# --merge of a fleet under a folder with a blank in its name (--results 'my results'):
# compare is given each node's file whole, so fleet.json and the page are written.
check_merge_blank() {
	say "dmalab fleet --merge of a fleet in a folder with a blank"
	unfinished_fleet "$tmp/results blank/fleet/900030" 900030
	run_bounded 30 "$dmalab" fleet --merge "$fleet"
	grep -q '/good1\.json"' "$fleet/fleet.json" 2>/dev/null &&
		grep -q 'good1\.json' "$fleet/fleet.html" && ok ||
		bad "--merge in '$fleet': no fleet.json and fleet.html for good1: $out"
}

check_build_on_node() {
	say "dmalab fleet --build-on-node -- 01 04"
	run_bounded 200 "$dmalab" fleet --build-on-node --quick --results "$tmp/results-bon" -t 10 \
		${baseline:+--baseline "$baseline"} -- 01 04
	[ "$rc" -eq 0 ] && ok ||
		bad "--build-on-node: exit $rc: $(printf '%s\n' "$out" | tail -n 15)"
	fleet=$(fleet_dir "$tmp/results-bon")
	grep -q "^fleet-task: node $host: built the kit in " "$fleet/jobs/job-${fleet##*/}.out" \
		2>/dev/null &&
		ok || bad "--build-on-node: the task did not build the kit on the node"
	json_holds "[l['id'] for l in d['labs']] == ['01', '04']" "$fleet/$host.json" && ok ||
		bad "--build-on-node: no results.json of labs 01 and 04 from $host"
}

trap 'cleanup' EXIT
trap 'say "interrupted"; exit 130' INT
trap 'say "stopped (SIGTERM: the time limit?)"; exit 143' TERM HUP
check_usage_errors
check_merge_unfinished
check_merge_unfinished_odd
check_merge_blank
if [ "$(id -u)" != 0 ]; then
	say "skipped the Slurm part: not root" \
		"(slurmd starts each job as its owner, which needs uid 0)"
	exit 0
fi
start_cluster || exit 1
check_dry_run
check_fleet_run
check_broken_node
check_merge_missing
check_stop_waiting
check_build_on_node
exit 0 # cleanup (the EXIT trap) stops the cluster, checks it, and counts
