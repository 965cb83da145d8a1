# Sourced by scripts that run in the TIPC testbed (testbed/vm/tipc-vm): clean-up at exit, waits with
# a deadline, servers started on a node, the TIPC name by which a machine says its servers are up,
# and the instructions a guest has executed. Sets the testbed's addresses from network.env
# ($NODE_SUBNET, $MACHINE_SUBNET, $READY_TYPE).
#
# Two shapes of testbed (README.md): TIPC nodes as namespaces n1..nN of one guest, where the kernel
# hands TIPC messages between namespaces from socket to socket (never through the bearer or the
# link), or separate guests ("machines") on a host bridge, where every message crosses a real TIPC
# link. NODE arguments below name a namespace; an empty NODE is the guest's own root namespace (in
# machine mode, the node).

testbed=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$testbed/network.env"

# Runs FUNCTION when the script exits, after those registered later: at_exit FUNCTION.
# A subshell ( ) that calls it runs at its own exit its actions and those registered before it.
exit_actions=()
at_exit() {
  exit_actions=("$1" "${exit_actions[@]}")
  trap run_exit_actions EXIT
}
run_exit_actions() {
  local action
  for action in "${exit_actions[@]}"; do "$action" || true; done
}

# Runs COMMAND every 0.2 s until it succeeds; if it has not within SECONDS, the script stops
# with "NAME: FAILURE within SECONDS s".
#   await SECONDS FAILURE COMMAND...
await() {
  local limit=$1 failure=$2 deadline=$((SECONDS + $1))
  shift 2
  until "$@"; do
    ((SECONDS < deadline)) || { echo "$(basename "$0"): $failure within $limit s" >&2; exit 1; }
    sleep 0.2
  done
}

# Starts a server in the background on a node, stopped when the script exits:
#   start_on NODE COMMAND...
server_pids=()
stop_servers() { ((${#server_pids[@]} == 0)) || kill "${server_pids[@]}" 2>/dev/null; }
at_exit stop_servers
start_on() {
  local node=$1
  shift
  ${node:+ip netns exec "$node"} "$@" &
  server_pids+=($!)
}

# A TIPC name {READY_TYPE, K} says machine K's servers are up: announce_ready, then
# await_machine K on the others.
announce_ready() {
  start_on "" python3 "$testbed/hold-tipc-name.py" "$READY_TYPE" "$TIPC_TESTBED_MACHINE"
}

await_machine() {
  await 600 "machine $1's servers did not start" in_name_table "" "^$READY_TYPE +$1 "
}

# Instructions that testbed guest MACHINE's emulated CPUs have executed since it booted, kernel and
# user, every process (at most 10 ms old); without MACHINE, this guest's. 0 is the guest of
# tipc-vm --nodes. Fails, saying so, unless tipc-vm runs with --count-instructions.
#   instructions_of [MACHINE]
instructions_of() {
  local machine=${1:-${TIPC_TESTBED_MACHINE:-0}} file
  file=/run/tipc-vm/instructions/$machine
  if [ ! -r "$file" ]; then
    if [ -d "$(dirname "$file")" ]; then
      echo "instructions_of: no instruction count of guest $machine in $(dirname "$file"): no such guest" >&2
    else
      echo "instructions_of: no instruction count of guest $machine ($file): run tipc-vm with --count-instructions" >&2
    fi
    return 1
  fi
  cat "$file"
}

# Is a name matching the extended regex PATTERN in NODE's TIPC name table? in_name_table NODE PATTERN
in_name_table() {
  ${1:+ip netns exec "$1"} tipc nametable show | grep -E "$2" >/dev/null
}

# Waits until the TIPC service types are in NODE's name table and the TCP ports listen
# on SERVER_NODE: await_servers NODE SERVER_NODE "TYPE..." "PORT...". The deadline guards against a
# server that hangs, as await_machine's does: a JVM starting a shuffle handler in a 1-vCPU guest
# can take over 2 minutes on a slow host.
await_servers() {
  await 600 "servers did not start (TIPC types ${3:-none}, TCP ports ${4:-none})" servers_up "$@"
}

servers_up() {
  local node=$1 server_node=$2 t p
  for t in $3; do
    in_name_table "$node" "^$t " || return 1
  done
  for p in $4; do
    ${server_node:+ip netns exec "$server_node"} ss -Hltn | grep ":$p " >/dev/null || return 1
  done
}
