"""Autoregressive generation (lesson 1.2–1.3, 1.6): one token at a time, each fed back in.

Five screens, one idea each: step through a language model; the same for translation with
the attention row of each step; force one wrong token ("一步错步步错"); the serial cost of
writing; why counting n-grams does not scale.
"""

from __future__ import annotations

import random
import time

import streamlit as st

import ui
from core import corpus
from core import mdtable as md
from core.analysis import autoregressive as ar
from core.analysis import ngram
from core.evaluate import max_output_len
from core.figures import autoregressive as figs
from core.translate import InputError, prepare
from core.vocab import detokenize_zh, tokenize_en
from ui.models import get_manifest, get_model, get_vocabs, require

SLUG = "autoregressive"
# Special tokens as shown: "<eos>" would read as an HTML tag in markdown and plotly.
BOS_SHOW, EOS_SHOW = "⟨bos⟩", "⟨eos⟩"
SPECIAL_SHOW = {0: "⟨pad⟩", 1: BOS_SHOW, 2: EOS_SHOW, 3: "⟨unk⟩"}
ui.begin_page(SLUG)
t = ui.t
P = ui.presenter()


def k(key: str) -> str:
    return f"{SLUG}.{key}"


PARTS = ("lm", "translate", "wrong", "cost", "ngram")
MODES = ar.MODES
TRANSLATORS = ("gru_attention", "transformer")
LM = "lm_gru"
MAX_NEW = 12  # tokens the language model may add
K_SHOW = 8  # alternatives shown per step
DEFAULT_PREFIX = "you should"
DEFAULT_SOURCE = "the cat drank the milk because it was hungry"
WRONG_SAMPLE = 120  # held-out sentences in the "one wrong step" statistic
WRONG_POSITIONS = (0, 1, 2, 4, 8)  # output positions where a wrong token is forced
WRONG_LENGTHS = (8, 16)  # source lengths of the sampled sentences
TIMING_LENGTHS = (4, 8, 16, 32, 64)
NGRAM_MAX = 6


# --- cached computation -----------------------------------------------------------------------


@st.cache_resource(show_spinner=False)
def _splits(seed: int) -> corpus.Splits:
    return corpus.build_splits(seed)


def _corpus_seed() -> int:
    return int(get_manifest().get("corpus", {}).get("seed", 1234))


@st.cache_data(show_spinner=False, max_entries=256)
def _lm_run(prefix: tuple[str, ...], mode: str, temp: float, topk: int, seed: int):
    sv, _ = get_vocabs()
    return ar.lm_generate(
        get_model(LM),
        sv.encode(prefix),
        max_new=MAX_NEW,
        mode=mode,
        temperature=temp,
        top_k=topk,
        seed=seed,
        k_show=K_SHOW,
    )


@st.cache_data(show_spinner=False, max_entries=256)
def _translate(name: str, tokens: tuple[str, ...], forced: tuple[int, ...] = ()):
    """Greedy output after a forced prefix of ids (empty: plain greedy), explained."""
    sv, _ = get_vocabs()
    model = get_model(name)
    src = sv.encode(tokens, eos=True)
    out = ar.continue_greedy(model, src, list(forced), max_output_len(len(src)))
    return ar.explain_output(model, src, out, K_SHOW)


@st.cache_data(show_spinner=False, max_entries=8)
def _wrong_stats(name: str, seed: int) -> ar.WrongStepResult:
    sv, tv = get_vocabs()
    lo, hi = WRONG_LENGTHS
    pool = [p for p in _splits(seed).test if lo <= len(p.src) <= hi]
    sample = random.Random(0).sample(pool, min(WRONG_SAMPLE, len(pool)))
    return ar.wrong_step_effect(
        get_model(name),
        [sv.encode(p.src, eos=True) for p in sample],
        [tv.encode(p.tgt) for p in sample],
        WRONG_POSITIONS,
    )


@st.cache_data(show_spinner=False, max_entries=2)
def _ngram_stats(seed: int) -> ngram.NGramStats:
    sp = _splits(seed)
    return ngram.ngram_stats([p.src for p in sp.train], [p.src for p in sp.test], NGRAM_MAX)


@st.cache_resource(show_spinner=False, max_entries=2)
def _ngram_table(seed: int) -> ngram.Coded:
    return ngram.code([p.src for p in _splits(seed).train])


# --- small UI helpers -------------------------------------------------------------------------


