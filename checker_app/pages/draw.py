"""Streamlit drawing shared by the pages: the sidebar, readings side by side, verdicts, the wizard.

Only drawing and wiring lives here; every decision is made in `checker_app.ui` (tested without
streamlit). Buttons record an intent in the session (callbacks) and the page script carries it out at the
top of the next run, so a result never appears one click late and nothing needs a page reload.
"""
from __future__ import annotations

import datetime as dt
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from adapters import Database, Limits
from checker_app.pipeline import CheckOptions
from checker_app.report import ReadingResult, Report, plain
from checker_app.ui import charts, display, exports, highlight, intents
from checker_app.ui.config import AppConfig, load_config, passwords_of, redact
from checker_app.ui.progress import track_all
from checker_app.ui.sidebar import ConnectionStatus, connection_health, profile_age_text, schema_summary

STATUS_ICON = {"ok": ":green[:material/check_circle:]", "error": ":red[:material/error:]",
               "timeout": ":orange[:material/timer_off:]", "rejected": ":red[:material/block:]"}
SMALL_TABLE = 25  # results up to this many rows are plain tables; longer ones get the scrolling grid
VERDICT_BOX = {"material": st.error, "benign": st.warning, "clear": st.success, "unanswered": st.info,
               "anchored": st.success, "same": st.success}


# -- connections (cached across sessions) -------------------------------------------------------

def _warm(databases: list[Database]) -> None:
    """Introspect and profile every connection in the background, so the first question is fast."""
    from checker_app.profiles import load_profile

    for db in databases:
        try:
            load_profile(db)
        except Exception:  # noqa: BLE001 - a down engine is reported by health and by the check
            pass


@st.cache_resource(show_spinner="Connecting…")
def open_databases(db_values: tuple[str, ...], timeout_s: float, max_rows: int) -> list[Database]:
    from checker_app.settings import databases_from_options

    databases = databases_from_options(list(db_values), Limits(time_limit_s=timeout_s, row_cap=max_rows))
    threading.Thread(target=_warm, args=(databases,), daemon=True, name="checker-warm").start()
    return databases


@st.cache_data(ttl=30, show_spinner=False)
def health(db_values: tuple[str, ...], timeout_s: float, max_rows: int, _nonce: int = 0) -> list[ConnectionStatus]:
    databases = open_databases(db_values, timeout_s, max_rows)
    return connection_health(databases, passwords_of(db_values))


def _secrets() -> dict[str, Any]:
    try:
        return st.secrets.to_dict()
    except Exception:  # noqa: BLE001 - no secrets.toml (or an unreadable one) means no secrets
        return {}


@dataclass
class Context:
    """What a page run works with: the configured and the selected connections, and the options."""

    config: AppConfig
    all_databases: list[Database]
    databases: list[Database]
    options: CheckOptions
    secrets: list[str] = field(default_factory=list)
    problem: str | None = None
    examples: tuple[str, ...] = display.EXAMPLES
    examples_from_schema: bool = False

    def say(self, text: Any) -> str:
        """Text safe to show: every configured password scrubbed."""
        return redact(str(text), self.secrets)


# a verdict bullet that wraps reads as a list item: left-aligned, its arrow at the top; a reading's answer
# (st.metric, which cuts its value to one line with "…") wraps instead: a relative change, a series' range or
# a tie is the answer, and two readings side by side leave half the width
PAGE_CSS = """<style>
[class*="st-key-pick_"] button { justify-content: flex-start; text-align: left; align-items: flex-start; }
[class*="st-key-pick_"] button p { text-align: left; }
[data-testid="stMetricValue"] { font-size: 1.9rem; line-height: 1.25; }
[data-testid="stMetricValue"] > div, [data-testid="stMetricValue"] p { white-space: normal; overflow: visible;
  text-overflow: clip; overflow-wrap: break-word; }
</style>"""


