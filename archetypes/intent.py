"""What a question says, read once and shared by every detector: schema words, ranking words, time
expressions, grains, money words, candidate names. Regexes are compiled at import; the vocabulary is
built once per profile and kept in its cache.
"""
from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field

from archetypes import calendar
from archetypes.naming import phrase, singular, words
from archetypes.profile import Entity, Measure, SchemaProfile

MAX_QUESTION_CHARS = 2000  # longer text is read only this far (it is still accepted)

_MONTHS = {m: i + 1 for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
     "november", "december"])}
_MONTHS.update({m[:3]: i for m, i in list(_MONTHS.items())})
_MONTHS["sept"] = 9
_MONTH_RE = r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
_YEAR_RE = r"((?:19|20)\d{2})"

RE_TOKEN = re.compile(r"[a-z0-9]+(?:['’][a-z]+)?")
RE_RANKING = re.compile(
    r"\b(top(?:[- ]selling|[- ]performing|[- ]earning)?(?:\s+\d+)?|best(?:[- ]selling|[- ]performing)?|"
    r"worst(?:[- ]selling|[- ]performing)?|most[- ]popular|most[- ]active|most[- ]valuable|"
    r"most[- ]successful|most[- ]sold|leading|biggest|largest|strongest|weakest|"
    r"least[- ]popular|popular|highest[- ]ranked|number one|#1|ranking|rank)\b"
    r"|\b(?:who|which \w+) (?:sells|sold|buys|bought|spends?|performs?) the most\b")
RE_EXPLICIT_METRIC = re.compile(
    r"\b(?:by|in terms of|measured by|ranked by|based on|according to|with the most|with the highest|"
    r"with the largest|most|highest|largest|fewest|least|lowest)\s+(?:total\s+|number of\s+|count of\s+)?"
    r"([a-z][a-z ]{1,30})")
RE_HOW_MANY = re.compile(r"\b(?:how many|number of|count of|count the|total number of)\s+(?:distinct\s+|unique\s+|different\s+)?([a-z][a-z ]{0,30})")
RE_GROUP = re.compile(r"\b(?:by|per|for each|for every|each|across|broken down by|split by|grouped by)\s+"
                      r"((?:fiscal |calendar |iso |sunday[- ]start(?:ing)? |monday[- ]start(?:ing)? )?[a-z][a-z ]{0,30})")
RE_GRAIN = re.compile(
    r"\b(?:(?:by|per|each|every|for each|over|a|one)\s+(?:the\s+)?(fiscal\s+|calendar\s+|iso\s+)?"
    r"(day|week|month|quarter|year|period)s?\b|(daily|weekly|monthly|quarterly|yearly|annually|annual)\b|"
    r"(day|week|month|quarter|year)[- ]over[- ](?:day|week|month|quarter|year)\b|"
    r"(day|week|month|quarter|year)[- ]by[- ](?:day|week|month|quarter|year)\b)")
RE_FISCAL = re.compile(r"\bfiscal\b|\bfy\s?\d{2,4}\b")
RE_WEEK_CONVENTION = re.compile(r"\biso\b|\bmonday[- ]start|\bsunday[- ]start|\bweeks? start")
RE_CALENDAR_WORD = re.compile(r"\bcalendar\s+(?:month|quarter|year|week)")
RE_VAGUE_TIME = re.compile(
    r"\b(trend(?:s|ing|ed)?|recent(?:ly)?|lately|latest|these days|nowadays|over time|over the years|"
    r"growth|growing|grown|declining|decline|momentum|so far|up to now|"
    r"how (?:are|is|have|has) (?:our |the |we )?[a-z ]{0,30}(?:doing|going|performing|been doing|looking|holding up)|"
    r"how (?:did|do|does) (?:we|our \w+|the \w+) (?:do|perform|look)|"
    r"going up|going down|picking up|slowing down|compared to before|new (?:customers|orders|users|signups))\b")