def _go(param: str, value: int) -> None:
    st.query_params[param] = str(value)


def _play(flag: str) -> None:
    st.session_state[flag] = True


def stepper(param: str, n: int, default: int = 1) -> tuple[int, bool]:
    """Back / Next / Play / Restart over steps 1..n, kept in the URL as ``param``.

    Returns the current step and whether Play was pressed (the caller animates).
    """
    raw = ui.params.get_int(param, 1, 999, default)
    step = min(max(1, raw), n)  # a run that ends earlier than the link's step: its last step
    flag = f"ar_play_{param}"
    cols = st.columns(4)
    cols[0].button(
        t(k("step.back")),
        key=f"ar_{param}_back",
        icon=":material/arrow_back:",
        on_click=_go,
        args=(param, step - 1),
        disabled=step <= 1,
        width="stretch",
    )
    cols[1].button(
        t(k("step.next")),
        key=f"ar_{param}_next",
        icon=":material/arrow_forward:",
        on_click=_go,
        args=(param, step + 1),
        disabled=step >= n,
        width="stretch",
        type="primary",
    )
    cols[2].button(
        t(k("step.play")),
        key=f"ar_{param}_play",
        icon=":material/play_arrow:",
        on_click=_play,
        args=(flag,),
        disabled=step >= n,
        width="stretch",
    )
    cols[3].button(
        t(k("step.restart")),
        key=f"ar_{param}_restart",
        icon=":material/restart_alt:",
        on_click=_go,
        args=(param, 1),
        disabled=step <= 1,
        width="stretch",
    )
    ui.params.set_params(**{param: step})
    return step, bool(st.session_state.pop(flag, False))


def _on_text(name: str, key: str, resets: tuple[str, ...]) -> None:
    st.query_params[name] = st.session_state[key]
    for r in resets:
        st.query_params.pop(r, None)


def text_param(name: str, default: str, label: str, key: str, resets: tuple[str, ...]) -> str:
    """A text box tied to the URL; an explicitly empty value stays empty (not the default)."""
    raw = st.query_params.get(name)
    value = "" if raw is not None and not raw.strip() else ui.params.get_text(name, default)
    st.session_state[key] = value
    st.text_input(label, key=key, on_change=_on_text, args=(name, key, resets), max_chars=300)
    ui.params.set_params(**{name: value})
    return value


def input_error(err: InputError) -> None:
    """Say why the text cannot be used, in the user's language, naming unknown words."""
    if err.reason == "unknown":
        lines = []
        for o in err.unknown:
            word = ui.params.safe_value(o.word)
            if o.suggestions:
                lines.append(t(k("input.suggest"), word=word, options=" / ".join(o.suggestions)))
            else:
                lines.append(t(k("input.no_suggest"), word=word))
        st.error(t(k("input.unknown")) + "\n\n" + "\n".join(f"- {x}" for x in lines))
    elif err.reason == "too_long":
        st.error(t(k("input.too_long"), limit=err.limit))
    else:
        st.error(t(k("input.empty")))


def marked(tokens: list[str], start: int, current: int | None, sep: str = " ") -> str:
    """Tokens as markdown: given words plain, generated ones bold, the current one marked.

    Tokens come from the model vocabularies (never raw user text), escaped anyway.
    """
    out = []
    for i, tok in enumerate(tokens):
        tok = tok.replace("[", "(").replace("]", ")").replace("*", "").replace("`", "'")
        if i == current:
            out.append(f":orange-background[**{tok}**]")
        elif i >= start:
            out.append(f"**{tok}**")
        else:
            out.append(tok)
    return sep.join(out) if out else "∅"


def show_table(header: list[str], rows: list[list[object]]) -> None:
    """A small Markdown table: no pandas on the server, no table bundle in the browser."""
    st.markdown(md.table(header, [[md.escape(cell) for cell in row] for row in rows]))


def big(text: str) -> None:
    st.markdown(f"### {text}")


def try_this(key: str) -> None:
    st.info(t(k(f"{key}.try")), icon=":material/lightbulb:")


# --- the page ---------------------------------------------------------------------------------

part = ui.part_selector(k(""), PARTS, key="ar_part")
st.caption(t(k(f"part.{part}.intro")))


def read_prefix() -> list[str] | None:
    """The prompt's tokens ([] = start from <bos>), or None after showing an error."""
    text = text_param("prefix", DEFAULT_PREFIX, t(k("lm.prefix")), "ar_prefix", ("step",))
    if not tokenize_en(text):
        st.caption(t(k("input.empty_prefix")))
        return []
    sv, _ = get_vocabs()
    try:
        return prepare(text, sv)
    except InputError as err:
        input_error(err)
        return None


