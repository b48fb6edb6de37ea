"""deploy/k8s: valid offline, and its numbers agree with each other and with the code.

Built-in kinds validate against the Kubernetes 1.31 schema (``kubernetes-validate``,
strict); Traefik's kinds (edge.yaml) are checked field by field here. Cross-references:
names, ports, the route cookie, the headers of deploy/nginx, probes and the drain, the
security of every pod, the pool against PostgreSQL's connections, the scaling schedule."""

from __future__ import annotations

import json
import re

import pytest

from tests.conftest import ROOT, need
from tests.deploy.test_config import (
    COOKIE,
    HEALTH,
    K8S,
    K8S_VERSION,
    NGINX,
    _docs,
    _env_names_read,
    _hosted_env_ok,
    _k8s,
    _measured_rss_mb,
    _mib,
    _roles,
)

TRAEFIK = "traefik.io/v1alpha1"
PODS = (("Deployment", "road-app"), ("StatefulSet", "road-db"))
CRONJOBS = (("CronJob", "road-school-day"), ("CronJob", "road-night"))
PURGE = ("CronJob", "road-purge")
LIMITS = {"rateLimit", "inFlightReq"}


def _pod_specs(objs: dict) -> dict[tuple[str, str], dict]:
    out = {key: objs[key]["spec"]["template"]["spec"] for key in PODS}
    for key in (*CRONJOBS, PURGE):
        out[key] = objs[key]["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    return out


def _app(objs: dict) -> dict:
    (app,) = objs[("Deployment", "road-app")]["spec"]["template"]["spec"]["containers"]
    return app


def test_k8s_manifests_validate_against_the_schema():
    try:
        import kubernetes_validate
    except ImportError:
        need("kubernetes-validate", False, "pip install kubernetes-validate==1.31.0")
    objs = _k8s()
    kinds = {k for k, _ in objs}
    assert kinds >= {"Deployment", "Service", "HorizontalPodAutoscaler", "ConfigMap", "Secret"}
    assert kinds >= {"StatefulSet", "NetworkPolicy", "CronJob", "Role", "IngressRoute"}
    assert "Ingress" not in kinds  # ingress-nginx: end of life
    for (kind, name), doc in objs.items():
        if doc["apiVersion"] == TRAEFIK:
            continue  # not in Kubernetes' schema: test_the_edge below
        body = {k: v for k, v in doc.items() if k != "_file"}
        try:
            kubernetes_validate.validate(body, K8S_VERSION, strict=True)
        except kubernetes_validate.ValidationError as err:
            pytest.fail(f"{doc['_file']}: {kind}/{name}: {err.message}")
    # the schema check can fail: an unknown field is refused
    bad = json.loads(json.dumps({k: v for k, v in objs[("Service", "road-app")].items()}))
    bad.pop("_file")
    bad["spec"]["targetPortt"] = 8501
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(bad, K8S_VERSION, strict=True)


def test_kustomization_lists_every_manifest_and_pins_every_image():
    kust = _docs(K8S / "kustomization.yaml")[0]
    files = {p.name for p in K8S.glob("*.yaml")} - {"kustomization.yaml"}
    examples = {f for f in files if f.endswith(".example.yaml")}
    assert set(kust["resources"]) == files - examples
    assert "secret.example.yaml" in examples  # no password is ever applied from the repo
    pinned = {i["name"]: i for i in kust["images"]}
    objs = _k8s()
    for key, spec in _pod_specs(objs).items():
        for c in spec["containers"]:
            name, _, tag = c["image"].partition(":")
            assert name in pinned, f"{key}: {c['image']} is not pinned in kustomization.yaml"
            assert tag in ("", pinned[name]["newTag"]), (key, c["image"], pinned[name])
    for image in pinned.values():
        assert image.get("digest") or image.get("newTag") not in (None, "", "latest"), image


def test_the_autoscaler_alone_owns_the_replicas_and_school_hours_hold_them():
    objs = _k8s()
    dep = objs[("Deployment", "road-app")]
    hpa = objs[("HorizontalPodAutoscaler", "road-app")]
    assert "replicas" not in dep["spec"], "every apply would reset the autoscaler's count"
    target = hpa["spec"]["scaleTargetRef"]
    assert target == {"apiVersion": "apps/v1", "kind": "Deployment", "name": "road-app"}
    assert hpa["spec"]["minReplicas"] >= 2  # one can die mid-class
    assert hpa["spec"]["metrics"][0]["resource"]["name"] == "cpu"
    role = objs[("Role", "road-scaler")]
    (rule,) = role["rules"]
    assert rule["resources"] == ["horizontalpodautoscalers"] and rule["resourceNames"] == [
        "road-app"
    ]
    patches = {}
    for key in CRONJOBS:
        spec = _pod_specs(objs)[key]
        assert spec["serviceAccountName"] == "road-scaler"
        (c,) = spec["containers"]
        assert "horizontalpodautoscaler/road-app" in c["args"]
        body = json.loads(next(a for a in c["args"] if a.startswith("-p=")).removeprefix("-p="))
        patches[key[1]] = body["spec"]
    day, night = patches["road-school-day"], patches["road-night"]
    assert day["behavior"]["scaleDown"]["selectPolicy"] == "Disabled"  # no scale-in in class
    assert day["minReplicas"] > night["minReplicas"] == hpa["spec"]["minReplicas"]
    assert night["behavior"]["scaleDown"]["selectPolicy"] != "Disabled"
    assert day["minReplicas"] <= hpa["spec"]["maxReplicas"]
    hour = lambda key: int(objs[key]["spec"]["schedule"].split()[1])  # noqa: E731
    assert hour(CRONJOBS[0]) < hour(CRONJOBS[1])


def test_every_pod_is_locked_down():
    for key, spec in _pod_specs(_k8s()).items():
        sec = spec["securityContext"]
        assert sec.get("runAsNonRoot") is True and sec.get("runAsUser", 0) > 0, key
        assert sec.get("seccompProfile") == {"type": "RuntimeDefault"}, key
        for c in spec["containers"]:
            csec = c["securityContext"]
            assert csec.get("readOnlyRootFilesystem") is True, (key, c["name"])
            assert csec.get("allowPrivilegeEscalation") is False, (key, c["name"])
            assert csec.get("capabilities") == {"drop": ["ALL"]}, (key, c["name"])
            assert "memory" in c["resources"]["limits"], (key, c["name"])


def test_the_app_pod_drains_and_is_ready_only_when_warm():
    objs = _k8s()
    spec = _pod_specs(objs)[PODS[0]]
    app = _app(objs)
    config = objs[("ConfigMap", app["envFrom"][0]["configMapRef"]["name"])]["data"]
    assert app["livenessProbe"]["httpGet"] == {"path": HEALTH, "port": "http"}
    # the startup probe runs the app once (Streamlit's script health check), which warms it
    assert app["startupProbe"]["httpGet"]["path"] == "/_stcore/script-health-check"
    assert config["STREAMLIT_SERVER_SCRIPT_HEALTH_CHECK_ENABLED"] == "true"
    ready = " ".join(app["readinessProbe"]["exec"]["command"])
    assert f"test -e {config['ROAD_READY_FILE']}" in ready
    drain = " ".join(app["lifecycle"]["preStop"]["exec"]["command"])
    flag = re.search(r"touch (\S+)", drain).group(1)
    assert f"test ! -e {flag}" in ready  # the drain makes the pod unready first
    sleep = int(re.search(r"sleep (\d+)", drain).group(1))
    assert spec["terminationGracePeriodSeconds"] >= sleep + 20  # then Streamlit stops
    mounts = {m["mountPath"] for m in app["volumeMounts"]}
    for path in (config["ROAD_READY_FILE"], flag):
        assert any(path.startswith(m + "/") for m in mounts), f"{path} is not writable"


def test_run_slots_follow_the_pods_cpu_not_the_nodes():
    app = _app(_k8s())
    (slots,) = [e for e in app["env"] if e["name"] == "ROAD_RUN_SLOTS"]
    ref = slots["valueFrom"]["resourceFieldRef"]
    assert ref["resource"] == "requests.cpu" and ref["divisor"] == "1"
    assert app["resources"]["requests"]["cpu"]


def test_postgres_connections_hold_every_replicas_pool():
    objs = _k8s()
    store = (ROOT / "poll" / "store.py").read_text()
    pool = int(re.search(r"pool_size=(\d+)", store).group(1))
    overflow = int(re.search(r"max_overflow=(\d+)", store).group(1))
    replicas = objs[("HorizontalPodAutoscaler", "road-app")]["spec"]["maxReplicas"]
    (db,) = _pod_specs(objs)[PODS[1]]["containers"]
    args = " ".join(db["args"])
    max_conn = int(re.search(r"max_connections=(\d+)", args).group(1))
    reserve = 3 + 5  # PostgreSQL's superuser_reserved_connections, an operator's sessions
    assert replicas * (pool + overflow) + reserve <= max_conn, (replicas, pool, overflow)
    # ~2 MB per idle connection besides shared_buffers: the request holds them all
    shared = _mib(re.search(r"shared_buffers=(\d+)MB", args).group(1) + "M")
    assert _mib(db["resources"]["requests"]["memory"]) >= shared + 2 * max_conn


def test_network_policies_let_only_the_edge_in_and_only_the_app_reach_the_database():
    objs = _k8s()
    labels = objs[("Deployment", "road-app")]["spec"]["template"]["metadata"]["labels"]
    db_labels = objs[("StatefulSet", "road-db")]["spec"]["template"]["metadata"]["labels"]
    app_pol = objs[("NetworkPolicy", "road-app")]["spec"]
    db_pol = objs[("NetworkPolicy", "road-db")]["spec"]
    assert app_pol["podSelector"]["matchLabels"].items() <= labels.items()
    assert db_pol["podSelector"]["matchLabels"].items() <= db_labels.items()
    assert set(app_pol["policyTypes"]) == set(db_pol["policyTypes"]) == {"Ingress", "Egress"}
    (edge,) = app_pol["ingress"]
    (source,) = edge["from"]
    assert "namespaceSelector" in source and "podSelector" in source  # the edge's pods only
    assert [p["port"] for p in edge["ports"]] == ["http"]
    (into_db,) = db_pol["ingress"]
    app_source, purge_source = into_db["from"]
    assert set(app_source) == set(purge_source) == {"podSelector"}
    assert app_source["podSelector"]["matchLabels"].items() <= labels.items()
    purge = objs[PURGE]["spec"]["jobTemplate"]["spec"]["template"]["metadata"]["labels"]
    assert purge_source["podSelector"]["matchLabels"].items() <= purge.items()
    db_port = objs[("Service", "road-db")]["spec"]["ports"][0]["port"]
    assert [p["port"] for p in into_db["ports"]] == [db_port]
    assert db_pol["egress"] == []
    assert any(p["port"] == db_port for rule in app_pol["egress"] for p in rule["ports"])


def _nginx_csp() -> str:
    conf = (NGINX / "headers.conf").read_text()
    return re.search(r'add_header Content-Security-Policy "([^"]+)"', conf).group(1)


def test_the_edge():
    """Traefik: sticky on deploy/nginx's cookie, the page headers of deploy/nginx, limits on
    the app's routes only (never the assets), every middleware defined, sized for a district
    of 600 students behind one address."""
    objs = _k8s()
    route = objs[("IngressRoute", "road-app")]
    middlewares = {n: o["spec"] for (k, n), o in objs.items() if k == "Middleware"}
    for doc in [route, *(objs[("Middleware", n)] for n in middlewares)]:
        assert doc["apiVersion"] == TRAEFIK
    for spec in middlewares.values():
        assert len(spec) == 1 and next(iter(spec)) in {"headers", "compress", *LIMITS}, spec
    svc = objs[("Service", "road-app")]
    road = (NGINX / "road.conf").read_text()
    by_path = {}
    for r in route["spec"]["routes"]:
        assert r["kind"] == "Rule"
        (service,) = r["services"]
        assert service["name"] == "road-app"
        assert service["port"] in {p["name"] for p in svc["spec"]["ports"]}
        cookie = service["sticky"]["cookie"]
        assert cookie["name"] == COOKIE and f"Max-Age={cookie['maxAge']}" in road
        names = [m["name"] for m in r["middlewares"]]
        assert set(names) <= set(middlewares), names
        path = re.search(r"Path(?:Prefix)?\(`([^`]+)`\)", r["match"])
        by_path[path.group(1) if path else "/"] = [middlewares[n] for n in names]
    assert set(by_path) == {"/static/", "/_stcore/stream", "/"}
    kinds = {p: {next(iter(m)) for m in ms} for p, ms in by_path.items()}
    assert not kinds["/static/"] & LIMITS  # a first visit's ~110 assets: never refused
    assert kinds["/_stcore/stream"] >= LIMITS and kinds["/"] >= LIMITS
    assert "compress" not in kinds["/_stcore/stream"]
    page = [m["headers"] for m in by_path["/"] if "headers" in m]
    assert page == [m["headers"] for m in by_path["/_stcore/stream"] if "headers" in m]
    assert page[0]["contentSecurityPolicy"] == _nginx_csp()
    assert page[0]["contentTypeNosniff"] is True and page[0]["referrerPolicy"] == "same-origin"
    # a district: 600 students behind one address arrive together
    students, app_requests = 600, 4  # a first visit's page, health, host-config, media
    stream = {next(iter(m)): next(iter(m.values())) for m in by_path["/_stcore/stream"]}
    rest = {next(iter(m)): next(iter(m.values())) for m in by_path["/"]}
    assert stream["inFlightReq"]["amount"] >= students
    assert stream["rateLimit"]["burst"] >= students
    assert rest["rateLimit"]["burst"] >= students * app_requests
    assert rest["inFlightReq"]["amount"] >= students


def test_k8s_cross_references():
    objs = _k8s()
    dep = objs[("Deployment", "road-app")]
    pod = dep["spec"]["template"]
    assert dep["spec"]["selector"]["matchLabels"].items() <= pod["metadata"]["labels"].items()
    app = _app(objs)
    ports = {p["name"]: p["containerPort"] for p in app["ports"]}
    config = objs[("ConfigMap", app["envFrom"][0]["configMapRef"]["name"])]["data"]
    assert ports["http"] == int(config["PORT"])
    assert config["ROAD_ROLE"] in _roles() and config["ROAD_ROLE"] == "app"
    assert config["STREAMLIT_SERVER_FILE_WATCHER_TYPE"] == "none"
    _hosted_env_ok(config)
    known = _env_names_read()
    names = set(config) | {e["name"] for e in app["env"]}
    assert not {n for n in names if n.startswith("ROAD_")} - known
    # the database URL and the PostgreSQL password come from one Secret
    secret = objs[("Secret", "road-db")]
    refs = [
        e["valueFrom"]["secretKeyRef"]
        for e in app["env"]
        if "secretKeyRef" in e.get("valueFrom", {})
    ]
    db = objs[("StatefulSet", "road-db")]["spec"]["template"]["spec"]["containers"][0]
    refs += [e["valueFrom"]["secretKeyRef"] for e in db["env"] if "valueFrom" in e]
    assert refs
    for ref in refs:
        assert ref["name"] == "road-db" and ref["key"] in secret["stringData"], ref
    assert "CHANGE-ME" in secret["stringData"]["url"]  # a placeholder, never a password
    db_svc = objs[("Service", "road-db")]
    assert f"@road-db:{db_svc['spec']['ports'][0]['port']}/road" in secret["stringData"]["url"]
    # memory from the measured RSS
    rss = _measured_rss_mb()
    res = app["resources"]
    assert _mib(res["requests"]["memory"]) >= rss, (res, rss)
    assert _mib(res["limits"]["memory"]) >= 2 * rss, (res, rss)
    svc = objs[("Service", "road-app")]
    assert svc["spec"]["selector"].items() <= pod["metadata"]["labels"].items()
    assert svc["spec"]["ports"][0]["targetPort"] in ports


def test_expired_polls_are_purged_on_a_schedule():
    objs = _k8s()
    job = objs[PURGE]["spec"]
    assert job["concurrencyPolicy"] == "Forbid" and job["schedule"].split()[1] == "*"  # hourly
    (c,) = _pod_specs(objs)[PURGE]["containers"]
    assert c["command"] == ["python", "-m", "poll.store", "purge"]
    assert c["image"] == _app(objs)["image"]  # the app's own image and database
    (url,) = [e for e in c["env"] if e["name"] == "ROAD_DATABASE_URL"]
    assert url["valueFrom"]["secretKeyRef"] == {"name": "road-db", "key": "url"}
