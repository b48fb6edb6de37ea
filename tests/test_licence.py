"""The licence and the notices: an MIT LICENSE that the README and pyproject.toml name, each
vendored file's licence in its own folder, and THIRD_PARTY_NOTICES.md naming every package an
install of requirements.txt brings, with the licence it declares, each one an MIT-licensed app
may use and ship."""

from __future__ import annotations

import importlib.metadata as md
import os
import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.test_requirements import CUDA_ONLY, pins

ROOT = Path(__file__).resolve().parent.parent
NOTICES = (ROOT / "THIRD_PARTY_NOTICES.md").read_text(encoding="utf-8")
README = (ROOT / "README.md").read_text(encoding="utf-8")
# SPDX ids of licences whose works an MIT-licensed app may use and ship unmodified beside its
# own code (MPL-2.0: file-level copyleft; LGPL-3.0: a library used as it is)
FITS = {
    "MIT", "MIT-CMU", "0BSD", "BSD-2-Clause", "BSD-3-Clause", "Zlib", "CC0-1.0", "BSL-1.0",
    "Apache-2.0", "LLVM-exception", "PSF-2.0", "MPL-2.0", "LGPL-3.0-only",
}  # fmt: skip


def notice_rows() -> dict[str, list[str]]:
    """``{package: [cells after the name]}`` of the notices' package tables."""
    rows = {}
    for line in NOTICES.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) in (2, 3) and not set(cells[0]) <= {"-"}:
            rows[canonicalize_name(cells[0])] = cells[1:]
    rows.pop("package", None)
    return rows


def spdx_ids(expression: str) -> set[str]:
    return set(re.split(r"\s+(?:AND|OR|WITH)\s+|[()]", expression)) - {""}


def test_the_licence_is_mit_and_the_readme_and_pyproject_say_so():
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n") and re.search(r"^Copyright \(c\) \d{4} ", text, re.M)
    assert "](LICENSE)" in README and "MIT" in README.split("## Licence", 1)[-1]
    assert "## Licence" in README, "the README's Licence section says which and why"
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == "MIT"


def vendored_files() -> list[Path]:
    """Every file in a folder named ``vendor`` (the repository's, not installed packages')."""
    found = []
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in ("node_modules", "venv")]
        if Path(folder).name == "vendor":
            found += [Path(folder) / f for f in files]
    return sorted(found)


@pytest.mark.parametrize("path", vendored_files(), ids=lambda p: p.name)
def test_each_vendored_file_has_its_version_and_licence_beside_it(path):
    folder = path.parent
    readme = (folder / "README.md").read_text(encoding="utf-8")
    licences = sorted(p.name for p in folder.iterdir() if p.name.upper().startswith("LICENSE"))
    assert licences, f"{folder} has no LICENSE file for what it vendors"
    if path.name == "README.md" or path.name in licences or path.name.startswith("THIRD-PARTY"):
        assert path.name == "README.md" or path.name in readme, f"README.md names {path.name}"
        return
    version = re.search(r"\d+\.\d+\.\d+", path.name)
    assert version, f"{path.name}: put the vendored version in the file's name"
    assert path.name in readme and version.group() in readme, f"README.md: {path.name}, version"
    assert any(name in readme for name in licences), f"README.md names {licences}"
    assert re.search(r"\b(MIT|BSD|Apache|MPL|ISC|Zlib)\b", readme), "README.md: the licence"
    assert f"`{path.relative_to(ROOT)}`" in NOTICES, "THIRD_PARTY_NOTICES.md lists it"


def test_the_notices_list_each_pinned_package_at_its_version():
    rows = notice_rows()
    for name, version in pins().items():
        assert name in rows, f"THIRD_PARTY_NOTICES.md lacks {name}"
        assert rows[name][0] == version, (
            f"{name}: the notices say {rows[name][0]}, pinned {version}"
        )


def installed_closure() -> dict[str, md.Distribution]:
    """The installed distributions the pinned packages require, themselves included."""
    seen: dict[str, md.Distribution] = {}
    todo = list(pins())
    while todo:
        name = canonicalize_name(todo.pop())
        if name in seen or name.startswith(CUDA_ONLY):  # hosts and the image get CPU torch
            continue
        try:
            seen[name] = dist = md.distribution(name)
        except md.PackageNotFoundError:
            continue
        for spec in dist.requires or []:
            req = Requirement(spec)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(req.name)
    return seen


def test_the_notices_give_each_installed_package_the_licence_it_declares():
    rows, closure = notice_rows(), installed_closure()
    assert "torch" in closure, "the runtime requirements are not installed here"
    missing = sorted(set(closure) - set(rows))
    assert not missing, f"THIRD_PARTY_NOTICES.md lacks what the runtime installs: {missing}"
    for name, dist in closure.items():
        declared = dist.metadata.get("License-Expression")
        if declared:
            assert rows[name][-1] == declared, f"{name} declares {declared}"


def test_every_licence_in_the_notices_fits_an_mit_app():
    for name, cells in notice_rows().items():
        unknown = spdx_ids(cells[-1]) - FITS
        assert not unknown, f"{name}: {unknown}: check it may ship beside MIT code, then add it"


def test_the_notices_name_what_the_image_adds():
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    for name in ("brotli", "fonttools"):
        pin = re.search(rf"\b{name}==([\w.]+)", dockerfile).group(1)
        assert f"`{name}` {pin}" in NOTICES, f"THIRD_PARTY_NOTICES.md: {name} {pin}"
    assert "Material Symbols" in NOTICES and "`deploy/material-icons.txt`" in NOTICES
