"""deploy/k8s: valid offline, and its numbers agree with each other and with the code.

Built-in kinds validate against the Kubernetes 1.31 schema (``kubernetes-validate``,
strict); Traefik's kinds (edge.yaml) are checked field by field here. Cross-references:
names, ports, the route cookie, probes and the drain, the security of every pod, the pools
against PostgreSQL's connections, the scaling schedule, the rollout, the backups. The edge's
limits are read from what ``kubectl kustomize`` renders, as the cluster would get them."""

from __future__ import annotations

import ast
import json
import math
import re
import shutil
import subprocess

import pytest
import yaml

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
BACKUP = ("CronJob", "road-db-backup")
LIMITS = {"rateLimit", "inFlightReq"}


def _pod_specs(objs: dict) -> dict[tuple[str, str], dict]:
    out = {key: objs[key]["spec"]["template"]["spec"] for key in PODS}
    for key in (*CRONJOBS, PURGE, BACKUP):
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
    minute, hours = objs[CRONJOBS[0]]["spec"]["schedule"].split()[:2]
    first, _, last = hours.partition("-")
    night = int(objs[CRONJOBS[1]]["spec"]["schedule"].split()[1])
    assert int(first) <= 7 and int(last or first) < night
    # an apply by day writes hpa.yaml's night minimum back: the day's patch comes again soon
    assert minute.startswith("*/") and int(minute[2:]) <= 15 and last, minute


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
    ports = {p["name"]: p["containerPort"] for p in app["ports"]}
    # liveness through nginx (both processes); the startup probe asks Streamlit on its own
    # port, the one the edge and nginx refuse: it runs the app once, which warms it
    assert app["livenessProbe"]["httpGet"] == {"path": HEALTH, "port": "http"}
    assert app["startupProbe"]["httpGet"] == {
        "path": "/_stcore/script-health-check",
        "port": "app",
    }
    assert ports["app"] == int(config["ROAD_APP_PORT"]) != ports["http"]
    assert config["ROAD_APP_ADDRESS"] == "0.0.0.0"  # the kubelet probes the pod's address
    assert config["STREAMLIT_SERVER_SCRIPT_HEALTH_CHECK_ENABLED"] == "true"
    ready = " ".join(app["readinessProbe"]["exec"]["command"])
    assert 'test -e "$ROAD_READY_FILE"' in ready
    drain = " ".join(app["lifecycle"]["preStop"]["exec"]["command"])
    assert 'touch "$ROAD_DRAIN_FILE"' in drain
    assert 'test ! -e "$ROAD_DRAIN_FILE"' in ready  # the drain makes the pod unready first
    # start.sh removes both markers of the previous run (tests/deploy/test_pod_start.py)
    start = (ROOT / "deploy" / "docker" / "start.sh").read_text()
    assert '"${ROAD_READY_FILE:-}" "${ROAD_DRAIN_FILE:-}"' in start
    flag = config["ROAD_DRAIN_FILE"]
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


def _engine_sites() -> tuple[int, int]:
    """Places the app's code builds a store on the poll database (a ``PollStore``, a
    ``RunStore.at``): (those of a server, once each; those of a training process, once per
    race trained at once). The purge's own store (``poll.store``'s command line) is a job of
    its own, counted apart."""
    server = per_race = 0
    for path in (ROOT / "poll").glob("*.py"):
        tree = ast.parse(path.read_text())
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef) or (path.name, fn.name) == ("store.py", "main"):
                continue
            for node in ast.walk(fn):
                if not isinstance(node, ast.Call):
                    continue
                f = node.func
                name = f.id if isinstance(f, ast.Name) else getattr(f, "attr", "")
                if name == "PollStore" or (
                    name == "at" and isinstance(f.value, ast.Name) and f.value.id == "RunStore"
                ):
                    if (path.name, fn.name) == ("training.py", "_child"):
                        per_race += 1
                    else:
                        server += 1
    return server, per_race


