"""A small HTTPS server on loopback with a throwaway certificate authority, for clients that insist on https."""

from __future__ import annotations

import datetime
import ssl
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

#: (status, headers, body) for a path; None answers 404. A body given as chunks is sent one chunk at a time, as
#: the iterator yields them (a server that trickles), with no Content-Length.
Route = Callable[[str], tuple[int, dict[str, str], bytes | Iterator[bytes]] | None]


def _certificate(tmp: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and localhost; returns (cert, key) paths. The cert is its own CA."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "design-console-mcp test")])
    now = datetime.datetime.now(datetime.UTC)
    import ipaddress

    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = tmp / "cert.pem", tmp / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return cert_path, key_path


@dataclass
class HttpsServer:
    base: str
    ca_file: Path


@contextmanager
def https_server(tmp: Path, route: Route) -> Iterator[HttpsServer]:
    """Serve ``route`` over TLS on a free loopback port until the block ends."""
    cert, key = _certificate(tmp)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            answer = route(self.path)
            status, headers, body = answer if answer is not None else (404, {}, b"not found")
            self.send_response(status)
            if isinstance(body, bytes):
                headers = {"Content-Length": str(len(body)), **headers}
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            try:
                for chunk in [body] if isinstance(body, bytes) else body:
                    self.wfile.write(chunk)
                    self.wfile.flush()
            except OSError:
                return  # the client gave up: nothing to report

        def log_message(self, format: str, *args: object) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield HttpsServer(base=f"https://127.0.0.1:{server.server_address[1]}", ca_file=cert)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
