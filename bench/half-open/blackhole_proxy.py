#!/usr/bin/env python3
"""A TCP proxy that can make every open connection half-open (the testkit's TcpProxy.blackhole()).

    blackhole_proxy.py LISTEN_PORT TARGET_HOST TARGET_PORT

Forwards 127.0.0.1:LISTEN_PORT to TARGET_HOST:TARGET_PORT. On SIGUSR1 every connection open at
that moment goes silent for good in both directions, and neither side is told (no FIN, no RST):
bytes that arrive are read and dropped. Connections opened afterwards are forwarded as usual.
Prints one line per blackhole with the number of connections silenced.
"""
import signal
import socket
import sys
import threading

links = []
lock = threading.Lock()


class Link:
    def __init__(self, client, upstream):
        self.client = client
        self.upstream = upstream
        self.silent = False

    def pump(self, src, dst):
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                if self.silent:
                    continue
                dst.sendall(data)
        except OSError:
            pass
        if not self.silent:
            for s in (self.client, self.upstream):
                try:
                    s.close()
                except OSError:
                    pass


def blackhole(signum, frame):
    with lock:
        n = 0
        for link in links:
            if not link.silent:
                link.silent = True
                n += 1
    print(f"blackholed {n} connections", flush=True)


def main():
    port, host, target = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    signal.signal(signal.SIGUSR1, blackhole)
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", port))
    server.listen(128)
    print(f"proxy 127.0.0.1:{port} -> {host}:{target}", flush=True)
    while True:
        try:
            client, _ = server.accept()
        except InterruptedError:
            continue
        upstream = socket.create_connection((host, target))
        link = Link(client, upstream)
        with lock:
            links.append(link)
        for a, b in ((client, upstream), (upstream, client)):
            threading.Thread(target=link.pump, args=(a, b), daemon=True).start()


if __name__ == "__main__":
    main()