def _live_slots(app: dict) -> int:
    """ROAD_LIVE_SLOTS as the Deployment sets it, checked against poll.training's rule:
    one race per two cores of the pod's CPU request, at least one."""
    from poll import training

    (slots,) = [e for e in app["env"] if e["name"] == training.SLOTS_ENV]
    cpu = app["resources"]["requests"]["cpu"]
    cores = int(cpu[:-1]) / 1000 if cpu.endswith("m") else float(cpu)
    assert int(slots["value"]) == max(1, math.ceil(cores) // 2), (slots, cpu)
    return int(slots["value"])


def test_postgres_connections_hold_every_replicas_pools():
    from poll import store

    objs = _k8s()
    server, per_race = _engine_sites()
    assert server >= 2  # the page's store, the races' manager
    assert per_race >= 1  # the training process's own
    slots = _live_slots(_app(objs))
    pool = store.POOL_SIZE + store.POOL_OVERFLOW
    pools = server + slots * per_race
    per_replica = pools * pool
    replicas = objs[("HorizontalPodAutoscaler", "road-app")]["spec"]["maxReplicas"]
    (db,) = _pod_specs(objs)[PODS[1]]["containers"]
    args = " ".join(db["args"])
    max_conn = int(re.search(r"max_connections=(\d+)", args).group(1))
    # PostgreSQL's superuser_reserved_connections, the purge's and the backup's one each,
    # an operator's sessions
    reserve = 3 + 1 + 1 + 5
    total = replicas * per_replica + reserve
    assert total <= max_conn * 0.9, (replicas, pools, per_replica, total)  # a margin of 10 %
    # the sums the manifest's comment and the README state are the ones computed here
    comment = " ".join((K8S / "postgres.yaml").read_text().replace("#", " ").split())
    assert f"ROAD_LIVE_SLOTS = {slots} at once" in comment
    assert f"{pools} pools of {store.POOL_SIZE} + {store.POOL_OVERFLOW} = {per_replica}" in comment
    assert f"{replicas} replicas at most (hpa.yaml): {replicas * per_replica}" in comment
    assert f"{total} <= {max_conn}" in comment
    readme = " ".join((ROOT / "deploy" / "README.md").read_text().split())
    assert f"x ({store.POOL_SIZE} + {store.POOL_OVERFLOW}) = {per_replica};" in readme
    assert f"{replicas} replicas {replicas * per_replica}" in readme
    assert f"= {total} <= `max_connections` {max_conn}" in readme
    # ~2 MB per idle connection besides shared_buffers: the request holds them all
    shared = _mib(re.search(r"shared_buffers=(\d+)MB", args).group(1) + "M")
    assert _mib(db["resources"]["requests"]["memory"]) >= shared + 2 * max_conn


def test_live_slots_follow_the_pods_cpu_request():
    """A pod without a CPU limit has no cgroup quota: poll.training would size its slots
    from the node's cores, so the Deployment sets them from the request."""
    app = _app(_k8s())
    assert _live_slots(app) >= 1
    assert "limits" not in app["resources"] or "cpu" not in app["resources"]["limits"]
    # the rule can fail: a 4-CPU request with one slot is caught
    bigger = json.loads(json.dumps(app))
    bigger["resources"]["requests"]["cpu"] = "4"
    with pytest.raises(AssertionError):
        _live_slots(bigger)


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
    app_source, purge_source, backup_source = into_db["from"]
    assert set(app_source) == set(purge_source) == set(backup_source) == {"podSelector"}
    assert app_source["podSelector"]["matchLabels"].items() <= labels.items()
    for job, source in ((PURGE, purge_source), (BACKUP, backup_source)):
        job_labels = objs[job]["spec"]["jobTemplate"]["spec"]["template"]["metadata"]["labels"]
        assert source["podSelector"]["matchLabels"].items() <= job_labels.items()
    db_port = objs[("Service", "road-db")]["spec"]["ports"][0]["port"]
    assert [p["port"] for p in into_db["ports"]] == [db_port]
    assert db_pol["egress"] == []
    assert any(p["port"] == db_port for rule in app_pol["egress"] for p in rule["ports"])


def _rendered() -> list[dict]:
    """What ``kubectl kustomize deploy/k8s`` hands the cluster (images pinned, every file)."""
    kubectl = shutil.which("kubectl") or shutil.which("kustomize")
    need("kubectl (or kustomize)", kubectl is not None, "apt-get install kubectl")
    cmd = (
        [kubectl, "kustomize", str(K8S)]
        if kubectl.endswith("kubectl")
        else [kubectl, "build", str(K8S)]
    )
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=120).stdout
    return [d for d in yaml.safe_load_all(out) if d]