def setup() -> Context:
    """Configuration, connections and the sidebar; every page calls this first."""
    config = load_config(os.environ, _secrets())
    secrets = passwords_of(config.db_values)
    problem = None
    try:
        all_databases = open_databases(config.db_values, config.timeout_s, config.max_rows)
    except Exception as err:  # noqa: BLE001 - bad configuration: shown, with the demo database instead
        problem = redact(f"configured connections unusable ({type(err).__name__}: {err})", secrets)
        all_databases = open_databases((), config.timeout_s, config.max_rows)
    profile = Path(config.profile) if config.profile else None  # `serve --profile`: the words it teaches, read here too
    ctx = Context(config, all_databases, all_databases, CheckOptions(limits=config.limits, profile_overrides=profile),
                  secrets, problem)
    st.html(PAGE_CSS)
    sidebar(ctx)
    ctx.examples = examples(tuple(db.name for db in ctx.databases), config.db_values if not problem else (),
                            config.timeout_s, config.max_rows, config.profile)
    ctx.examples_from_schema = ctx.examples != display.EXAMPLES
    return ctx


@st.cache_data(ttl=600, show_spinner=False)
def examples(names: tuple[str, ...], db_values: tuple[str, ...], timeout_s: float, max_rows: int,
             profile: str | None = None) -> tuple[str, ...]:
    """Example questions for the first selected connection's schema (the articles' own on the demo data)."""
    from checker_app.profiles import load_profile

    databases = [db for db in open_databases(db_values, timeout_s, max_rows) if db.name in names]
    for db in databases:
        try:
            return display.examples_for([load_profile(db, Path(profile) if profile else None)])
        except Exception:  # noqa: BLE001 - a down engine: try the next one
            continue
    return display.EXAMPLES


def with_progress(title: str, databases: Sequence[Database], work: Callable[[list[Database]], None]) -> None:
    """Run `work` on tracked connections in a worker thread, showing which engines have answered and which
    are still running until it is done."""
    tracked, progress = track_all(databases)
    done = threading.Event()
    failure: list[BaseException] = []

    def target() -> None:
        try:
            work(tracked)
        except BaseException as err:  # noqa: BLE001 - re-raised in the page's thread
            failure.append(err)
        finally:
            done.set()

    worker = threading.Thread(target=target, daemon=True, name="checker-check")
    slot = st.empty()  # gone once the work is done: the results take its place
    with slot.container(), st.status(f"{title}…", expanded=True):
        placeholder = st.empty()
        worker.start()
        while not done.wait(0.25):
            placeholder.markdown("  \n".join(f"- {highlight.md(line)}" for line in progress.lines()))
    slot.empty()
    if failure:
        raise failure[0]


# -- sidebar ----------------------------------------------------------------------------------