RE_DAY_BOUNDARY = re.compile(
    r"\b(yesterday|today|tonight|this morning|last night|daily|per day|by day|each day|every day|a day|"
    r"day[- ]by[- ]day|day[- ]over[- ]day|by date|per date|each date|"
    r"on " + _MONTH_RE + r"\.? \d{1,2}(?:st|nd|rd|th)?|on \d{1,2}(?:st|nd|rd|th)? (?:of )?" + _MONTH_RE +
    r"|on (?:19|20)\d{2}-\d{2}-\d{2}|(?:19|20)\d{2}-\d{2}-\d{2}|on (?:mon|tues|wednes|thurs|fri|satur|sun)day)\b")
RE_CURRENCY = re.compile(
    r"(\bin (?:us |u\.s\. )?dollars\b|\bdollars?\b|\busd\b|\beur\b|\beuros?\b|\bgbp\b|\bpounds? sterling\b|"
    r"\bsterling\b|\byen\b|\bjpy\b|\bcad\b|\baud\b|\bcurrenc(?:y|ies)\b|\bexchange rates?\b|\bconvert(?:ed)?\b|"
    r"[$€£¥])")
RE_MONEY = re.compile(r"\b(revenue|revenues|turnover|income|earnings|takings|gmv|money|how much|spend|spent|"
                      r"spending|sales amount|sales value|amount|billings?|gross)\b")
RE_MONEY_AS_CRITERION = re.compile(r"\b(?:by|in terms of|ranked by|based on|with the (?:most|highest))\s+(?:total\s+)?$")
RE_VIZ = re.compile(
    r"\b(interactive|animated|animation|animate|sankey|dashboards?|choropleth|heat ?maps?|treemaps?|sunburst|"
    r"chord diagram|network (?:graph|diagram)|force[- ]directed|3d|three[- ]dimensional|globe|gantt|"
    r"drill[- ]?down|live[- ]updating|real[- ]time (?:chart|view|map)|flow diagram|funnel chart|word cloud|"
    r"(?:a|an|the|on a|interactive|world|geo|geographic) maps?|maps? (?:of|showing|with))\b")
RE_WINDOW_N = re.compile(r"\b(?:last|past|previous|trailing|prior|recent)\s+(\d{1,4}|two|three|four|five|six|seven|"
                         r"ten|twelve|thirty|ninety)\s+(day|week|month|quarter|year)s?\b")
RE_WINDOW_UNIT = re.compile(r"\b(last|previous|past|this|current|prior)\s+(week|month|quarter|year)\b")
RE_TO_DATE = re.compile(r"\b(ytd|year[- ]to[- ]date|mtd|month[- ]to[- ]date|qtd|quarter[- ]to[- ]date)\b")
RE_MONTH_YEAR = re.compile(r"\b" + _MONTH_RE + r"\.?,?\s+" + _YEAR_RE + r"\b")
RE_QUARTER = re.compile(r"\b(?:q([1-4])|(first|second|third|fourth) quarter)(?:\s+(?:of\s+)?(?:fy\s?)?" + _YEAR_RE + r")?\b")
RE_YEAR = re.compile(r"\b(?:fy\s?)?" + _YEAR_RE + r"\b")
RE_ISO_DAY = re.compile(r"\b((?:19|20)\d{2})-(\d{2})-(\d{2})\b")
RE_ON_DAY = re.compile(r"\bon\s+" + _MONTH_RE + r"\.?\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s+" + _YEAR_RE + r")?\b"
                       r"|\bon\s+(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH_RE + r"(?:,?\s+" + _YEAR_RE + r")?\b")
RE_ALL_TIME = re.compile(r"\b(all[- ]time|of all time|ever|since the (?:start|beginning)|in total|overall|lifetime)\b")
RE_SINCE = re.compile(r"\bsince\s+(?:" + _MONTH_RE + r"\s+)?" + _YEAR_RE + r"\b")
RE_PROPER = re.compile(r"[\"“]([^\"”]{2,60})[\"”]|'([^']{2,60})'(?=\s|[?.!,]|$)|"
                       r"\b([A-Z][\w’']*(?:(?:\s+(?:&\s+)?|-)[A-Z][\w’']*)*)")
RE_TOP_N = re.compile(r"\b(?:top|best|worst|bottom)\s+(\d{1,3})\b")

_NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "ten": 10, "twelve": 12,
            "thirty": 30, "ninety": 90}
_ORDINAL = {"first": 1, "second": 2, "third": 3, "fourth": 4}

