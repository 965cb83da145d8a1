# Sourced by hadoop-cluster (on every node) and cds-archive (on the host): where our distribution
# is installed, and which of its jars the class-data sharing archive holds.
install_root=/tmp/opt # a guest's tmpfs: the node's own disk

# Unpacks our distribution as an operator would (INSTALL); sets dist to its folder.
install_dist() {
  local tarball
  tarball=$(ls "$(dirname "${BASH_SOURCE[0]}")"/../../dist/target/hadoop-tipc-*.tar.gz 2>/dev/null | head -n1)
  [ -n "$tarball" ] || { echo "no distribution tarball under dist/target: run mvn package first" >&2; return 1; }
  mkdir -p "$install_root"
  tar -xzf "$tarball" -C "$install_root"
  dist=$(ls -d "$install_root"/hadoop-tipc-*/)
  dist=${dist%/}
}

# The jars of ours a task loads from (the shuffle consumer and the TIPC binding), installed, as a
# class path. Tasks name them before the rest of lib/ and before the configuration directory: a
# JVM takes an archive's classes only from the entries that begin its class path as they began
# the dump's, in order, and every directory among them must be empty.
archived_jars() {
  local jars=("$dist"/lib/hadoop-tipc-shuffle-*.jar "$dist"/lib/tipc-jni-*.jar)
  (IFS=:; echo "${jars[*]}")
}
