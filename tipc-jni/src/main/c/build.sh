#!/usr/bin/env bash
# Compiles the JNI shim. Called by Maven: build.sh JAVA_HOME OUTPUT_DIR
# Only JNI_OnLoad is exported: it registers the rest with the Java class.
set -euo pipefail
java_home=$1 out=$2
src=$(dirname "$0")
mkdir -p "$out"
${CC:-cc} -O2 -fPIC -shared -Wall -Wextra -Wno-unused-parameter -Werror -std=gnu11 -fvisibility=hidden \
  -I"$java_home/include" -I"$java_home/include/linux" \
  -o "$out/libhadooptipc.so" "$src/tipc_jni.c"
