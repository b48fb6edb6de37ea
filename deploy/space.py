"""Write a ready Hugging Face Space (Docker SDK) of this repository.

    python -m deploy.space OUT [--replace]

OUT gets what the image is built from: the files git tracks, filtered by ``.dockerignore``
as the image's build context is (no tests, bench, CI, tools), and ``.dockerignore`` itself;
then the Space's own ``README.md`` (the YAML front matter the Hub reads: Docker SDK, port
7860, the repository's licence), a ``.gitattributes`` that sends every binary file (the
models' weights, images, fonts) through LFS, and the Space's ``Dockerfile``: the
repository's, with :data:`SPACE_ENV` in its ENV and its port exposed. deploy/README.md ("A
Hugging Face Space") says how to push it and what the Space's proxy is trusted with.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

from deploy import dockerignore

ROOT = Path(__file__).resolve().parents[1]

PORT = 7860  # the port a Docker Space's proxy sends its visitors to (app_port)
# What the Space's Dockerfile sets beyond the repository's: nginx on the Space's port, the
# visitor's address from the Space proxy's X-Forwarded-For (else every visitor is the proxy's
# one address to the limits and the fair gate), and the Space's own page on huggingface.co
# allowed to show the app in its frame.
SPACE_ENV = {
    "PORT": str(PORT),
    "ROAD_FORWARDED_FOR": "1",
    "ROAD_FRAME_ANCESTORS": "https://huggingface.co",
}
USER_ID = 1000  # a Space runs its container as this user; the image's user `app` is it

# The Space's card: https://huggingface.co/docs/hub/spaces-config-reference
CARD = {
    "title": "Road to Attention",
    "emoji": "🧭",
    "colorFrom": "indigo",
    "colorTo": "purple",
    "sdk": "docker",
    "app_port": PORT,
    "pinned": False,
    # full screen with a small floating header: the app is projected in class
    "header": "mini",
    "short_description": "Why attention replaced RNN and CNN encoder-decoders",
}
NO_LICENSE = "unknown"  # the Hub's id for "not stated", while the repository has no LICENSE

# The licence's Hub id (https://huggingface.co/docs/hub/repositories-licenses) from words of
# its text: the licence whose words come first in the file (notices of others may follow);
# at the same place, the one listed first (BSD's three clauses before its two).
LICENSES = (
    ("apache-2.0", r"Apache License\s+Version 2\.0"),
    ("bsl-1.0", r"Boost Software License"),
    ("mit", r"\bMIT License\b|Permission is hereby granted, free of charge, to any person ob"),
    ("bsd-3-clause", r"Redistribution and use in source and[\s\S]{0,1500}?Neither the name"),
    ("bsd-2-clause", r"Redistribution and use in source and binary forms"),
    ("mpl-2.0", r"Mozilla Public License,?\s+[Vv]ersion 2\.0"),
    ("agpl-3.0", r"GNU AFFERO GENERAL PUBLIC LICENSE\s+Version 3"),
    ("lgpl-3.0", r"GNU LESSER GENERAL PUBLIC LICENSE\s+Version 3"),
    ("gpl-3.0", r"GNU GENERAL PUBLIC LICENSE\s+Version 3"),
    ("gpl-2.0", r"GNU GENERAL PUBLIC LICENSE\s+Version 2"),
    ("isc", r"\bISC License\b"),
    ("unlicense", r"This is free and unencumbered software released into the public domain"),
)

LFS = "filter=lfs diff=lfs merge=lfs -text"
# Binary kinds sent through LFS by name. A binary file of any other kind gets a line of its own
# (:func:`gitattributes`): the Hub refuses a binary file pushed as a plain git object.
LFS_SUFFIXES = (
    # the models' weights (assets/models/*.pt) and what weights and arrays come as
    ".pt", ".pth", ".safetensors", ".bin", ".ckpt", ".onnx", ".npy", ".npz", ".pkl",
    # images and fonts
    ".png", ".jpg", ".jpeg", ".gif", ".webp", ".ico", ".woff", ".woff2", ".ttf", ".otf",
    # archives, documents, databases
    ".pdf", ".zip", ".gz", ".br", ".sqlite3", ".db",
)  # fmt: skip
# Written for the Space, not copied (the repository's README and Dockerfile are replaced).
WRITTEN = ("README.md", "Dockerfile", ".gitattributes")


def tracked(root: Path = ROOT) -> list[str]:
    """The files git tracks in ``root``, as ``/``-separated relative paths."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True
        ).stdout.decode()
    except (OSError, subprocess.CalledProcessError) as err:
        raise SystemExit(f"deploy.space needs git and a checkout of the repository: {err}")
    return sorted(p for p in out.split("\0") if p)


