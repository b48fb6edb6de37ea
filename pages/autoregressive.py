"""Autoregressive generation (lesson 1.2–1.3, 1.6): one token at a time, each fed back in.

Four parts, one idea each: step through a language model; the same for translation with
the attention row of each step; force one plausible wrong word ("一步错步步错", and how often
the model recovers); the serial cost of writing. (Counting n-grams is on the compression
page.)
"""

from __future__ import annotations

import random
import time

import streamlit as st

import ui
from core import corpus, lexicon
from core import mdtable as md
from core.analysis import autoregressive as ar
from core.evaluate import max_output_len
from core.figures import autoregressive as figs
from core.translate import InputError, prepare
from core.vocab import detokenize_zh, tokenize_en
from ui.models import get_manifest, get_model, get_vocabs, require

SLUG = "autoregressive"
BOS_SHOW = lexicon.show_token("<bos>")  # special tokens in their one display spelling
ui.begin_page(SLUG)
t = ui.t
P = ui.presenter()


def k(key: str) -> str:
    return f"{SLUG}.{key}"


PARTS = ("lm", "translate", "wrong", "cost")
MODES = ar.MODES
TRANSLATORS = ("gru_attention", "transformer")
LM = "lm_gru"
MAX_NEW = 12  # tokens the language model may add
K_SHOW = 8  # alternatives shown per step
DEFAULT_PREFIX = "you should"
DEFAULT_SOURCE = "the cat drank the milk because it was hungry"
SLIP_LENGTHS = (4, 12)  # source lengths searched for the default slip (fits on a slide)
WRONG_SAMPLE = 120  # held-out sentences in the "one wrong step" statistic
WRONG_POSITIONS = (0, 1, 2, 4, 8)  # output positions where a wrong token is forced
WRONG_LENGTHS = (8, 16)  # source lengths of the sampled sentences
TIMING_LENGTHS = (4, 8, 16, 32, 64)


# --- cached computation -----------------------------------------------------------------------


@st.cache_resource(show_spinner=False)
def _splits(seed: int) -> corpus.Splits:
    return corpus.shared_splits(seed)  # one copy per process, warmed up in the background


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


@st.cache_data(show_spinner=False, max_entries=4)
def _slip(name: str, seed: int) -> tuple[str, int, str, float, int] | None:
    """The default of "one wrong step", searched once from the model (see ar.find_slip):
    (English sentence, 1-based step, forced Chinese word, its probability, later edits)."""
    sv, tv = get_vocabs()
    lo, hi = SLIP_LENGTHS
    pool = [p for p in _splits(seed).test if lo <= len(p.src) <= hi]
    slip = ar.find_slip(
        get_model(name),
        [sv.encode(p.src, eos=True) for p in pool],
        [tv.encode(p.tgt) for p in pool],
    )
    if slip is None:
        return None
    src = " ".join(pool[slip.index].src)
    return src, slip.pos + 1, tv.tokens[slip.token], slip.prob, slip.edits


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


def part_end(key: str) -> None:
    """The part's takeaway and "try this", in the app's one style."""
    ui.takeaway(t(k(f"{key}.takeaway")))
    ui.try_this(t(k(f"{key}.try")))


# --- the page ---------------------------------------------------------------------------------

part = ui.part_selector(k(""), PARTS, key="ar_part")


def zh(ids) -> list[str]:
    """Chinese tokens of output ids, special tokens in their one display spelling."""
    _, tv = get_vocabs()
    return lexicon.show_tokens(tv.tokens[i] for i in ids)


def en(ids) -> list[str]:
    """English tokens of language-model ids, special tokens in their one display spelling."""
    sv, _ = get_vocabs()
    return lexicon.show_tokens(sv.tokens[i] for i in ids)


def read_text(
    name: str, default: str, label: str, key: str, resets: tuple[str, ...], errors
) -> list[str] | None:
    """An English text box (in the current container) read as model tokens; ``[]`` for an
    empty text, ``None`` after explaining the problem in ``errors`` (above the controls)."""
    text = text_param(name, default, label, key, resets)
    if not tokenize_en(text):
        return []
    sv, _ = get_vocabs()
    try:
        return prepare(text, sv)
    except InputError as err:
        with errors:
            input_error(err)
        return None


def pick_translator() -> str:
    name = ui.params.get_choice("model", TRANSLATORS, "gru_attention")
    name = st.segmented_control(
        t(k("tr.model")),
        TRANSLATORS,
        format_func=ui.model_name,
        required=True,
        **ui.params.bound("model", name, key="ar_model"),
    )
    ui.params.set_params(model=name)
    return name


