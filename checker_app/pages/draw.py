"""Streamlit drawing shared by the pages: the sidebar, readings side by side, verdicts, the wizard.

Only drawing and wiring lives here; every decision is made in `checker_app.ui` (tested without
streamlit). Buttons record an intent in the session (callbacks) and the page script carries it out at the
top of the next run, so a result never appears one click late and nothing needs a page reload.
"""
from __future__ import annotations

import datetime as dt
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
import streamlit as st

from adapters import Database, Limits
from checker_app.pipeline import CheckOptions
from checker_app.report import ReadingResult, Report
from checker_app.ui import display, exports, highlight
from checker_app.ui.config import AppConfig, load_config, passwords_of, redact
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

    def say(self, text: Any) -> str:
        """Text safe to show: every configured password scrubbed."""
        return redact(str(text), self.secrets)


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
    ctx = Context(config, all_databases, all_databases, CheckOptions(limits=config.limits), secrets, problem)
    sidebar(ctx)
    return ctx


# -- sidebar ----------------------------------------------------------------------------------

def sidebar(ctx: Context) -> None:
    names = [db.name for db in ctx.all_databases]
    with st.sidebar:
        st.header("Connections")
        source = {"--db": "from --db", "secrets": "from .streamlit/secrets.toml", "demo": "embedded demo database"}
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
        as_of = st.date_input("As of", value=None, key="as_of",
                              help="Anchor for relative windows such as 'last quarter'. Empty: the latest date "
                                   "in the data.")
        ctx.options = CheckOptions(limits=Limits(time_limit_s=float(timeout), row_cap=int(max_rows)),
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

def verdict(view: display.VerdictView, items: Sequence[ReadingResult] = ()) -> None:
    """The verdict in stakeholder words, with each reading's answer (the first results on the page)."""
    lines = [f"**{view.headline}**", view.detail]
    glance = display.at_a_glance(items) if len(items) > 1 else []
    lines += [f"- {label}: **{name}**" + (f" ({measure})" if measure else "") for label, name, measure in glance]
    if len(items) > len(glance) > 0:
        lines.append(f"- … {len(items) - len(glance)} more readings below")
    VERDICT_BOX.get(view.kind, st.info)("  \n".join(lines[:2]) + ("\n\n" + "\n".join(lines[2:]) if lines[2:] else ""))


def archetypes(report: Report) -> None:
    if not report.archetypes:
        st.markdown(f"> {highlight.highlighted_html(report.question, [])}", unsafe_allow_html=True)
        return
    st.markdown(f"> {highlight.highlighted_html(report.question, report.archetypes)}", unsafe_allow_html=True)
    palette = highlight.colours(report.archetypes)
    for archetype in report.archetypes:
        aid = highlight.archetype_id(archetype)
        swatch = (f'<span style="background:{palette[aid]};color:#111;padding:0 .4em;border-radius:.25em">'
                  f"{highlight.md(aid)}</span>")
        evidence, ask, reason = (highlight.md(archetype.get(k, "")) for k in ("evidence", "ask", "reason"))
        st.markdown(f"{swatch} on “{evidence}”: **{ask}**  \n<small>Why: {reason}</small>", unsafe_allow_html=True)


def _engine_cell(ctx: Context, name: str, result: Any, key: str) -> None:
    icon = STATUS_ICON.get(result.status, "•")
    st.markdown(f"{icon} **{name}** · {ctx.say(display.result_caption(result))}")
    for line in display.repair_lines(result):
        st.info(ctx.say(f"Repair applied: {line}"), icon=":material/build:")
    if result.ok and result.columns:
        columns, rows = display.table_records(result)
        frame = pd.DataFrame(rows, columns=columns)
        if len(rows) <= SMALL_TABLE:
            st.table(frame, hide_index=True)  # plain HTML: shows at once, no grid to load
        else:
            st.dataframe(frame, hide_index=True, height="auto")
        st.download_button("CSV", exports.result_csv(result), file_name=f"{key}.csv", mime="text/csv",
                           key=f"csv_{key}", on_click="ignore")


def reading_panel(ctx: Context, reading: ReadingResult, engines: Sequence[dict[str, str]], dialect: str,
                  key: str, rejected: str | None = None, source_badge: bool = False,
                  captions: Sequence[str] = ()) -> None:
    st.subheader(reading.label)
    if source_badge:
        if reading.source == "model":
            st.badge("model", icon=":material/smart_toy:", color="violet", help="Written by the model")
        else:
            st.badge("rules", icon=":material/rule:", color="gray", help="Built by the rules")
    if reading.choices:
        st.caption(" · ".join(f"{k}: {v}" for k, v in reading.choices.items()))
    for line in captions:
        st.caption(ctx.say(line))
    name, measure = display.top_parts(reading)
    st.metric("Top answer", name)
    if measure:
        st.caption(measure)
    sql, origin = display.sql_in_dialect(reading, engines, dialect)
    st.code(sql, language="sql", wrap_lines=True)
    st.caption(f"SQL {origin}")
    if rejected:
        st.error(ctx.say(f"Not run: {rejected}"))
    disagreement = display.engine_disagreement(reading)
    if disagreement:
        st.warning("Engines disagree on this reading: " +
                   "; ".join(f"{name}: {ctx.say(answer)}" for name, answer in disagreement), icon=":material/warning:")
    configured = [e["name"] for e in engines]
    shown, same = display.engines_to_show(reading, configured)
    for name in configured:
        result = reading.results.get(name)
        if result is None:
            if not rejected:
                st.markdown(f":gray[:material/remove_circle:] **{name}** · not run (engine unavailable or no SQL "
                            "for its schema)")
        elif name in shown:
            _engine_cell(ctx, name, result, f"{key}_{name}")
    if same:
        st.markdown(":green[:material/check_circle:] same rows on " + ", ".join(
            f"**{name}** ({display.result_caption(reading.results[name])})" for name in same))
        with st.expander(f"Rows on {', '.join(same)}"):
            for name in same:
                _engine_cell(ctx, name, reading.results[name], f"{key}_{name}")


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
            containers = st.tabs([f"{n}. {r.label}" + (" · model" if r.source == "model" else "") for n, r in group])
        for container, (n, reading) in zip(containers, group):
            with container:
                reading_panel(ctx, reading, engines, dialect, f"{key}_{n}", (rejected or {}).get(reading.id),
                              source_badge=mixed, captions=(captions or {}).get(reading.id, ()))


def chart(items: Sequence[ReadingResult]) -> None:
    rows = display.chart_rows(items)
    if not rows:
        return
    frame = pd.DataFrame(rows)
    if all(r["answer"] == r["reading"] for r in rows):
        st.markdown("**What each reading returns**")
        st.bar_chart(frame, x="reading", y="value", height=300, x_label="", y_label="")
        return
    st.markdown("**How each reading ranks the answers** (share of that reading's leader)")
    st.bar_chart(frame, x="answer", y="share", color="reading", stack=False, height=340,
                 x_label="", y_label="% of the reading's top value")


def notes(ctx: Context, report: Report) -> None:
    from checker_app.ui.model_view import model_note

    if report.capped:
        st.caption(f"Showing {len(report.interpretations)} of {report.total_readings} readings (capped).")
    shown_in_model_panel = model_note(report)
    for note in report.notes:
        if note != shown_in_model_panel:
            st.warning(ctx.say(note), icon=":material/info:")


def downloads(report: Report, key: str, tool_output: dict[str, Any] | None = None) -> None:
    base = exports.slug(report.question)
    left, right = st.columns(2)
    with left:
        st.download_button("Download JSON report", exports.report_json(report), file_name=f"{base}.json",
                           mime="application/json", key=f"json_{key}", on_click="ignore")
    with right:
        st.download_button("Download Markdown summary", exports.markdown_summary(report, tool_output),
                           file_name=f"{base}.md", mime="text/markdown", key=f"md_{key}", on_click="ignore")


def report_header(ctx: Context, report: Report) -> None:
    """Verdict, the question with its evidence marked, each archetype's ask and reason."""
    verdict(display.verdict_view(report), display.verdict_readings(report))
    archetypes(report)
    notes(ctx, report)
    read_by = {"model": " · read by the model", "both": " · read by the rules and the model"}.get(
        str(report.extra.get("engine")), "")
    st.caption(f"As of {report.as_of or '-'} · checked in {report.elapsed_ms:.0f} ms on "
               f"{', '.join(e['name'] for e in report.engines)}{read_by}")
    failed, runs = display.unanswered(report.interpretations)
    if failed:
        st.warning(f"{failed} of {runs} runs did not answer (error or time limit): each engine's status is below. "
                   "Run again, raise the time limit in the sidebar, or answer the clarification.",
                   icon=":material/timer_off:")
        st.button("Run again", key="run_again", on_click=queue, args=("retry",))


def report_body(ctx: Context, report: Report, key: str, tool_output: dict[str, Any] | None = None) -> None:
    """The readings side by side, the chart, the downloads."""
    from checker_app.ui.model_view import reading_captions

    readings(ctx, report.interpretations, report.engines, key, captions=reading_captions(report))
    chart(report.interpretations)
    downloads(report, key, tool_output)


def queue(*intent: Any) -> None:
    """Record what a click asked for; the page carries it out at the top of the next run."""
    st.session_state["intent"] = intent
