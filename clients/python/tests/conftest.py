"""A real standalone service for the whole session, started as libs/testing/src/standalone.ts starts
it (`startService`): the built `dist/services/standalone/src/main.js` on a free loopback port with a
temporary data dir, ready when /health/ready answers 200, stopped with SIGTERM at the end. Accounts
and keys are made through the operator routes, as libs/testing/src/api-client.ts
(`createAccountWithKey`) does.

Beside it, an HTTPS server on 127.0.0.1 with a certificate from a test CA (trustme) that the service
trusts through NODE_EXTRA_CA_CERTS: it serves images for `image_url` submits and receives webhook
deliveries.
"""

from __future__ import annotations

import io
import os
import secrets
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest
import trustme
from PIL import Image

REPO_ROOT = Path(__file__).resolve().parents[3]
ENTRY = REPO_ROOT / "dist" / "services" / "standalone" / "src" / "main.js"
ALL_SCOPES = ["jobs:read", "jobs:write", "keys:read", "keys:write", "webhooks:read", "webhooks:write"]


# --- images ------------------------------------------------------------------------------------------


def gradient_image(width: int, height: int, fmt: str = "PNG", mode: str = "RGB") -> bytes:
    """A small deterministic image (a gradient), encoded as `fmt`."""
    image = Image.new(mode, (width, height))
    image.putdata(
        [
            (x * 255 // max(1, width - 1), y * 255 // max(1, height - 1), (x + y) * 255 // max(1, width + height - 2))[: len(mode)]
            for y in range(height)
            for x in range(width)
        ]
    )
    out = io.BytesIO()
    image.save(out, fmt)
    return out.getvalue()


def image_info(data: bytes) -> tuple[str, tuple[int, int]]:
    with Image.open(io.BytesIO(data)) as image:
        return image.format, image.size


# --- the HTTPS side server: image_url sources and webhook receiver ----------------------------------------


@dataclass
class Delivery:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class SideServer:
    url: str
    images: dict[str, bytes] = field(default_factory=dict)
    deliveries: list[Delivery] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def serve_image(self, name: str, data: bytes) -> str:
        self.images[f"/images/{name}"] = data
        return f"{self.url}/images/{name}"

    def wait_for_delivery(self, path: str, timeout: float = 60.0) -> Delivery:
        return self.wait_for_deliveries(path, 1, timeout)[0]

    def wait_for_deliveries(self, path: str, count: int, timeout: float = 60.0) -> list[Delivery]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                to_path = [d for d in self.deliveries if d.path == path]
            if len(to_path) >= count:
                return to_path
            time.sleep(0.1)
        raise AssertionError(f"fewer than {count} webhook deliveries to {path} within {timeout} s")


def _handler(side: SideServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:  # quiet
            pass

        def do_GET(self) -> None:
            data = side.images.get(self.path)
            if data is None:
                self.send_response(404)
                self.send_header("content-length", "0")
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("content-type", "application/octet-stream")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length", "0")))
            with side.lock:
                side.deliveries.append(Delivery(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
            self.send_response(204)
            self.end_headers()

    return Handler


@pytest.fixture(scope="session")
def test_ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture(scope="session")
def side_server(test_ca: trustme.CA) -> Iterator[SideServer]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    side = SideServer(url=f"https://127.0.0.1:{server.server_address[1]}")
    server.RequestHandlerClass = _handler(side)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    test_ca.issue_cert("127.0.0.1", "localhost").configure_cert(context)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield side
    server.shutdown()
    server.server_close()


# --- the service -----------------------------------------------------------------------------------


@dataclass
class Service:
    base_url: str
    api_url: str
    operator_token: str
    data_dir: Path
    process: subprocess.Popen[bytes]

    def operator(self) -> httpx.Client:
        return httpx.Client(base_url=self.api_url, headers={"authorization": f"Bearer {self.operator_token}"}, timeout=30)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(data_dir: Path, env_extra: dict[str, str], log_path: Path) -> tuple[subprocess.Popen[bytes], int]:
    port = _free_port()
    env = {
        **os.environ,
        "PORT": str(port),
        "UPSCALE_HOST": "127.0.0.1",
        "UPSCALE_DATA_DIR": str(data_dir),
        "LOG_LEVEL": os.environ.get("UPSCALE_TEST_LOG_LEVEL", "warn"),
        **env_extra,
    }
    with open(log_path, "ab") as log:
        process = subprocess.Popen(["node", str(ENTRY)], cwd=REPO_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the standalone exited with {process.returncode}:\n{log_path.read_text(errors='replace')[-4000:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health/ready", timeout=2).status_code == 200:
                return process, port
        except httpx.TransportError:
            pass  # not listening yet
        time.sleep(0.2)
    process.kill()
    raise RuntimeError(f"the standalone did not become ready:\n{log_path.read_text(errors='replace')[-4000:]}")


@pytest.fixture(scope="session")
def service(test_ca: trustme.CA, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    if not ENTRY.exists():
        pytest.exit(f"{ENTRY} is missing: run `npm run build` in {REPO_ROOT} first", returncode=2)
    data_dir = Path(tempfile.mkdtemp(prefix="upscaler-python-sdk-"))
    # Embedded Postgres runs initdb as its own user when we are root: it must be able to enter the dir.
    data_dir.chmod(0o755)
    ca_path = tmp_path_factory.mktemp("ca") / "ca.pem"
    test_ca.cert_pem.write_to_path(str(ca_path))
    token = "op_" + secrets.token_hex(16)
    env = {
        "UPSCALE_OPERATOR_TOKEN": token,
        # every test makes its own key; the rate-limit test gives its key a small rate of its own
        "UPSCALE_RATE_LIMIT_PER_MINUTE": "100000",
        "UPSCALE_DEFAULT_QUALITY": "fast",
        "UPSCALE_ALLOW_PRIVATE_NETWORKS": "true",  # image URLs and webhooks on 127.0.0.1 (tests only)
        "NODE_EXTRA_CA_CERTS": str(ca_path),
        "UPSCALE_WEBHOOK_RETRY_SCHEDULE_MS": "200,400,800",
    }
    log_path = data_dir.parent / f"{data_dir.name}.log"
    process = port = None
    for attempt in range(3):  # a port drawn for us may be taken by another process before we bind it
        try:
            process, port = _start(data_dir, env, log_path)
            break
        except RuntimeError as exc:
            if "EADDRINUSE" not in str(exc) or attempt == 2:
                raise
    assert process is not None and port is not None
    base = f"http://127.0.0.1:{port}"
    yield Service(base, f"{base}/api/v1", token, data_dir, process)
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    shutil.rmtree(data_dir, ignore_errors=True)
    log_path.unlink(missing_ok=True)


@dataclass
class AccountKey:
    id: str
    key: str
    key_id: str


@pytest.fixture(scope="session")
def make_account(service: Service) -> Callable[..., AccountKey]:
    """An account with credits and a key (operator API), as createAccountWithKey does."""

    def make(credits: int = 100, scopes: list[str] | None = None, rate_limit_per_minute: int | None = None) -> AccountKey:
        with service.operator() as operator:
            account = operator.post("/admin/accounts", json={"name": "python sdk test", "credits": credits})
            assert account.status_code == 201, account.text
            body = {"name": "test key", "scopes": scopes or ALL_SCOPES}
            if rate_limit_per_minute is not None:
                body["rate_limit_per_minute"] = rate_limit_per_minute
            key = operator.post(f"/admin/accounts/{account.json()['id']}/keys", json=body)
            assert key.status_code == 201, key.text
            return AccountKey(account.json()["id"], key.json()["key"], key.json()["id"])

    return make


@pytest.fixture()
def account(make_account: Callable[..., AccountKey]) -> AccountKey:
    return make_account()