def sidebar(ctx: Context) -> None:
    names = [db.name for db in ctx.all_databases]
    with st.sidebar:
        st.header("Connections")
        source = {"--db": "from --db", "demo command": "seeded by the demo command", "secrets": "from .streamlit/secrets.toml",
                  "demo": "embedded demo database"}
        st.caption(source.get(ctx.config.source, ctx.config.source))
        for problem in [*ctx.config.problems, *([ctx.problem] if ctx.problem else [])]:
            st.warning(ctx.say(problem))
        nonce = st.session_state.get("health_nonce", 0)
        statuses = health(ctx.config.db_values if not ctx.problem else (), ctx.config.timeout_s,
                          ctx.config.max_rows, nonce)
        for status in statuses:
            icon = ":green[:material/check_circle:]" if status.ok else ":red[:material/cancel:]"
            line = f"{icon} **{status.name}** · {status.backend} · `{status.where}`"
            st.markdown(line if status.ok else f"{line}  \n{ctx.say(status.message)}")
        st.button("Recheck connections", key="recheck_health", on_click=_bump_health)
        if len(names) > 1:
            wanted = [n for n in st.query_params.get("db", "").split(",") if n in names] or names
            chosen = st.multiselect("Run on", names, default=wanted, key="db_choice")
            ctx.databases = [db for db in ctx.all_databases if db.name in chosen] or ctx.all_databases
        st.header("Limits")
        timeout = st.number_input("Time limit per statement (s)", min_value=0.01, max_value=600.0,
                                  value=min(max(float(ctx.config.timeout_s), 0.01), 600.0), step=1.0,
                                  key="limit_timeout")
        max_rows = st.number_input("Row cap", min_value=1, max_value=1_000_000,
                                   value=min(max(int(ctx.config.max_rows), 1), 1_000_000), step=100, key="limit_rows")
        as_of = st.date_input("As of (empty: the latest date in the data)", value=None, key="as_of",
                              help="Anchor for relative windows such as 'last quarter'. Empty: the latest date "
                                   "in the data.")
        ctx.options = CheckOptions(limits=Limits(time_limit_s=float(timeout), row_cap=int(max_rows)),
                                   profile_overrides=ctx.options.profile_overrides,
                                   as_of=as_of if isinstance(as_of, dt.date) else None)
        st.header("Schema")
        down = {status.name for status in statuses if not status.ok}
        for db in ctx.databases:
            with st.expander(f"{db.name} ({db.backend})"):
                if db.name in down:  # do not wait for a dead server's connect timeout on every click
                    st.caption("schema unavailable: the connection is down (Recheck connections)")
                    continue
                try:
                    tables = schema_summary(db)
                except Exception as err:  # noqa: BLE001 - a down engine has no schema to show
                    st.caption(ctx.say(f"schema unavailable: {err}"))
                    continue
                for table in tables:
                    columns = ", ".join(f"{highlight.md(name)} ({highlight.md(kind.lower())})"
                                        for name, kind in table.columns)
                    st.markdown(f"**{highlight.md(table.name)}** · {table.row_count:,} rows  \n{columns}")
                if age := profile_age_text(db):
                    st.caption(age)


def _bump_health() -> None:
    st.session_state["health_nonce"] = st.session_state.get("health_nonce", 0) + 1


# -- reports ----------------------------------------------------------------------------------

def verdict(view: display.VerdictView, items: Sequence[ReadingResult] = (), key: str = "main",
            clickable: bool = False, report: Report | None = None) -> None:
    """The verdict in stakeholder words, then each reading's answer as a bullet; while a clarification is
    pending each bullet is a button that answers it with that reading (the first results on the page). A
    partial verdict (`report` given) says first which words were not read and offers what was meant."""
    with st.container(key=f"verdict_{key}"):
        VERDICT_BOX.get(view.kind, st.info)(f"**{view.headline}**  \n{view.detail}")
        if report is not None:
            ignored = [i for i in _understood(report).get("ignored") or [] if isinstance(i, dict)]
            # the question once, with its evidence marked and the words not read struck through (archetypes()
            # below does not quote it again)
            st.markdown(f"> {highlight.highlighted_html(report.question, report.archetypes, ignored)}",
                        unsafe_allow_html=True)
            not_understood(report, key)
            if items and not clickable:
                st.caption("What the readings answer without those words:")
        glance = display.at_a_glance(items) if len(items) > 1 else []
        if clickable and glance and report is not None:
            # a partial verdict: no bullet answers the whole question, so none is offered as what was meant
            st.caption("What the readings answer without those words (none answers the whole question); a click "
                       "anchors the SQL on one.")
        elif clickable and glance:
            st.caption("Which one did you mean? Click it to anchor the SQL on that reading (or answer step by "
                       "step below).")
        for n, (label, name, measure) in enumerate(glance):
            text = f"{highlight.md(label)}: **{highlight.md(name)}**" + (f" · {highlight.md(measure)}" if measure else "")
            if clickable:
                st.button(text, key=f"pick_{key}_{n}", on_click=queue, args=(intents.Pick(items[n].id),), type="tertiary",
                          icon=":material/arrow_right:")
            else:
                st.markdown(f"- {text}")
        if len(items) > len(glance) > 0:
            st.markdown(f"- … {len(items) - len(glance)} more readings below")


def _understood(report: Report) -> dict[str, Any]:
    return report.understood.model_dump()


