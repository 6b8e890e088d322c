# submit.sh - sourced by fleet.sh (bash): submits the fleet's jobs and its
# merge job, then waits for the merge and prints its summary.
# Uses fleet.sh's globals: lib, results, plan (plan_jobs), node_opts,
# merge_opts, exclusive, dry_run, per_job, quick, timeout_mul, lab_ids,
# baseline, build_on_node, made_dirs.

# "$@" as one line a shell reads back (for --dry-run): words of plain
# characters as they are, others quoted.
quoted() {
	local w out=()
	for w in "$@"; do
		if [[ $w =~ ^[][A-Za-z0-9_./:=,@%+-]+$ ]]; then
			out+=("$w")
		else
			out+=("$(printf '%q' "$w")")
		fi
	done
	echo "${out[*]}"
}

# Cancels the jobs already submitted (by id) when a later submission fails.
cancel_submitted() {
	[ $# -gt 0 ] || return 0
	scancel "$@" 2>/dev/null && say "cancelled the jobs already submitted: $*"
}

# After a submission failed (its jobs cancelled): takes away what it made,
# the fleet's job list and the folders it created, each only while empty (a
# job that started before its cancel may have written there: that stays).
undo_submit() {
	local d
	if [ -n "${fleet:-}" ]; then
		rm -f "$fleet/jobs/jobs.txt"
		rmdir "$fleet/jobs" "$fleet" 2>/dev/null
	fi
	for d in ${made_dirs[@]+"${made_dirs[@]}"}; do
		rmdir "$d" 2>/dev/null || break
	done
}

# sbatch "$@"; prints the job id.  A refused submission: sbatch's first
# error line, the jobs before it cancelled; exit 2 for an option sbatch
# does not know (nothing ran), 1 otherwise.
sbatch_id() {
	local out
	if out=$(sbatch --parsable "$@" 2>&1) && [[ ${out%%;*} =~ ^[0-9]+$ ]]; then
		echo "${out%%;*}"
		return 0
	fi
	# the line that says why: sbatch's fatal or refusal line, else its first
	local why
	why=$(echo "$out" | grep -E 'fatal|failed|unrecognized|invalid|requires' | tail -n 1)
	echo "dmalab fleet: sbatch refused the job: ${why:-$(echo "$out" | grep -v '^$' |
		head -n 1)}" >&2
	case $out in
	*"unrecognized option"*|*"invalid option"*|*"requires an argument"*) return 2 ;;
	esac
	return 1
}

# Submits the node jobs of `plan`; sets `fleet_id`, `fleet` and `job_ids`.
submit_node_jobs() {
	local clone=$1 build=$2 line words id rc
	local common=(-J dmalab-fleet --ntasks-per-node=1 -o "$results/fleet/slurm-%j.out")
	[ "$exclusive" = 1 ] && common+=(--exclusive)
	fleet_id="" job_ids=()
	for line in "${plan[@]}"; do
		words=()
		[ "$line" = default ] || read -ra words <<<"$line"
		local args=("${common[@]}" ${node_opts[@]+"${node_opts[@]}"}
			${words[@]+"${words[@]}"}
			"$lib/job.sh" "$lib" "$results" "${fleet_id:--}" "$clone" "$build"
			"$build_on_node" "$quick" "$timeout_mul" ${lab_ids[@]+"${lab_ids[@]}"})
		if [ "$dry_run" = 1 ]; then
			echo "sbatch $(quoted "${args[@]}")"
			job_ids+=("JOB$((${#job_ids[@]} + 1))") # placeholders for the ids
			fleet_id=${fleet_id:-JOB1}
			fleet=$results/fleet/$fleet_id
			continue
		fi
		id=$(sbatch_id "${args[@]}") || {
			rc=$?
			cancel_submitted ${job_ids[@]+"${job_ids[@]}"}
			undo_submit
			exit "$rc"
		}
		job_ids+=("$id")
		if [ -z "$fleet_id" ]; then
			fleet_id=$id
			fleet=$results/fleet/$fleet_id
			if ! mkdir -p "$fleet/jobs"; then
				cancel_submitted "$id"
				undo_submit
				die "cannot create '$fleet/jobs'"
			fi
		fi
		echo "$id $line" >>"$fleet/jobs/jobs.txt"
	done
}

# Submits the merge job after every node job (afterany: whatever they
# ended as); prints its id.
submit_merge_job() {
	local clone=$1 build=$2 deps
	deps=afterany:$(IFS=:; echo "${job_ids[*]}")
	local args=(-J dmalab-fleet-merge -N 1 -n 1 -t 15 --dependency="$deps"
		-o "$fleet/jobs/merge.out" ${merge_opts[@]+"${merge_opts[@]}"}
		"$lib/merge.sh" "$fleet" "$clone" "$build"
		${baseline:+--baseline "$baseline"})
	[ "$build_on_node" = 1 ] && args+=(--build-on-node)
	if [ "$dry_run" = 1 ]; then
		echo "sbatch $(quoted "${args[@]}")"
		return
	fi
	sbatch_id "${args[@]}" || { cancel_submitted "${job_ids[@]}"; exit 1; }
}

# Waits until job $1 has left the queue.  squeue lists a job while it is
# pending, running or completing (and, for a while, in its end state);
# "Invalid job id" once the controller has forgotten it.
wait_for_job() {
	local id=$1 out errors=0 poll=${DMALAB_FLEET_POLL:-10}
	while :; do
		if out=$(squeue -h -j "$id" -o %T 2>&1); then
			errors=0
			case $out in
			""|COMPLETED|FAILED|CANCELLED*|TIMEOUT|NODE_FAIL|PREEMPTED| \
			BOOT_FAIL|DEADLINE|OUT_OF_MEMORY)
				return 0 ;;
			esac
		else
			case $out in *"Invalid job id"*) return 0 ;; esac
			errors=$((errors + 1))
			if [ "$errors" -ge 30 ]; then
				echo "dmalab fleet: squeue keeps failing: $(echo "$out" |
					head -n 1)" >&2
				return 1
			fi
		fi
		sleep "$poll"
	done
}

submit_fleet() {
	local clone=$1 build=$2 merge_id rc
	plan_jobs
	submit_node_jobs "$clone" "$build"
	if [ "$dry_run" = 1 ]; then
		submit_merge_job "$clone" "$build"
		exit 0
	fi
	merge_id=$(submit_merge_job "$clone" "$build") || { rc=$?; undo_submit; exit "$rc"; }
	say "fleet $fleet_id: ${#job_ids[@]} job(s) of at most $per_job nodes (${job_ids[*]})," \
		"merge job $merge_id after them"
	say "results: $fleet/ (stop the fleet: scancel ${job_ids[*]} $merge_id)"
	say "waiting for the merge job (Ctrl-C stops only the waiting)"
	trap 'echo; say "stopped waiting; the fleet goes on: results in $fleet/," \
		"merge job $merge_id"; exit 130' INT
	trap 'say "stopped waiting (SIGTERM); the fleet goes on: results in $fleet/"; exit 143' TERM
	wait_for_job "$merge_id" || exit 1
	trap - INT TERM
	if ! [ -s "$fleet/merge.rc" ]; then
		echo "dmalab fleet: the merge job $merge_id ended without a result: see" \
			"$fleet/jobs/merge.out" >&2
		[ -f "$fleet/jobs/merge.out" ] &&
			tail -n 5 "$fleet/jobs/merge.out" | sed 's/^/  /' >&2
		exit 1
	fi
	cat "$fleet/summary.txt"
	exit "$(cat "$fleet/merge.rc")"
}
