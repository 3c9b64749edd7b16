#!/usr/bin/env bash
# A cluster of "nodes" on this one machine, for tests and demos: one network namespace per node
# (ct-node1..N), each with its own address from the benchmarking range 198.18.0.0/15 (never
# routed out), joined by a bridge; links shaped with tbf (netem is absent on these kernels) so
# traffic between nodes is slower than inside one. Idempotent. Needs root (CAP_NET_ADMIN).
#
#   scripts/netns-cluster.sh up [NODES] [RATE]   # default 2 nodes, 1gbit per link
#   scripts/netns-cluster.sh down [NODES]
#   scripts/netns-cluster.sh hosts [NODES]       # the host list for mpirun --host
set -euo pipefail
command=${1:-up}
nodes=${2:-2}
rate=${3:-1gbit}
bridge=ctbr0
prefix=198.18.0

up() {
  if ! ip link show "$bridge" >/dev/null 2>&1; then
    ip link add "$bridge" type bridge
    ip addr add "$prefix.254/24" dev "$bridge"
  fi
  ip link set "$bridge" up
  for i in $(seq 1 "$nodes"); do
    local ns=ct-node$i veth=ctv$i
    ip netns list | grep -qw "$ns" || ip netns add "$ns"
    if ! ip link show "$veth" >/dev/null 2>&1; then
      ip link add "$veth" type veth peer name eth0 netns "$ns"
      ip link set "$veth" master "$bridge"
      ip -n "$ns" addr add "$prefix.$i/24" dev eth0
    fi
    ip link set "$veth" up
    ip -n "$ns" link set lo up
    ip -n "$ns" link set eth0 up
    # Both directions of each node's link.
    tc qdisc replace dev "$veth" root tbf rate "$rate" burst 256kb latency 100ms
    ip netns exec "$ns" tc qdisc replace dev eth0 root tbf rate "$rate" burst 256kb latency 100ms
  done
}

down() {
  for i in $(seq 1 "$nodes"); do
    ip netns del "ct-node$i" 2>/dev/null || true
    ip link del "ctv$i" 2>/dev/null || true
  done
  ip link del "$bridge" 2>/dev/null || true
}

case "$command" in
  up) up ;;
  down) down ;;
  hosts) seq -f "ct-node%g" 1 "$nodes" | paste -sd, ;;
  *) echo "usage: $0 up|down|hosts [NODES] [RATE]" >&2; exit 2 ;;
esac
