"""The question with each archetype's evidence words marked, as HTML-escaped segments."""
from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from checker_app.report import Detection, plain

# one colour per archetype, in the order they fired (readable on light and dark themes)
IGNORED = "__ignored__"
PALETTE = ("#fde68a", "#bfdbfe", "#bbf7d0", "#fbcfe8", "#ddd6fe", "#fed7aa", "#99f6e4", "#e5e7eb")


_MARKDOWN_SPECIALS = set("\\`*_{}[]()#+-.!|~$:>")


def md(text: str) -> str:
    """Text safe inside Streamlit markdown with HTML allowed: HTML-escaped, markdown punctuation
    backslash-escaped (so a question's `*`, `_`, `$` or `:red[` shows as typed)."""
    escaped = html.escape(str(text), quote=False)
    return "".join("\\" + ch if ch in _MARKDOWN_SPECIALS else ch for ch in escaped)


def archetype_id(archetype: Detection | Mapping[str, Any]) -> str:
    """The archetype's id in a report entry (a typed detection, or its JSON form)."""
    if isinstance(archetype, Detection):
        return archetype.id or "?"
    return str(archetype.get("id") or "?")


@dataclass(frozen=True)
class Segment:
    text: str
    archetypes: tuple[str, ...] = ()   # which archetypes' evidence covers this text


def _span_of(question: str, archetype: dict[str, Any]) -> tuple[int, int] | None:
    """The evidence span, checked against the question; falls back to finding the evidence words."""
    span = archetype.get("span")
    evidence = str(archetype.get("evidence") or "")
    if isinstance(span, (list, tuple)) and len(span) == 2 and all(isinstance(v, int) for v in span):
        start, end = span
        if 0 <= start < end <= len(question):
            return start, end
    if evidence:
        found = question.lower().find(evidence.lower())
        if found >= 0:
            return found, found + len(evidence)
    return None


def segments(question: str, archetypes: Sequence[dict[str, Any]]) -> list[Segment]:
    """Split the question at every evidence boundary; overlapping evidence keeps every archetype."""
    archetypes = plain(archetypes)
    spans = [(s, archetype_id(a)) for a in archetypes if (s := _span_of(question, a))]
    cuts = sorted({0, len(question), *(p for (start, end), _ in spans for p in (start, end))})
    out: list[Segment] = []
    for start, end in zip(cuts, cuts[1:]):
        if start == end:
            continue
        ids = tuple(aid for (s, e), aid in spans if s <= start and end <= e)
        if out and out[-1].archetypes == ids:
            out[-1] = Segment(out[-1].text + question[start:end], ids)
        else:
            out.append(Segment(question[start:end], ids))
    return out


def colours(archetypes: Sequence[dict[str, Any]]) -> dict[str, str]:
    archetypes = plain(archetypes)
    return {archetype_id(a): PALETTE[i % len(PALETTE)] for i, a in enumerate(archetypes)}


def _ignored_spans(question: str, ignored: Sequence[dict[str, Any]]) -> list[tuple[int, int]]:
    spans = []
    for item in ignored:
        span = _span_of(question, {"span": item.get("span"), "evidence": item.get("text")})
        if span:
            spans.append(span)
    return spans


def highlighted_html(question: str, archetypes: Sequence[dict[str, Any]],
                     ignored: Sequence[dict[str, Any]] = ()) -> str:
    """The question for st.markdown: evidence in <mark> tagged with its archetype(s), words nobody read
    (`understood.ignored`) struck through; the text escaped for HTML and markdown alike."""
    archetypes = plain(archetypes)
    palette = colours(archetypes)
    marks = [*archetypes, *({"id": IGNORED, "span": list(s)} for s in _ignored_spans(question, ignored))]
    parts: list[str] = []
    for segment in segments(question, marks):
        text = md(segment.text)
        ids = tuple(a for a in segment.archetypes if a != IGNORED)
        if IGNORED in segment.archetypes:
            text = (f'<del class="ignored" title="not understood: no reading uses these words" '
                    f'style="text-decoration-thickness:2px;opacity:.65">{text}</del>')
        if not ids:
            parts.append(text)
            continue
        names = html.escape(", ".join(ids), quote=True)
        colour = palette.get(ids[0], PALETTE[0])
        parts.append(f'<mark class="evidence" data-archetype="{names}" title="{names}" '
                     f'style="background:{colour};color:#111;padding:0 .2em;border-radius:.25em">{text}</mark>')
    return "".join(parts)


def replace_span(question: str, item: dict[str, Any], replacement: str) -> str:
    """The question with an ignored word replaced by what the person meant."""
    span = _span_of(question, {"span": item.get("span"), "evidence": item.get("text")})
    if span is None:
        return question
    return question[: span[0]] + replacement + question[span[1]:]


def legend_html(archetypes: Sequence[dict[str, Any]]) -> str:
    archetypes = plain(archetypes)
    palette = colours(archetypes)
    return " ".join(
        f'<span style="background:{palette[archetype_id(a)]};color:#111;padding:0 .4em;border-radius:.25em">'
        f"{md(archetype_id(a))}</span>" for a in archetypes)
