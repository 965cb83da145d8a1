#!/usr/bin/env python3
"""A process without the job token that takes part of a shuffle server's TIPC connections: it binds the
server's name {TYPE, INSTANCE} too, and the kernel then hands it a share of reducers' connections.

  tipc-shuffle-impostor.py relay TYPE INSTANCE SERVER_REF SERVER_NODE DIR
      relays every byte of each connection it accepts to the real server (its listening socket
      {SERVER_REF, SERVER_NODE}, as the topology service reports the name's publication) and back; writes what the reducer sent on connection N
      to DIR/N.request and what the server answered to DIR/N.response.
  tipc-shuffle-impostor.py garbage TYPE INSTANCE
      answers every request with a 200 of its own: plausible shuffle headers and bytes that are no map output.
  tipc-shuffle-impostor.py drip TYPE INSTANCE [SECONDS]
      answers every request with a response head sent a byte every SECONDS (default 1), for 60 s, never ending it.
  tipc-shuffle-impostor.py 421 TYPE INSTANCE
      answers every request with a 421 Misdirected Request naming another server, and closes.
  tipc-shuffle-impostor.py close TYPE INSTANCE
      reads each request and closes the connection without a byte of answer.
  tipc-shuffle-impostor.py range TYPE INSTANCE FILE
      binds the whole instance range 0..2^32-1 of TYPE (INSTANCE is ignored), answers as garbage, and appends a
      line to FILE for each connection it is handed.
  tipc-shuffle-impostor.py replay TYPE INSTANCE SERVER_REF SERVER_NODE FILE
      sends FILE (a request captured by relay) to the real server from a socket of its own, later;
      writes what the server answered to stdout and exits.
  tipc-shuffle-impostor.py tcp-replay IP PORT FILE
      sends FILE (a request captured by relay) over TCP to IP:PORT, the NodeManager's HTTP shuffle
      port; writes what it answered to stdout and exits.

relay, garbage, drip, 421, close and range print "ready" once the name is bound, then serve until killed. The
INSTANCE of relay, garbage, drip, 421 and close may be a range, LOWER..UPPER, which they bind whole
(0..4294967295: every instance of the type).
"""
import os
import signal
import socket
import sys
import threading
import time


def bound(service_type, instances):
    lower, _, upper = instances.partition("..")  # not "-": callers may pass an instance signed
    listener = socket.socket(socket.AF_TIPC, socket.SOCK_STREAM)
    if upper:
        listener.bind((socket.TIPC_ADDR_NAMESEQ, service_type, int(lower), int(upper)))
    else:
        listener.bind((socket.TIPC_ADDR_NAME, service_type, int(lower), 0))
    listener.listen(64)
    print("ready", flush=True)
    return listener


def to_server(ref, node):
    s = socket.socket(socket.AF_TIPC, socket.SOCK_STREAM)
    s.connect((socket.TIPC_ADDR_ID, node, ref, 0))  # CPython's order for a socket id: node, then reference
    return s


def pump(src, dst, record):
    """Copies src to dst and to the file record until src ends; then ends dst's writing side."""
    with open(record, "wb") as out:
        while True:
            try:
                data = src.recv(65536)
            except OSError:
                data = b""
            if not data:
                break
            out.write(data)
            out.flush()
            try:
                dst.sendall(data)
            except OSError:
                break
    try:
        dst.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def relay(service_type, instance, ref, node, directory):
    listener = bound(service_type, instance)
    n = 0
    while True:
        reducer, _ = listener.accept()
        n += 1
        server = to_server(ref, node)
        base = os.path.join(directory, str(n))
        threading.Thread(target=pump, args=(reducer, server, base + ".request"), daemon=True).start()
        threading.Thread(target=pump, args=(server, reducer, base + ".response"), daemon=True).start()


def read_head(conn):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        data += chunk
    return data.split(b"\r\n\r\n", 1)[0].decode("iso-8859-1")


def answer_garbage(conn):
    with conn:
        while True:
            head = read_head(conn)
            if head is None:
                return
            target = ""
            for line in head.split("\r\n")[1:]:
                name, _, value = line.partition(":")
                if name.strip().lower() == "x-tipc-shuffle-target":
                    target = value.strip()
            body = b"\x00" * 4096
            conn.sendall(("HTTP/1.1 200 OK\r\n"
                          "name: mapreduce\r\nversion: 1.0.0\r\n"
                          "X-TIPC-Shuffle-Server: " + target + "\r\n"
                          "ReplyHash: AAAAAAAAAAAAAAAAAAAAAAAAAAA=\r\n"
                          "Connection: keep-alive\r\n"
                          "Content-Length: " + str(len(body)) + "\r\n\r\n").encode("iso-8859-1") + body)


def answer_drip(conn, seconds):
    with conn:
        if read_head(conn) is None:
            return
        head = b"HTTP/1.1 200 OK\r\nname: mapreduce\r\nversion: 1.0.0\r\nX-Drip: " + b"a" * 1000
        for i in range(int(60 / seconds)):
            try:
                conn.sendall(head[i % len(head):i % len(head) + 1])
            except OSError:
                return
            time.sleep(seconds)


def answer_421(conn):
    with conn:
        if read_head(conn) is None:
            return
        conn.sendall(b"HTTP/1.1 421 Misdirected Request\r\n"
                     b"X-TIPC-Shuffle-Server: 10.255.255.1:13562\r\n"
                     b"Content-Length: 0\r\n\r\n")


def answer_close(conn):
    with conn:
        read_head(conn)


def serve(listener, answer, *args, record=None):
    while True:
        conn, _ = listener.accept()
        if record is not None:
            with open(record, "a") as out:
                out.write("connection\n")
        threading.Thread(target=answer, args=(conn,) + args, daemon=True).start()


def replay(ref, node, path):
    with open(path, "rb") as f:
        request = f.read()
    with to_server(ref, node) as s:
        s.sendall(request)
        while True:
            data = s.recv(65536)
            if not data:
                break
            sys.stdout.buffer.write(data)
    sys.stdout.flush()


def tcp_replay(ip, port, path):
    with open(path, "rb") as f:
        request = f.read()
    with socket.create_connection((ip, port), timeout=60) as s:
        s.sendall(request)
        while True:
            data = s.recv(65536)
            if not data:
                break
            sys.stdout.buffer.write(data)
    sys.stdout.flush()


def main():
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    if sys.argv[1] == "tcp-replay":
        tcp_replay(sys.argv[2], int(sys.argv[3]), sys.argv[4])
        return
    mode, service_type, instance = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if mode == "relay":
        relay(service_type, instance, int(sys.argv[4]), int(sys.argv[5]), sys.argv[6])
    elif mode == "garbage":
        serve(bound(service_type, instance), answer_garbage)
    elif mode == "drip":
        serve(bound(service_type, instance), answer_drip, float(sys.argv[4]) if len(sys.argv) > 4 else 1.0)
    elif mode == "421":
        serve(bound(service_type, instance), answer_421)
    elif mode == "close":
        serve(bound(service_type, instance), answer_close)
    elif mode == "range":
        serve(bound(service_type, "0..4294967295"), answer_garbage, record=sys.argv[4])
    elif mode == "replay":
        replay(int(sys.argv[4]), int(sys.argv[5]), sys.argv[6])
    else:
        sys.exit("unknown mode " + mode + ": relay, garbage, drip, 421, close, range, replay or tcp-replay")


if __name__ == "__main__":
    main()
