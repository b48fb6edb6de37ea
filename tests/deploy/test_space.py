"""``python -m deploy.space OUT`` writes a Hugging Face Space that the Hub accepts and builds.

The folder is checked as the Hub reads it: the README's front matter (Docker SDK, port 7860,
the repository's licence), ``.gitattributes`` read by git itself (every binary file written
goes through LFS), no tests or benchmarks, and a Dockerfile that differs from the
repository's only in the Space's ENV settings and the port it exposes. That last check is
what lets tests/deploy/test_image.py serve the Space: the image CI builds, run with those
settings, is the Space's image.
"""

from __future__ import annotations

import difflib
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from deploy import dockerignore, space
from tests.conftest import APP_PACKAGES, ROOT
from tests.deploy.test_config import SPACE_NGINX_ENV, _env_names_read

COLOURS = {"red", "yellow", "green", "blue", "indigo", "purple", "pink", "gray"}  # the Hub's
NEVER = ("tests/", "bench/", ".ci/", "tools/", ".git/", "requirements-dev.txt", ".env")


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("space") / "road-to-attention"
    return out, space.write(out)


def _files(out: Path) -> set[str]:
    return {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}


def _card(out: Path) -> dict:
    text = (out / "README.md").read_text(encoding="utf-8")
    block = re.match(r"---\n(.*?)\n---\n", text, re.S)
    assert block, "the Space's README.md must open with its YAML block"
    return yaml.safe_load(block.group(1))


def _env(dockerfile: str) -> dict[str, str]:
    block = re.search(r"^ENV (.*?[^\\])$", dockerfile, re.M | re.S).group(1)
    return dict(re.findall(r"([A-Z_]+)=(\S+)", block))


def test_the_space_holds_the_app_and_nothing_else(written):
    out, done = written
    files = _files(out)
    rules = dockerignore.read_rules(ROOT / ".dockerignore")
    tracked = space.tracked(ROOT)
    want = {p for p in tracked if not dockerignore.ignored(p, rules)} - set(space.WRITTEN)
    assert files == want | {".dockerignore", *space.WRITTEN}
    assert done["files"] == len(files)
    assert not [p for p in files if p.startswith(NEVER)], "tests, bench or CI in the Space"
    for package in APP_PACKAGES:
        assert any(p.startswith(f"{package}/") for p in files), package
    for name in ("app.py", "requirements.txt", "deploy/docker/start.sh", ".streamlit/config.toml"):
        assert name in files, name
    assert any(p.startswith("assets/models/") and p.endswith(".pt") for p in files)
    for rel in files - set(space.WRITTEN):  # copied as they are, executable bits too
        assert (out / rel).read_bytes() == (ROOT / rel).read_bytes(), rel
        assert (out / rel).stat().st_mode == (ROOT / rel).stat().st_mode, rel


def test_the_card_says_docker_port_7860_and_the_licence(written):
    out, done = written
    card = _card(out)
    assert card["sdk"] == "docker" and card["app_port"] == 7860 == space.PORT
    assert card["title"] and card["emoji"] and card["pinned"] is False
    assert {card["colorFrom"], card["colorTo"]} <= COLOURS
    assert card["license"] == done["license"]
    licence = ROOT / "LICENSE"
    if licence.exists():  # the Hub's id of the file's licence, and the file comes along
        assert card["license"] == space.license_id(ROOT) not in {space.NO_LICENSE, "other"}
        assert (out / "LICENSE").read_bytes() == licence.read_bytes()
    else:  # the placeholder, said as such
        assert card["license"] == space.NO_LICENSE
        assert "no LICENSE file" in (out / "README.md").read_text(encoding="utf-8")
    body = (out / "README.md").read_text(encoding="utf-8").split("\n---\n", 1)[1]
    assert body.strip() == (ROOT / "README.md").read_text(encoding="utf-8").strip()


def test_every_binary_file_goes_through_lfs(written):
    """Read by git itself (``git check-attr``), not by a copy of its matching rules."""
    out, done = written
    files = sorted(_files(out))
    binary = {p for p in files if space.is_binary((out / p).read_bytes())}
    assert {p for p in binary if p.startswith("assets/models/")}, "the weights are binary"
    assert binary == set(done["lfs"])
    git = ["git", "-c", f"safe.directory={out}", "-C", str(out)]
    subprocess.run([*git, "init", "-q"], check=True, timeout=30)
    try:
        run = subprocess.run(
            [*git, "check-attr", "--stdin", "-z", "filter"],
            input="\0".join(files).encode(),
            capture_output=True,
            check=True,
            timeout=30,
        )
    finally:
        shutil.rmtree(out / ".git")
    fields = run.stdout.decode().split("\0")
    lfs = {fields[i] for i in range(0, len(fields) - 2, 3) if fields[i + 2] == "lfs"}
    assert binary - lfs == set(), "binary files the Hub would refuse as plain git objects"
    assert lfs == binary, f"text files through LFS (unreadable on the Hub): {lfs - binary}"


