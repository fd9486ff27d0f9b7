"""HTTPS on loopback for tests: a certificate authority of the test's own (its file for ``SSL_CERT_FILE``)
and a server of JSON documents whose answers a test sets and whose requests it counts."""

from __future__ import annotations

import datetime
import ipaddress
import json
import ssl
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


@dataclass(frozen=True)
class Certificates:
    ca: Path  # the authority's certificate: SSL_CERT_FILE for whoever must trust the server
    chain: Path  # the server's certificate
    key: Path


def make_certificates(folder: Path) -> Certificates:
    """An authority and a certificate it signed for ``localhost`` and ``127.0.0.1``."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "remember tests CA")])
    ca = (
        x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(ca_key, hashes.SHA256())
    )  # fmt: skip
    names = [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    leaf = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
        .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .sign(ca_key, hashes.SHA256())
    )  # fmt: skip
    folder.mkdir(parents=True, exist_ok=True)
    made = Certificates(folder / "ca.pem", folder / "server.pem", folder / "server.key")
    made.ca.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    made.chain.write_bytes(leaf.public_bytes(serialization.Encoding.PEM))
    made.key.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return made


@dataclass
class Answer:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    trickle: bool = False  # send the status line a byte every half second (a minute in all)


class DocumentServer:
    """HTTPS on ``localhost``: answers each path as ``answers`` says (404 otherwise), counting requests."""

    def __init__(self, certificates: Certificates) -> None:
        self.answers: dict[str, Answer] = {}
        self.hits: dict[str, int] = {}
        answers, hits = self.answers, self.hits

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                hits[self.path] = hits.get(self.path, 0) + 1
                answer = answers.get(self.path, Answer(404, b"{}"))
                if answer.trickle:
                    self._trickle()
                    return
                self.send_response(answer.status)
                for name, value in {"Content-Type": "application/json", **answer.headers}.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(answer.body)))
                self.end_headers()
                self.wfile.write(answer.body)

            def _trickle(self) -> None:
                for byte in (b"HTTP/1.1 200 OK\r\n" * 8)[:120]:
                    try:
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                    except OSError:
                        return
                    time.sleep(0.5)

            def log_message(self, *args: Any) -> None:
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.http.daemon_threads = True
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(certificates.chain, certificates.key)
        self.http.socket = context.wrap_socket(self.http.socket, server_side=True)
        self.base = f"https://localhost:{self.http.server_address[1]}"
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    def document(self, path: str, document: dict[str, Any], **headers: str) -> str:
        """Serve ``document`` at ``path``; its URL."""
        self.answers[path] = Answer(200, json.dumps(document).encode(), headers)
        return self.base + path

    def close(self) -> None:
        self.http.shutdown()
        self.http.server_close()