def archetypes(report: Report, key: str = "main", with_ignored: bool = True) -> None:
    """The question with the evidence marked and the ignored words struck through, then each archetype's
    ask and reason, and (unless the verdict said it already) for each ignored word why, with a way to say
    what was meant. When the verdict said the ignored words (`with_ignored` False), it quoted the question
    too: it is not quoted twice."""
    ignored = [i for i in _understood(report).get("ignored") or [] if isinstance(i, dict)]
    if with_ignored:
        st.markdown(f"> {highlight.highlighted_html(report.question, report.archetypes, ignored)}",
                    unsafe_allow_html=True)
    palette = highlight.colours(report.archetypes)
    for archetype in report.archetypes:
        aid = highlight.archetype_id(archetype)
        swatch = (f'<span style="background:{palette[aid]};color:#111;padding:0 .4em;border-radius:.25em">'
                  f"{highlight.md(display.archetype_name(aid))}</span>")
        evidence = highlight.md(display.evidence_words(archetype.evidence, report.question))
        ask, reason = highlight.md(archetype.ask), highlight.md(archetype.reason)
        st.markdown(f"{swatch} on {evidence}: **{ask}**  \n<small>Why: {reason}</small>", unsafe_allow_html=True)
    if with_ignored:
        not_understood(report, key)


def not_understood(report: Report, key: str = "main") -> None:
    """Each word no reading used, struck through: why, and the closest names and values of the data as
    buttons that check the question again with the one that was meant (or rephrase it in the box above)."""
    for item in _understood(report).get("read_as") or []:  # a misspelt word or a two-digit year read as what it is: said
        said = (f"was read as **{highlight.md(str(item.get('word')))}**" if item.get("word") else
                "was set aside as context (who the answer is for)")
        st.markdown(f":gray[:material/spellcheck:] **{highlight.md(str(item.get('text') or '').strip())}** {said}; "
                    "rephrase the question above if that is not what you meant.")
    ignored = [i for i in _understood(report).get("ignored") or [] if isinstance(i, dict)]
    for n, item in enumerate(ignored):
        text = str(item.get("text") or "")
        suggestions = [str(s) for s in item.get("suggestions") or []][:5]
        reason = str(item.get("reason") or "no column, value or phrase of this database matches it").rstrip(".")
        # a reason that already says no reading uses the word ("read as trainer, which no reading uses") is not
        # followed by "so no reading uses it" again
        then = "" if "no reading" in reason.lower() else ", so no reading uses it"
        st.markdown(f":gray[:material/strikethrough_s:] ~~{highlight.md(text)}~~ was not understood: "
                    f"{highlight.md(reason)}{then}. Rephrase the question above"
                    + (", or pick what you meant:" if suggestions else "."))
        if suggestions:
            with st.container(horizontal=True, key=f"ignored_{key}_{n}"):
                for m, suggestion in enumerate(suggestions):
                    st.button(suggestion, key=f"suggest_{key}_{n}_{m}", on_click=queue, icon=":material/edit:",
                              args=(intents.Check(highlight.replace_span(report.question, item, suggestion)),))


def _candidates(ctx: Context, result: Any, key: str) -> None:
    """A repair that found several candidates: each one's SQL and result, and a way to choose it."""
    for n, candidate in enumerate(display.repair_candidates(result)):
        with st.container(border=True, key=f"cand_{key}_{n}"):
            rows = candidate.get("rows") or []
            status = candidate.get("status") or "ok"
            st.markdown(f"**Candidate {n + 1}: {highlight.md(candidate.get('label') or '')}** · "
                        f"{highlight.md(display.candidate_caption(candidate))}")
            st.code(display.pretty_sql(str(candidate.get("sql") or ""), result.dialect), language="sql",
                    height=160 if str(candidate.get("sql") or "").count("\n") > 8 else "content")
            if status == "ok" and rows:
                columns = candidate.get("columns") or [f"column {i + 1}" for i in range(len(rows[0]))]
                st.table(pd.DataFrame([display.format_row(columns, r) for r in rows[:SMALL_TABLE]],
                                      columns=display.unique_columns(columns)), hide_index=True)
            st.button("Use this candidate", key=f"use_{key}_{n}", on_click=queue,
                      args=(intents.UseCandidate(str(candidate.get("sql") or ""), str(candidate.get("label") or "")),))