@st.fragment  # its controls rerun only this screen
def lm_part() -> None:
    if not require(LM):
        return
    prefix = read_prefix()
    if prefix is None:
        return
    mode = ui.params.get_choice("mode", MODES, "greedy")
    mode = st.segmented_control(
        t(k("lm.mode")),
        MODES,
        format_func=ui.labeler(k("lm.mode.")),
        required=True,
        **ui.params.bound("mode", mode, key="ar_mode"),
    )
    temp = ui.params.get_float("temp", 0.1, 3.0, 1.0)
    topk = ui.params.get_int("topk", 0, 50, 5)
    seed = ui.params.get_int("seed", 0, 9999, 0)
    with ui.secondary():
        c1, c2, c3 = st.columns(3)
        off = mode == "greedy"
        temp = c1.slider(
            t(k("lm.temp")),
            0.1,
            3.0,
            step=0.1,
            disabled=off,
            help=t(k("lm.temp_help")),
            **ui.params.bound("temp", temp, key="ar_temp"),
        )
        topk = c2.slider(
            t(k("lm.topk")),
            0,
            50,
            disabled=off,
            help=t(k("lm.topk_help")),
            **ui.params.bound("topk", topk, key="ar_topk"),
        )
        seed = c3.number_input(
            t(k("lm.seed")),
            0,
            9999,
            disabled=off,
            help=t(k("lm.seed_help")),
            **ui.params.bound("seed", seed, key="ar_seed"),
        )
    ui.params.set_params(mode=mode, temp=temp, topk=topk, seed=seed)
    steps = _lm_run(tuple(prefix), mode, round(float(temp), 2), int(topk), int(seed))
    step, play = stepper("step", len(steps))
    # Placeholders that Play redraws in place; otherwise plain containers, so a rerun
    # updates the chart instead of replacing the whole block (a remount costs the browser).
    slot = st.empty if play else st.container
    view, record = slot(), slot()

    def words(s: ar.Step) -> list[str]:
        return en(s.context[1:])

    def draw(n: int) -> None:
        s = steps[n - 1]
        chosen = en([s.chosen])[0]
        read = [BOS_SHOW, *words(s)]
        with view.container():
            big(
                t(k("lm.step_of"), step=n, total=len(steps))
                + " · "
                + marked([*read, chosen], len(prefix) + 1, len(read))
            )
            tokens = en(s.top_ids)
            idx = s.top_ids.index(s.chosen) if s.chosen in s.top_ids else None
            what = t(k(f"lm.dist.{mode}"), temp=f"{temp:.1f}", topk=topk or t(k("lm.all")))
            fig = figs.next_token_bars(
                tokens,
                s.top_probs,
                idx,
                title=t(k("lm.chart.title"), model=LM, context=" ".join(read[-6:])),
                x_title=what,
                y_title=t(k("lm.chart.y"), k=len(tokens)),
                presenter=P,
            )
            ui.chart(fig, key=f"ar_lm_chart_{n}_{time.monotonic_ns()}" if play else "ar_lm_chart")
            st.caption(
                t(k("lm.chose"), token=chosen, p=f"{s.chosen_prob:.1%}")
                + " "
                + t(k(f"lm.caption.{mode}"), seed=seed)
            )
        header = [t(k(f"lm.col.{c}")) for c in ("step", "read", "chose", "p")]
        rows = [
            [i, " ".join([BOS_SHOW, *words(r)]), en([r.chosen])[0], f"{r.chosen_prob:.1%}"]
            for i, r in enumerate(steps[:n], 1)
        ]
        with record.container():
            st.markdown(f"**{t(k('lm.record'))}**")
            show_table(header, rows)

    if play:
        for n in range(step, len(steps) + 1):
            draw(n)
            time.sleep(0.7)
        ui.params.set_params(step=len(steps))
        st.rerun()  # redraw the buttons for the last step
    draw(step)
    expected = (get_manifest().get("models", {}).get(LM, {}).get("metrics") or {}).get("you_should")
    if expected and prefix == ["you", "should"] and mode == "greedy":
        st.caption(t(k("lm.manifest"), tokens=" ".join(expected)))
    st.success(t(k("lm.takeaway")), icon=":material/check_circle:")
    try_this("lm")


