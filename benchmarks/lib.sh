# Sourced by every benchmark script: building, the class path, entering the testbed with a record
# of the host for the summaries, and the measuring Java client. The testbed's own helpers come with
# it (testbed/lib.sh: clean-up at exit, waits with a deadline, servers on a node, machines' readiness,
# the testbed's addresses). Sets $here (benchmarks/), $root (the checkout) and $cp (the class path).

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
. "$root/testbed/lib.sh"
# Our classes, then target/classpath.txt (the runtime dependencies, written by mvn package).
cp="$here/target/classes:$(cat "$here/target/classpath.txt" 2>/dev/null || true)"

# Builds with Maven unless run-all or bin/test has built already, and tells the scripts this
# one starts that it has. MAVEN_ARGs narrow the build (default: everything). Says which module
# it builds as it goes (Maven's whole output in target/build.log).
#   build [MAVEN_ARG...]      e.g. build -pl benchmarks -am
build() {
  if [ -z "${HADOOPTIPC_BENCH_BUILT:-}" ]; then
    local log=$here/target/build.log status=0
    mkdir -p "$here/target"
    echo "build: mvn package -DskipTests${*:+ $*} (log: $log)" >&2
    (cd "$root" && mvn -B "$@" package -DskipTests) 2>&1 | tee "$log" |
      sed -un 's/^\[INFO\] Building \([^ ]*\) .*\[\([0-9]*\/[0-9]*\)\]$/build: \2 \1/p' >&2 || status=$?
    if ((status != 0)); then
      tail -n 30 "$log" >&2
      echo "build: failed (exit $status; log: $log)" >&2
      return "$status"
    fi
    cp="$here/target/classes:$(cat "$here/target/classpath.txt")"
  fi
  export HADOOPTIPC_BENCH_BUILT=1
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
  "$root/testbed/vm/tipc-vm" --prepare || exit  # QEMU installed before its version is recorded
  record_host testbed
  local status=0 after
  "$root/testbed/vm/tipc-vm" "$@" || status=$?
  # The guests are gone: the host's load now is what the run left (its own share fading over minutes).
  if [ "$out/summary.md" -nt "$here/target/host.txt" ]; then
    after="Host load average after the run: $(cut -d' ' -f1-3 /proc/loadavg); host speed index after the run: $(host_speed)."
    echo "$after" >>"$out/summary.md"
    echo "$(basename "$0"): $after" >&2
  fi
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
  local commit emulator= speed
  commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
  code_committed || commit="$commit with uncommitted changes"
  [ "${1:-}" = testbed ] && emulator=" $(qemu-system-x86_64 --version 2>/dev/null | head -n1), TCG ${TIPC_TESTBED_TCG:-multi}-threaded;"
  speed=$(host_speed)
  echo "$(nproc) x$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), kernel $(uname -r); commit $commit;" \
    "$(date -u '+%Y-%m-%d %H:%M UTC');$emulator host load average before the run: $(cut -d' ' -f1-3 /proc/loadavg);" \
    "host speed index before the run: $speed (gzip -1 of 400 MiB of zeros, best of 3; lower is faster)" \
    >"$here/target/host.txt"
  echo "$(basename "$0"): commit $commit; host speed index $speed" >&2
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

# Runs the measuring Java client on a node: java_on NODE MAIN_CLASS ARGS... A script that sets the
# array java_wrapper runs it under that command (strace ...).
java_wrapper=()
java_on() {
  local node=$1
  shift
  ${node:+ip netns exec "$node"} "${java_wrapper[@]}" java \
    -Dbench.host="$(cat "$here/target/host.txt" 2>/dev/null || echo unknown)" -cp "$cp" "$@"
}