def _engine_cell(ctx: Context, name: str, result: Any, key: str, currency: str | None = None) -> None:
    icon = STATUS_ICON.get(result.status, "•")
    st.markdown(f"{icon} **{name}** · {highlight.md(ctx.say(display.result_caption(result)))}")
    for line in display.repair_lines(result):
        st.info(ctx.say(f"Repair: {line}"), icon=":material/build:")
    _candidates(ctx, result, key)
    if result.ok and result.columns:
        columns, rows = display.table_records(result, currency)
        frame = pd.DataFrame(rows, columns=columns)
        if len(rows) <= SMALL_TABLE:
            st.table(frame, hide_index=True)  # plain HTML: shows at once, no grid to load
        else:
            st.dataframe(frame, hide_index=True, height=320)
        st.download_button("CSV", exports.result_csv(result, currency), file_name=f"{key}.csv", mime="text/csv",
                           key=f"csv_{key}", on_click="ignore")


def sql_block(reading: ReadingResult, engines: Sequence[dict[str, str]], dialect: str, key: str) -> None:
    """The reading's SQL, pretty-printed and collapsed; a long calendar or CASE tree is folded to a table."""
    sql, origin = display.sql_in_dialect(reading, engines, dialect)
    folded = display.fold_sql(sql, dialect)
    with st.expander(f"SQL ({display.dialect_name(dialect)}, {origin})", expanded=False):
        st.code(folded.text, language="sql", wrap_lines=True,
                height=420 if folded.text.count("\n") > 24 else "content")
        for name, columns, rows in folded.calendars:
            st.caption(f"The calendar “{name}”: {len(rows):,} rows (folded in the SQL above)")
            st.dataframe(pd.DataFrame(rows, columns=display.unique_columns(columns)), hide_index=True, height=180)
        for case in folded.cases:
            st.caption(f"The CASE “{case.name}”: {len(case.rows):,} buckets of {case.subject} (folded in the SQL "
                       "above): each row is the value it gives from one boundary to the next")
            st.dataframe(pd.DataFrame(case.rows, columns=case.columns), hide_index=True, height=180)
        if folded.calendars or folded.cases:
            st.download_button("Download the full SQL", sql, file_name=f"{key}.sql", mime="text/plain",
                               key=f"sql_{key}", on_click="ignore")


def reading_panel(ctx: Context, reading: ReadingResult, engines: Sequence[dict[str, str]], dialect: str,
                  key: str, rejected: str | None = None, source_badge: bool = False,
                  captions: Sequence[str] = ()) -> None:
    st.subheader(reading.label)
    if source_badge:
        if reading.source == "model":
            st.badge("model", icon=":material/smart_toy:", color="violet", help="Written by the model")
        else:
            st.badge("rules", icon=":material/rule:", color="gray", help="Built by the rules")
    for line in captions:
        st.caption(ctx.say(line))
    name, measure = display.top_parts(reading)
    st.metric("Answer", name)
    if measure:
        st.caption(highlight.md(measure))
    explanation = display.explanation_of(reading)
    if explanation:
        st.markdown(f":material/info: {highlight.md(explanation)}")
    sql_block(reading, engines, dialect, key)
    if rejected:
        st.error(ctx.say(f"Not run: {rejected}"))
    disagreement = display.engine_disagreement(reading)
    if disagreement:
        st.warning("Engines disagree on this reading: " +
                   "; ".join(f"{name}: {ctx.say(answer)}" for name, answer in disagreement), icon=":material/warning:")
    configured = [e["name"] for e in plain(engines)]
    currency = display.reading_currency(reading)
    shown, same = display.engines_to_show(reading, configured)
    for name in configured:
        result = reading.results.get(name)
        if result is None:
            if not rejected:
                st.markdown(f":gray[:material/remove_circle:] **{name}** · not run (engine unavailable or no SQL "
                            "for its schema)")
        elif name in shown:
            _engine_cell(ctx, name, result, f"{key}_{name}", currency)
    if same:
        st.markdown(":green[:material/check_circle:] same rows on " + ", ".join(
            f"**{name}** ({display.result_caption(reading.results[name])})" for name in same))
        with st.expander(f"Rows on {', '.join(same)}"):
            for name in same:
                _engine_cell(ctx, name, reading.results[name], f"{key}_{name}", currency)


