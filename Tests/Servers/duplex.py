#!/usr/bin/env python3
"""An HTTP/1.1 server on 127.0.0.1 that answers as it reads: it sends its whole response as soon
as a request's head has come, then reads the request's chunked body to its end. For the
transport's full-duplex test (issue 41, item 7): a client must deliver the response's end while
its own request body is still open, and may finish that body afterwards.

  duplex.py

The response depends on the path:
  /length      200, Content-Length: 5, "ready"
  /empty       204, no body
  /chunked     200, chunked: "re", "ady" (the second chunk with an extension), then the last chunk
  /trailers    200, chunked, "ready", then a trailer section with two fields
  /gzip        200, Content-Encoding: gzip, Content-Length: the coded size, "ready" coded
  /split       200, chunked, "ready" written a byte at a time, 20 ms apart
It prints its port on the first line of standard output, then for every request whose body it
read, "received <path> <body bytes> <trailer field names, comma-separated or ->", flushed. It
exits when its standard input ends: the test that started it holds that pipe.
"""
import gzip, os, socket, sys, threading, time


def log(line):
    print(line, flush=True)


def read_line(conn, buffer):
    while b"\n" not in buffer[0]:
        data = conn.recv(65536)
        if not data:
            raise EOFError
        buffer[0] += data
    line, _, rest = buffer[0].partition(b"\n")
    buffer[0] = rest
    return line.rstrip(b"\r")


def read_exactly(conn, buffer, count):
    while len(buffer[0]) < count:
        data = conn.recv(65536)
        if not data:
            raise EOFError
        buffer[0] += data
    data, buffer[0] = buffer[0][:count], buffer[0][count:]
    return data


def respond(conn, path):
    if path == "/length":
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nready")
    elif path == "/empty":
        conn.sendall(b"HTTP/1.1 204 No Content\r\n\r\n")
    elif path == "/chunked":
        conn.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nre\r\n3;note=x\r\nady\r\n0\r\n\r\n")
    elif path == "/trailers":
        conn.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Checksum, X-Count\r\n\r\n"
                     b"5\r\nready\r\n0\r\nX-Checksum: abc\r\nX-Count: 5\r\n\r\n")
    elif path == "/gzip":
        coded = gzip.compress(b"ready")
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n" % len(coded) + coded)
    elif path == "/split":
        message = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nready\r\n0\r\n\r\n"
        for index in range(len(message)):
            conn.sendall(message[index:index + 1])
            time.sleep(0.02)
    else:
        conn.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")


def serve(conn):
    buffer = [b""]
    try:
        while True:
            request_line = read_line(conn, buffer)
            _, path, _ = request_line.decode("latin-1").split(" ", 2)
            headers = {}
            while True:
                line = read_line(conn, buffer)
                if not line:
                    break
                name, _, value = line.decode("latin-1").partition(":")
                headers[name.strip().lower()] = value.strip()
            respond(conn, path)
            received = 0
            trailers = []
            if headers.get("transfer-encoding", "").lower() == "chunked":
                while True:
                    size = int(read_line(conn, buffer).split(b";")[0], 16)
                    if size == 0:
                        break
                    received += len(read_exactly(conn, buffer, size))
                    read_line(conn, buffer)
                while True:
                    line = read_line(conn, buffer)
                    if not line:
                        break
                    trailers.append(line.decode("latin-1").partition(":")[0])
            elif "content-length" in headers:
                received = len(read_exactly(conn, buffer, int(headers["content-length"])))
            log(f"received {path} {received} {','.join(trailers) or '-'}")
    except (EOFError, ConnectionError, ValueError):
        pass
    finally:
        conn.close()


def accept(listener):
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen(16)
log(str(listener.getsockname()[1]))
threading.Thread(target=accept, args=(listener,), daemon=True).start()
sys.stdin.read()
os._exit(0)
