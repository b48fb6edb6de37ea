"""The distance probes' curves read from the manifest (``core.analysis.distance_probes``)."""

from __future__ import annotations

from core.analysis.distance_probes import probe_curves


def _entry(kind: str, layers: int, dist: dict[str, float] | None) -> dict:
    cfg = {"kind": kind, "n_symbols": 21, "n_keys": 10, "layers": layers, "kernel": 5}
    return {"config": cfg, "metrics": {"distance": dist} if dist is not None else {}}


def _label(name, cfg):
    return f"{cfg.get('kind', name)}{cfg.get('layers', '')}"


def test_curves_fields_and_missing():
    manifest = {
        "models": {
            "probe_cnn2": _entry("cnn", 2, {"10": 0.5, "5": 1.0}),
            "probe_gru": _entry("gru", 1, {"5": 0.9, "10": 0.8}),
            "probe_other": _entry("gru", 1, {"5": 0.9}),  # other distances
            "probe_none": _entry("gru", 1, None),  # not measured
        }
    }
    names = ("probe_none", "probe_cnn2", "probe_gru", "probe_other", "probe_absent")
    curves = probe_curves(manifest, names, _label)
    assert curves.distances == [5, 10]
    assert curves.series == {"cnn2": [1.0, 0.5], "gru1": [0.9, 0.8]}
    assert curves.fields == {"cnn2": 1 + 2 * 4}  # recurrences see everything: no field
    assert curves.missing == ["probe_none", "probe_other", "probe_absent"]


def test_label_none_leaves_a_probe_out_and_unknown_config_keeps_its_curve():
    manifest = {
        "models": {
            "a": {"config": {"kind": "cnn", "bogus": 1}, "metrics": {"distance": {"5": 0.2}}},
            "b": {"config": {"kind": "cnn"}, "metrics": {"distance": {"5": 0.3}}},
        }
    }
    curves = probe_curves(manifest, ("a", "b"), lambda n, _c: None if n == "b" else n)
    assert curves.series == {"a": [0.2]} and curves.fields == {}
    assert curves.missing == ["b"]
