"""Where a page's time goes in the browser: main-thread work and the server/browser split.

Per page, alternating with the bare page: first renders with Chromium's CPU profiler on
(busy time per script file), then reruns of the pages bench's control, split at the
websocket on the page's own clock into lead, server and browser parts; medians.
"""

from __future__ import annotations

import collections
import json
import sys

from bench import browser as B
from bench import procs
from bench.procs import BARE_APP, LOGS, ROOT
from bench.stats import med

IDLE = "(idle)"
SAMPLING_US = 500
# Every message the page's websocket sends or handles, on the page's clock
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


def _label(node: dict) -> str:
    frame = node["callFrame"]
    return frame["url"].rsplit("/", 1)[-1] or frame["functionName"] or "?"


def by_script(profile: dict) -> dict[str, float]:
    """Milliseconds per script file (or Chromium's label, e.g. ``(program)``), largest first;
    a sample's delta is its own (the first, the gap before profiling, is left out)."""
    nodes = {n["id"]: n for n in profile["nodes"]}
    per_node: dict[int, float] = collections.Counter()
    for node, delta in zip(profile["samples"][1:], profile["timeDeltas"][1:]):
        per_node[node] += delta
    out: dict[str, float] = collections.Counter()
    for node, us in per_node.items():
        out[_label(nodes[node])] += us / 1000.0
    return dict(sorted(out.items(), key=lambda kv: -kv[1]))


def busy_ms(scripts: dict[str, float]) -> float:
    """Milliseconds the main thread was not idle (of :func:`by_script`'s figures)."""
    return sum(ms for label, ms in scripts.items() if label != IDLE)


def split_rerun(input_ms: float, last_ms: float, sent: list[float], received: list[float]):
    """A rerun on the page's clock (ms): the lead (to the first message sent), the server's part
    (to the last received) and the browser's (to the last DOM change); None without messages."""
    after = [t for t in sent if t >= input_ms]
    if not after or not received:
        return None
    last_in = max(received)
    return {
        "lead_s": (after[0] - input_ms) / 1000.0,
        "server_s": max(0.0, last_in - after[0]) / 1000.0,
        "browser_s": max(0.0, last_ms - last_in) / 1000.0,
    }


def first_render(browser, url: str) -> dict:
    with B.tab(browser) as tab:
        cdp = tab.context.new_cdp_session(tab)
        cdp.send("Profiler.enable")
        cdp.send("Profiler.setSamplingInterval", {"interval": SAMPLING_US})
        cdp.send("Profiler.start")
        done = B.render(tab, url)
        profile = cdp.send("Profiler.stop")["profile"]
    scripts = by_script(profile)  # once: the busy time is its sum
    return {"done_s": done, "busy_ms": busy_ms(scripts), "scripts": scripts}


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
    top = sorted(((med(v), k) for k, v in scripts.items() if k != IDLE), reverse=True)
    return {
        "first_done_s": med([f["done_s"] for f in first]),
        "first_busy_ms": med([f["busy_ms"] for f in first]),
        "first_busy_by_script_ms": {k: m for m, k in top[:8]},
        "rerun_done_s": med([r["done_s"] for r in again]),
        "rerun_server_s": med([r["server_s"] for r in again if "server_s" in r]),
        "rerun_browser_s": med([r["browser_s"] for r in again if "browser_s" in r]),
        "rerun_lead_s": med([r["lead_s"] for r in again if "lead_s" in r]),
        "rerun_messages": med([r["messages"] for r in again]),
        "control": again[0]["control"] if again else None,
    }


def run(args) -> dict:
    """First renders of every page and the bare page, alternating, then reruns of each."""
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
