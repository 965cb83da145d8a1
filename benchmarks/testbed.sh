# Sourced by the benchmark scripts that run in the TIPC testbed (stream-throughput, incast,
# event-loop, parallel-sockets, shuffle): building, entering the VM, starting servers on a
# node and waiting for them.
# Expects $here (benchmarks/) and $root (the checkout) to be set.
#
# Two shapes of testbed (src/test/testbed/README.md): TIPC nodes as namespaces n1..nN of
# one guest, where the kernel hands TIPC messages between namespaces from socket to socket
# (never through the bearer or the link), or separate guests ("machines") on a host
# bridge, where every message crosses a real TIPC link. NODE arguments below name a
# namespace; an empty NODE is the guest's own root namespace (in machine mode, the node).

cp="$here/target/benchmarks-0.1.0-SNAPSHOT.jar:$(cat "$here/target/classpath.txt" 2>/dev/null || true)"
server_pids=()
trap 'kill "${server_pids[@]}" 2>/dev/null || true' EXIT

# On the host: build, record the real CPU (the guest sees only QEMU's), and re-run the
# calling script inside the testbed; inside the testbed: return. OPTIONs go to tipc-vm
# (--timeout S, --port-mbit R, ...).
#   enter_testbed NODES [OPTION...] -- "$0" "$@"           namespaces n1..nN of one guest
#   enter_testbed_machines M [OPTION...] -- "$0" "$@"      M guests; the script runs in every
#                                                          one, and machine 1's result counts
enter_testbed() {
  [ -n "${TIPC_TESTBED_NODES:-}" ] && return
  boot_testbed --nodes "$@"
}

enter_testbed_machines() {
  [ -n "${TIPC_TESTBED_MACHINES:-}" ] && return
  boot_testbed --machines "$@"
}

boot_testbed() {
  [ -n "${HADOOPTIPC_BENCH_BUILT:-}" ] || (cd "$root" && mvn -B -q package -DskipTests)  # run-all built already
  "$root/src/test/testbed/tipc-vm" --prepare  # QEMU installed before its version is recorded
  record_host testbed
  local status=0
  "$root/src/test/testbed/tipc-vm" "$@" || status=$?
  # The guests are gone: the host's load now is what the run left (its own share fading over minutes).
  [ ! "$out/summary.md" -nt "$here/target/host.txt" ] ||
    echo "Host load average after the run: $(cut -d' ' -f1-3 /proc/loadavg)." >>"$out/summary.md"
  exit $status
}

# Records for the summaries (Machine reads it as -Dbench.host) what only the host knows: its CPU
# and kernel, the commit measured, the date, the emulator and its TCG mode, and the host's load
# before the run (a guest's load says nothing about the host's).
#   record_host [testbed]    testbed: the run goes into tipc-vm (so the emulator is named too)
record_host() {
  local commit emulator=
  commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
  git -C "$root" diff --quiet HEAD 2>/dev/null || commit="$commit with uncommitted changes"
  [ "${1:-}" = testbed ] && emulator=" $(qemu-system-x86_64 --version 2>/dev/null | head -n1), TCG ${TIPC_TESTBED_TCG:-multi}-threaded;"
  echo "$(nproc) x$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), kernel $(uname -r); commit $commit;" \
    "$(date -u '+%Y-%m-%d %H:%M UTC');$emulator host load average before the run: $(cut -d' ' -f1-3 /proc/loadavg)" \
    >"$here/target/host.txt"
}

# A TIPC name {READY_TYPE, K} says machine K's servers are up: announce_ready, then
# await_machine K on the others.
READY_TYPE=30999
announce_ready() {
  python3 -c "import socket, time
s = socket.socket(socket.AF_TIPC, socket.SOCK_RDM)
s.bind((socket.TIPC_ADDR_NAME, $READY_TYPE, $TIPC_TESTBED_MACHINE, 0))
time.sleep(1e9)" &
  server_pids+=($!)
}

await_machine() {
  for _ in $(seq 3000); do
    tipc nametable show | grep -qE "^$READY_TYPE +$1 " && return
    sleep 0.2
  done
  echo "$(basename "$0"): machine $1's servers did not start" >&2
  exit 1
}

# Starts a server in the background on a node: start_on NODE COMMAND...
start_on() {
  local node=$1
  shift
  ${node:+ip netns exec "$node"} "$@" &
  server_pids+=($!)
}

# Waits until the TIPC service types are in NODE's name table and the TCP ports listen
# on SERVER_NODE: await_servers NODE SERVER_NODE "TYPE..." "PORT..."
await_servers() {
  local node=$1 server_node=$2 types=($3) ports=($4) missing
  for _ in $(seq 600); do
    missing=0
    for t in "${types[@]}"; do
      ${node:+ip netns exec "$node"} tipc nametable show | grep -qE "^$t " || missing=1
    done
    for p in "${ports[@]}"; do
      ${server_node:+ip netns exec "$server_node"} ss -Hltn | grep -q ":$p " || missing=1
    done
    [ $missing = 0 ] && return
    sleep 0.2
  done
  echo "$(basename "$0"): servers did not start (TIPC types ${types[*]}, TCP ports ${ports[*]})" >&2
  exit 1
}

# Runs the measuring Java client on a node: java_on NODE MAIN_CLASS ARGS...
java_on() {
  local node=$1
  shift
  ${node:+ip netns exec "$node"} java -Dbench.host="$(cat "$here/target/host.txt" 2>/dev/null || echo unknown)" -cp "$cp" "$@"
}