def _limits_without_a_client(docs: list[dict]) -> list[str]:
    """Limit middlewares that would count the whole district as one client: no
    ``sourceCriterion.ipStrategy`` (Traefik's inFlightReq then groups by the request's Host),
    or another criterion beside it."""
    bad = []
    for doc in docs:
        if doc.get("kind") != "Middleware":
            continue
        for kind, spec in doc["spec"].items():
            if kind not in LIMITS:
                continue
            criterion = spec.get("sourceCriterion") or {}
            strategy = criterion.get("ipStrategy")
            if set(criterion) != {"ipStrategy"} or not isinstance(strategy, dict):
                bad.append(doc["metadata"]["name"])
            elif not isinstance(strategy.get("depth"), int) or strategy["depth"] < 0:
                bad.append(doc["metadata"]["name"])  # the depth is stated, never left implied
    return bad


def test_every_edge_limit_counts_per_client_address():
    docs = _rendered()
    limits = [d for d in docs if d.get("kind") == "Middleware" and set(d["spec"]) & LIMITS]
    assert len(limits) >= 4, [d["metadata"]["name"] for d in limits]
    assert _limits_without_a_client(docs) == []
    # the check can fail: a limit as it stood, without a criterion, is caught
    host_wide = json.loads(json.dumps(limits[0]))
    host_wide["spec"][next(iter(set(host_wide["spec"]) & LIMITS))].pop("sourceCriterion")
    assert _limits_without_a_client([host_wide]) == [host_wide["metadata"]["name"]]
    # the depth is explained where the operator sets it
    edge = (K8S / "edge.yaml").read_text()
    assert "depth: 1" in edge and "trustedIPs" in edge
    readme = (ROOT / "deploy" / "README.md").read_text()
    assert "ipStrategy" in readme and "depth" in readme


def test_the_edge():
    """Traefik: sticky on deploy/nginx's cookie, routes to nginx in the pod (which compresses
    and adds the headers), limits on the app's routes only (never the assets), Streamlit's
    internal endpoints refused, sized for a lecture hall behind one address."""
    objs = _k8s()
    route = objs[("IngressRoute", "road-app")]
    middlewares = {n: o["spec"] for (k, n), o in objs.items() if k == "Middleware"}
    for doc in [route, *(objs[("Middleware", n)] for n in middlewares)]:
        assert doc["apiVersion"] == TRAEFIK
    for spec in middlewares.values():
        assert len(spec) == 1 and next(iter(spec)) in {"ipAllowList", *LIMITS}, spec
    svc = objs[("Service", "road-app")]
    road = (NGINX / "road.conf").read_text()
    app = _app(objs)
    by_path = {}
    for r in route["spec"]["routes"]:
        assert r["kind"] == "Rule"
        (service,) = r["services"]
        assert service["name"] == "road-app"
        (port,) = [p for p in svc["spec"]["ports"] if p["name"] == service["port"]]
        assert port["targetPort"] == "http"  # nginx, never Streamlit's own port
        cookie = service["sticky"]["cookie"]
        assert cookie["name"] == COOKIE and f"Max-Age={cookie['maxAge']}" in road
        names = [m["name"] for m in r.get("middlewares", [])]
        assert set(names) <= set(middlewares), names
        paths = re.findall(r"Path(?:Prefix)?\(`([^`]+)`\)", r["match"])
        by_path[" ".join(paths) or "/"] = [middlewares[n] for n in names]
    internal = "/_stcore/metrics /_stcore/script-health-check"
    assert set(by_path) == {internal, "/static/", "/_stcore/stream", "/"}
    (closed,) = by_path[internal]
    assert closed["ipAllowList"]["sourceRange"] == ["127.0.0.1/32"]  # nobody from outside
    kinds = {p: {next(iter(m)) for m in ms} for p, ms in by_path.items()}
    assert not kinds["/static/"]  # a first visit's ~110 assets: never refused
    assert kinds["/_stcore/stream"] == kinds["/"] == LIMITS
    assert app["ports"][0]["name"] == "http"
    # a lecture hall of 400 behind one address is let in (sized for 600 students)
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
    # nginx in front of Streamlit in each pod: the topology the capacity was measured on
    assert config["ROAD_ROLE"] in _roles() and config["ROAD_ROLE"] == "all"
    assert config["ROAD_FORWARDED_FOR"] == "1"  # the visitor's address from the edge
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