def read_source() -> list[str] | None:
    text = text_param("src", DEFAULT_SOURCE, t(k("tr.source")), "ar_src", ("tstep", "fpos", "ftok"))
    sv, _ = get_vocabs()
    try:
        return prepare(text, sv)
    except InputError as err:
        input_error(err)
        return None


def pick_translator() -> str:
    name = ui.params.get_choice("model", TRANSLATORS, "gru_attention")
    name = st.segmented_control(
        t(k("tr.model")),
        TRANSLATORS,
        required=True,
        **ui.params.bound("model", name, key="ar_model"),
    )
    ui.params.set_params(model=name)
    return name


def zh(ids) -> list[str]:
    """Chinese tokens of output ids, special tokens in their display form."""
    _, tv = get_vocabs()
    return [SPECIAL_SHOW.get(i, tv.tokens[i]) for i in ids]


def en(ids) -> list[str]:
    """English tokens of language-model ids, special tokens in their display form."""
    sv, _ = get_vocabs()
    return [SPECIAL_SHOW.get(i, sv.tokens[i]) for i in ids]


@st.fragment  # its controls rerun only this screen
def translate_part() -> None:
    name = pick_translator()
    if not require(name):
        return
    source = read_source()
    if source is None:
        return
    dec = _translate(name, tuple(source))
    step, play = stepper("tstep", len(dec.ids))
    view = (st.empty if play else st.container)()  # see lm_part
    src_labels = [*source, EOS_SHOW]

    def draw(n: int) -> None:
        s = dec.steps[n - 1]
        out = zh(dec.ids)
        with view.container():
            big(
                t(k("tr.step_of"), step=n, total=len(dec.ids))
                + " · "
                + marked([BOS_SHOW, *out[:n]], 1, n, sep=" ")
            )
            left, right = st.columns(2)
            with left:
                fig = figs.next_token_bars(
                    zh(s.top_ids),
                    s.top_probs,
                    s.top_ids.index(s.chosen) if s.chosen in s.top_ids else None,
                    title=t(k("tr.chart.title"), model=name, step=n),
                    x_title=t(k("tr.chart.x")),
                    y_title=t(k("tr.chart.y"), k=len(s.top_ids)),
                    presenter=P,
                )
                ui.chart(fig, key=f"ar_tr_bars_{time.monotonic_ns()}" if play else "ar_tr_bars")
            with right:
                if dec.attention is not None:
                    fig = figs.attention_row(
                        src_labels,
                        dec.attention[n - 1],
                        title=t(k("tr.attn.title"), model=name, token=out[n - 1]),
                        x_title=t(k("tr.attn.x")),
                        y_title=t(k("tr.attn.y")),
                        presenter=P,
                    )
                    key = f"ar_tr_attn_{time.monotonic_ns()}" if play else "ar_tr_attn"
                    ui.chart(fig, key=key)
                else:
                    st.caption(t(k("tr.no_attention"), model=name))
            st.caption(t(k("tr.caption"), model=name))

    if play:
        for n in range(step, len(dec.ids) + 1):
            draw(n)
            time.sleep(0.7)
        ui.params.set_params(tstep=len(dec.ids))
        st.rerun()  # redraw the buttons for the last step
    draw(step)
    st.markdown(
        t(k("tr.full"), text=detokenize_zh(zh(ar.strip_eos(dec.ids))) or "∅", n=len(dec.ids))
    )
    st.success(t(k("tr.takeaway")), icon=":material/check_circle:")
    try_this("tr")


def _on_fpos() -> None:
    st.query_params["fpos"] = str(st.session_state["ar_fpos"])
    st.query_params.pop("ftok", None)  # the alternatives differ at another position


def _on_ftok() -> None:
    st.query_params["ftok"] = zh([st.session_state["ar_ftok"]])[0]


def alternatives(dec: ar.Decoded, pos: int) -> list[int]:
    """The words the model considered at step ``pos`` (1-based) besides its own choice."""
    step = dec.steps[pos - 1]
    return [i for i in step.top_ids if i != step.chosen and i not in (0, 1, 3)]  # no PAD/BOS/UNK