@st.fragment  # its controls rerun only this part
def lm_part() -> None:
    s = ui.slide(t(k("lm.lead")))
    if not require(LM):
        return
    with s.more:
        prefix = read_text(
            "prefix", DEFAULT_PREFIX, t(k("lm.prefix")), "ar_prefix", ("step",), s.chart
        )
        if prefix is None:
            return
        if not prefix:
            st.caption(t(k("input.empty_prefix")))
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
    with s.control:
        step, play = stepper("step", len(steps))
    # Placeholders that Play redraws in place; otherwise plain containers, so a rerun
    # updates the chart instead of replacing the whole block (a remount costs the browser).
    slot = st.empty if play else st.container
    with s.chart:
        view = slot()
    with s.words:
        record = slot()
    model = ui.model_name(LM)

    def draw(n: int) -> None:
        s_ = steps[n - 1]
        chosen = en([s_.chosen])[0]
        read = en(s_.context)
        with view.container():
            tokens = en(s_.top_ids)
            idx = s_.top_ids.index(s_.chosen) if s_.chosen in s_.top_ids else None
            what = t(k(f"lm.dist.{mode}"), temp=f"{temp:.1f}", topk=topk or t(k("lm.all")))
            fig = figs.next_token_bars(
                tokens,
                s_.top_probs,
                idx,
                title=t(k("lm.chart.title"), model=model, context=" ".join(read[-6:])),
                x_title=what,
                y_title=t(k("lm.chart.y"), k=len(tokens)),
                presenter=P,
                color=lexicon.look(LM).color,
            )
            ui.chart(fig, key=f"ar_lm_chart_{n}_{time.monotonic_ns()}" if play else "ar_lm_chart")
            big(
                t(k("lm.step_of"), step=n, total=len(steps))
                + " · "
                + marked([*read, chosen], len(prefix) + 1, len(read))
            )
        header = [t(k(f"lm.col.{c}")) for c in ("step", "read", "chose", "p")]
        rows = [
            [i, " ".join(en(r.context)), en([r.chosen])[0], f"{r.chosen_prob:.1%}"]
            for i, r in enumerate(steps[:n], 1)
        ]
        with record.container():
            st.caption(
                t(k("lm.chose"), token=chosen, p=f"{s_.chosen_prob:.1%}")
                + " "
                + t(k(f"lm.caption.{mode}"), seed=seed, model=model)
            )
            st.markdown(f"**{t(k('lm.record'))}**")
            show_table(header, rows)

    if play:
        for n in range(step, len(steps) + 1):
            draw(n)
            time.sleep(0.7)
        ui.params.set_params(step=len(steps))
        st.rerun()  # redraw the buttons for the last step
    draw(step)
    part_end("lm")
    expected = (get_manifest().get("models", {}).get(LM, {}).get("metrics") or {}).get("you_should")
    with ui.curious():
        st.markdown(t(k("lm.curious"), model=model))
        if expected:
            shown = " ".join(lexicon.show_tokens(expected))
            st.markdown(t(k("lm.recorded"), tokens=shown, model=model))