def test_the_dockerfile_is_the_images_with_the_spaces_settings(written):
    """The Space's Dockerfile runs the image CI builds: same lines but the Space's ENV
    settings (the port, the forwarded-for switch, the Space's page as a frame ancestor), the
    port it exposes and its header comment. It runs as uid 1000 with its data in /data."""
    out, _ = written
    repo = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    made = (out / "Dockerfile").read_text(encoding="utf-8")
    env = _env(made)
    assert env["PORT"] == "7860" and env["ROAD_FORWARDED_FOR"] == "1"
    assert {k: env[k] for k in space.SPACE_ENV} == space.SPACE_ENV
    # the nginx settings tests/deploy/test_config.py serves through nginx
    assert {k: v for k, v in space.SPACE_ENV.items() if k != "PORT"} == SPACE_NGINX_ENV
    assert {k: v for k, v in _env(repo).items() if k not in space.SPACE_ENV} == {
        k: v for k, v in env.items() if k not in space.SPACE_ENV
    }
    assert env["ROAD_DATA_DIR"] == "/data" and re.search(r"^VOLUME /data$", made, re.M)
    unknown = {k for k in env if k.startswith("ROAD_")} - _env_names_read()
    assert not unknown, f"the code reads no {unknown}"
    assert re.findall(r"^EXPOSE (\d+)$", made, re.M) == ["7860"]
    user = re.findall(r"^USER (\S+)$", made, re.M)[-1]
    assert re.search(rf"useradd [^\n]*--uid 1000 {user}\b", made), "the image's user is uid 1000"
    removed, added = _changed(repo.splitlines(), made.splitlines())
    for line in removed + added:
        kept = line.removesuffix(" \\")  # a setting that only gained its continuation
        assert (
            line.startswith("#")
            or line in ("", "EXPOSE 8501", "EXPOSE 7860")
            or kept.split("=")[0].strip() in space.SPACE_ENV
            or (line in removed and f"{line} \\" in added)
            or (line in added and kept in removed)
        ), f"the Space's Dockerfile differs in more than its settings: {line!r}"


def _changed(a: list[str], b: list[str]) -> tuple[list[str], list[str]]:
    """The lines only ``a`` has and the lines only ``b`` has."""
    diff = list(difflib.ndiff(a, b))
    return [x[2:] for x in diff if x[:2] == "- "], [x[2:] for x in diff if x[:2] == "+ "]


def test_the_command_writes_and_replaces_a_space(tmp_path):
    out = tmp_path / "space"
    cmd = [sys.executable, "-m", "deploy.space", str(out)]
    run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "hf upload" in run.stdout and (out / "Dockerfile").exists()
    (out / ".git").mkdir()
    (out / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (out / "gone.txt").write_text("a file of an older Space\n")
    run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode != 0 and "--replace" in run.stderr  # never overwrites unasked
    run = subprocess.run([*cmd, "--replace"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert not (out / "gone.txt").exists() and (out / ".git" / "HEAD").exists()
    assert (out / "README.md").exists()


APACHE = "                                 Apache License\n        Version 2.0, January 2004"
BSD = "Redistribution and use in source and binary forms, with or without modification"


@pytest.mark.parametrize(
    ("text", "hub"),
    [
        ("MIT License\n\nCopyright (c) 2026 Road to Attention\n\nPermission is hereby", "mit"),
        (APACHE, "apache-2.0"),
        (f"BSD 3-Clause License\n\n{BSD}\n3. Neither the name of the holder", "bsd-3-clause"),
        (BSD, "bsd-2-clause"),
        ("GNU AFFERO GENERAL PUBLIC LICENSE\n Version 3, 19 November 2007", "agpl-3.0"),
        ("GNU GENERAL PUBLIC LICENSE\n Version 3, 29 June 2007", "gpl-3.0"),
        ("SPDX-License-Identifier: MPL-2.0\n...", "mpl-2.0"),
        # the project's licence first, a dependency's notice after it
        (f"MIT License\n...\n--- a dependency ---\n{APACHE}", "mit"),
        ("Road to Attention licence: ask the authors", "other"),
    ],
)
def test_the_licence_id_comes_from_the_licence_text(tmp_path, text, hub):
    (tmp_path / "LICENSE").write_text(text)
    assert space.license_id(tmp_path) == hub
    card = yaml.safe_load(space.front_matter(hub).strip("-\n"))
    assert card["license"] == hub
    if hub == "other":  # the Hub then wants the text's place
        assert card["license_link"] == "LICENSE"


def test_no_licence_file_gives_the_placeholder(tmp_path):
    assert space.license_id(tmp_path) == space.NO_LICENSE == "unknown"


def test_gitattributes_names_a_binary_file_of_an_unknown_kind():
    text = space.gitattributes(["assets/models/new.pt", "static/blob.xyz"])
    assert f"static/blob.xyz {space.LFS}" in text.splitlines()
    assert "assets/models/new.pt" not in text  # *.pt covers it
    with pytest.raises(ValueError, match="cannot hold"):
        space.gitattributes(["static/a blob.xyz"])


def test_the_dockerfile_rewrite_refuses_what_it_cannot_rewrite():
    repo = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    with pytest.raises(ValueError, match="uid 1000"):
        space.dockerfile(repo.replace("--uid 1000", "--uid 1001"))
    with pytest.raises(ValueError, match="EXPOSE"):
        space.dockerfile(repo + "\nEXPOSE 9000\n")
    with pytest.raises(ValueError, match="ENV"):
        space.dockerfile(repo + "\nENV EXTRA=1\n")