@st.fragment  # its controls rerun only this screen
def wrong_part() -> None:
    name = pick_translator()
    if not require(name):
        return
    source = read_source()
    if source is None:
        return
    _, tv = get_vocabs()
    base = _translate(name, tuple(source))
    n = len(base.ids)
    out = zh(base.ids)
    fpos = ui.params.get_int("fpos", 1, max_output_len(len(source) + 1), min(2, n))
    fpos = min(fpos, n)
    options = alternatives(base, fpos)
    raw_tok = ui.params.get_text("ftok", "", max_len=40) if st.query_params.get("ftok") else ""
    forced = next((i for i in options if tv.tokens[i] == raw_tok), None)
    if raw_tok and forced is None:
        ui.params.notice("ftok", raw_tok, tv.tokens[options[0]])
    forced = options[0] if forced is None else forced

    c1, c2 = st.columns(2)
    st.session_state["ar_fpos"] = fpos
    fpos = c1.selectbox(
        t(k("wrong.pos")),
        list(range(1, n + 1)),
        format_func=lambda i: f"{i}: {out[i - 1]}",
        key="ar_fpos",
        on_change=_on_fpos,
    )
    options = alternatives(base, fpos)
    if forced not in options:
        forced = options[0]
    probs = dict(zip(base.steps[fpos - 1].top_ids, base.steps[fpos - 1].top_probs))
    st.session_state["ar_ftok"] = forced
    forced = c2.selectbox(
        t(k("wrong.token")),
        options,
        format_func=lambda i: f"{zh([i])[0]} ({probs[i]:.1%})",
        key="ar_ftok",
        on_change=_on_ftok,
    )
    ui.params.set_params(fpos=fpos, ftok=zh([forced])[0])
    new = _translate(name, tuple(source), (*base.ids[: fpos - 1], forced))
    new_out = zh(new.ids)

    def row(tokens: list[str], ref: list[str], mark: int | None) -> str:
        cells = []
        for i, tok in enumerate(tokens):
            tok = tok.replace("[", "(").replace("]", ")")
            if i == mark:
                cells.append(f":orange-background[**{tok}**]")
            elif i >= fpos and (i >= len(ref) or ref[i] != tok):
                cells.append(f":red[**{tok}**]")
            else:
                cells.append(tok)
        return " ".join(cells)

    st.markdown(f"{t(k('wrong.before'))}  \n### {row(out, out, None)}")
    st.markdown(f"{t(k('wrong.after'))}  \n### {row(new_out, out, fpos - 1)}")
    later = max(len(out), len(new_out)) - fpos
    changed = sum(
        1
        for i in range(fpos, max(len(out), len(new_out)))
        if i >= len(out) or i >= len(new_out) or out[i] != new_out[i]
    )
    st.caption(
        t(
            k("wrong.changed"),
            changed=changed,
            later=max(later, 0),
            pos=fpos,
            token=zh([forced])[0],
            model=name,
        )
    )

    st.subheader(t(k("wrong.stat.header")))
    with st.spinner(t(k("wrong.stat.spinner"), n=WRONG_SAMPLE)):
        res = _wrong_stats(name, _corpus_seed())
    if res.n_correct == 0:
        st.warning(t(k("wrong.stat.none"), model=name))
    else:
        fig = figs.wrong_step_chart(
            res.positions,
            {t(k("wrong.stat.exact")): res.rest_exact, t(k("wrong.stat.edit")): res.rest_edit},
            title=t(k("wrong.stat.title"), model=name, n=res.n_correct),
            x_title=t(k("wrong.stat.x")),
            y_title=t(k("wrong.stat.y")),
            presenter=P,
        )
        ui.chart(fig, key="ar_wrong_chart")
        st.caption(
            t(
                k("wrong.stat.caption"),
                sampled=res.n_sentences,
                lo=WRONG_LENGTHS[0],
                hi=WRONG_LENGTHS[1],
                correct=res.n_correct,
                model=name,
                counts=", ".join(f"{p + 1}: {c}" for p, c in zip(res.positions, res.n)),
            )
        )
    st.success(t(k("wrong.takeaway")), icon=":material/check_circle:")
    try_this("wrong")


