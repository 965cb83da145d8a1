#!/usr/bin/python3
"""AF_TIPC smoke test for the tipc-vm testbed (needs --nodes 2 or more).

    testbed/vm/tipc-vm -- testbed/vm/tipc-smoke.py

Round-trips bytes over a SOCK_STREAM connection to service {18888, 1}:
once from node n1 to a server on node n2 (across the bridge), and once
inside the root network namespace (node-local TIPC).
"""
import os
import socket
import subprocess
import sys
import time

SERVICE = (socket.TIPC_ADDR_NAME, 18888, 1, 0)
PAYLOAD = b"hello over tipc " * 1000


def serve_once():
    with socket.socket(socket.AF_TIPC, socket.SOCK_STREAM) as s:
        s.bind(SERVICE)
        s.listen(1)
        print("ready", flush=True)
        conn, _ = s.accept()
        with conn:
            conn.sendall(recv_all(conn, len(PAYLOAD)))


def recv_all(sock, size):
    data = b""
    while len(data) < size:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


def client():
    with socket.socket(socket.AF_TIPC, socket.SOCK_STREAM) as s:
        s.connect(SERVICE)
        s.sendall(PAYLOAD)
        data = recv_all(s, len(PAYLOAD))
    if data != PAYLOAD:
        sys.exit(f"client: got {len(data)} bytes back, expected {len(PAYLOAD)} identical")


def in_netns(ns, role):
    prefix = ["ip", "netns", "exec", ns] if ns else []
    return prefix + [sys.executable, os.path.abspath(__file__), role]


def round_trip(server_ns, client_ns):
    server = subprocess.Popen(in_netns(server_ns, "server"), stdout=subprocess.PIPE, text=True)
    try:
        if server.stdout.readline().strip() != "ready":
            sys.exit("server did not start")
        # The name binding reaches other nodes asynchronously; a connect before it
        # arrives fails with EHOSTUNREACH, so wait for it in the client's name table.
        for _ in range(300):
            table = subprocess.run((["ip", "netns", "exec", client_ns] if client_ns else []) +
                                   ["tipc", "nametable", "show"], capture_output=True, text=True).stdout
            if any(line.split()[:1] == [str(SERVICE[1])] for line in table.splitlines()):
                break
            time.sleep(0.1)
        else:
            sys.exit(f"{SERVICE[1]} never appeared in the name table of {client_ns or 'root ns'}")
        result = subprocess.run(in_netns(client_ns, "client"), stderr=subprocess.PIPE, text=True)
        if result.returncode != 0:
            sys.exit(result.stderr)
        if server.wait(timeout=60) != 0:
            sys.exit("server failed")
    finally:
        server.kill()
    print(f"ok: {client_ns or 'root ns'} -> {server_ns or 'root ns'}, {len(PAYLOAD)} bytes round-tripped")


def main():
    if sys.argv[1:] == ["server"]:
        serve_once()
    elif sys.argv[1:] == ["client"]:
        client()
    else:
        if int(os.environ.get("TIPC_TESTBED_NODES", "0")) < 2:
            sys.exit("needs tipc-vm --nodes 2 or more")
        round_trip("n2", "n1")
        round_trip(None, None)


if __name__ == "__main__":
    main()