def test_a_rollout_or_a_drain_moves_each_student_once():
    objs = _k8s()
    dep = objs[("Deployment", "road-app")]["spec"]
    rolling = dep["strategy"]["rollingUpdate"]
    # as many new pods as old start together, so the old ones drain within the 45 s their
    # sessions are kept (one pod at a time sent students onto pods that stopped later)
    assert rolling == {"maxUnavailable": 0, "maxSurge": "100%"}
    pdb = objs[("PodDisruptionBudget", "road-app")]["spec"]
    assert pdb == {"maxUnavailable": 1, "selector": dep["selector"]}  # a node drain: 1 at a time
    runbook = (ROOT / "deploy" / "README.md").read_text().split("## Upgrades", 1)[1]
    for words in ("maxSurge", "maxUnavailable", "kubectl apply -k", "road-school-day"):
        assert words in runbook.split("\n## ", 1)[0], words


def test_postgres_is_run_as_a_district_would():
    objs = _k8s()
    spec = _pod_specs(objs)[PODS[1]]
    (db,) = spec["containers"]
    env = {e["name"]: e for e in db["env"]}
    # a current 16.x, pinned; the app's role is not the superuser the image makes
    pinned = {i["name"]: i["newTag"] for i in _docs(K8S / "kustomization.yaml")[0]["images"]}
    major, minor = map(int, re.match(r"(\d+)\.(\d+)-", pinned["postgres"]).groups())
    assert major == 16 and minor >= 15, pinned["postgres"]
    superuser = env["POSTGRES_USER"]["value"]
    kust = _docs(K8S / "kustomization.yaml")[0]
    (gen,) = [g for g in kust["configMapGenerator"] if g["name"] == "road-db-init"]
    (init_file,) = gen["files"]
    init = (K8S / init_file).read_text()
    role = re.search(r"CREATE ROLE (\w+) LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE", init)
    assert role and role.group(1) != superuser
    secret = objs[("Secret", "road-db")]["stringData"]
    assert secret["url"].startswith(f"postgresql+psycopg://{role.group(1)}:")
    assert env["APP_DB_PASSWORD"]["valueFrom"]["secretKeyRef"]["key"] in secret
    # the address digests' key comes from the Secret, never the database beside them
    from poll.store import ADDRESS_KEY_ENV

    app_env = {e["name"]: e for e in _app(objs)["env"]}
    ref = app_env[ADDRESS_KEY_ENV]["valueFrom"]["secretKeyRef"]
    assert ref["name"] == "road-db" and ref["key"] in secret and not ref.get("optional")
    (init_vol,) = [
        v for v in spec["volumes"] if v.get("configMap", {}).get("name") == "road-db-init"
    ]
    assert init_vol["configMap"]["defaultMode"] & 0o111  # run by the image, not sourced
    # TLS checked against the provider's CA for a managed database; the CA is mounted
    assert "sslmode=verify-full" in secret["url"]
    ca = re.search(r"sslrootcert=(/[^&]+)", secret["url"]).group(1)
    for pod in (_pod_specs(objs)[PODS[0]], _pod_specs(objs)[PURGE]):
        (vol,) = [
            v for v in pod["volumes"] if v.get("secret", {}).get("secretName") == "road-db-ca"
        ]
        (c,) = pod["containers"]
        (mount,) = [m for m in c["volumeMounts"] if m["name"] == vol["name"]]
        assert ca.startswith(mount["mountPath"] + "/") and vol["secret"]["optional"] is True
    # a fast shutdown on the way out, within the grace period
    stop = " ".join(db["lifecycle"]["preStop"]["exec"]["command"])
    assert "pg_ctl stop" in stop and "-m fast" in stop
    wait = int(re.search(r"-t (\d+)", stop).group(1))
    assert spec["terminationGracePeriodSeconds"] > wait
    # a disruption budget: no voluntary eviction of the only server mid-lesson
    pdb = objs[("PodDisruptionBudget", "road-db")]["spec"]
    labels = objs[("StatefulSet", "road-db")]["spec"]["template"]["metadata"]["labels"]
    assert pdb["maxUnavailable"] == 0
    assert pdb["selector"]["matchLabels"].items() <= labels.items()