STOPWORDS = frozenset("""
a an the of for to in on at by per with from and or vs versus is are was were be been being do does did done
what which who whom whose how when where why show me give list tell find get display plot chart graph draw make
build create run our my we us you your their its this that these those there here it all any some each every
much many more most less least than as into over under between across about please can could would should
i im i'm want need like see let lets let's just also only ever so up down out total number count amount value
values data report analysis analyse analyze numbers stats statistics summary overview breakdown doing going
performing perform did do have has had new top best worst highest lowest biggest largest leading popular active
one two three five ten first last next previous past recent recently latest today yesterday daily weekly monthly
yearly quarterly year years month months week weeks day days quarter quarters time period periods trend trends
trending growth compare compared comparison versus not no yes ok okay hi hello thanks thank sort sorted order
ordered rank ranked ranking look looking happened happen going things stuff everything something anything
selling sold sell sells sale sales revenue performance results result info information kpi kpis metrics metric
""".split())
_GENERIC_DATA = frozenset({"sales", "sale", "selling", "sold", "sell", "revenue", "revenues", "purchases",
                           "purchase", "bought", "buy", "buys", "spend", "spent", "spending", "turnover",
                           "income", "earnings", "transactions", "transaction", "business", "gmv", "money"})


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    text: str


@dataclass
class Target:
    """Something a question word can name: an entity table, or a text column used like one."""

    entity: Entity
    span: Span


@dataclass
class Intent:
    question: str
    lower: str
    tokens: list[tuple[str, int, int]]
    targets: list[Target] = field(default_factory=list)
    measures: list[tuple[Measure, Span]] = field(default_factory=list)
    explicit_measure: str | None = None
    ranking: Span | None = None
    top_n: int | None = None
    how_many: tuple[str, Span] | None = None      # table name, span
    group: Target | None = None
    grain: tuple[str, Span] | None = None         # day | week | month | quarter | year, span
    grain_fiscal: bool | None = None              # True fiscal named, False calendar named, None unsaid
    week_convention: bool = False
    window: calendar.Window | None = None
    window_span: Span | None = None
    day_specific: bool = False                    # the window is a single local day
    vague_time: Span | None = None
    day_boundary: Span | None = None
    currency: Span | None = None
    currency_code: str | None = None
    money: Span | None = None
    viz: Span | None = None
    names: list[Span] = field(default_factory=list)
    schema_hits: int = 0
    unknown_subject: Span | None = None


# -- vocabulary ---------------------------------------------------------------------------------

@dataclass
class Vocabulary:
    phrases: dict[tuple[str, ...], list[Entity]]      # singular word tuples -> targets
    measure_words: dict[tuple[str, ...], Measure]
    known: frozenset[str]
    longest: int


def vocabulary(profile: SchemaProfile) -> Vocabulary:
    cached = profile.cache.get("vocabulary")
    if cached is not None:
        return cached
    phrases: dict[tuple[str, ...], list[Entity]] = {}
    known: set[str] = set(_GENERIC_DATA)

    def add(key: tuple[str, ...], target: Entity) -> None:
        if key and target not in phrases.setdefault(key, []):
            phrases[key].append(target)

    for entity in profile.entities.values():
        key = tuple(singular(w) for w in phrase(entity.table).split())
        add(key, entity)
        if len(key) > 1 and key[-1] not in ("type", "line", "item", "detail", "details", "info", "data"):
            add(key[-1:], entity)
    for name, table in profile.tables.items():
        table_words = words(name)
        known.update(table_words)
        known.update(singular(w) for w in table_words)
        for column in table.columns:
            column_words = words(column.name)
            known.update(column_words)
            if column.family == "text" and column_words and column_words[-1] not in ("id", "code", "email", "phone",
                                                                                      "fax", "address", "zone",
                                                                                      "status", "description"):
                if column_words[-1] in ("name", "title") and len(column_words) == 1:
                    continue
                key = tuple(singular(w) for w in column_words)
                if key in phrases and any(e.table != name for e in phrases[key]):
                    continue  # a table of that name exists: that is the entity
                pseudo = Entity(table=name, name_columns=(column.name,), noun=" ".join(key),
                                key=tuple(table.primary_key), row_count=table.row_count)
                if tuple(key) not in phrases or all(e.table != name for e in phrases[tuple(key)]):
                    add(tuple(key), pseudo)
                if len(key) > 1 and key[-1] not in ("name", "title", "type"):
                    add(key[-1:], pseudo)
    measure_words: dict[tuple[str, ...], Measure] = {}
    for fact in profile.facts.values():
        for measure in fact.measures:
            for text in measure.words:
                key = tuple(singular(w) for w in text.split())
                measure_words.setdefault(key, measure)
                known.update(text.split())
    for word, target in profile.synonyms.items():
        known.add(word)
        key = tuple(singular(w) for w in word.split())
        table = next((n for n in profile.entities if n.lower() == target.lower()), None)
        if table:
            add(key, profile.entities[table])
        else:
            measure = next((m for f in profile.facts.values() for m in f.measures if m.value == target), None)
            if measure:
                measure_words[key] = measure
    known.update(singular(w) for w in list(known))
    longest = max([len(k) for k in phrases] + [len(k) for k in measure_words] + [1])
    vocab = Vocabulary(phrases, measure_words, frozenset(known), longest)
    profile.cache["vocabulary"] = vocab
    return vocab