def readings(ctx: Context, items: Sequence[ReadingResult], engines: Sequence[dict[str, str]], key: str,
             rejected: dict[str, str] | None = None, captions: dict[str, list[str]] | None = None) -> None:
    """Readings side by side: columns for up to three, tabs beyond; a dialect switch for the SQL. When the
    model's readings are there too, each reading is marked with who wrote it."""
    if not items:
        st.info("No reading could be built for this question on the configured schema.")
        return
    labels = [code for code, _ in display.DIALECTS]
    names = dict(display.DIALECTS)
    default = display.default_dialect(engines)
    dialect = st.radio("SQL dialect", labels, format_func=names.get, key=f"dialect_{key}", horizontal=True,
                       index=labels.index(default) if default in labels else 0) or default
    numbered = list(enumerate(items, 1))
    mixed = any(r.source == "model" for r in items)
    groups = [(None, numbered)]
    if mixed:  # engine both: the rules' readings, then the model's, each side by side
        groups = [(title, [(n, r) for n, r in numbered if (r.source == "model") == is_model])
                  for title, is_model in (("The rules' readings", False), ("The model's readings", True))]
    for title, group in groups:
        if not group:
            continue
        if title and len(groups) > 1 and all(g for _, g in groups):
            st.markdown(f"##### {title} · {len(group)}")
        if len(group) <= display.COLUMNS_BEFORE_TABS:
            containers = st.columns(len(group), border=True)
        else:
            short = charts.short_labels([r for _, r in group], limit=48, numbered=False)
            containers = st.tabs([f"{n}. {s}" + (" · model" if r.source == "model" else "")
                                  for (n, r), s in zip(group, short)])
        for container, (n, reading) in zip(containers, group):
            with container:
                reading_panel(ctx, reading, engines, dialect, f"{key}_{n}", (rejected or {}).get(reading.id),
                              source_badge=mixed, captions=(captions or {}).get(reading.id, ()))


def chart(items: Sequence[ReadingResult], key: str = "main") -> None:
    """The chart that fits the answers: lines for series, bars for scalars, top N per reading for rankings."""
    import altair as alt

    spec = charts.chart_spec(items)
    if spec is None:
        return
    frame = pd.DataFrame(spec.rows)
    scale = alt.Scale(domain=spec.order, range=[charts.PALETTE[i % len(charts.PALETTE)] for i in range(len(spec.order))])
    colour = alt.Color("reading:N", title=None, sort=spec.order, scale=scale,
                       legend=alt.Legend(orient="bottom", columns=2, labelLimit=360))
    tooltip = [alt.Tooltip("reading:N"), alt.Tooltip("x:N", title=""), alt.Tooltip("label:N", title="value")]
    st.markdown(f"**{spec.title}**")
    if spec.kind == "line":
        x = alt.X("x:T", title=None) if spec.temporal else alt.X("x:N", title=None, sort=None,
                                                                 axis=alt.Axis(labelAngle=-45, labelOverlap=True))
        chart_ = alt.Chart(frame).mark_line(point=alt.OverlayMarkDef(size=18)).encode(
            x=x, y=alt.Y("value:Q", title=spec.y_title), color=colour, tooltip=tooltip)
        height = 360
        if spec.grains:  # one panel per bucket size (days, weeks, months), each on its own scales
            panel = chart_.properties(height=200, width=680)  # a facet cannot take the container width
            chart_ = panel.facet(row=alt.Row("grain:N", sort=spec.grains, title=None,
                                             header=alt.Header(labelAngle=0, labelAlign="left", labelFontSize=13,
                                                               labelOrient="top", labelAnchor="start")),
                                 ).resolve_scale(x="independent", y="independent")
            st.altair_chart(chart_, width="stretch", key=f"chart_{key}")
            return
    elif spec.kind == "bar":
        chart_ = alt.Chart(frame).mark_bar().encode(
            y=alt.Y("reading:N", title=None, sort=spec.order, axis=alt.Axis(labelLimit=320)),
            x=alt.X("value:Q", title=None), color=alt.Color("reading:N", legend=None, sort=spec.order, scale=scale),
            tooltip=tooltip)
        chart_ = chart_ + chart_.mark_text(align="left", dx=4).encode(text="label:N")
        height = max(120, 44 * len(spec.order))
    else:
        chart_ = alt.Chart(frame).mark_bar().encode(
            y=alt.Y("x:N", title=None, sort=None, axis=alt.Axis(labelLimit=260)),
            x=alt.X("value:Q", title=spec.y_title), yOffset=alt.YOffset("reading:N", sort=spec.order),
            color=colour, tooltip=tooltip)
        height = max(200, 18 * len(spec.rows) + 60)
    st.altair_chart(chart_.properties(height=height), width="stretch", key=f"chart_{key}")


