"""A sentence about the asker beside the question ('I'm putting together a slide about our shops.', 'My manager
wants to recognise someone at the party.', 'It came up in a team chat.'): why it is asked, not what. It is set
aside, and the report says so, only when it can narrow nothing: it names no value of the data, no number or date,
no operator, fact or time word, and no schema word the question itself does not say. Anything else stays, and
words of it the rules cannot read make the question partial, as any words would."""
from __future__ import annotations

import re
from collections.abc import Callable

from archetypes import lexicon
from archetypes.naming import singular

# a sentence ends at . ! ? or : before a space or the end ('$45.50' and '10:30' do not end one)
_END = re.compile(r"[.!?:]+(?=\s|$)")
# who is speaking: the asker, or someone who asked them ('my manager asked', 'marketing wants')
_SPEAKER = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|im|ive|me|my|we're|we've|we'd|we'll|us)\b"
                      r"|\b(?:asked|asks|wants|wanted|needs|needed)\b|^\s*(?:it|it's|its|this\s+is|just\s+curious)\b")
# a question word: the sentence asks something, and is the question or part of it
_ASKS = re.compile(r"\b(?:what|which|who|whom|whose|how|where|why|when|list|show|count|give)\b")
# words of the asker's own doing, read before the checks: 'i don't have it yet', 'i keep mixing them up', 'the
# monthly review', 'that month' (the question's own period, said again)
_OWN_DOING = re.compile(
    r"\b(?:i|we|i'm|we're|i've|we've)\s+(?:do\s+not|don't|dont|didn't|didnt|can't|cant|cannot|am\s+not|'m\s+not|"
    r"are\s+not|have\s+not|haven't|havent|won't|wasn't)\b|(?<=\bi'm)\s+not\b|(?<=\bwe're)\s+not\b"
    r"|\b(?:mix|mixing|mixed|set|setting|put|putting|follow|following|pick|picking|came|comes|come|coming|"
    r"look|looking|end|ended)\s+(?:(?:it|them|this|that|things)\s+)?up\b"
    r"|\b(?:daily|weekly|monthly|quarterly|yearly|annual)\s+(?=" + "|".join(sorted(lexicon.AUDIENCE_WORDS)) + r")\b"
    r"|\b(?:that|the\s+same)\s+(?:day|week|month|quarter|year|period)\b"
    r"|(?<=\bi'm)\s+(?:still\s+)?new\b|(?<=\bi am)\s+(?:still\s+)?new\b|(?<=\bwe're)\s+(?:still\s+)?new\b")
# time words an asker says of their own doing ('before I put it in the deck', 'so I can plan')
_OWN_TIME = frozenset({"so", "before", "after", "when", "time"})
# words that could narrow or measure the data whatever the schema: an operator, a fact, a time
_NARROWING = (frozenset(w for w in lexicon.OPERATORS if " " not in w) | lexicon.FACT_WORDS |
              (lexicon.TIME_WORDS - _OWN_TIME)) - {"number"}
_MULTIWORD = re.compile(r"\b(?:" + "|".join(re.escape(w) for w in sorted(lexicon.OPERATORS, key=len, reverse=True)
                                            if " " in w) + r")\b")


def _sentences(lower: str, start: int, end: int) -> list[tuple[int, int]]:
    spans, at = [], start
    for m in _END.finditer(lower, start, end):
        spans.append((at, m.end()))
        at = m.end()
    if lower[at:end].strip():
        spans.append((at, end))
    return [(a + len(lower[a:b]) - len(lower[a:b].lstrip()), b) for a, b in spans if lower[a:b].strip(" .!?:")]


def _tokens(text: str) -> set[str]:
    return {singular(w) for w in lexicon.TOKEN.findall(text)}


def _names_data(text: str, named: Callable[[str], bool] | None) -> bool:
    """A number, a date, an operator, fact or time word, or a value of the data."""
    if re.search(r"\d|[$€£¥%]", text) or _MULTIWORD.search(text):
        return True
    words = lexicon.TOKEN.findall(_OWN_DOING.sub(" ", text))
    if any(w in _NARROWING for w in words):
        return True
    content = [w for w in words if w not in lexicon.FUNCTION_WORDS]
    return named is not None and any(named(" ".join(content[i:i + n])) for n in (1, 2, 3)
                                     for i in range(len(content) - n + 1))


def _names_schema(text: str, asked: set[str], known: frozenset[str]) -> bool:
    """A schema word the question does not say ('I'm looking at clients.' says what 'which country has the
    most?' counts)."""
    words = lexicon.TOKEN.findall(_OWN_DOING.sub(" ", text))
    return any((w in known or singular(w) in known) and singular(w) not in asked and w not in lexicon.AUDIENCE_WORDS
               for w in words if w not in lexicon.FUNCTION_WORDS)


def context_sentences(lower: str, start: int, end: int, known: frozenset[str],
                      named: Callable[[str], bool] | None) -> list[tuple[int, int]]:
    """The spans of the sentences of lower[start:end] that only say why the question is asked. Never all of
    them: at least one sentence is the question."""
    sentences = _sentences(lower, start, end)
    if len(sentences) < 2:
        return []
    candidates = [(a, b) for a, b in sentences if _SPEAKER.search(lower[a:b]) and not _ASKS.search(lower[a:b])
                  and not _names_data(lower[a:b], named)]
    kept = [s for s in sentences if s not in candidates]
    if not kept:
        return []
    asked = set().union(*(_tokens(lower[a:b]) for a, b in kept))
    return [(a, b) for a, b in candidates if not _names_schema(lower[a:b], asked, known)]
