#!/usr/bin/env bash
# Open MPI's launch agent for the namespace cluster (--mca plm_rsh_agent): runs the daemon
# command inside the node's network namespace, in a UTS namespace of its own whose hostname is
# the node's name, so Open MPI sees distinct hosts (shared memory stays inside a node).
set -euo pipefail
host=$1
shift
case "$host" in ct-node[0-9]*) ;; *) echo "netns-agent: '$host' is not a cluster node" >&2; exit 2 ;; esac
exec ip netns exec "$host" unshare --uts -- /bin/sh -c 'hostname "$0" && eval "$*"' "$host" "$@"
