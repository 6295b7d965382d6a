#!/usr/bin/env python3
"""An HTTP/2 server over TLS (ALPN h2) on 127.0.0.1 that sends GOAWAY with streams in flight,
for the transport's test of RFC 9113 §6.8: a client retries on a new connection the requests
the server never processed (those above GOAWAY's last_stream_id), whatever their method, and
its caller never sees a framing error for them. Built on h2 (PyPI), the reference HTTP/2 state
machine in Python.

  h2-goaway.py CERT KEY BATCH PROCESSED

A request for /warm is answered at once. Other requests are held until BATCH of them wait on
one connection; then the first PROCESSED (by stream id) are answered (200, "processed <path>"),
GOAWAY names the last of them, and the connection closes: the rest were never processed. That
happens once; after it, and on every other connection, requests are answered as they come (and
a batch that never fills is answered after 10 s, so a client that does not multiplex is not
held for ever). It prints its port on the first line of standard output, then one line per
request it processed, "processed <connection> <stream id> <method> <path> <body bytes>",
flushed, so a test can count how often each request reached it. It exits when its standard input
ends: the test that started it holds that pipe, so the server never outlives it, even a crash.
"""
import os, signal, socket, ssl, sys, threading, time
import h2.config, h2.connection, h2.events

cert, key, batch, processed_limit = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
lock = threading.Lock()
state = {"connections": 0, "went_away": False}


def log(line):
    with lock:
        print(line, flush=True)


def answer(conn, number, stream_id, request):
    headers, body = request
    log(f"processed {number} {stream_id} {headers.get(':method')} {headers.get(':path')} {len(body)}")
    text = f"processed {headers.get(':path')}".encode()
    conn.send_headers(stream_id, [(":status", "200"), ("content-length", str(len(text))), ("content-type", "text/plain")])
    conn.send_data(stream_id, text, end_stream=True)


def serve(sock, number):
    conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=False))
    conn.initiate_connection()
    sock.sendall(conn.data_to_send())
    requests, held = {}, []
    sock.settimeout(0.2)
    first_held = None
    try:
        while True:
            try:
                data = sock.recv(65536)
                if not data:
                    return
            except socket.timeout:
                data = b""
            for event in conn.receive_data(data) if data else []:
                if isinstance(event, h2.events.RequestReceived):
                    headers = {k.decode() if isinstance(k, bytes) else k: v.decode() if isinstance(v, bytes) else v for k, v in event.headers}
                    requests[event.stream_id] = (headers, bytearray())
                elif isinstance(event, h2.events.DataReceived):
                    requests[event.stream_id][1].extend(event.data)
                    conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                elif isinstance(event, h2.events.StreamEnded):
                    held.append(event.stream_id)
            for stream_id in [s for s in held if requests[s][0].get(":path") == "/warm"]:
                held.remove(stream_id)
                answer(conn, number, stream_id, requests[stream_id])
            if held and first_held is None:
                first_held = time.monotonic()
            with lock:
                goes_away = not state["went_away"] and len(held) >= batch
                if goes_away:
                    state["went_away"] = True
                answers_all = state["went_away"] or (first_held is not None and time.monotonic() - first_held > 10)
            if goes_away:
                chosen = sorted(held)[:processed_limit]
                for stream_id in chosen:
                    answer(conn, number, stream_id, requests[stream_id])
                conn.close_connection(last_stream_id=max(chosen))
                sock.sendall(conn.data_to_send())
                time.sleep(0.2)
                return
            if answers_all:
                for stream_id in held:
                    answer(conn, number, stream_id, requests[stream_id])
                held = []
            pending = conn.data_to_send()
            if pending:
                sock.sendall(pending)
    except (OSError, ssl.SSLError):
        return
    finally:
        sock.close()


def exit_when_stdin_ends():
    while sys.stdin.buffer.read(4096):
        pass
    os._exit(0)


def main():
    # A parent that started it from a thread blocking SIGTERM passes the block on: lift it.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    threading.Thread(target=exit_when_stdin_ends, daemon=True).start()
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    context.set_alpn_protocols(["h2"])
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    print(listener.getsockname()[1], flush=True)
    while True:
        raw, _ = listener.accept()
        try:
            sock = context.wrap_socket(raw, server_side=True)
        except (OSError, ssl.SSLError):
            raw.close()
            continue
        with lock:
            state["connections"] += 1
            number = state["connections"]
        threading.Thread(target=serve, args=(sock, number), daemon=True).start()


main()
