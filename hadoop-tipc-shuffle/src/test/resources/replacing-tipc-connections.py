#!/usr/bin/env python3
"""Floods the TIPC service {TYPE, INSTANCE} with stream connections that send nothing, for as long as its
standard input stays open: replacing-tipc-connections.py TYPE INSTANCE HOLD.
Keeps HOLD connections connecting or open, opening them as fast as it can (non-blocking), and replaces
each the server closes (at accept, or once it times out) by a new one at once. Prints "flooding" once
HOLD are opened, and "opened N, closed by the server M" when its standard input closes."""
import errno
import resource
import select
import socket
import sys

service_type, instance, hold = (int(a) for a in sys.argv[1:4])
resource.setrlimit(resource.RLIMIT_NOFILE, (hold + 1024, hold + 1024))
address = (socket.TIPC_ADDR_NAME, service_type, instance, 0)
STDIN = sys.stdin.fileno()
poller = select.poll()
poller.register(STDIN, select.POLLIN)
sockets = {}
opened = closed = 0
announced = False
while True:
    while len(sockets) < hold:
        s = socket.socket(socket.AF_TIPC, socket.SOCK_STREAM)
        s.setblocking(False)
        err = s.connect_ex(address)
        if err not in (0, errno.EINPROGRESS):
            s.close()
            break  # the link or the server's backlog is full: first see which the server closed
        sockets[s.fileno()] = s
        poller.register(s, select.POLLIN)  # readable once the server closes it: nothing else comes
        opened += 1
    if not announced and opened >= hold:
        print("flooding", flush=True)
        announced = True
    for fd, _ in poller.poll(10):
        if fd == STDIN:
            print(f"opened {opened}, closed by the server {closed}", flush=True)
            sys.exit(0)
        poller.unregister(fd)
        sockets.pop(fd).close()
        closed += 1
