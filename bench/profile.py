"""Where a page's time goes in the browser: main-thread work and the server/browser split.

It serves the app and the bare page itself and waits for the app's warm-up; per page,
alternating with the bare page: first renders with Chromium's CPU profiler on (busy time per
script file), then reruns of the control the pages bench changes, split at the websocket on
the page's own clock into lead, server and browser parts. Figures are medians; the busy time
is steadier than wall time on a noisy machine. Method and figures: bench/README.md.
"""

from __future__ import annotations

import collections
import json
import sys

from bench import browser as B
from bench import procs, stats
from bench.procs import BARE_APP, LOGS, ROOT

IDLE = "(idle)"
SAMPLING_US = 500
# Every message the page's websocket sends or receives, on the page's clock (installed
# before Streamlit's code runs; the 'message' listener fires when the page handles it).
WS_JS = """(() => {
  if (window.__ws) return;
  const log = window.__ws = {sent: [], received: []};
  const Native = window.WebSocket;
  class Logged extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', () => log.received.push(performance.now()));
    }
    send(data) { log.sent.push(performance.now()); return super.send(data); }
  }
  window.WebSocket = Logged;
})();"""


def self_times(profile: dict) -> dict[int, float]:
    """Microseconds of samples per profile node (a sample's delta belongs to the sample;
    the first delta is the gap before profiling started and is not counted)."""
    out: dict[int, float] = collections.Counter()
    for node, delta in zip(profile["samples"][1:], profile["timeDeltas"][1:]):
        out[node] += delta
    return out


def _label(node: dict) -> str:
    frame = node["callFrame"]
    return frame["url"].rsplit("/", 1)[-1] or frame["functionName"] or "?"


def by_script(profile: dict) -> dict[str, float]:
    """Milliseconds per script file name (or Chromium's own label: ``(program)``,
    ``(garbage collector)``, ``(idle)``), largest first."""
    nodes = {n["id"]: n for n in profile["nodes"]}
    out: dict[str, float] = collections.Counter()
    for node, us in self_times(profile).items():
        out[_label(nodes[node])] += us / 1000.0
    return dict(sorted(out.items(), key=lambda kv: -kv[1]))


def _busy(scripts: dict[str, float]) -> float:
    return sum(ms for label, ms in scripts.items() if label != IDLE)


def busy_ms(profile: dict) -> float:
    """Milliseconds the main thread was not idle."""
    return _busy(by_script(profile))


def split_rerun(input_ms: float, last_ms: float, sent: list[float], received: list[float]):
    """The server's and the browser's part of one rerun, from the page's own clock
    (``performance.now()`` ms): the input, the last DOM change, and the times the page's
    websocket sent and received messages. The server's part runs from the browser's first
    message after the input to the last message received (the network on loopback
    included), the browser's from there to the last DOM change; what comes before the
    first message (the widget's own handling) is the lead. None without both."""
    after = [t for t in sent if t >= input_ms]
    if not after or not received:
        return None
    last_in = max(received)
    return {
        "lead_s": (after[0] - input_ms) / 1000.0,
        "server_s": max(0.0, last_in - after[0]) / 1000.0,
        "browser_s": max(0.0, last_ms - last_in) / 1000.0,
    }


def median(xs: list[float]) -> float | None:
    """``bench.stats.median`` rounded to the ms, None for no value (a rerun without a split)."""
    return round(stats.median(xs), 3) if xs else None


def first_render(browser, url: str) -> dict:
    with B.tab(browser) as tab:
        cdp = tab.context.new_cdp_session(tab)
        cdp.send("Profiler.enable")
        cdp.send("Profiler.setSamplingInterval", {"interval": SAMPLING_US})
        cdp.send("Profiler.start")
        done = B.render(tab, url)
        profile = cdp.send("Profiler.stop")["profile"]
    scripts = by_script(profile)  # once: the busy time is its sum
    return {"done_s": done, "busy_ms": _busy(scripts), "scripts": scripts}


def reruns(browser, url: str, reps: int, prefer: tuple[str, int] | None = None) -> list[dict]:
    out = []
    with B.tab(browser) as tab:
        tab.context.add_init_script(WS_JS)
        B.render(tab, url)
        control = B.pick_control(tab, prefer)
        for _ in range(reps):
            B.wait_settled(tab, 60.0)
            tab.evaluate("() => { window.__ws.sent = []; window.__ws.received = []; }")
            done = B.rerun(tab, control)
            state = tab.evaluate("() => ({...window.__bench, ...window.__ws})")
            split = split_rerun(state["input"], state["last"], state["sent"], state["received"])
            row = {
                "done_s": done,
                "messages": len(state["received"]),
                "control": control.describe(),
            }
            out.append(row | (split or {}))
    return out


def summary(first: list[dict], again: list[dict]) -> dict:
    scripts: dict[str, list[float]] = collections.defaultdict(list)
    for f in first:
        for label, ms in f["scripts"].items():
            scripts[label].append(ms)
    top = sorted(((median(v), k) for k, v in scripts.items() if k != IDLE), reverse=True)
    return {
        "first_done_s": median([f["done_s"] for f in first]),
        "first_busy_ms": median([f["busy_ms"] for f in first]),
        "first_busy_by_script_ms": {k: m for m, k in top[:8]},
        "rerun_done_s": median([r["done_s"] for r in again]),
        "rerun_server_s": median([r["server_s"] for r in again if "server_s" in r]),
        "rerun_browser_s": median([r["browser_s"] for r in again if "browser_s" in r]),
        "rerun_lead_s": median([r["lead_s"] for r in again if "lead_s" in r]),
        "rerun_messages": median([r["messages"] for r in again]),
        "control": again[0]["control"] if again else None,
    }


def run(args) -> dict:
    """``args.reps`` first renders of every page of ``args.pages`` and of the bare page,
    alternating, then ``args.reruns`` reruns of each."""
    from bench.pages import CONTROLS, RERUN_PART, page_slugs, page_url

    slugs = page_slugs(args.pages)
    with (
        procs.serving("app.py", ROOT, LOGS / "profile_app.log") as app,
        procs.serving(str(BARE_APP), LOGS, LOGS / "profile_bare.log") as bare,
        B.chromium() as browser,
    ):
        B.warm_app(browser, app, page_url(app, "home"))
        first = collections.defaultdict(list)
        for _ in range(args.reps):
            for slug in slugs:
                first[slug].append(first_render(browser, page_url(app, slug)))
                first["bare"].append(first_render(browser, bare.url("/")))
        result = {"meta": procs.run_meta(), "pages": {}}
        for slug in ["bare", *slugs]:
            url = bare.url("/") if slug == "bare" else page_url(app, slug, RERUN_PART.get(slug))
            again = reruns(browser, url, args.reruns, CONTROLS.get(slug))
            result["pages"][slug] = summary(first[slug], again)
            print(f"{slug:20s} {json.dumps(result['pages'][slug])}", file=sys.stderr)
    return result
