"""deploy/: the Compose file, the Kubernetes manifests, the nginx configuration and the
Dockerfile are valid and agree with each other and with the app.

- YAML parses; every Kubernetes object validates offline against the Kubernetes 1.31 schema
  (``kubernetes-validate``, strict: an unknown field is an error);
- cross-references hold: ports, health paths, Service/Ingress/HPA targets, Secret and
  ConfigMap names, the route cookie, environment variables the code actually reads, the
  Streamlit option values, memory sized from the bench's measured RSS;
- ``nginx -t`` accepts the repo's configuration laid out as the test and the image do.

A missing nginx or kubernetes-validate skips its test with a message, except in CI.
"""

from __future__ import annotations

import base64
import hashlib
import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from bench import procs
from tests.conftest import APP_PACKAGES, ROOT, need

DEPLOY = ROOT / "deploy"
K8S = DEPLOY / "k8s"
NGINX = DEPLOY / "nginx"
START = DEPLOY / "docker" / "start.sh"
HEALTH = "/_stcore/health"
COOKIE = "road_route"
K8S_VERSION = "1.31.0"


def _docs(path: Path) -> list[dict]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d is not None]


def _k8s() -> dict[tuple[str, str], dict]:
    """Every object of deploy/k8s by (kind, name), the Kustomization aside."""
    out = {}
    for path in sorted(K8S.glob("*.yaml")):
        for doc in _docs(path):
            if doc["kind"] != "Kustomization":
                key = (doc["kind"], doc["metadata"]["name"])
                assert key not in out, f"{key} defined twice"
                out[key] = doc | {"_file": path.name}
    return out


def _env_names_read() -> set[str]:
    """``ROAD_*`` names the code reads (Python sources, the image's entry point and the
    nginx layout it runs)."""
    names: set[str] = set()
    files = [ROOT / "app.py", START, NGINX / "layout.sh"]
    for d in APP_PACKAGES:
        files += (ROOT / d).rglob("*.py")
    for f in files:
        names |= set(re.findall(r"\bROAD_[A-Z_]+\b", f.read_text()))
    return names


def _roles() -> set[str]:
    """The ROAD_ROLE values deploy/docker/start.sh handles."""
    case = START.read_text().split('case "$ROLE" in', 1)[1].split("esac", 1)[0]
    return set(re.findall(r"^\s{4}(\w+)\)", case, re.M))


def _measured_rss_mb() -> float:
    """The largest server RSS the bench has recorded (bench/results/*.json)."""
    peaks = []
    for f in (ROOT / "bench" / "results").glob("*.json"):
        rss = json.loads(f.read_text()).get("rss_mb", {})
        peaks += [
            v
            for k, v in rss.items()
            if isinstance(v, int | float) and k not in ("sessions", "samples")  # counts, not MB
        ]
    assert peaks, "no RSS figure in bench/results: run `python -m bench` first"
    return max(peaks)


def _mib(text: str) -> float:
    units = {"Mi": 1, "Gi": 1024, "m": 1, "g": 1024, "M": 1, "G": 1024}
    num, unit = re.fullmatch(r"([\d.]+)(Mi|Gi|m|g|M|G)", str(text)).groups()
    return float(num) * units[unit]


def _streamlit_error_detail_values() -> set[str]:
    from streamlit.config import ShowErrorDetailsConfigOptions

    return {o.value for o in ShowErrorDetailsConfigOptions}


def _hosted_env_ok(env: dict) -> None:
    value = env.get("STREAMLIT_CLIENT_SHOW_ERROR_DETAILS")
    assert value in {"none", "type"}, f"visitors must see no traceback, got {value!r}"
    assert value in _streamlit_error_detail_values()  # a value Streamlit 1.67 accepts
    # the public link's fair share (serve/admission.py), with the proxy's client address
    assert str(env.get("ROAD_PUBLIC")) == "1" and str(env.get("ROAD_TRUST_PROXY")) == "1"


# --- Compose -------------------------------------------------------------------------------


