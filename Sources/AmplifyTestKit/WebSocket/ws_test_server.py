"""A WebSocket peer for the client's tests, written with Python's standard library only (its
own handshake and framing, not the client's): listens on 127.0.0.1 on a free port (TLS with
--cert/--key), prints "PORT <n>", and serves until terminated. The first segment of the request
path picks the behaviour (what follows it is ignored, so /midframe/graphql/realtime?... is
/midframe):
  /echo        echoes text and binary messages (joining fragments), answers pings, echoes close
  /fragmented  sends "héllo wörld" in three fragments with a ping between them, then echoes
  /midframe    sends half a frame, then closes the TCP connection
  /masked      sends a masked frame (which a server must not)
  /huge        announces a 2 GiB frame and sends nothing more
  /badutf8     sends a text frame that is not UTF-8
  /close       sends close 4000 "bye" and waits for the client's close
  /ping        sends a ping "p1" and reports the pong's payload as a text message
  /refuse      answers 403 Forbidden
  /silent      accepts the TCP connection and never answers
"""
import base64
import hashlib
import os
import signal
import socket
import ssl
import struct
import sys
import threading

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def read_exact(conn, count):
    data = b""
    while len(data) < count:
        chunk = conn.recv(count - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def read_frame(conn):
    first, second = read_exact(conn, 2)
    fin, opcode = first & 0x80, first & 0x0F
    length = second & 0x7F
    if length == 126:
        length = struct.unpack("!H", read_exact(conn, 2))[0]
    elif length == 127:
        length = struct.unpack("!Q", read_exact(conn, 8))[0]
    if not second & 0x80:
        raise ValueError("client frame not masked")
    key = read_exact(conn, 4)
    payload = bytes(b ^ key[i % 4] for i, b in enumerate(read_exact(conn, length)))
    return bool(fin), opcode, payload


def frame(opcode, payload, fin=True, mask=None):
    header = bytes([(0x80 if fin else 0) | opcode])
    bit = 0x80 if mask else 0
    if len(payload) < 126:
        header += bytes([bit | len(payload)])
    elif len(payload) < 65536:
        header += bytes([bit | 126]) + struct.pack("!H", len(payload))
    else:
        header += bytes([bit | 127]) + struct.pack("!Q", len(payload))
    if mask:
        return header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return header + payload


def handshake(conn):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(4096)
        if not chunk:
            raise EOFError
        data += chunk
    lines = data.split(b"\r\n\r\n")[0].decode().split("\r\n")
    path = lines[0].split(" ")[1]
    headers = {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:] if ":" in line)}
    return path, headers


def serve(conn):
    try:
        path, headers = handshake(conn)
        path = "/" + path.split("?")[0].strip("/").split("/")[0]
        if path == "/refuse":
            conn.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 9\r\nConnection: close\r\n\r\nForbidden")
            return
        if path == "/silent":
            conn.recv(1)
            return
        accept = base64.b64encode(hashlib.sha1((headers["sec-websocket-key"] + GUID).encode()).digest()).decode()
        offered = [p.strip() for p in headers.get("sec-websocket-protocol", "").split(",") if p.strip()]
        extra = f"Sec-WebSocket-Protocol: {offered[0]}\r\n" if offered else ""
        conn.sendall(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      f"Sec-WebSocket-Accept: {accept}\r\n{extra}\r\n").encode())
        if path == "/midframe":
            whole = frame(0x1, b"x" * 100)
            conn.sendall(whole[:50])
            # FIN after the half frame; what the client sent is read before closing, so the
            # kernel closes with FIN rather than a reset that could discard the half frame.
            conn.shutdown(socket.SHUT_WR)
            conn.settimeout(2)
            while conn.recv(4096):
                pass
            return
        if path == "/masked":
            conn.sendall(frame(0x1, b"masked", mask=b"\x01\x02\x03\x04"))
        elif path == "/huge":
            conn.sendall(bytes([0x82, 0x7F]) + struct.pack("!Q", 2 ** 31))
        elif path == "/badutf8":
            conn.sendall(frame(0x1, b"\xc3\x28"))
        elif path == "/close":
            conn.sendall(frame(0x8, struct.pack("!H", 4000) + b"bye"))
        elif path == "/ping":
            conn.sendall(frame(0x9, b"p1"))
        elif path == "/fragmented":
            text = "héllo wörld".encode()
            conn.sendall(frame(0x1, text[:3], fin=False) + frame(0x9, b"mid") + frame(0x0, text[3:8], fin=False) + frame(0x0, text[8:]))
        message, kind = b"", None
        while True:
            fin, opcode, payload = read_frame(conn)
            if opcode == 0x8:
                if path != "/close":
                    conn.sendall(frame(0x8, payload[:2]))
                return
            if opcode == 0x9:
                conn.sendall(frame(0xA, payload))
                continue
            if opcode == 0xA:
                if path == "/ping":
                    conn.sendall(frame(0x1, b"pong:" + payload))
                continue
            if opcode in (0x1, 0x2):
                message, kind = payload, opcode
            else:
                message += payload
            if fin:
                conn.sendall(frame(kind, message))
                message = b""
    except (EOFError, OSError, ValueError, socket.timeout):
        pass
    finally:
        try:
            conn.close()
        except OSError:
            pass


def main():
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    context = None
    if "--cert" in sys.argv:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[sys.argv.index("--cert") + 1], sys.argv[sys.argv.index("--key") + 1])
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    print(f"PORT {listener.getsockname()[1]}", flush=True)
    while True:
        conn, _ = listener.accept()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if context:
            try:
                conn = context.wrap_socket(conn, server_side=True)
            except (ssl.SSLError, OSError):
                conn.close()
                continue
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


if __name__ == "__main__":
    main()
