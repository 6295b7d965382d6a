#!/usr/bin/env python3
"""A DNS-over-HTTPS server (RFC 8484) on 127.0.0.1 for the transport's DoH test (issue 44, item 3):
HTTP/1.1 over TLS with the certificate it is given, DNS messages read and written by dnspython
(PyPI), the reference DNS implementation for Python.

  doh.py CERT KEY NAME=ADDRESS…

POST /dns-query (application/dns-message), or GET /dns-query?dns=<base64url>, answers each A
question for a NAME with its IPv4 ADDRESS (TTL 60), an AAAA question for it with no record, and a
question for any other name with NXDOMAIN. It prints its port on the first line of standard
output, then "<name> <type>" for every question, flushed. It exits when its standard input ends:
the test that started it holds that pipe.
"""
import base64, ssl, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import dns.message
import dns.rcode
import dns.rdatatype
import dns.rrset

cert, key = sys.argv[1], sys.argv[2]
names = {}
for pair in sys.argv[3:]:
    name, address = pair.split("=", 1)
    names[name.lower().rstrip(".") + "."] = address


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def answer(self, wire):
        query = dns.message.from_wire(wire)
        response = dns.message.make_response(query)
        for question in query.question:
            name = question.name.to_text().lower()
            print(f"{name} {dns.rdatatype.to_text(question.rdtype)}", flush=True)
            if name not in names:
                response.set_rcode(dns.rcode.NXDOMAIN)
            elif question.rdtype == dns.rdatatype.A:
                response.answer.append(dns.rrset.from_text(question.name, 60, "IN", "A", names[name]))
        body = response.to_wire()
        self.send_response(200)
        self.send_header("Content-Type", "application/dns-message")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        self.answer(self.rfile.read(length))

    def do_GET(self):
        encoded = parse_qs(urlparse(self.path).query).get("dns", [""])[0]
        self.answer(base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)))

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(cert, key)
server.socket = context.wrap_socket(server.socket, server_side=True)
print(server.server_address[1], flush=True)
threading.Thread(target=server.serve_forever, daemon=True).start()
sys.stdin.read()
server.shutdown()