def test_compose_services_agree():
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose["services"]
    known = _env_names_read()
    apps = {n: s for n, s in services.items() if s.get("environment", {}).get("ROAD_ROLE") == "app"}
    assert len(apps) >= 2, "at least two replicas"
    for name, svc in services.items():
        env = svc.get("environment", {})
        unknown = {k for k in env if k.startswith("ROAD_")} - known
        assert not unknown, f"{name}: the code reads no {unknown}"
        if "ROAD_ROLE" in env:
            assert env["ROAD_ROLE"] in _roles(), (name, env["ROAD_ROLE"])
        for dep in svc.get("depends_on", {}):
            assert dep in services, f"{name} depends on unknown {dep}"
        for vol in svc.get("volumes", []):
            source = vol.split(":")[0]
            if source.startswith("./"):  # a folder of the repo, mounted read-only
                assert (DEPLOY / source).is_dir() and vol.endswith(":ro"), vol
            else:
                assert source in compose.get("volumes", {}), vol
    for name, svc in apps.items():
        env = svc["environment"]
        _hosted_env_ok(env)
        url = env["ROAD_DATABASE_URL"]
        assert url.startswith("postgresql+psycopg://"), url
        host = re.search(r"@([\w-]+):(\d+)/", url)
        assert host and host.group(1) in services, f"{name}: database host of {url}"
        db_env = services[host.group(1)]["environment"]
        assert db_env["POSTGRES_DB"] == url.rsplit("/", 1)[1].split("?")[0]
        user = re.match(r"postgresql\+psycopg://(\w+):", url).group(1)
        assert user != db_env["POSTGRES_USER"], "the app logs in as the superuser"
        assert "sslmode=" in url  # stated, never libpq's unverified "prefer"
        probe = " ".join(svc["healthcheck"]["test"])
        assert f":{env['PORT']}{HEALTH}" in probe, probe
        assert "${APP_DB_PASSWORD" in url, "no password committed"
        from poll.store import ADDRESS_KEY_ENV  # a key of its own, never committed

        assert env[ADDRESS_KEY_ENV].startswith(f"${{{ADDRESS_KEY_ENV}:?"), env[ADDRESS_KEY_ENV]
        limit = _mib(svc["deploy"]["resources"]["limits"]["memory"])
        assert limit >= 2 * _measured_rss_mb(), f"{name}: memory limit {limit} MiB"
    proxy = [s for s in services.values() if s.get("environment", {}).get("ROAD_ROLE") == "proxy"]
    assert len(proxy) == 1
    env = proxy[0]["environment"]
    ups = env["ROAD_UPSTREAMS"].split()
    assert sorted(u.split(":")[0] for u in ups) == sorted(apps), ups
    for u in ups:
        host, port = u.split(":")
        assert port == apps[host]["environment"]["PORT"], u
    assert any(p.split(":")[-1] == env["PORT"] for p in proxy[0]["ports"]), proxy[0]["ports"]
    assert f":{env['PORT']}{HEALTH}" in " ".join(proxy[0]["healthcheck"]["test"])


# --- Kubernetes ----------------------------------------------------------------------------


# The Kubernetes manifests: tests/deploy/test_k8s.py.


# --- nginx, the image ----------------------------------------------------------------------


def test_every_location_that_sets_headers_still_sends_the_client_address():
    """nginx drops every inherited ``proxy_set_header`` in a location that sets one of its
    own: such a location must include proxy-headers.conf again, or the app (and its fair
    gate) sees nginx's address for every visitor (the websocket's location did)."""
    road = (NGINX / "road.conf").read_text()
    common = (NGINX / "proxy-headers.conf").read_text()
    assert "proxy_set_header X-Real-IP $remote_addr;" in common
    assert "proxy_set_header Host $host;" in common
    http_level = road.split("server {", 1)[0]
    assert "include proxy-headers.conf;" in http_level
    blocks = dict(re.findall(r"\n    location ([^{]+)\{(.*?)\n    \}", road, re.S))
    assert "= /_stcore/stream " in blocks and len(blocks) >= 3, list(blocks)
    setting = [name for name, body in blocks.items() if "proxy_set_header" in body]
    assert "= /_stcore/stream " in setting  # Upgrade and Connection
    for name in setting:
        assert "include proxy-headers.conf;" in blocks[name], f"location {name.strip()}"


