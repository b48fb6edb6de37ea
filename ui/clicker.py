"""A presentation clicker turns the deck in presenter mode (PageDown / → / Space, PageUp / ←,
Home / End).

One static script (allowed by the shipped CSP through its SHA-256, like ``poll.views``'s), put
once per document: a key press clicks the deck's own link (``ui.shell.deck_links``: the
containers ``deck_prev`` / ``deck_next``, and the hidden ``deck_first`` / ``deck_last``), so
the clicker goes exactly where the mouse would, without a reload. It acts only while a page
shows the presenter marker, never while typing, and leaves arrows, Space, Home and End to a
focused control that uses them (a slider, a radio group, a button); PageDown / PageUp still
turn the deck there. Presses during a run wait for it, in order.
"""

from __future__ import annotations

import base64
import hashlib

import streamlit as st

KEY = "road_clicker"  # the hidden container of the marker and the script
# The deck's links, by the key of the container each sits in (ui.shell.deck_links).
LINKS = {"prev": "deck_prev", "next": "deck_next", "first": "deck_first", "last": "deck_last"}
JUMP = "deck_jump"  # hidden: first and last stop, for Home and End only
# Which key goes where (the script spells the same table).
KEYS = {
    "PageDown": "next",
    "ArrowRight": "next",
    " ": "next",
    "PageUp": "prev",
    "ArrowLeft": "prev",
    "Home": "first",
    "End": "last",
}

# No "<" in it: st.html's sanitizer (DOMPurify) drops a script whose text has "<" before a
# letter, a digit or "/" (comparisons are written with ">").
CLICKER_JS = (
    "(()=>{if(window.roadClicker)return;window.roadClicker=1;"
    "const K={PageDown:'next',ArrowRight:'next',' ':'next',PageUp:'prev',ArrowLeft:'prev',"
    "Home:'first',End:'last'};"
    # typing: no key turns the deck (a slider and a radio button are inputs too)
    "const TYPE='input:not([type=range]):not([type=radio]):not([type=checkbox])"
    ":not([type=button]):not([type=submit]),textarea,select,"
    "[contenteditable]:not([contenteditable=false]),[role=textbox],[role=combobox],"
    "[role=searchbox]';"
    # controls with arrow, Home and End keys of their own
    "const OWN='input,[role=slider],[role=radio],[role=radiogroup],[role=tab],[role=tablist],"
    "[role=menu],[role=menuitem],[role=listbox],[role=option],[role=grid],[role=spinbutton],"
    "[role=tree],[role=scrollbar],.js-plotly-plot,[data-testid=stDataFrame]';"
    # controls that Space activates
    "const SPACE='button,[role=button],summary,[role=checkbox],[role=switch]';"
    "let queue=[],timer=null,since=0,wait=null;"
    "const stop=u=>{const x=new URL(u,location.href);"
    "return x.pathname.replace(/\\/+$/,'')+'|'+(x.searchParams.get('part')||'')};"
    "const idle=()=>{const a=document.querySelector('[data-testid=stApp]');"
    "return !!a&&a.getAttribute('data-test-script-state')==='notRunning'};"
    "function tick(){if(!queue.length){clearInterval(timer);timer=null;return}"
    "const now=Date.now();"
    "let ok=idle()&&!(wait&&stop(location.href)!==wait.to&&20000>now-wait.t);"
    "if(!ok){since=0;return}if(!since){since=now;return}if(200>now-since)return;"
    "since=0;wait=null;const a=document.querySelector('.st-key-deck_'+queue.shift()+' a');"
    "if(!a||a.closest('[data-stale=true]'))return;"
    "wait={to:stop(a.href),t:now};a.click()}"
    "window.addEventListener('keydown',e=>{const go=K[e.key];"
    "if(!go||e.repeat||e.altKey||e.ctrlKey||e.metaKey||e.shiftKey||e.isComposing)return;"
    "if(!document.querySelector('[data-road-clicker]'))return;"
    "if(document.querySelector('[role=dialog]'))return;"
    "const el=e.target instanceof Element?e.target:null;"
    "if(el&&el.closest(TYPE))return;"
    "if(el&&!e.key.startsWith('Page')&&el.closest(OWN))return;"
    "if(el&&e.key===' '&&el.closest(SPACE))return;"
    "e.preventDefault();e.stopPropagation();"
    "if(5>queue.length)queue.push(go);if(!timer)timer=setInterval(tick,50)},true)"
    "})();"
)
CLICKER_JS_HASH = base64.b64encode(hashlib.sha256(CLICKER_JS.encode()).digest()).decode()


def install() -> None:
    """The presenter marker and the clicker's script (presenter mode only: without the
    marker the script, once loaded, leaves every key alone)."""
    with st.sidebar.container(key=KEY):
        st.html(
            f"<span hidden data-road-clicker></span><script>{CLICKER_JS}</script>",
            unsafe_allow_javascript=True,
        )