@st.fragment  # its controls rerun only this screen
def cost_part() -> None:
    if not require(LM):
        return
    st.button(t(k("cost.again")), icon=":material/timer:", key="ar_cost_again")
    with st.spinner(t(k("cost.spinner"))):
        timing = ar.time_generation(get_model(LM), TIMING_LENGTHS, repeats=5)
    per_token = timing.generate_ms[-1] / timing.lengths[-1]
    c1, c2 = st.columns(2)
    c1.metric(t(k("cost.per_token")), f"{per_token:.2f} ms")
    c2.metric(
        t(k("cost.ratio"), n=timing.lengths[-1]),
        f"{timing.generate_ms[-1] / max(timing.read_ms[-1], 1e-6):.0f}×",
    )
    fig = figs.timing_chart(
        timing.lengths,
        {t(k("cost.write")): timing.generate_ms, t(k("cost.read")): timing.read_ms},
        title=t(k("cost.title"), model=LM),
        x_title=t(k("cost.x")),
        y_title=t(k("cost.y")),
        presenter=P,
    )
    ui.chart(fig, key="ar_cost_chart")
    st.caption(t(k("cost.caption"), model=LM, repeats=timing.repeats))
    st.success(t(k("cost.takeaway")), icon=":material/check_circle:")
    try_this("cost")


@st.fragment  # its controls rerun only this screen
def ngram_part() -> None:
    if not require(LM):
        return
    seed = _corpus_seed()
    with st.spinner(t(k("ngram.spinner"))):
        stats = _ngram_stats(seed)
    fig = figs.ngram_growth_chart(
        stats.n,
        {
            t(k("ngram.possible")): stats.possible,
            t(k("ngram.seen")): stats.seen,
            t(k("ngram.tokens")): [stats.train_tokens] * len(stats.n),
        },
        title=t(k("ngram.growth.title"), v=stats.vocab),
        x_title=t(k("ngram.x")),
        y_title=t(k("ngram.growth.y")),
        presenter=P,
    )
    ui.chart(fig, key="ar_ngram_growth")
    st.caption(
        t(
            k("ngram.growth.caption"),
            v=stats.vocab,
            tokens=f"{stats.train_tokens:,}",
            n=stats.n[-1],
            seen=f"{stats.seen[-1]:,}",
            possible=f"{stats.possible[-1]:.1e}",
        )
    )
    fig = figs.unseen_chart(
        stats.n,
        stats.test_unseen,
        title=t(k("ngram.unseen.title")),
        x_title=t(k("ngram.x")),
        y_title=t(k("ngram.unseen.y")),
        presenter=P,
    )
    ui.chart(fig, key="ar_ngram_unseen")
    st.caption(t(k("ngram.unseen.caption"), windows=f"{stats.test_windows[0]:,}"))

    st.subheader(t(k("ngram.compare")))
    prefix = read_prefix()
    if prefix is None:
        return
    order = ui.params.get_int("n", 2, 5, 3)
    order = st.select_slider(
        t(k("ngram.order")), [2, 3, 4, 5], **ui.params.bound("n", order, key="ar_n")
    )
    ui.params.set_params(n=order)
    table = _ngram_table(seed)
    counted = ngram.ngram_continue(table, prefix, order, MAX_NEW)
    shown = {"<eos>": EOS_SHOW, "<bos>": BOS_SHOW}
    neural = _lm_run(tuple(prefix), "greedy", 1.0, 0, 0)
    left, right = st.columns(2)
    with left:
        st.markdown(f"**{t(k('ngram.model'), n=order)}**")
        big(marked([*prefix, *(shown.get(s.word, s.word) for s in counted)], len(prefix), None))
        show_table(
            [t(k(f"ngram.col.{c}")) for c in ("context", "next", "count")],
            [
                [
                    " ".join(shown.get(c, c) for c in s.context) or "∅",
                    shown.get(s.word, s.word),
                    f"{s.count} / {s.total}",
                ]
                for s in counted
            ],
        )
    with right:
        st.markdown(f"**{t(k('ngram.neural'), model=LM)}**")
        lm_words = en([s.chosen for s in neural])
        big(marked([*prefix, *lm_words], len(prefix), None))
        show_table(
            [t(k("ngram.col.next")), t(k("lm.col.p"))],
            [[w, f"{s.chosen_prob:.1%}"] for w, s in zip(lm_words, neural)],
        )
    params = get_manifest().get("models", {}).get(LM, {}).get("params")
    st.caption(
        t(
            k("ngram.size"),
            n=order,
            entries=f"{stats.seen[order - 1]:,}",
            params=f"{params:,}" if isinstance(params, int) else "?",
            model=LM,
        )
    )
    st.success(t(k("ngram.takeaway")), icon=":material/check_circle:")
    try_this("ngram")


PART_VIEWS = {
    "lm": lm_part,
    "translate": translate_part,
    "wrong": wrong_part,
    "cost": cost_part,
    "ngram": ngram_part,
}
PART_VIEWS[part]()