def _csp(text: str) -> str:
    return re.search(r"Content-Security-Policy:? \"([^\"]+)\"", text).group(1)


def test_csp_allows_exactly_streamlit_inline_script():
    import streamlit

    index = (Path(streamlit.__file__).parent / "static" / "index.html").read_text()
    inline = re.findall(r"<script>(.*?)</script>", index, re.S)
    assert inline, "Streamlit's index.html changed: recheck the CSP by hand"
    csp = _csp((NGINX / "headers.conf").read_text())
    for code in inline:
        digest = base64.b64encode(hashlib.sha256(code.encode()).digest()).decode()
        assert f"'sha256-{digest}'" in csp, "Streamlit's inline script changed: update the hash"
    assert "'unsafe-eval'" not in csp and "frame-ancestors" in csp
    # the cluster's edge sends the same policy (tests/deploy/test_k8s.py: test_the_edge)


def test_dockerfile_and_entry_point():
    docker = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^ARG BASE_IMAGE=python:3\.11-slim-bookworm$", docker, re.M)
    assert re.search(r"^FROM \$\{BASE_IMAGE\}$", docker, re.M)
    assert "nginx libnginx-mod-http-brotli-filter" in docker
    env = dict(re.findall(r"^\s*(?:ENV\s+)?([A-Z_]+)=(\S+?)\s*\\?$", docker, re.M))
    _hosted_env_ok(env)
    assert 'CMD ["bash", "deploy/docker/start.sh"]' in docker
    assert re.search(r"^EXPOSE 8501$", docker, re.M) and "PORT=8501" in docker
    assert HEALTH in docker
    assert _roles() == {"all", "app", "proxy"}
    load = re.search(r"^load_module (\S+);", (NGINX / "nginx.conf").read_text(), re.M).group(1)
    assert load.startswith("/usr/lib/nginx/modules/")  # Debian's path, here and in the image
    for script, shell in ((START, "bash"), (NGINX / "layout.sh", "sh")):
        run = subprocess.run([shell, "-n", str(script)], capture_output=True, text=True)
        assert run.returncode == 0, f"{script.name}: {run.stderr}"
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert "deploy" not in ignored and "deploy/" not in ignored  # the image needs deploy/


def test_nginx_accepts_the_config():
    nginx = procs.nginx_binary()
    need("nginx", nginx is not None, "apt-get install nginx libnginx-mod-http-brotli-filter")
    folder = Path(tempfile.mkdtemp(prefix="road-nginx-t-"))
    try:
        folder.chmod(0o755)
        subprocess.run(
            ["sh", str(NGINX / "layout.sh"), str(folder), "127.0.0.1:8659", "127.0.0.1:8658"]
            + ["127.0.0.1:8657"],
            check=True,
            timeout=30,
        )
        conf = folder / "conf"
        assert (conf / "upstream.conf").read_text().count("server 127.0.0.1:") == 2
        verbatim = ("nginx.conf", "road.conf", "proxy-headers.conf", "headers.conf")
        for f in (*verbatim, "asset-headers.conf"):
            assert (conf / f).resolve() == (NGINX / f).resolve()
        cmd = [nginx, "-t", "-p", f"{folder}/", "-c", str(conf / "nginx.conf")]
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        assert run.returncode == 0, run.stderr
        assert "test is successful" in run.stderr
        # and it can fail: a broken upstream file is refused
        (conf / "upstream.conf").write_text("server ;\n")
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        assert run.returncode != 0
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# --- pre-compressed /static/ --------------------------------------------------------------