@st.fragment  # its controls rerun only this part
def translate_part() -> None:
    s = ui.slide(t(k("tr.lead")))
    with s.more:
        name = pick_translator()
        if not require(name):
            return
        source = read_text("src", DEFAULT_SOURCE, t(k("tr.source")), "ar_src", ("tstep",), s.chart)
    if not source:
        if source == []:
            with s.chart:
                st.error(t(k("input.empty")))
        return
    model = ui.model_name(name)
    color = lexicon.look(name).color
    dec = _translate(name, tuple(source))
    with s.control:
        step, play = stepper("tstep", len(dec.ids))
    with s.chart:
        view = (st.empty if play else st.container)()  # see lm_part
    src_labels = [*source, lexicon.EOS]

    def draw(n: int) -> None:
        s_ = dec.steps[n - 1]
        out = zh(dec.ids)
        with view.container():
            left, right = st.columns(2)
            with left:
                fig = figs.next_token_bars(
                    zh(s_.top_ids),
                    s_.top_probs,
                    s_.top_ids.index(s_.chosen) if s_.chosen in s_.top_ids else None,
                    title=t(k("tr.chart.title"), model=model, step=n),
                    x_title=t(k("tr.chart.x")),
                    y_title=t(k("tr.chart.y"), k=len(s_.top_ids)),
                    presenter=P,
                    color=color,
                )
                key = f"ar_tr_bars_{time.monotonic_ns()}" if play else "ar_tr_bars"
                ui.chart(fig, key=key, width=0.5)
            with right:
                if dec.attention is not None:
                    fig = figs.attention_row(
                        src_labels,
                        dec.attention[n - 1],
                        title=t(k("tr.attn.title"), model=model, token=out[n - 1]),
                        x_title=t(k("tr.attn.x")),
                        y_title=t(k("tr.attn.y")),
                        presenter=P,
                        color=color,
                    )
                    key = f"ar_tr_attn_{time.monotonic_ns()}" if play else "ar_tr_attn"
                    ui.chart(fig, key=key, width=0.5)
                else:
                    st.caption(t(k("tr.no_attention"), model=model))
            big(
                t(k("tr.step_of"), step=n, total=len(dec.ids))
                + " · "
                + marked([BOS_SHOW, *out[:n]], 1, n, sep=" ")
            )

    if play:
        for n in range(step, len(dec.ids) + 1):
            draw(n)
            time.sleep(0.7)
        ui.params.set_params(tstep=len(dec.ids))
        st.rerun()  # redraw the buttons for the last step
    draw(step)
    with s.words:
        st.caption(t(k("tr.caption"), model=model))
        text = detokenize_zh(zh(ar.strip_eos(dec.ids))) or "∅"
        st.markdown(t(k("tr.full"), text=text, n=len(dec.ids)))
    part_end("tr")
    with ui.curious():
        st.markdown(t(k("tr.curious")))


def _on_fpos() -> None:
    st.query_params["fpos"] = str(st.session_state["ar_fpos"])
    st.query_params.pop("ftok", None)  # the alternatives differ at another position


def _on_ftok() -> None:
    st.query_params["ftok"] = zh([st.session_state["ar_ftok"]])[0]


def alternatives(dec: ar.Decoded, pos: int) -> list[int]:
    """The words the model considered at step ``pos`` (1-based) besides its own choice."""
    step = dec.steps[pos - 1]
    return [i for i in step.top_ids if i != step.chosen and i not in (0, 1, 3)]  # no PAD/BOS/UNK


def sentence_row(tokens: list[str], mark: int | None, new: tuple[int, ...] = ()) -> str:
    """One output as a big markdown line: the forced word orange, new later words red."""
    cells = []
    for i, tok in enumerate(tokens):
        tok = tok.replace("[", "(").replace("]", ")")
        if i == mark:
            cells.append(f":orange-background[**{tok}**]")
        elif i in new:
            cells.append(f":red[**{tok}**]")
        else:
            cells.append(tok)
    return "### " + " ".join(cells)