def app_files(root: Path = ROOT) -> list[str]:
    """What the Space holds from the repository: the tracked files the image's build context
    takes (.dockerignore), .dockerignore itself (the Space builds with it), minus
    :data:`WRITTEN`."""
    rules = dockerignore.read_rules(root / ".dockerignore")
    keep = [p for p in tracked(root) if not dockerignore.ignored(p, rules)]
    return sorted({*keep, ".dockerignore"} - set(WRITTEN))


def is_binary(data: bytes) -> bool:
    """Binary as git and the Hub see it: a NUL byte, or not UTF-8 text."""
    if b"\0" in data:
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def gitattributes(binary: list[str]) -> str:
    """LFS for every suffix of :data:`LFS_SUFFIXES` and for each binary path among ``binary``
    that none of them covers."""
    lines = [
        "# Binary files go through LFS (git lfs, or git xet): the Hub refuses them as plain",
        "# git objects. Written by `python -m deploy.space`.",
        *(f"*{suffix} {LFS}" for suffix in LFS_SUFFIXES),
    ]
    for path in sorted(binary):
        if path.lower().endswith(LFS_SUFFIXES):
            continue
        if re.search(r"[\s*?\[\]\\!#\"]", path):
            raise ValueError(f"{path}: a binary file whose name .gitattributes cannot hold")
        lines.append(f"{path} {LFS}")
    return "\n".join(lines) + "\n"


def license_id(root: Path = ROOT) -> str:
    """The Hub's id of the repository's LICENSE (:data:`NO_LICENSE` without one)."""
    path = root / "LICENSE"
    if not path.exists():
        return NO_LICENSE
    text = path.read_text(encoding="utf-8", errors="replace")
    spdx = re.search(r"SPDX-License-Identifier:\s*([\w.+-]+)", text)
    known = {hub for hub, _ in LICENSES}
    if spdx and spdx.group(1).lower() in known:
        return spdx.group(1).lower()
    found = [
        (m.start(), rank, hub)
        for rank, (hub, words) in enumerate(LICENSES)
        if (m := re.search(words, text))
    ]
    return min(found)[2] if found else "other"


def front_matter(licence: str) -> str:
    """The Space's YAML block (https://huggingface.co/docs/hub/spaces-config-reference)."""

    def value(v: object) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int):
            return str(v)
        plain = re.fullmatch(r"[A-Za-z0-9][\w .-]*", str(v))
        return str(v) if plain else json.dumps(str(v), ensure_ascii=False)  # YAML reads JSON

    lines = [f"{key}: {value(v)}" for key, v in CARD.items()]
    lines.append(f"license: {licence}")
    if licence == NO_LICENSE:
        lines.append("# the repository has no LICENSE file yet: set its id here when it has")
    elif licence == "other":  # the Hub then asks for a name and a link to the text
        lines += ["license_name: see-license-file", "license_link: LICENSE"]
    return "---\n" + "\n".join(lines) + "\n---\n"