STATIC_NGINX_PORT = 8702  # this helper's ports: 8700-8729
STATIC_APP_PORT = 8703
IMMUTABLE = "public, max-age=31536000, immutable"


def _nginx_or_skip() -> str:
    nginx = procs.nginx_binary()
    need("nginx", nginx is not None, "apt-get install nginx libnginx-mod-http-brotli-filter")
    for module in re.findall(r"^load_module (\S+);", (NGINX / "nginx.conf").read_text(), re.M):
        need(module, Path(module).exists(), "apt-get install libnginx-mod-http-brotli-static")
    return nginx


def test_image_and_layout_carry_the_precompressed_assets():
    """The image makes the folder at build time and nginx's entry point points at it; the
    layout writes static.conf from ROAD_STATIC_DIR and refuses a folder that is not one."""
    docker = (ROOT / "Dockerfile").read_text()
    assert "libnginx-mod-http-brotli-static" in docker
    made = re.search(r"python deploy/precompress\.py (\S+)", docker)
    assert made, "the image must run deploy/precompress.py at build time"
    start = START.read_text()
    assert f"ROAD_STATIC_DIR:-{made.group(1)}" in start, "start.sh must serve what the image made"
    road = (NGINX / "road.conf").read_text()
    static_loc = road.split("location /static/ {", 1)[1].split("}", 1)[0]
    for line in ("include static.conf;", "brotli_static on;", "gzip_static on;"):
        assert line in static_loc, line
    assert "try_files $uri @static_app;" in static_loc  # anything missing goes to the app
    ws = road.split("location = /_stcore/stream {", 1)[1].split("}", 1)[0]
    assert "gzip off;" in ws and "brotli off;" in ws and "Cache-Control" not in ws
    folder = Path(tempfile.mkdtemp(prefix="road-layout-"))
    try:
        (folder / "mirror" / "static").mkdir(parents=True)
        env = dict(os.environ, ROAD_STATIC_DIR=str(folder / "mirror"))
        cmd = ["sh", str(NGINX / "layout.sh"), str(folder / "p"), "8080", "app:8501"]
        subprocess.run(cmd, check=True, timeout=30, env=env)
        assert (folder / "p" / "conf" / "static.conf").read_text() == (
            f"root {folder / 'mirror'};\n"
        )
        env.pop("ROAD_STATIC_DIR")
        subprocess.run(cmd, check=True, timeout=30, env=env)  # none: an empty root
        root = (folder / "p" / "conf" / "static.conf").read_text().split()[1].rstrip(";")
        assert Path(root).is_dir() and not any(Path(root).iterdir())
        env["ROAD_STATIC_DIR"] = str(folder / "nothing")
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=30, env=env)
        assert run.returncode == 2 and "precompress.py" in run.stderr
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _start_nginx(nginx: str, prefix: Path, log: Path) -> subprocess.Popen:
    """nginx in the foreground from a folder layout.sh made, its errors to ``log``."""
    return subprocess.Popen(
        [nginx, "-p", f"{prefix}/", "-c", str(prefix / "conf" / "nginx.conf")]
        + ["-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=log.open("w"),
    )


def _stop_nginx(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _logged_addresses(log: Path, at_least: int, wait_s: float = 10.0) -> list[str]:
    """The client addresses of nginx's JSON access log, once it holds ``at_least`` lines (or
    after ``wait_s``: the caller's assertion then says what was there)."""
    deadline = time.monotonic() + wait_s
    while True:
        lines = log.read_text().splitlines() if log.exists() else []
        if len(lines) >= at_least or time.monotonic() > deadline:
            return [json.loads(line)["addr"] for line in lines]
        time.sleep(0.05)


def _tear_down(proxy: subprocess.Popen | None, app: _FakeApp | None, folder: Path) -> None:
    """Stop what a test started (whichever got started) and remove its folder."""
    if proxy is not None:
        _stop_nginx(proxy)
    if app is not None:
        app.close()
    shutil.rmtree(folder, ignore_errors=True)


def _get(port: int, path: str, headers: dict, log: Path):
    """(status, headers, body) of a GET to 127.0.0.1:``port``, waiting for nginx to listen."""
    for _ in range(100):
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            conn.request("GET", path, headers=headers)
            resp = conn.getresponse()
            out = resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
            conn.close()
            return out
        except ConnectionRefusedError:
            time.sleep(0.1)
    raise AssertionError(f"nginx never answered:\n{log.read_text()}")


class _FakeApp:
    """A stand-in for Streamlit on loopback: /static/js/small.js (below the mirror's
    threshold), every other /static/ path answered with an HTML page (Streamlit's fallback),
    /_stcore/health. Records the paths it was asked for and each request's headers."""

    SMALL = b"export const small = 1;\n"

    def __init__(self, port: int) -> None:
        import http.server
        import threading

        seen = self.seen = []
        heard = self.heard = []
        small = self.SMALL

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's name)
                seen.append(self.path)
                heard.append(dict(self.headers))
                if self.path == "/static/js/small.js":
                    body, ctype = small, "application/javascript"
                else:
                    body, ctype = b"<!doctype html><html>" + b" " * 2000 + b"</html>", "text/html"
                self.send_response(200)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        class Server(http.server.ThreadingHTTPServer):
            # a class's first visits reach it ~240 at once: the default backlog of 5 drops
            # connections, and nginx's 5 s connect timeout then answers 504 on a busy machine
            request_queue_size = 512

        self.server = Server(("127.0.0.1", port), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)


def test_static_served_precompressed_from_disk_with_fallback_to_the_app():
    """nginx from the repo's files with a folder made by deploy/precompress.py (from a small
    stand-in of Streamlit's static folder): a JS asset comes as the brotli-11 / gzip-9 file
    from disk (identical bytes once decoded), never asking the app; a small file and an
    unknown path are proxied to the app (the unknown one, an HTML page, is not cached)."""
    import gzip

    import brotli

    nginx = _nginx_or_skip()
    folder = Path(tempfile.mkdtemp(prefix="road-static-"))
    folder.chmod(0o755)  # nginx's workers (nobody, when run as root) read the mirror
    app = proxy = None
    try:
        src = folder / "src"
        (src / "js").mkdir(parents=True)
        (src / "media").mkdir()
        big = ("export function f(i){return i*2;}\n" * 400).encode()  # 13.6 kB, compressible
        (src / "js" / "big.abc123.js").write_bytes(big)
        (src / "js" / "small.js").write_bytes(_FakeApp.SMALL)
        (src / "media" / "font.woff2").write_bytes(os.urandom(3000))
        mirror = folder / "mirror"
        run = subprocess.run(
            [sys.executable, str(DEPLOY / "precompress.py"), str(mirror), "--src", str(src)]
            + ["--jobs", "1"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert run.returncode == 0, run.stderr
        summary = json.loads(run.stderr.strip().splitlines()[-1])
        assert summary["files"] == 2 and summary["compressed"] == 1, summary
        js = mirror / "static" / "js" / "big.abc123.js"
        assert brotli.decompress(Path(f"{js}.br").read_bytes()) == big
        assert gzip.decompress(Path(f"{js}.gz").read_bytes()) == big
        assert not (mirror / "static" / "js" / "small.js").exists()  # below 1 KB: proxied
        assert not Path(f"{mirror}/static/media/font.woff2.br").exists()  # not text
        # the same folder again: nothing to do
        again = subprocess.run(
            [sys.executable, str(DEPLOY / "precompress.py"), str(mirror), "--src", str(src)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert json.loads(again.stderr.strip().splitlines()[-1])["cached"] is True

        app = _FakeApp(STATIC_APP_PORT)
        prefix = folder / "nginx"
        subprocess.run(
            ["sh", str(NGINX / "layout.sh"), str(prefix), f"127.0.0.1:{STATIC_NGINX_PORT}"]
            + [f"127.0.0.1:{STATIC_APP_PORT}"],
            check=True,
            timeout=30,
            env=dict(os.environ, ROAD_STATIC_DIR=str(mirror)),
        )
        proxy = _start_nginx(nginx, prefix, folder / "nginx.log")

        def get(path: str, enc: str):
            headers = {"Accept-Encoding": enc}
            return _get(STATIC_NGINX_PORT, path, headers, folder / "nginx.log")

        for enc, decode in (("br", brotli.decompress), ("gzip", gzip.decompress)):
            status, headers, body = get("/static/js/big.abc123.js", f"{enc}, deflate")
            assert status == 200, (enc, status)
            assert headers.get("content-encoding") == enc, headers
            want = Path(f"{js}.{'br' if enc == 'br' else 'gz'}").read_bytes()
            assert body == want and decode(body) == big  # the file made once, as it is
            assert headers.get("cache-control") == IMMUTABLE, headers
            assert "accept-encoding" in headers.get("vary", "").lower(), headers
            assert headers.get("content-type", "").startswith("application/javascript")
            assert headers.get("x-content-type-options") == "nosniff"
            assert "set-cookie" not in headers  # from disk: no replica, no route
            # a script needs no document policy (asset-headers.conf): ~600 bytes saved
            assert "content-security-policy" not in headers
        status, headers, body = get("/static/js/big.abc123.js", "identity")
        assert status == 200 and body == big and "content-encoding" not in headers
        status, headers, body = get("/static/media/font.woff2", "br, gzip")
        assert headers.get("content-type") == "font/woff2" and "content-encoding" not in headers
        assert body == (src / "media" / "font.woff2").read_bytes()
        assert app.seen == [], f"the app was asked for files on disk: {app.seen}"

        status, headers, body = get("/static/js/small.js", "gzip")
        assert status == 200 and body == _FakeApp.SMALL  # proxied, too small to compress
        assert headers.get("cache-control") == IMMUTABLE
        status, headers, body = get("/static/js/gone.old.js", "gzip")  # Streamlit's fallback
        assert headers.get("cache-control") == "no-cache", headers
        assert headers.get("content-encoding") == "gzip"  # on the fly, as before
        assert "road_route=" in headers.get("set-cookie", "")  # proxied: a route
        # Streamlit's index page under an asset path is a document: the whole policy
        assert "frame-ancestors 'self'" in headers.get("content-security-policy", "")
        assert app.seen == ["/static/js/small.js", "/static/js/gone.old.js"], app.seen
    finally:
        _tear_down(proxy, app, folder)


# --- the client's address behind another proxy (a Hugging Face Space) ----------------------

FORWARDED_NGINX_PORT = 8704
FORWARDED_APP_PORT = 8705
FORGED, VISITOR = "198.51.100.66", "203.0.113.7"  # documentation addresses (RFC 5737)
VISITOR_NET = "203.0.113.0/24"  # what the access log keeps of VISITOR
# What a Space's image sets for nginx (deploy.space.SPACE_ENV: tests/deploy/test_space.py)
SPACE_NGINX_ENV = {"ROAD_FORWARDED_FOR": "1", "ROAD_FRAME_ANCESTORS": "https://huggingface.co"}


def test_forwarded_for_switch_takes_the_address_the_proxy_appended():
    """nginx from the repo's files with the Space's settings (ROAD_FORWARDED_FOR=1,
    ROAD_FRAME_ANCESTORS: SPACE_NGINX_ENV) and without them, a stand-in app behind it,
    all on loopback. Switched on, a request whose X-Forwarded-For is "<forged>, <visitor>"
    (what a Space's proxy sends on: the visitor's own header, then the address it saw)
    reaches the app as X-Real-IP <visitor>, and nginx's limits and log (its /24) key on it; an
    internal hop appended after the visitor is skipped. Switched off (the plain image), the
    address is the socket's, whatever the header says. The Space's page may frame the app,
    the rest of the policy unchanged; the repo's files are never written to."""
    nginx = _nginx_or_skip()
    folder = Path(tempfile.mkdtemp(prefix="road-forwarded-"))
    folder.chmod(0o755)
    prefix, log = folder / "nginx", folder / "nginx.log"
    repo_files = {f: (NGINX / f).read_bytes() for f in ("forwarded-for.conf", "headers.conf")}
    csp = _csp((NGINX / "headers.conf").read_text())
    space = SPACE_NGINX_ENV
    app = proxy = None

    def through(headers: dict) -> tuple[str, dict]:
        """The X-Real-IP the app heard for one request, and nginx's answer's headers."""
        status, answer, _ = _get(FORWARDED_NGINX_PORT, "/", headers, log)
        assert status == 200, status
        return app.heard[-1].get("X-Real-IP"), answer

    try:
        app = _FakeApp(FORWARDED_APP_PORT)
        for switched_on in (True, False):
            env = {k: v for k, v in os.environ.items() if k not in space}
            env |= space if switched_on else {}
            cmd = ["sh", str(NGINX / "layout.sh"), str(prefix)]
            cmd += [f"127.0.0.1:{FORWARDED_NGINX_PORT}", f"127.0.0.1:{FORWARDED_APP_PORT}"]
            subprocess.run(cmd, check=True, timeout=30, env=env)
            access = prefix / "logs" / "access.log"
            before = len(access.read_text().splitlines()) if access.exists() else 0
            proxy = _start_nginx(nginx, prefix, log)
            real, answer = through({"X-Forwarded-For": f"{FORGED}, {VISITOR}"})
            assert real == (VISITOR if switched_on else "127.0.0.1"), (switched_on, real)
            real, _ = through({"X-Forwarded-For": f"{FORGED}, {VISITOR}, 10.1.2.3"})
            assert real == (VISITOR if switched_on else "127.0.0.1"), (switched_on, real)
            real, _ = through({})
            assert real == "127.0.0.1"  # no header: the socket's address
            # the log keeps the visitor's network, not its address (loopback stays whole)
            logged = [VISITOR_NET, VISITOR_NET] if switched_on else ["127.0.0.1"] * 2
            # nginx writes a request's log line after its answer: wait for the third (bounded)
            addrs = _logged_addresses(access, at_least=before + 3)
            assert addrs[-3:] == [*logged, "127.0.0.1"], addrs  # what the limits key on
            framed = answer["content-security-policy"]
            extra = f" {space['ROAD_FRAME_ANCESTORS']}" if switched_on else ""
            assert framed == csp.replace("frame-ancestors 'self'", f"frame-ancestors 'self'{extra}")
            _stop_nginx(proxy)
            proxy = None
        for name, text in repo_files.items():
            assert (NGINX / name).read_bytes() == text, f"layout.sh wrote to the repo's {name}"
        assert (prefix / "conf" / "realip.conf").read_text() == ""
        assert (prefix / "conf" / "headers.conf").resolve() == (NGINX / "headers.conf").resolve()
        for bad in ({"ROAD_FORWARDED_FOR": "yes"}, {"ROAD_FRAME_ANCESTORS": "x; script-src *"}):
            run = subprocess.run(cmd, capture_output=True, timeout=30, env=dict(os.environ, **bad))
            assert run.returncode == 2, (bad, run.stderr)
    finally:
        _tear_down(proxy, app, folder)


def test_the_streamlit_config_parses_and_says_what_the_app_needs():
    """Streamlit logs a broken config.toml and runs on its defaults (tracebacks shown,
    200 MB messages, sessions forgotten after 2 minutes): the file must parse."""
    import tomllib

    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["client"]["showErrorDetails"] == "none"
    assert 1 <= config["server"]["maxMessageSize"] <= 50
    assert config["server"]["disconnectedSessionTTL"] >= 45 * 60  # a lesson
    # no source watcher: it made every new session walk all imported modules (bench: arrivals)
    assert config["server"]["fileWatcherType"] == "none"