@st.fragment  # its controls rerun only this part
def wrong_part() -> None:
    s = ui.slide(t(k("wrong.lead")))
    with s.more:
        name = pick_translator()
    if not require(name, "gru_attention"):
        return
    seed = _corpus_seed()
    with s.chart, st.spinner(t(k("wrong.searching"))):
        slip = _slip("gru_attention", seed)  # the default model's clearest plausible slip
    default_src, default_pos, default_tok = (
        (slip[0], slip[1], slip[2]) if slip else (DEFAULT_SOURCE, 2, "")
    )
    with s.more:
        source = read_text(
            "wsrc", default_src, t(k("tr.source")), "ar_wsrc", ("fpos", "ftok"), s.chart
        )
    if not source:
        if source == []:
            with s.chart:
                st.error(t(k("input.empty")))
        return
    _, tv = get_vocabs()
    model = ui.model_name(name)
    base = _translate(name, tuple(source))
    n = len(base.ids)
    out = zh(base.ids)
    own_default = " ".join(source) == default_src
    fpos = ui.params.get_int(
        "fpos", 1, max_output_len(len(source) + 1), default_pos if own_default else min(2, n)
    )
    fpos = min(fpos, n)
    options = alternatives(base, fpos)
    raw_tok = ui.params.get_text("ftok", "", max_len=40) if st.query_params.get("ftok") else ""
    forced = next((i for i in options if tv.tokens[i] == raw_tok), None)
    if raw_tok and forced is None:
        ui.params.notice("ftok", raw_tok, tv.tokens[options[0]])
    if forced is None and own_default:
        forced = next((i for i in options if tv.tokens[i] == default_tok), None)
    forced = options[0] if forced is None else forced

    with s.control:
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
    edits, fresh = ar.later_changes(base.ids, new.ids, fpos - 1)
    later = max(len(base.ids), len(new.ids)) - fpos

    with st.spinner(t(k("wrong.stat.spinner"), n=WRONG_SAMPLE)):
        res = _wrong_stats(name, seed)
    with s.chart:
        left, right = st.columns([5, 4])
        with left:
            st.markdown(t(k("wrong.before")))
            st.markdown(sentence_row(out, None))
            st.markdown(t(k("wrong.after")))
            st.markdown(sentence_row(zh(new.ids), fpos - 1, fresh))
            st.markdown(
                t(
                    k("wrong.changed"),
                    changed=edits,
                    later=max(later, 0),
                    pos=fpos,
                    token=zh([forced])[0],
                    p=f"{probs[forced]:.1%}",
                    model=model,
                )
            )
        with right:
            if res.n_correct == 0:
                st.warning(t(k("wrong.stat.none"), model=model))
            else:
                fig = figs.wrong_step_chart(
                    res.positions,
                    {
                        t(k("wrong.stat.exact")): res.rest_exact,
                        t(k("wrong.stat.edit")): res.rest_edit,
                    },
                    title=t(k("wrong.stat.title"), model=model, n=res.n_correct),
                    x_title=t(k("wrong.stat.x")),
                    y_title=t(k("wrong.stat.y")),
                    presenter=P,
                )
                ui.chart(fig, key="ar_wrong_chart", width=0.45)
    with s.words:
        if res.n_correct:
            lo, hi = min(res.rest_exact), max(res.rest_exact)
            ui.mixed(t(k("wrong.mixed"), model=model, lo=f"{lo:.0%}", hi=f"{hi:.0%}"))
    part_end("wrong")
    with ui.curious():
        if slip:
            st.markdown(
                t(
                    k("wrong.search"),
                    threshold=f"{ar.SLIP_THRESHOLD:.0%}",
                    lo=SLIP_LENGTHS[0],
                    hi=SLIP_LENGTHS[1],
                    model=ui.model_name("gru_attention"),
                    src=slip[0],
                    pos=slip[1],
                    token=slip[2],
                    p=f"{slip[3]:.1%}",
                    edits=slip[4],
                )
            )
        st.markdown(
            t(
                k("wrong.stat.caption"),
                sampled=res.n_sentences,
                lo=WRONG_LENGTHS[0],
                hi=WRONG_LENGTHS[1],
                correct=res.n_correct,
                model=model,
                counts=", ".join(f"{p + 1}: {c}" for p, c in zip(res.positions, res.n)),
            )
        )


@st.fragment  # its controls rerun only this part
def cost_part() -> None:
    s = ui.slide(t(k("cost.lead")))
    if not require(LM):
        return
    model = ui.model_name(LM)
    with s.control:
        st.button(t(k("cost.again")), icon=":material/timer:", key="ar_cost_again")
    with s.chart, st.spinner(t(k("cost.spinner"))):
        timing = ar.time_generation(get_model(LM), TIMING_LENGTHS, repeats=5)
    fig = figs.timing_chart(
        timing.lengths,
        {t(k("cost.write")): timing.generate_ms, t(k("cost.read")): timing.read_ms},
        title=t(k("cost.title"), model=model),
        x_title=t(k("cost.x")),
        y_title=t(k("cost.y")),
        presenter=P,
    )
    with s.chart:
        ui.chart(fig, key="ar_cost_chart")
    n_half, n_full = timing.lengths[-2], timing.lengths[-1]
    per_token = timing.generate_ms[-1] / n_full
    with s.words:
        c1, c2, c3 = st.columns(3)
        c1.metric(t(k("cost.per_token")), f"{per_token:.2f} ms")
        c2.metric(
            t(k("cost.ratio"), n=n_full),
            f"{timing.generate_ms[-1] / max(timing.read_ms[-1], 1e-6):.0f}×",
        )
        c3.metric(
            t(k("cost.double"), a=n_half, b=n_full),
            f"{timing.generate_ms[-1] / max(timing.generate_ms[-2], 1e-6):.1f}×",
        )
    part_end("cost")
    with ui.curious():
        st.markdown(t(k("cost.caption"), model=model, repeats=timing.repeats))


PART_VIEWS = {
    "lm": lm_part,
    "translate": translate_part,
    "wrong": wrong_part,
    "cost": cost_part,
}
PART_VIEWS[part]()