def dockerfile(repo: str) -> str:
    """The Space's Dockerfile: the repository's ``repo`` with :data:`SPACE_ENV` set in its
    ENV (an existing setting replaced in place) and :data:`PORT` exposed. Raises
    ``ValueError`` when the repository's Dockerfile no longer has what this relies on."""
    lines = repo.splitlines()
    env = [i for i, line in enumerate(lines) if line.startswith("ENV ")]
    if len(env) != 1:
        raise ValueError("the Dockerfile must have one ENV block: update deploy/space.py")
    end = env[0]
    while lines[end].rstrip().endswith("\\"):
        end += 1
    block = lines[env[0] : end + 1]
    todo = dict(SPACE_ENV)
    for i, line in enumerate(block):
        m = re.fullmatch(r"(ENV\s+|\s+)([A-Z_]+)=\S+?(\s*\\?)", line)
        if m and m.group(2) in todo:
            block[i] = f"{m.group(1)}{m.group(2)}={todo.pop(m.group(2))}{m.group(3)}"
    indent = re.match(r"\s*", block[1] if len(block) > 1 else "    ").group()
    block[-1] += " \\"
    block += [f"{indent}{k}={v} \\" for k, v in todo.items()]
    block[-1] = block[-1].removesuffix(" \\")
    lines[env[0] : end + 1] = block
    exposed = [i for i, line in enumerate(lines) if line.startswith("EXPOSE ")]
    if len(exposed) != 1:
        raise ValueError("the Dockerfile must EXPOSE one port: update deploy/space.py")
    lines[exposed[0]] = f"EXPOSE {PORT}"
    user = [line.split()[1] for line in lines if line.startswith("USER ")]
    made = re.search(rf"useradd [^\n]*--uid {USER_ID} (\w+)", repo)
    if not (made and user and user[-1] in (made.group(1), str(USER_ID))):
        raise ValueError(f"the image must run as uid {USER_ID}, a Space's user")
    head = [
        "# The Hugging Face Space's Dockerfile, written by `python -m deploy.space` from the",
        "# repository's: the same image, with the Space's port, the visitor's address from the",
        "# Space proxy's X-Forwarded-For and the Space's page allowed to frame the app",
        '# (deploy/README.md, "A Hugging Face Space"). Change the repository\'s, not this one.',
        "",
    ]
    return "\n".join(head + lines) + "\n"


def readme(root: Path, licence: str) -> str:
    """The Space's card: its front matter, then the repository's README."""
    return front_matter(licence) + "\n" + (root / "README.md").read_text(encoding="utf-8")


def _clear(out: Path, replace: bool) -> None:
    """Make ``out`` an empty folder; a Space's clone keeps its ``.git``."""
    out.mkdir(parents=True, exist_ok=True)
    present = [p for p in out.iterdir() if p.name != ".git"]
    if present and not replace:
        raise SystemExit(f"{out} is not empty: pass --replace to replace all but its .git")
    for p in present:
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p)
        else:
            p.unlink()


def write(out: Path, root: Path = ROOT, replace: bool = False) -> dict:
    """Write the Space into ``out``; what was written (files, bytes, LFS paths, licence)."""
    files = app_files(root)
    missing = [p for p in files if not (root / p).is_file()]
    if missing:
        raise SystemExit(f"tracked but missing (restore or commit their removal): {missing}")
    _clear(out, replace)
    binary = []
    for rel in files:
        src, dst = root / rel, out / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)
        shutil.copymode(src, dst)
        if is_binary(src.read_bytes()):
            binary.append(rel)
    licence = license_id(root)
    written = {
        "README.md": readme(root, licence),
        "Dockerfile": dockerfile((root / "Dockerfile").read_text(encoding="utf-8")),
        ".gitattributes": gitattributes(binary),
    }
    for name, text in written.items():
        (out / name).write_text(text, encoding="utf-8")
    everything = [*files, *written]
    return {
        "files": len(everything),
        "bytes": sum((out / p).stat().st_size for p in everything),
        "lfs": sorted(binary),
        "license": licence,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m deploy.space", description=__doc__)
    parser.add_argument("out", type=Path, help="the Space's folder (made if missing)")
    parser.add_argument(
        "--replace", action="store_true", help="empty OUT first (all but a .git folder)"
    )
    args = parser.parse_args(argv)
    done = write(args.out, replace=args.replace)
    lfs_mb = sum((args.out / p).stat().st_size for p in done["lfs"]) / 1e6
    print(
        f"{args.out}: a Docker Space of {done['files']} files, {done['bytes'] / 1e6:.1f} MB "
        f"({len(done['lfs'])} binary files, {lfs_mb:.1f} MB, through LFS); "
        f"license: {done['license']}"
    )
    if done["license"] == NO_LICENSE:
        print("no LICENSE at the root: the card says 'license: unknown'", file=sys.stderr)
    print(
        f"push it: hf upload <owner>/<space> {args.out} . --repo-type space "
        '(deploy/README.md, "A Hugging Face Space")'
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
