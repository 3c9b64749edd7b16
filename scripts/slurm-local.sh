#!/usr/bin/env bash
# A one-host Slurm for tests: `slurm-local.sh start DIR` starts munged, slurmctld and slurmd with a
# generated slurm.conf under DIR (this host as the only node, with the CPUs it has; proctrack
# linuxproc and task/none, so no cgroups are needed) and prints the SLURM_CONF to export;
# `slurm-local.sh stop DIR` stops them. Needs root and Debian's slurmctld slurmd slurm-client
# munge packages. Exit 77 (skip) where they are missing or cannot start.
set -euo pipefail
action=${1:?usage: slurm-local.sh start|stop DIR}
dir=$(realpath -m "${2:?usage: slurm-local.sh start|stop DIR}")
stop() {
  local pids=()
  for pidfile in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munged.pid"; do
    [ -f "$pidfile" ] && pids+=("$(cat "$pidfile")")
  done
  [ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null || true
  for _ in $(seq 50); do  # until they are gone, so DIR can be removed
    kill -0 "${pids[@]}" 2>/dev/null || return 0
    sleep 0.1
  done
}
if [ "$action" = stop ]; then stop; exit 0; fi
for tool in munged slurmctld slurmd srun sbatch; do
  command -v "$tool" >/dev/null || { echo "slurm-local: $tool is not installed"; exit 77; }
done
[ "$(id -u)" = 0 ] || { echo "slurm-local: needs root (slurmd runs jobs as their user)"; exit 77; }
mkdir -p "$dir"/{state,spool,munge}
host=$(hostname -s)
# What slurmd sees of this host: CPUs, sockets, cores, threads, memory.
node=$(slurmd -C | head -1)
cat > "$dir/slurm.conf" <<CONF
ClusterName=colltune
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmctldPort=${SLURM_LOCAL_PORT:-6917}
SlurmdPort=$(( ${SLURM_LOCAL_PORT:-6917} + 1 ))
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=pmix
ReturnToService=2
$node State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE
CONF
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
chmod 600 "$dir/munge/munge.key"
munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
  --pid-file="$dir/munged.pid" --log-file="$dir/munge/munged.log" \
  --seed-file="$dir/munge/munge.seed" || { echo "slurm-local: munged did not start"; exit 77; }
export SLURM_CONF="$dir/slurm.conf"
slurmctld -f "$SLURM_CONF" || { echo "slurm-local: slurmctld did not start"; stop; exit 77; }
slurmd -f "$SLURM_CONF" || { echo "slurm-local: slurmd did not start"; stop; exit 77; }
for _ in $(seq 50); do
  if sinfo -h -o %T 2>/dev/null | grep -q -E '^(idle|mixed|allocated)'; then
    echo "export SLURM_CONF=$SLURM_CONF"
    exit 0
  fi
  sleep 0.2
done
echo "slurm-local: the node never came up: $(sinfo -h -o '%T %E' 2>&1 | head -1)"
stop
exit 77