def notes(ctx: Context, report: Report) -> None:
    """The notes once each: the cap in one line, then the rest."""
    from checker_app.ui.model_view import model_note

    if report.capped:
        st.caption(f"Showing {len(report.interpretations)} of {report.total_readings} readings, "
                   f"{display.CAP_WORDS} (capped: answer the clarification to see the one you mean).")
    shown_in_model_panel = model_note(report)
    for note in display.notes_to_show(report):
        if note != shown_in_model_panel:
            st.warning(ctx.say(note).replace("*", "\\*"), icon=":material/info:")  # "on *.*" is not italics


def downloads(report: Report, key: str, tool_output: dict[str, Any] | None = None) -> None:
    base = exports.slug(report.question)
    left, right = st.columns(2)
    with left:
        st.download_button("Download JSON report", exports.report_json(report), file_name=f"{base}.json",
                           mime="application/json", key=f"json_{key}", on_click="ignore")
    with right:
        st.download_button("Download Markdown summary", exports.markdown_summary(report, tool_output),
                           file_name=f"{base}.md", mime="text/markdown", key=f"md_{key}", on_click="ignore")


def report_header(ctx: Context, report: Report, pending: bool = False) -> None:
    """Verdict (its bullets clickable while a clarification is pending), the question with its evidence
    marked, each archetype's ask and reason."""
    view = display.verdict_view(report)
    verdict(view, report.judged_readings, "main", clickable=pending,
            report=report if view.kind == "partial" else None)
    archetypes(report, with_ignored=view.kind != "partial")
    notes(ctx, report)
    read_by = {"model": " · read by the model", "both": " · read by the rules and the model"}.get(
        str(report.engine), "")
    st.caption(f"As of {report.as_of or '-'} · checked in {report.elapsed_ms:,.0f} ms on "
               f"{', '.join(e.name for e in report.engines)}{read_by}")
    failed, runs = display.unanswered(report.interpretations)
    if failed:
        st.warning(f"{failed} of {runs} runs did not answer (an engine error or the time limit): each engine's "
                   "status is below. Run again, raise the time limit in the sidebar, or answer the clarification.",
                   icon=":material/timer_off:")
        st.button("Run again", key="run_again", on_click=queue, args=(intents.Rerun(),))


def report_body(ctx: Context, report: Report, key: str, tool_output: dict[str, Any] | None = None) -> None:
    """The readings side by side, the chart, the downloads."""
    from checker_app.ui.model_view import reading_captions

    if not report.interpretations and any(highlight.archetype_id(a) == display.SUBJECT for a in report.archetypes):
        st.info("No reading runs until the question says what it is about: choose it above, or rephrase the "
                "question.", icon=":material/help:")
    else:
        readings(ctx, report.interpretations, report.engines, key, captions=reading_captions(report))
    chart(report.interpretations, key)
    downloads(report, key, tool_output)


def queue(intent: intents.Intent) -> None:
    """Record what a click asked for (checker_app.ui.intents); the page carries it out at the top of the next run."""
    st.session_state["intent"] = intent