# -- reading a question -------------------------------------------------------------------------

def read(question: str, profile: SchemaProfile, as_of: dt.date | None) -> Intent:
    text = question[:MAX_QUESTION_CHARS]
    lower = text.lower().replace("’", "'")
    tokens = [(m.group(0), m.start(), m.end()) for m in RE_TOKEN.finditer(lower)]
    intent = Intent(question=text, lower=lower, tokens=tokens)
    vocab = vocabulary(profile)
    _schema_words(intent, vocab)
    _ranking(intent)
    _time(intent, as_of)
    _grain(intent)
    _money(intent)
    if (m := RE_VIZ.search(lower)) is not None:
        intent.viz = Span(m.start(), m.end(), text[m.start():m.end()])
    _how_many(intent, vocab)
    _group(intent, vocab)
    _names(intent, vocab)
    return intent


def _schema_words(intent: Intent, vocab: Vocabulary) -> None:
    singles = [singular(t[0]) for t in intent.tokens]
    index = 0
    while index < len(singles):
        matched = False
        for size in range(min(vocab.longest, len(singles) - index), 0, -1):
            key = tuple(singles[index:index + size])
            start, end = intent.tokens[index][1], intent.tokens[index + size - 1][2]
            span = Span(start, end, intent.question[start:end])
            if key in vocab.measure_words:
                intent.measures.append((vocab.measure_words[key], span))
                intent.schema_hits += 1
                matched = True
            if key in vocab.phrases:
                for entity in vocab.phrases[key]:
                    intent.targets.append(Target(entity, span))
                intent.schema_hits += 1
                matched = True
            if matched:
                index += size
                break
        if not matched:
            if singles[index] in vocab.known and singles[index] not in STOPWORDS or \
                    intent.tokens[index][0] in _GENERIC_DATA:
                intent.schema_hits += 1
            index += 1


def _ranking(intent: Intent) -> None:
    lower = intent.lower
    m = RE_RANKING.search(lower)
    if m is None:
        return
    # 'most recent', 'top of the list', 'largest order' with an explicit metric are handled by callers
    follow = lower[m.end():m.end() + 12]
    if m.group(0).startswith(("most", "latest")) and follow.lstrip().startswith(("recent", "recently")):
        return
    intent.ranking = Span(m.start(), m.end(), intent.question[m.start():m.end()])
    if (n := RE_TOP_N.search(lower)) is not None:
        intent.top_n = int(n.group(1))
    for criterion in RE_EXPLICIT_METRIC.finditer(lower):
        after = criterion.group(1)
        words_after = [singular(w) for w in after.split()]
        for measure, span in intent.measures:
            if span.start >= criterion.start(1) - 1 and span.start <= criterion.start(1) + len(after):
                intent.explicit_measure = measure.value
                return
        del words_after
    # a measure named anywhere near the ranking ('top product for revenue', 'most units')
    for measure, span in intent.measures:
        if measure.kind in ("product", "sum", "expression"):
            intent.explicit_measure = measure.value
            return


