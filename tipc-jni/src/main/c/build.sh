#!/usr/bin/env bash
# Compiles the JNI shim. Called by Maven: build.sh JAVA_HOME JNI_HEADER_DIR OUTPUT_DIR
set -euo pipefail
java_home=$1 headers=$2 out=$3
src=$(dirname "$0")
mkdir -p "$out"
${CC:-cc} -O2 -fPIC -shared -Wall -Wextra -Wno-unused-parameter -Werror -std=gnu11 \
  -I"$java_home/include" -I"$java_home/include/linux" -I"$headers" \
  -o "$out/libhadooptipc.so" "$src/tipc_jni.c"
