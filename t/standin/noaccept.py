#!/usr/bin/env python3
"""t/standin/noaccept.py: a server whose connections never complete, for the connect
deadline of a clone or fetch (t/t0135-git-stall.sh).

    python3 t/standin/noaccept.py        (prints the port on the first line)

It listens on the loopback with a backlog of none and never accepts; it fills the queue
with one connection of its own, so that the kernel drops every further SYN and a client's
connect() waits until the client gives up. Node's servers always accept, hence Python.
"""
import socket
import sys
import time

server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
server.bind(("127.0.0.1", 0))
server.listen(0)
port = server.getsockname()[1]
filler = []
for _ in range(2):
    c = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    c.setblocking(False)
    c.connect_ex(("127.0.0.1", port))
    filler.append(c)
time.sleep(0.5)
print(port, flush=True)
sys.stdout.flush()
while True:
    time.sleep(3600)
