"""A loopback door whose new connections are slow to connect, for real: the kernel drops the SYN.

The door listens with the smallest backlog and keeps its accept queue full with a connection
of its own (the plug), so Linux drops every SYN that arrives (``ListenOverflows``) and the
client's kernel sends it again, as it would after a SYN lost on a real network (Linux 6 resends
the first ones a second apart, ``tcp_syn_linear_timeouts``). The door watches the SYNs that
reach it (a packet socket on ``lo``: needs root), and ``wait`` seconds after the first SYN of a
connection it takes the plug out, so the next retransmission gets in: with ``wait`` 2.5 the
connect takes 3 s, with 0.5 it takes 1 s. The connection it then accepts is piped to
``upstream`` (the demo server) through a connection the door opened beforehand, and the door is
plugged again for the next one. ``connects``
records, per connection, the first SYN and the accept (``time.monotonic()``, the demo
server's clock).

:class:`SlowHandshake` is the same door for HTTPS: it connects at once, but answers the TLS
handshake only ``wait`` seconds after the connection came (a far or loaded server), then pipes
the decrypted request to the plain-HTTP ``upstream``.
"""

from __future__ import annotations

import contextlib
import datetime
import socket
import ssl
import struct
import threading
import time

ETH_P_ALL = 0x0003
PACKET_HOST = 0


class SlowConnect:
    def __init__(self, ip: str, port: int, upstream: tuple[str, int], wait: float = 2.0):
        self.ip, self.port, self.upstream, self.wait = ip, port, upstream, wait
        self.connects: list[tuple[float, float]] = []
        self._stopping = threading.Event()
        self._syn = threading.Event()
        self._first_syn: float | None = None
        #: set when the first client SYN reached the door (a connect is under way)
        self.knocked = threading.Event()
        self._threads: list[threading.Thread] = []
        self._sockets: list[socket.socket] = []
        self._plug_ports: set[int] = set()

    def start(self) -> SlowConnect:
        self._sniffer = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        self._sniffer.bind(("lo", 0))
        self._sniffer.settimeout(0.1)
        self._listener = socket.socket()
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind((self.ip, self.port))
        self._listener.listen(0)  # an accept queue of one: the plug fills it
        self._plug = self._plug_in()
        for target in (self._watch, self._serve):
            thread = threading.Thread(target=target, daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._syn.set()
        for sock in [self._listener, self._sniffer, self._plug, *self._sockets]:
            with contextlib.suppress(OSError):
                sock.close()
        for thread in self._threads:
            thread.join(timeout=5)

    def __enter__(self) -> SlowConnect:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _plug_in(self) -> socket.socket:
        plug = socket.socket()
        plug.bind((self.ip, 0))
        self._plug_ports.add(plug.getsockname()[1])  # its SYN is not a client's
        plug.setblocking(False)
        with contextlib.suppress(BlockingIOError):
            plug.connect((self.ip, self.port))
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline:  # the plug's own handshake completes in the kernel
            with contextlib.suppress(OSError):
                plug.getpeername()
                return plug
            time.sleep(0.005)
        raise RuntimeError("the door's plug did not connect")

    def _watch(self) -> None:
        """Note the first SYN to the door of each connection (a client's, dropped by the kernel)."""
        wanted = socket.inet_aton(self.ip)
        while not self._stopping.is_set():
            try:
                frame, address = self._sniffer.recvfrom(65535)
            except (TimeoutError, OSError):
                continue
            ip = frame[14:]
            if address[2] != PACKET_HOST or len(ip) < 20 or ip[0] >> 4 != 4 or ip[9] != 6 or ip[16:20] != wanted:
                continue
            tcp = ip[(ip[0] & 15) * 4 :]
            source, port = struct.unpack("!HH", tcp[0:4])
            flags = tcp[13]
            syn = flags & 0x02 and not flags & 0x10
            if syn and port == self.port and source not in self._plug_ports and self._first_syn is None:
                self._first_syn = time.monotonic()
                self._syn.set()
                self.knocked.set()

    def _serve(self) -> None:
        while not self._stopping.is_set():
            self._syn.wait()
            if self._stopping.is_set():
                return
            assert self._first_syn is not None
            # the way on to the server is open before the client gets in: the client writes its
            # request as soon as it is connected, and the door must add no hop of its own then
            upstream = socket.create_connection(self.upstream)
            time.sleep(max(0.0, self._first_syn + self.wait - time.monotonic()))
            try:
                plug, _ = self._listener.accept()  # the plug out: the next retransmitted SYN gets in
                plug.close()
                self._plug.close()
                client, _ = self._listener.accept()
            except OSError:
                upstream.close()
                return
            self._sockets += [client, upstream]
            for source, sink in ((client, upstream), (upstream, client)):
                thread = threading.Thread(target=_pipe, args=(source, sink), daemon=True)
                thread.start()
                self._threads.append(thread)
            self.connects.append((self._first_syn, time.monotonic()))
            self._first_syn = None
            self._syn.clear()
            self._plug = self._plug_in()


def _pipe(source: socket.socket, sink: socket.socket) -> None:
    with contextlib.suppress(OSError):
        while data := source.recv(65536):
            sink.sendall(data)
    with contextlib.suppress(OSError):
        sink.shutdown(socket.SHUT_WR)


class SlowHandshake:
    def __init__(self, ip: str, port: int, upstream: tuple[str, int], wait: float, directory):
        self.ip, self.port, self.upstream, self.wait = ip, port, upstream, wait
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.load_cert_chain(*_self_signed(directory, ip))
        #: per connection: when it came and when its handshake was done (``time.monotonic()``)
        self.handshakes: list[tuple[float, float]] = []
        self._stopping = threading.Event()
        self._threads: list[threading.Thread] = []
        self._sockets: list[socket.socket] = []

    def __enter__(self) -> SlowHandshake:
        self._listener = socket.create_server((self.ip, self.port))
        thread = threading.Thread(target=self._serve, daemon=True)
        thread.start()
        self._threads.append(thread)
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopping.set()
        for sock in [self._listener, *self._sockets]:
            with contextlib.suppress(OSError):
                sock.close()
        for thread in self._threads:
            thread.join(timeout=5)

    def _serve(self) -> None:
        while not self._stopping.is_set():
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            thread = threading.Thread(target=self._handle, args=(client, time.monotonic()), daemon=True)
            thread.start()
            self._threads.append(thread)

    def _handle(self, client: socket.socket, came: float) -> None:
        # open before the handshake, as SlowConnect does: the client writes its request the moment
        # the handshake is done, and a connect made only then would hold it back (by tens of
        # milliseconds on a loaded machine), a delay no network adds after the handshake
        upstream = socket.create_connection(self.upstream)
        time.sleep(self.wait)
        try:
            secure = self.context.wrap_socket(client, server_side=True)
        except (OSError, ssl.SSLError):
            upstream.close()
            return
        self._sockets += [secure, upstream]
        thread = threading.Thread(target=_pipe, args=(upstream, secure), daemon=True)
        thread.start()
        self._threads.append(thread)
        self.handshakes.append((came, time.monotonic()))
        _pipe(secure, upstream)


def _self_signed(directory, ip: str) -> tuple[str, str]:
    """A certificate for ``ip`` and its key, written under ``directory`` (Scrapy does not verify)."""
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, ip)])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address(ip))]), critical=False)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = f"{directory}/door.pem", f"{directory}/door.key"
    with open(cert_path, "wb") as out:
        out.write(cert.public_bytes(serialization.Encoding.PEM))
    with open(key_path, "wb") as out:
        out.write(
            key.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
        )
    return cert_path, key_path
