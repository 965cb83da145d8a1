# Sourced by every benchmark script: building, the class path, clean-up at exit, waits with a
# deadline, and for the scripts that run in the TIPC testbed (stream-throughput, incast,
# event-loop, parallel-sockets, shuffle) entering the VM, starting servers on a node and
# waiting for them. Sets $here (benchmarks/), $root (the checkout) and $cp (the class path).
#
# Two shapes of testbed (src/test/testbed/README.md): TIPC nodes as namespaces n1..nN of
# one guest, where the kernel hands TIPC messages between namespaces from socket to socket
# (never through the bearer or the link), or separate guests ("machines") on a host
# bridge, where every message crosses a real TIPC link. NODE arguments below name a
# namespace; an empty NODE is the guest's own root namespace (in machine mode, the node).

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
# Our classes, then target/classpath.txt (the runtime dependencies, written by mvn package).
cp="$here/target/classes:$(cat "$here/target/classpath.txt" 2>/dev/null || true)"

# Builds with Maven unless run-all or bin/test has built already, and tells the scripts this
# one starts that it has. MAVEN_ARGs narrow the build (default: everything).
#   build [MAVEN_ARG...]      e.g. build -pl benchmarks -am
build() {
  if [ -z "${HADOOPTIPC_BENCH_BUILT:-}" ]; then
    (cd "$root" && mvn -B -q "$@" package -DskipTests) || return
    cp="$here/target/classes:$(cat "$here/target/classpath.txt")"
  fi
  export HADOOPTIPC_BENCH_BUILT=1
}

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
  build -pl benchmarks -am || exit
  "$root/src/test/testbed/tipc-vm" --prepare || exit  # QEMU installed before its version is recorded
  record_host testbed
  local status=0
  "$root/src/test/testbed/tipc-vm" "$@" || status=$?
  # The guests are gone: the host's load now is what the run left (its own share fading over minutes).
  [ ! "$out/summary.md" -nt "$here/target/host.txt" ] ||
    echo "Host load average after the run: $(cut -d' ' -f1-3 /proc/loadavg); host speed index after the run: $(host_speed)." >>"$out/summary.md"
  exit $status
}

# Is the code measured all committed? Results of earlier runs are not code.
code_committed() {
  git -C "$root" diff --quiet HEAD -- . ':!benchmarks/results' 2>/dev/null
}

# Records for the summaries (Machine reads it as -Dbench.host) what only the host knows: its CPU
# and kernel, the commit measured, the date, the emulator and its TCG mode, and the host's load
# and speed before the run (a guest's load says nothing about the host's).
#   record_host [testbed]    testbed: the run goes into tipc-vm (so the emulator is named too)
record_host() {
  local commit emulator=
  commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
  code_committed || commit="$commit with uncommitted changes"
  [ "${1:-}" = testbed ] && emulator=" $(qemu-system-x86_64 --version 2>/dev/null | head -n1), TCG ${TIPC_TESTBED_TCG:-multi}-threaded;"
  echo "$(nproc) x$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), kernel $(uname -r); commit $commit;" \
    "$(date -u '+%Y-%m-%d %H:%M UTC');$emulator host load average before the run: $(cut -d' ' -f1-3 /proc/loadavg);" \
    "host speed index before the run: $(host_speed) (gzip -1 of 400 MiB of zeros, best of 3; lower is faster)" \
    >"$here/target/host.txt"
}

# Seconds the host takes for a fixed CPU-bound task, best of 3 ("N s"). This machine's speed
# changes from day to day (other tenants), and emulation's with it, by up to twice; the load
# average cannot show that, and runs of one series on different days are compared through it.
# Smoke runs (run-all --quick) commit no figures and skip its 7 s.
host_speed() {
  [ -z "${HADOOPTIPC_BENCH_SMOKE:-}" ] || { echo "not measured (smoke run)"; return; }
  local TIMEFORMAT=%R
  for _ in 1 2 3; do
    { time head -c 400M /dev/zero | gzip -1 >/dev/null; } 2>&1
  done | sort -n | head -n1 | sed 's/$/ s/'
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
READY_TYPE=30999
announce_ready() {
  start_on "" python3 "$here/hold-tipc-name.py" $READY_TYPE "$TIPC_TESTBED_MACHINE"
}

await_machine() {
  await 600 "machine $1's servers did not start" in_name_table "" "^$READY_TYPE +$1 "
}

# Is a name matching the extended regex PATTERN in NODE's TIPC name table? in_name_table NODE PATTERN
in_name_table() {
  ${1:+ip netns exec "$1"} tipc nametable show | grep -E "$2" >/dev/null
}

# Waits until the TIPC service types are in NODE's name table and the TCP ports listen
# on SERVER_NODE: await_servers NODE SERVER_NODE "TYPE..." "PORT...". The deadline guards against a
# server that hangs, as await_machine's does: a JVM starting a shuffle handler in a 1-vCPU guest
# can take over 2 minutes on a slow day.
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

# Runs the measuring Java client on a node: java_on NODE MAIN_CLASS ARGS...
java_on() {
  local node=$1
  shift
  ${node:+ip netns exec "$node"} java -Dbench.host="$(cat "$here/target/host.txt" 2>/dev/null || echo unknown)" -cp "$cp" "$@"
}
