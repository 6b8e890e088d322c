#!/bin/sh
# job.sh - the batch script of one fleet job (fleet.sh submits it; sbatch
# runs a copy of it on the job's first node).  Records the allocation's
# nodes for the merge, then starts one task per node: task.sh.
#
#   job.sh LIB RESULTS FLEET_ID CLONE BUILD BUILD_ON_NODE QUICK TIMEOUT_MUL [IDS...]
#
# LIB: the directory of the fleet scripts (shared); RESULTS: the results
# directory; FLEET_ID: the fleet's id, "-" for the fleet's first job (its
# own job id names the fleet); the rest is task.sh's.
#
# srun: --ntasks-per-node=1 with --ntasks=<nodes> is one task on each node;
# --whole gives that task every CPU (and device) the job holds on its node,
# not the one CPU a task gets by default, so the labs measure the whole
# machine; --kill-on-bad-exit=0 keeps a node whose check broke from
# stopping the others.  https://slurm.schedmd.com/srun.html
set -u
lib=$1 results=$2 fleet_id=$3
shift 3
[ "$fleet_id" = - ] && fleet_id=$SLURM_JOB_ID
fleet=$results/fleet/$fleet_id
mkdir -p "$fleet/jobs" || exit 1
# the allocation, which the merge compares with the files that came back
nodes=$fleet/jobs/nodes-$SLURM_JOB_ID.txt
scontrol show hostnames "$SLURM_JOB_NODELIST" >"$nodes.tmp" && mv "$nodes.tmp" "$nodes"
echo "fleet job $SLURM_JOB_ID (fleet $fleet_id): $SLURM_JOB_NUM_NODES node(s): $SLURM_JOB_NODELIST"
exec srun --nodes="$SLURM_JOB_NUM_NODES" --ntasks="$SLURM_JOB_NUM_NODES" --ntasks-per-node=1 \
	--whole --kill-on-bad-exit=0 sh "$lib/task.sh" "$fleet" "$@"
