#!/usr/bin/env bash
# Open MPI's launch agent for the namespace cluster (--mca plm_rsh_agent): runs the daemon
# command inside the node's network namespace, in a UTS namespace of its own whose hostname is
# the node's name, so Open MPI sees distinct hosts (shared memory stays inside a node).
set -euo pipefail
host=$1
shift
case "$host" in ct-node[0-9]*) ;; *) echo "netns-agent: '$host' is not a cluster node" >&2; exit 2 ;; esac
# A test may slow a node with a CPU quota: a cgroup named colltune-<node> (v1 cpu or v2) takes
# the node's daemon and so every rank it starts.
for group in "/sys/fs/cgroup/cpu/colltune-$host" "/sys/fs/cgroup/colltune-$host"; do
  if [ -d "$group" ]; then echo $$ > "$group/cgroup.procs"; fi
done
exec ip netns exec "$host" unshare --uts -- /bin/sh -c 'hostname "$0" && eval "$*"' "$host" "$@"
