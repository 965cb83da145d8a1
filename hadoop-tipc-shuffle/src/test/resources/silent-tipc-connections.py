#!/usr/bin/env python3
"""Opens COUNT stream connections to the TIPC service {TYPE, INSTANCE} that send nothing and holds
them until its standard input closes: silent-tipc-connections.py TYPE INSTANCE COUNT.
Connects in non-blocking batches; a connect the kernel turns away (a full link or backlog) is tried
again in a later batch. Prints "connected COUNT in ATTEMPTS attempts" once all are connected."""
import errno
import resource
import select
import socket
import sys

service_type, instance, count = (int(a) for a in sys.argv[1:4])
BATCH = 256
WAIT_MS = 60_000
resource.setrlimit(resource.RLIMIT_NOFILE, (count + 1024, count + 1024))
address = (socket.TIPC_ADDR_NAME, service_type, instance, 0)
held = []
attempts = 0
while len(held) < count:
    if attempts > 20 * count:
        sys.exit(f"only {len(held)} of {count} connected in {attempts} attempts")
    pending = {}
    poller = select.poll()
    for _ in range(min(BATCH, count - len(held))):
        s = socket.socket(socket.AF_TIPC, socket.SOCK_STREAM)
        s.setblocking(False)
        attempts += 1
        err = s.connect_ex(address)
        if err not in (0, errno.EINPROGRESS):
            s.close()
            break  # the link or the server's backlog is full: wait for this batch first
        pending[s.fileno()] = s
        poller.register(s, select.POLLOUT)
    while pending:
        events = poller.poll(WAIT_MS)
        if not events:
            sys.exit(f"{len(pending)} connects unfinished after {WAIT_MS} ms")
        for fd, _ in events:
            s = pending.pop(fd)
            poller.unregister(fd)
            # A connect completes once the server accepts; the server may have closed it since.
            if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) in (0, errno.ECONNRESET, errno.EPIPE):
                held.append(s)
            else:
                s.close()
print(f"connected {len(held)} in {attempts} attempts", flush=True)
sys.stdin.read()