def test_backups_keep_the_24_hour_promise():
    """Every copy of a poll gone within 24 h of its opening: a dump holds the polls of the
    last BACKUP_WINDOW_H hours and is deleted by the first hourly run after BACKUP_KEEP_MIN
    minutes, which may start startingDeadlineSeconds late. What the scripts do with these
    numbers, against a real PostgreSQL: tests/deploy/test_backup.py."""
    objs = _k8s()
    job = objs[BACKUP]["spec"]
    spec = _pod_specs(objs)[BACKUP]
    (c,) = spec["containers"]
    env = {e["name"]: e.get("value") for e in c["env"]}
    assert env["PGUSER"] == "postgres"  # the superuser reads every table, not the app
    minute, hour = job["schedule"].split()[:2]
    assert minute.isdigit() and hour == "*"  # hourly
    assert job["concurrencyPolicy"] == "Forbid"
    window_min = int(env["BACKUP_WINDOW_H"]) * 60
    keep_min = int(env["BACKUP_KEEP_MIN"])
    late_min = job["startingDeadlineSeconds"] / 60
    last_copy_min = window_min + keep_min + 60 + late_min
    assert last_copy_min + 60 <= 24 * 60, last_copy_min  # an hour left for the dump itself
    hours = f"{last_copy_min / 60:g} h"
    for text in (
        (K8S / "postgres-backup.yaml").read_text(),
        (ROOT / "deploy" / "README.md").read_text(),
    ):
        assert f"= {hours}" in " ".join(text.replace("#", " ").split()), hours
    # the script is db-backup/backup.sh, mounted from the ConfigMap kustomization.yaml makes
    kust = _docs(K8S / "kustomization.yaml")[0]
    (gen,) = [g for g in kust["configMapGenerator"] if g["name"] == "road-db-backup-scripts"]
    (vol,) = [v for v in spec["volumes"] if "configMap" in v]
    assert vol["configMap"]["name"] == gen["name"]
    (mount,) = [m for m in c["volumeMounts"] if m["name"] == vol["name"]]
    script = c["command"][-1]
    assert script.startswith(mount["mountPath"] + "/")
    assert f"db-backup/{script.rsplit('/', 1)[1]}" in gen["files"]
    code = (K8S / "db-backup" / "backup.sh").read_text()
    assert f'window_h="${{BACKUP_WINDOW_H:-{env["BACKUP_WINDOW_H"]}}}"' in code
    assert f'keep_min="${{BACKUP_KEEP_MIN:-{keep_min}}}"' in code
    assert c["image"] == _pod_specs(objs)[PODS[1]]["containers"][0]["image"]  # same psql
    (claim,) = [v for v in spec["volumes"] if "persistentVolumeClaim" in v]
    assert ("PersistentVolumeClaim", claim["persistentVolumeClaim"]["claimName"]) in objs


def test_the_managed_database_template_opens_only_its_port():
    try:
        import kubernetes_validate
    except ImportError:
        need("kubernetes-validate", False, "pip install kubernetes-validate==1.31.0")
    (pol,) = _docs(K8S / "networkpolicy-managed-db.example.yaml")
    kubernetes_validate.validate(pol, K8S_VERSION, strict=True)
    rule, dns = pol["spec"]["egress"]
    (block,) = rule["to"]
    assert block["ipBlock"]["cidr"].endswith("/32")  # one address, never the internet
    assert rule["ports"] == [{"port": 5432, "protocol": "TCP"}]
    assert {p["port"] for p in dns["ports"]} == {53}
    sel = pol["spec"]["podSelector"]["matchExpressions"]
    components = next(e["values"] for e in sel if e["key"] == "app.kubernetes.io/component")
    assert set(components) == {"app", "purge"}  # the two that read the url