def _time(intent: Intent, as_of: dt.date | None) -> None:
    lower, text = intent.lower, intent.question
    if (m := RE_DAY_BOUNDARY.search(lower)) is not None:
        intent.day_boundary = Span(m.start(), m.end(), text[m.start():m.end()])
    if (m := RE_VAGUE_TIME.search(lower)) is not None:
        intent.vague_time = Span(m.start(), m.end(), text[m.start():m.end()])
    anchor = as_of or dt.date.today()
    found = _concrete_window(lower, anchor)
    if found is not None:
        window, match, single_day = found
        intent.window = window
        intent.window_span = Span(match[0], match[1], text[match[0]:match[1]])
        intent.day_specific = single_day
    elif (m := RE_ALL_TIME.search(lower)) is not None:
        intent.window_span = Span(m.start(), m.end(), text[m.start():m.end()])


def _concrete_window(lower: str, as_of: dt.date) -> tuple[calendar.Window, tuple[int, int], bool] | None:
    day = calendar.DAY
    if (m := re.search(r"\byesterday\b", lower)) is not None:
        return calendar.Window(as_of - day, as_of, "yesterday"), m.span(), True
    if (m := re.search(r"\b(today|tonight|this morning)\b", lower)) is not None:
        return calendar.Window(as_of, as_of + day, "today"), m.span(), True
    if (m := RE_ISO_DAY.search(lower)) is not None:
        try:
            value = dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
            return calendar.Window(value, value + day, value.isoformat()), m.span(), True
        except ValueError:
            pass
    if (m := RE_ON_DAY.search(lower)) is not None:
        month_word = m.group(1) or m.group(5)
        day_number = int(m.group(2) or m.group(4))
        year = m.group(3) or m.group(6)
        try:
            month = _MONTHS[month_word[:3] if month_word[:4] != "sept" else "sep"]
            if year:
                value = dt.date(int(year), month, day_number)
            else:
                value = dt.date(as_of.year, month, day_number)
                if value > as_of:
                    value = dt.date(as_of.year - 1, month, day_number)
            return calendar.Window(value, value + day, value.isoformat()), m.span(), True
        except (ValueError, KeyError):
            pass
    if (m := RE_WINDOW_N.search(lower)) is not None:
        count = int(m.group(1)) if m.group(1).isdigit() else _NUMBERS[m.group(1)]
        unit = m.group(2)
        end = as_of + day
        if unit == "day":
            start = end - dt.timedelta(days=count)
        elif unit == "week":
            start = end - dt.timedelta(days=7 * count)
        elif unit in ("month", "quarter"):
            months = count * (3 if unit == "quarter" else 1)
            start = _minus_months(end, months)
        else:
            start = _minus_months(end, 12 * count)
        return calendar.Window(start, end, m.group(0)), m.span(), False
    if (m := RE_TO_DATE.search(lower)) is not None:
        kind = m.group(1)[0]
        if kind == "y":
            start = dt.date(as_of.year, 1, 1)
        elif kind == "q":
            start = calendar.quarter_start(as_of)
        else:
            start = as_of.replace(day=1)
        return calendar.Window(start, as_of + day, m.group(0)), m.span(), False
    if (m := RE_WINDOW_UNIT.search(lower)) is not None:
        which, unit = m.group(1), m.group(2)
        current = which in ("this", "current")
        if unit == "week":
            start = as_of - dt.timedelta(days=as_of.weekday())
            window = (start, as_of + day) if current else (start - dt.timedelta(days=7), start)
        elif unit == "month":
            start = as_of.replace(day=1)
            window = (start, as_of + day) if current else (calendar.add_months(start, -1), start)
        elif unit == "quarter":
            start = calendar.quarter_start(as_of)
            window = (start, as_of + day) if current else (calendar.add_months(start, -3), start)
        else:
            start = dt.date(as_of.year, 1, 1)
            window = (start, as_of + day) if current else (dt.date(as_of.year - 1, 1, 1), start)
        return calendar.Window(window[0], window[1], m.group(0)), m.span(), False
    if (m := RE_SINCE.search(lower)) is not None:
        month = _MONTHS.get((m.group(1) or "jan")[:3], 1)
        start = dt.date(int(m.group(2)), month, 1)
        return calendar.Window(start, as_of + day, m.group(0)), m.span(), False
    if (m := RE_MONTH_YEAR.search(lower)) is not None:
        month = _MONTHS.get(m.group(1)[:3], 1)
        start = dt.date(int(m.group(2)), month, 1)
        return calendar.Window(start, calendar.add_months(start, 1), m.group(0)), m.span(), False
    if (m := RE_QUARTER.search(lower)) is not None and (m.group(3) or m.group(1)):
        number = int(m.group(1)) if m.group(1) else _ORDINAL[m.group(2)]
        year = int(m.group(3)) if m.group(3) else as_of.year
        start = dt.date(year, 3 * (number - 1) + 1, 1)
        return calendar.Window(start, calendar.add_months(start, 3), m.group(0)), m.span(), False
    if (m := RE_YEAR.search(lower)) is not None:
        year = int(m.group(1))
        return calendar.Window(dt.date(year, 1, 1), dt.date(year + 1, 1, 1), m.group(0)), m.span(), False
    return None


