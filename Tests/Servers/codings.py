#!/usr/bin/env python3
"""An HTTP/1.1 server on 127.0.0.1 that answers in the content codings of PyPI's reference
implementations: Zstandard from `zstandard`, brotli from `brotlicffi` (httpbin's own). For the gzip
middleware's interop tests (issue 44, item 5).

  codings.py

GET /<coding>, where <coding> is br or zstd, answers 200 with Content-Encoding: <coding> and a JSON
body {"accept-encoding": <the request's Accept-Encoding>, "coding": <coding>, "items": [0, …, 9999]}
coded by the reference encoder, fresh for 60 s and varying by Accept-Encoding; /zstd-frames sends
it as two zstd frames back to back. It prints
its port on the first line of standard output, then for every request "<path> <Accept-Encoding or
->", flushed. It exits when its standard input ends: the test that started it holds that pipe.
"""
import json, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import brotlicffi
import zstandard


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        accept = self.headers.get("Accept-Encoding")
        print(f"{self.path} {accept or '-'}", flush=True)
        coding = self.path.lstrip("/")
        body = json.dumps({"accept-encoding": accept, "coding": coding, "items": list(range(10000))}).encode()
        if coding == "br":
            coded, name = brotlicffi.compress(body), "br"
        elif coding == "zstd":
            coded, name = zstandard.ZstdCompressor().compress(body), "zstd"
        elif coding == "zstd-frames":
            half = len(body) // 2
            compressor = zstandard.ZstdCompressor()
            coded, name = compressor.compress(body[:half]) + compressor.compress(body[half:]), "zstd"
        else:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Encoding", name)
        self.send_header("Content-Length", str(len(coded)))
        self.send_header("Cache-Control", "max-age=60")
        self.send_header("Vary", "Accept-Encoding")
        self.end_headers()
        self.wfile.write(coded)

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
threading.Thread(target=server.serve_forever, daemon=True).start()
sys.stdin.read()
server.shutdown()
