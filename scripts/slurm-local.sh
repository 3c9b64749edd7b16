#!/usr/bin/env bash
# A Slurm for tests on this one machine, with a generated slurm.conf under DIR:
#   slurm-local.sh start DIR          this host as the only node
#   slurm-local.sh start DIR N        N nodes ct-node1..N, one slurmd in each network namespace of
#                                     scripts/netns-cluster.sh (bring it up first)
#   slurm-local.sh stop DIR
# start prints the SLURM_CONF to export. proctrack/linuxproc and task/affinity, so no cgroups are
# needed; MpiDefault=pmix, the only way Debian's Open MPI starts under srun. Needs root and
# Debian's slurmctld slurmd slurm-client munge packages. Exit 77 (skip) where they are missing or
# cannot start.
set -euo pipefail
action=${1:?usage: slurm-local.sh start|stop DIR [NODES]}
dir=$(realpath -m "${2:?usage: slurm-local.sh start|stop DIR [NODES]}")
nodes=${3:-0}
stop() {
  local pids=()
  for pidfile in "$dir"/slurmd*.pid "$dir/slurmctld.pid" "$dir/munged.pid"; do
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
mkdir -p "$dir"/{state,munge}
host=$(hostname -s)
# What slurmd sees of this host: CPUs, sockets, cores, threads, memory.
hardware=$(slurmd -C | head -1 | sed 's/^NodeName=[^ ]* //')
port=${SLURM_LOCAL_PORT:-6917}
if [ "$nodes" -ge 1 ]; then
  for i in $(seq 1 "$nodes"); do
    [ -e "/var/run/netns/ct-node$i" ] ||
      { echo "slurm-local: no namespace ct-node$i (scripts/netns-cluster.sh up $nodes)"; exit 77; }
  done
  # The namespaces reach this host's slurmctld through the cluster's bridge address.
  controller="$host(198.18.0.254)"
  node_lines=$(for i in $(seq 1 "$nodes"); do
    echo "NodeName=ct-node$i NodeAddr=198.18.0.$i $hardware State=UNKNOWN"; done)
  partition_nodes="ct-node[1-$nodes]"
  names=$(seq -f 'ct-node%g' 1 "$nodes")
else
  controller=$host
  node_lines="NodeName=$host $hardware State=UNKNOWN"
  partition_nodes=$host
  names=$host
fi
# %n: the nodes share one filesystem, so each slurmd (and PMIx's per-step directories under
# TmpFS) needs paths of its own.
for name in $names; do mkdir -p "$dir/tmp-$name"; done
cat > "$dir/slurm.conf" <<CONF
ClusterName=colltune
SlurmctldHost=$controller
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool-%n
TmpFS=$dir/tmp-%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd-%n.log
SlurmctldPort=$port
SlurmdPort=$((port + 1))
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=pmix
ReturnToService=2
$node_lines
PartitionName=local Nodes=$partition_nodes Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE
CONF
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
chmod 600 "$dir/munge/munge.key"
munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
  --pid-file="$dir/munged.pid" --log-file="$dir/munge/munged.log" \
  --seed-file="$dir/munge/munge.seed" || { echo "slurm-local: munged did not start"; exit 77; }
export SLURM_CONF="$dir/slurm.conf"
slurmctld -f "$SLURM_CONF" || { echo "slurm-local: slurmctld did not start"; stop; exit 77; }
if [ "$nodes" -ge 1 ]; then
  for i in $(seq 1 "$nodes"); do
    # nsenter, not `ip netns exec`: that remounts /sys and hides the cgroup mounts slurmd needs.
    # A UTS namespace gives the node its name, as scripts/netns-agent.sh does for mpirun.
    nsenter --net="/var/run/netns/ct-node$i" unshare --uts -- /bin/sh -c \
      'hostname "$0" && exec slurmd -N "$0" -f "$1"' "ct-node$i" "$SLURM_CONF" ||
      { echo "slurm-local: slurmd on ct-node$i did not start"; stop; exit 77; }
  done
else
  slurmd -f "$SLURM_CONF" || { echo "slurm-local: slurmd did not start"; stop; exit 77; }
fi
want=$((nodes >= 1 ? nodes : 1))
for _ in $(seq 100); do
  up=$(sinfo -h -N -o %T 2>/dev/null | grep -c -E '^(idle|mixed|allocated)' || true)
  if [ "$up" -ge "$want" ]; then
    echo "export SLURM_CONF=$SLURM_CONF"
    exit 0
  fi
  sleep 0.2
done
echo "slurm-local: $want node(s) never came up: $(sinfo -h -N -o '%N %T %E' 2>&1 | paste -sd';')"
stop
exit 77