def _minus_months(day: dt.date, months: int) -> dt.date:
    index = day.year * 12 + day.month - 1 - months
    year, month = index // 12, index % 12 + 1
    last = (dt.date(year + (month // 12), month % 12 + 1, 1) - calendar.DAY).day
    return dt.date(year, month, min(day.day, last))


def _grain(intent: Intent) -> None:
    lower = intent.lower
    m = RE_GRAIN.search(lower)
    if m is None:
        return
    qualifier = (m.group(1) or "").strip()
    unit = m.group(2) or m.group(3) or m.group(4) or m.group(5)
    unit = {"daily": "day", "weekly": "week", "monthly": "month", "quarterly": "quarter", "yearly": "year",
            "annually": "year", "annual": "year", "period": "month"}.get(unit, unit)
    intent.grain = (unit, Span(m.start(), m.end(), intent.question[m.start():m.end()]))
    if qualifier == "fiscal" or RE_FISCAL.search(lower):
        intent.grain_fiscal = True
    elif qualifier == "calendar" or RE_CALENDAR_WORD.search(lower):
        intent.grain_fiscal = False
    intent.week_convention = bool(qualifier == "iso" or RE_WEEK_CONVENTION.search(lower))


def _money(intent: Intent) -> None:
    lower, text = intent.lower, intent.question
    if (m := RE_CURRENCY.search(lower)) is not None:
        intent.currency = Span(m.start(), m.end(), text[m.start():m.end()])
        token = m.group(0).strip().lower()
        if "dollar" in token or token in ("usd", "$"):
            intent.currency_code = "USD"
        elif "eur" in token or token == "€":
            intent.currency_code = "EUR"
        elif token in ("gbp", "£") or "pound" in token or "sterling" in token:
            intent.currency_code = "GBP"
        elif token in ("yen", "jpy", "¥"):
            intent.currency_code = "JPY"
        elif token in ("cad", "aud"):
            intent.currency_code = token.upper()
    for m in RE_MONEY.finditer(lower):
        if RE_MONEY_AS_CRITERION.search(lower[:m.start()]):
            continue
        intent.money = Span(m.start(), m.end(), text[m.start():m.end()])
        break


def _resolve(words_text: str, vocab: Vocabulary) -> tuple[list[Entity], int] | None:
    """Targets named at the start of `words_text` (longest phrase first) and how many words matched."""
    parts = [singular(w) for w in RE_TOKEN.findall(words_text)]
    for size in range(min(vocab.longest, len(parts)), 0, -1):
        key = tuple(parts[:size])
        if key in vocab.phrases:
            return vocab.phrases[key], size
    return None


_SKIP = {"the", "our", "all", "distinct", "unique", "different", "active", "new", "total", "selling", "performing",
         "popular", "valuable", "of", "a", "an", "most", "top", "best", "my", "your", "their", "its", "current"}


def _subject_word(text: str) -> tuple[str, int] | None:
    """The first content word of `text` and its offset (skipping articles, numbers and adjectives)."""
    for m in RE_TOKEN.finditer(text):
        word = m.group(0)
        if word in _SKIP or word.isdigit():
            continue
        return word, m.start()
    return None


def _how_many(intent: Intent, vocab: Vocabulary) -> None:
    m = RE_HOW_MANY.search(intent.lower)
    if m is None:
        return
    subject = _subject_word(m.group(1))
    if subject is None:
        return
    word, offset = subject
    start = m.start(1) + offset
    span = Span(start, start + len(word), intent.question[start:start + len(word)])
    resolved = _resolve(intent.lower[start:], vocab)
    if resolved:
        intent.how_many = (resolved[0][0].table, span)
        return
    key = (singular(word),)
    measure = vocab.measure_words.get(key)
    if measure is not None:
        intent.how_many = (measure.table, span)
        return
    if word not in vocab.known and singular(word) not in vocab.known and word not in STOPWORDS:
        intent.unknown_subject = span


def _group(intent: Intent, vocab: Vocabulary) -> None:
    lower = intent.lower
    if intent.ranking is not None:
        # the ranked thing: the first schema target after the ranking words, else any target
        after = [t for t in intent.targets if t.span.start >= intent.ranking.start]
        chosen = after[0] if after else (intent.targets[0] if intent.targets else None)
        if chosen is not None:
            intent.group = chosen
            return
        subject = _subject_word(lower[intent.ranking.end:intent.ranking.end + 40])
        if subject is not None:
            word, offset = subject
            if word not in vocab.known and singular(word) not in vocab.known and word not in STOPWORDS:
                start = intent.ranking.end + offset
                intent.unknown_subject = Span(start, start + len(word), intent.question[start:start + len(word)])
        return
    for m in RE_GROUP.finditer(lower):
        target = next((t for t in intent.targets if t.span.start == m.start(1)), None)
        if target is not None:
            intent.group = target
            return


_NOT_NAMES = frozenset({"i", "what", "which", "who", "how", "show", "give", "list", "tell", "find", "build",
                        "make", "run", "top", "best", "total", "revenue", "sales", "the", "is", "are", "was", "me",
                        "can", "could", "please", "did", "do", "does", "when", "where", "why", "compare", "plot",
                        "chart", "draw", "create", "get", "count", "sum", "all", "average", "q1", "q2", "q3", "q4",
                        "fy", "ytd", "usd", "eur", "gbp", "jpy", "iso", "utc", "gmt", "us", "uk", "eu", "monday",
                        "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "has", "have", "had",
                        "hi", "hello", "ok", "okay", "yesterday", "today", "daily", "weekly", "monthly", "by", "in",
                        "for", "on", "at", "of", "and", "or", "our", "my", "we", "how's", "what's", "who's"})


def _names(intent: Intent, vocab: Vocabulary) -> None:
    """Candidate entity names: quoted text, capitalised words that are not schema or question words."""
    text = intent.question
    for m in RE_PROPER.finditer(text):
        value = m.group(1) or m.group(2) or m.group(3)
        if not value:
            continue
        start = m.start(1) if m.group(1) else m.start(2) if m.group(2) else m.start(3)
        quoted = bool(m.group(1) or m.group(2))
        if not quoted:
            parts = value.split()
            while parts and (parts[0].lower().strip("'’") in _NOT_NAMES or parts[0].lower() in _MONTHS
                             or _is_schema_word(parts[0], vocab)):
                start += len(parts[0]) + 1
                parts = parts[1:]
                while parts and parts[0] == "&":
                    start += 2
                    parts = parts[1:]
            while parts and (parts[-1].lower() in _NOT_NAMES or parts[-1].lower() in _MONTHS
                             or _is_schema_word(parts[-1], vocab)):
                parts = parts[:-1]
            value = " ".join(parts)
            if not value or len(value) < 2:
                continue
            value = text[start:start + len(value)] if text[start:start + len(value)].split() == parts else value
        intent.names.append(Span(start, start + len(value), value))


def _is_schema_word(word: str, vocab: Vocabulary) -> bool:
    lowered = word.lower()
    return (singular(lowered),) in vocab.phrases or (singular(lowered),) in vocab.measure_words or \
        lowered in STOPWORDS
