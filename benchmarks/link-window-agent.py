#!/usr/bin/env python3
"""Sets the maximum window of all this node's TIPC links on request: a client connects to
TCP PORT and sends a window size (one line); the agent sets it on every link and answers
with each link's window as `tipc link get win` then prints it (one line).
  link-window-agent.py PORT"""
import socket
import subprocess
import sys


def tipc(*args):
    return subprocess.run(('tipc',) + args, capture_output=True, text=True, check=True).stdout


server = socket.create_server(('', int(sys.argv[1])))
while True:
    connection, _ = server.accept()
    with connection, connection.makefile('rw') as f:
        window = f.readline().strip()
        links = [line.rsplit(': ', 1)[0] for line in tipc('link', 'list').splitlines()
                 if not line.startswith('broadcast-link')]
        for link in links:
            tipc('link', 'set', 'win', window, 'link', link)
        f.write(' '.join(link + '=' + tipc('link', 'get', 'win', 'link', link).strip() for link in links) + '\n')
