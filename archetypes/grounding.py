"""Every word of a question accounted for: grounded spans, and the words nothing read.

The reader (`intent`) finds schema words, time expressions and archetype cues; this module adds the data
values a question names, the analytic operators it uses, and then accounts for every token: a content
word that grounds to nothing, or an operator no reading reflects, is reported as not read, the way a
compiler reports an unknown token instead of guessing.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from archetypes import lexicon, naming
from archetypes.intent import STOPWORDS, Intent, Span, Vocabulary, stem, vocabulary
from archetypes.model import IgnoredSpan, Understood
from archetypes.naming import singular, words
from archetypes.profile import SchemaProfile
from archetypes.values import ValueRef, lemma, near_miss, value_key, value_vocabulary

_NOT_A_VALUE = lexicon.FUNCTION_WORDS | lexicon.TIME_WORDS | frozenset(lexicon.OPERATORS) | lexicon.FACT_WORDS
_SKIP_IN_VALUES = {"and", "&"}
_GOT = frozenset({"got", "get", "gets", "getting", "scored", "score", "scoring", "received", "earned", "achieved",
                  "awarded", "given", "with"})
# short English words that are also upper-case codes somewhere ('US', 'IT', 'OR', 'ME'): never a value unless
# typed in capitals
_NEGATING = frozenset({"not", "non", "excluding", "except", "without", "outside"})
_PART_OF = frozenset({"how many of", "how much of"})
_POSSESSIVE = re.compile(r"\s+(?:their|its|his|her|my|our)\b")
_PLACE_WORDS = frozenset({"in", "from", "at", "to", "of"})
# 'how many open jobs does Sales have': a capitalised fact word as the subject of a verb is a name
_AUXILIARIES = frozenset({"does", "did", "do", "has", "have", "had", "is", "was", "will", "can"})
_DETERMINERS = frozenset({"our", "the", "all", "any", "those", "these", "my", "every", "from", "in", "at"})
_SHORT_WORDS = frozenset("""us it or me am pm no on in at up go do so an as be by he we tv id ok all any are can
                         did had has her his its new old one our out own per say see she the top two way who why
                         yes yet you big low end day""".split())


@dataclass(frozen=True)
class Token:
    text: str
    start: int
    end: int


@dataclass(frozen=True)
class ValueMention:
    """Words of the question that name data values (one or several columns or rows)."""

    span: Span
    refs: tuple[ValueRef, ...]
    negated: bool = False


@dataclass(frozen=True)
class OperatorMention:
    category: str          # see lexicon.OPERATORS
    word: str
    span: Span


def tokens(intent: Intent) -> list[Token]:
    return [Token(m.group(0), m.start(), m.end()) for m in lexicon.TOKEN.finditer(intent.lower)]


def value_mentions(intent: Intent, profile: SchemaProfile) -> list[ValueMention]:
    """Data values named in the question, longest phrase first ('cables and chargers', 'london')."""
    vocab = value_vocabulary(profile)
    if not vocab.by_key:
        return []
    schema = vocabulary(profile)
    words = [t for t in tokens(intent) if t.text not in _SKIP_IN_VALUES]
    lemmas = [lemma(t.text) for t in words]
    found: list[ValueMention] = []
    index = 0
    while index < len(words):
        matched = 0
        negative = _prefix_negated(words[index].text, vocab)
        if negative is not None:  # 'unpaid invoices': the invoices not in status paid
            word = words[index]
            found.append(ValueMention(Span(word.start, word.end, intent.question[word.start:word.end]), negative, True))
            index += 1
            continue
        for size in range(min(vocab.longest, len(words) - index), 0, -1):
            key = tuple(lemmas[index:index + size])
            refs = vocab.by_key.get(key) or vocab.by_key.get(tuple(w.text for w in words[index:index + size]))
            if not refs:
                continue
            first, last = words[index], words[index + size - 1]
            text = intent.question[first.start:last.end]
            # 'our us shops': a short word between a determiner and a table's noun is an adjective, not 'us'
            adjective = size == 1 and 0 < index < len(words) - 1 and words[index - 1].text in _DETERMINERS and \
                (singular(words[index + 1].text),) in schema.phrases and first.text in _SHORT_WORDS
            # 'shops in the us', 'our non-us shops': no pronoun follows 'the' or 'non'
            country = size == 1 and first.text == "us" and index > 0 and words[index - 1].text in ("the", "non")
            # 'how many single rooms': a word that is also grammar ('single') names a category's value right before
            # the table's noun
            noun = (singular(words[index + 1].text),) if index < len(words) - 1 else ()
            # ('business bookings': a fact word, the fare class, before the table's noun)
            # ('business kwh': a kind of the rows before a figure's name)
            # ('done work items': a state before its table's two-word noun)
            noun2 = (noun[0], singular(words[index + 2].text)) if noun and index < len(words) - 2 else ()
            kind = size == 1 and first.text in lexicon.FUNCTION_WORDS | lexicon.FACT_WORDS and bool(noun) and \
                (noun in schema.phrases or noun in schema.tables or noun in schema.measure_words or
                 bool(noun2) and noun2 in schema.tables and any(schema.tables[noun2] == r.table for r in refs)) and \
                all(not r.name_column for r in refs)
            # ('business fare class', 'business class': the value said with its column's words)
            kind = kind or size == 1 and first.text in lexicon.FACT_WORDS and bool(noun) and \
                all(not r.name_column for r in refs) and any(_names_column(noun[0] if noun else "", r) for r in refs)
            # 'passengers who never booked business': a fact word right after the verb of the table holding it
            kind = kind or size == 1 and first.text in lexicon.FACT_WORDS and index > 0 and \
                all(not r.name_column for r in refs) and any(
                    stem(words[index - 1].text) == stem(singular(naming.phrase(r.table).split()[-1])) for r in refs)
            # 'employees in Sales', 'the sales department': a fact word that is the name of a row, said as a place
            # or before its table's noun
            place = size == 1 and first.text in lexicon.FACT_WORDS and all(r.name_column for r in refs) and (
                index > 0 and words[index - 1].text in _PLACE_WORDS and text[:1].isupper() or
                noun != () and any(noun == (singular(naming.phrase(r.table).split()[-1]),) for r in refs))
            place = place or size == 1 and first.text in lexicon.FACT_WORDS and index > 0 and \
                words[index - 1].text in _AUXILIARIES and text[:1].isupper() and not text.isupper()
            # 'accounts on the Team plan': a row's name said before its own table's noun, though the word is also
            # a table's ('teams')
            place = place or size == 1 and len(noun) == 1 and first.text not in STOPWORDS and any(
                r.name_column and noun == (singular(naming.phrase(r.table).split()[-1]),) for r in refs)
            # 'riders with an annual membership', 'monthly subscribers': a time word that is a value of a column
            # the next word names (or of that noun's table), not a grain
            timed = size == 1 and first.text in lexicon.TIME_WORDS and len(noun) == 1 and \
                all(not r.name_column for r in refs) and any(_names_column(noun[-1], r) for r in refs)
            # 'grade letter A', 'students who got an A': one capital letter, a value typed as stored, after its
            # column's word or a verb of getting one ('a' and 'i' are words otherwise)
            lettered = size == 1 and len(text) == 1 and text.isupper() and any(r.value == text for r in refs) and \
                index > 0 and (any(_names_column(words[index - 1].text, r) for r in refs) or
                               words[index - 1].text in ("a", "an") and index > 1 and words[index - 2].text in _GOT)
            # 'how many mortgages are current': a time word that is a state the rows are in, said as their state
            stated = size == 1 and first.text in lexicon.TIME_WORDS and all(_status_like(r) for r in refs) and \
                index > 0 and words[index - 1].text in ("is", "are", "was", "were", "be", "being", "still")
            if size == 1 and not adjective and not country and not kind and not place and not timed and \
                    not lettered and not stated and not _single_word_value(first.text, text, refs, schema):
                continue
            if size == 1 and len(noun) == 1 and any(key in names for key in ((singular(first.text), *noun),
                                                                              (first.text, *noun))
                                                     for names in (schema.measure_words, schema.phrases, schema.tables)):
                continue  # 'the total delivery fee', 'delivery attempts': the first word of a name, not 'delivered'
            if not text[:1].isupper() and all(_many_names(profile, r) for r in refs):
                continue  # 'released' is not the track 'Release': a lowercase word of a long name list
            before = [w.text for w in words[max(0, index - 2):index]]
            reach = 1 if before[-1:] and before[-1] in _NEGATING else \
                2 if len(before) == 2 and before[0] in _NEGATING and (before[1] in _PLACE_WORDS or
                                                                      before[1] in ("the", "been", "yet", "be")) else 0
            negated = reach > 0
            if negated:  # 'non-us shops', 'shops not in germany': the negation is read with the value it negates
                first = words[index - reach]
                if index + size < len(words) and words[index + size].text == "yet":
                    last = words[index + size]  # 'claims not been paid yet', 'not shipped yet'
                text = intent.question[first.start:last.end]
            held = timed and noun not in schema.phrases and noun not in schema.tables
            if held:  # 'annual members': the noun is the column's own word ('membership'), read with its value
                last = words[index + 1]
                text = intent.question[first.start:last.end]
            found.append(ValueMention(Span(first.start, last.end, text), _as_typed(refs, text), negated))
            matched = size + held
            break
        index += matched or 1
    return found


def _prefix_negated(word: str, vocab) -> tuple[ValueRef, ...] | None:
    """'unpaid', 'unshipped', 'nonrefunded': a state value with a negating prefix, when the word itself is no
    value (a state column's values, never a name)."""
    if vocab.by_key.get((lemma(word),)) or vocab.by_key.get((word,)):
        return None
    for prefix in ("un", "non-", "non"):
        rest = word[len(prefix):] if word.startswith(prefix) else ""
        if len(rest) < 4:
            continue
        refs = vocab.by_key.get((lemma(rest),)) or vocab.by_key.get((rest,))
        if refs and all(not r.name_column for r in refs):
            return tuple(refs)
    return None


def _names_column(word: str, ref: ValueRef) -> bool:
    """'membership' or 'members' for the column membership; 'plans' for a column of the table plans."""
    said = {singular(w) for w in [*naming.words(ref.column), *naming.phrase(ref.table).split()]}
    return word in said or len(word) >= 4 and any(w.startswith(word) for w in said)


def _many_names(profile: SchemaProfile, ref: ValueRef) -> bool:
    """A value of a name column whose distinct values were not all sampled (thousands of track names)."""
    from adapters.schema import SAMPLE_VALUES

    column = profile.tables[ref.table].column(ref.column)
    return ref.name_column and column is not None and len(column.samples) >= SAMPLE_VALUES


def _single_word_value(word: str, typed: str, refs: tuple[ValueRef, ...], schema: Vocabulary) -> bool:
    """A one-word value counts unless it is a grammar, time or operator word, or a schema word (the table
    'store' is meant, not a value 'Store'); a value of up to three letters only when typed as written
    ('UK', 'USA'), since 'us' and 'it' are words."""
    if word in lexicon.FACT_WORDS and typed.lower() == word and all(_status_like(r) for r in refs) and \
            (singular(word),) not in schema.measure_words:
        return True  # 'paid' invoices, 'refunded' returns: a status that is also a verb (unless a table holds those
        #              rows: 'returns' are the rows of a returns table, not the dispatches whose status is returned)
    if lexicon.OPERATORS.get(word) == "change" and refs and all(_status_like(r) for r in refs):
        return True  # 'lost trips', 'status lost': a state the rows are in, not a change over time
    if word in _NOT_A_VALUE or word in STOPWORDS and len(word) <= 3:
        return False
    if refs and all(r.demonym or r.initials for r in refs) and any(r.demonym for r in refs):
        return word not in _SHORT_WORDS  # 'german clients', 'from the uk': a country by its adjective or short name
    if refs and all(r.initials for r in refs):
        # 'the ny store', 'the NY store': no value is that code itself; 'distance in km' names a column's unit
        return word not in _SHORT_WORDS and word not in schema.known and word not in lexicon.PHYSICAL_WORDS
    if refs and all(r.kind_word and word.upper() in r.value.split() for r in refs):
        return word not in _SHORT_WORDS  # 'aac tracks': the kinds whose names hold the acronym
    if len(word) <= 3 and not any(r.value == typed for r in refs) and (
            word in _SHORT_WORDS or not any(r.value.isupper() or r.value[1:] != r.value[1:].lower() for r in refs)):
        return False  # 'usa' and 'uk' are typed lowercase ('ios' too: iOS); 'us', 'it' and 'pop' are words
    return (singular(word),) not in schema.phrases and (singular(word),) not in schema.measure_words


def _status_like(ref: ValueRef) -> bool:
    # ('offers declined': a response column's value is a state too, whatever the column is called)
    return not ref.name_column and (lexicon.is_state_column(words(ref.column)) or
                                    ref.value.lower() in lexicon.STATE_VALUES)


def operator_mentions(intent: Intent) -> list[OperatorMention]:
    lower = intent.lower
    found: list[OperatorMention] = []
    taken: list[tuple[int, int]] = []
    for phrase in lexicon.MULTIWORD_OPERATORS:
        start = 0
        while (at := _find_words(lower, phrase, start)) >= 0:
            end = at + len(phrase)
            if phrase in _PART_OF and _POSSESSIVE.match(lower, end):
                start = end  # 'how many of their tracks we sold': their tracks, counted, not a part of all
                continue
            if not any(a < end and at < b for a, b in taken):
                taken.append((at, end))
                found.append(OperatorMention(lexicon.OPERATORS[phrase], phrase,
                                             Span(at, end, intent.question[at:end])))
            start = end
    taken += lexicon.grammar_idioms(lower)  # 'over the past year', 'break down by': no threshold, no fall
    for token in tokens(intent):
        category = lexicon.OPERATORS.get(token.text)
        if category and not any(a <= token.start < b for a, b in taken):
            found.append(OperatorMention(category, token.text,
                                         Span(token.start, token.end, intent.question[token.start:token.end])))
    return sorted(found, key=lambda m: m.span.start)


def _find_words(text: str, phrase: str, start: int) -> int:
    while (at := text.find(phrase, start)) >= 0:
        before = text[at - 1] if at else " "
        after = text[at + len(phrase)] if at + len(phrase) < len(text) else " "
        if not before.isalnum() and not after.isalnum():
            return at
        start = at + 1
    return -1


def account(intent: Intent, profile: SchemaProfile, read: list[Span], consumed: set[str],
            operators: list[OperatorMention], unread: list[tuple[Span, str]] | None = None) -> Understood:
    """What was not read: tokens outside every read span that are not function, fact, time or schema
    words, operators whose meaning no reading reflects, and spans a reading could not apply (`unread`)."""
    schema = vocabulary(profile)
    pending = {(m.span.start, m.span.end) for m in operators if m.category in lexicon.SHAPE_OPERATORS
               and m.category not in consumed}
    covered = [(s.start, s.end) for s in read] + lexicon.grammar_idioms(intent.lower)
    covered += [(m.span.start, m.span.end) for m in operators if (m.span.start, m.span.end) not in pending]
    blocked = [(s.start, s.end) for s, _ in unread or []]
    # 'aov 2024 vs 2025' read 'aov' as the money summed: an average no reading takes is not read, whatever span
    # holds its word
    unaveraged = [(m.span.start, m.span.end) for m in operators if m.category == "average" and
                  "average" not in consumed]

    def is_read(token: Token) -> bool:
        if any(a <= token.start < b for a, b in blocked + unaveraged):
            return False
        if any(a <= token.start < b for a, b in covered):
            return True
        if any(a <= token.start < b for a, b in pending):
            return False
        word = token.text
        if word in lexicon.FUNCTION_WORDS or word in lexicon.TIME_WORDS or singular(word) in lexicon.FACT_WORDS \
                or word in lexicon.FACT_WORDS:
            return True
        if word.isdigit() or word[0] in "#$€£¥":
            return False
        base = singular(word)
        # an inflection of a schema word ('shipped' next to 'shipments'), not a word cut short ('employe')
        inflected = len(word) > 3 and stem(base) != base and stem(base) in schema.stems
        return (base in schema.known or word in schema.known or inflected or _agent_verb(base, schema.stems)
                or (base,) in schema.tables
                or word in lexicon.BIRTH_WORDS and bool(lexicon.BIRTH_WORDS & schema.known))  # 'born': birth_date

    ignored: list[list[Token]] = []
    previous_end = -2
    for token in tokens(intent):
        if is_read(token):
            if token.text not in lexicon.FUNCTION_WORDS or not ignored or previous_end < 0:
                previous_end = -2
            continue
        if ignored and previous_end >= 0 and not intent.lower[previous_end:token.start].strip(" -'"):
            ignored[-1].append(token)
        else:
            ignored.append([token])
        previous_end = token.end
    reasons = {(s.start, s.end): why for s, why in unread or []}
    reasons.update({span: "no reading computes this average"
                    for span in unaveraged if span not in reasons})
    out: list[IgnoredSpan] = []
    for group in ignored:
        start, end = group[0].start, group[-1].end
        text = intent.question[start:end]
        # a grammar, operator or schema word misread is no typo of a value ('more' is not 'Ana Moreau')
        hints = tuple(dict.fromkeys(h for t in group if t.text not in lexicon.FUNCTION_WORDS and
                                    t.text not in lexicon.OPERATORS and singular(t.text) not in schema.known
                                    for h in near_miss(t.text, profile, tuple(schema.known))))
        reason = next((why for (a, b), why in reasons.items() if a <= start < b), "") or next(
            (lexicon.UNSUPPORTED[t.text] for t in group if t.text in lexicon.UNSUPPORTED), "") or (
            "" if hints else "no table, column or value of this data is called that")
        out.append(IgnoredSpan(text, (start, end), hints[:5], reason))
    return Understood(complete=not out, ignored=tuple(out))


def value_words(mention: ValueMention) -> tuple[str, ...]:
    return value_key(mention.span.text)


def _as_typed(refs: tuple[ValueRef, ...], text: str) -> tuple[ValueRef, ...]:
    """'maria garcia' when the column holds 'Maria Garcia' and 'María García': two rows whose names differ by
    an accent are two people, so the value written as typed (case aside) is meant; without one, every
    accented spelling is."""
    typed = " ".join(text.lower().split())
    same = tuple(r for r in refs if " ".join(r.value.lower().split()) == typed)
    # one column, or the same columns: the typed spelling is the value there; else the words name other things too
    if not same or {(r.table, r.column) for r in refs} != {(r.table, r.column) for r in same}:
        return refs
    return same


def _agent_forms(word: str) -> set[str]:
    if len(word) < 4:
        return set()
    forms = {word + word[-1]}  # ship: shipp(er)
    if word.endswith("y"):
        forms.add(word[:-1] + "i")  # supply: suppli(er)
    if word.endswith("e"):
        forms.add(word[:-1])  # manage: manag(er)
    return forms


def _agent_verb(word: str, stems: frozenset[str]) -> bool:
    """The verb of a table named by who does it ('supply': suppliers, 'ship': shippers, 'manage': managers)."""
    return bool(_agent_forms(word) & stems)


def agent_verb_table(word: str, profile: SchemaProfile) -> str | None:
    """The table whose noun is the doer of this verb ('supplies': the suppliers), if any."""
    forms = _agent_forms(singular(word))
    return next((t for t in profile.tables if forms and stem(singular(naming.phrase(t).split()[-1] if naming.phrase(t)
                                                                      else t)) in forms), None)
