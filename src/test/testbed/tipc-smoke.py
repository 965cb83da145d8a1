#!/usr/bin/python3
"""AF_TIPC smoke test for the tipc-vm testbed (needs --nodes 2 or more).

    src/test/testbed/tipc-vm -- src/test/testbed/tipc-smoke.py

Round-trips bytes over a SOCK_STREAM connection to service {18888, 1}:
once from node n1 to a server on node n2 (across the bridge), and once
inside the root network namespace (node-local TIPC).
"""
import os
import socket
import subprocess
import sys

SERVICE = (socket.TIPC_ADDR_NAME, 18888, 1, 0)
PAYLOAD = b"hello over tipc " * 1000


def serve_once():
    with socket.socket(socket.AF_TIPC, socket.SOCK_STREAM) as s:
        s.bind(SERVICE)
        s.listen(1)
        print("ready", flush=True)
        conn, _ = s.accept()
        with conn:
            data = b""
            while len(data) < len(PAYLOAD):
                chunk = conn.recv(65536)
                if not chunk:
                    break
                data += chunk
            conn.sendall(data)


def client():
    with socket.socket(socket.AF_TIPC, socket.SOCK_STREAM) as s:
        s.connect((socket.TIPC_ADDR_NAME, 18888, 1, 0))
        s.sendall(PAYLOAD)
        data = b""
        while len(data) < len(PAYLOAD):
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
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
        # The name binding reaches other nodes asynchronously; until then a
        # connect fails with EHOSTUNREACH, so retry the client briefly.
        for _ in range(50):
            result = subprocess.run(in_netns(client_ns, "client"), stderr=subprocess.PIPE, text=True)
            if result.returncode == 0:
                break
            if "113" not in result.stderr and "No route" not in result.stderr:
                sys.exit(result.stderr)
        else:
            sys.exit(f"client in {client_ns or 'root'} never reached the server")
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
