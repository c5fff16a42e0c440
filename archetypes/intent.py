"""What a question says, read once and shared by every detector: schema words, ranking words, time
expressions, grains, money words, candidate names. Regexes are compiled at import; the vocabulary is
built once per profile and kept in its cache.
"""
from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field, replace

import simplemma
from rapidfuzz.distance import DamerauLevenshtein

from archetypes import calendar, lexicon
from archetypes.naming import WORD, phrase, singular, word_spans, words
from archetypes.profile import Entity, Measure, SchemaProfile

_MONTHS = {m: i + 1 for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
     "november", "december"])}
_MONTHS.update({m[:3]: i for m, i in list(_MONTHS.items())})
_MONTHS["sept"] = 9
_MONTH_RE = r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
_YEAR_RE = r"((?:19|20)\d{2})"

RE_RANKING = re.compile(
    r"\b(top(?:[- ]selling|[- ]performing|[- ]earning)?(?:\s+\d+)?|"
    r"bottom(?:[- ]selling|[- ]performing)?(?:\s+\d+)?(?!\s+(?:line|of)\b)|"
    r"best(?:[- ]selling|[- ]performing)?|"
    r"worst(?:[- ]selling|[- ]performing)?|most[- ]popular|most[- ]active|most[- ]valuable|"
    r"(?:most|least)[- ](?:common|frequent)|"
    r"most[- ]successful|most[- ]sold|leading|biggest|largest|strongest|weakest|"
    r"least[- ]popular|popular|highest[- ]ranked|number one|#1|ranking|rank)\b"
    r"|\b(?:who|which (?P<noun>\w+(?: and \w+)?)|^(?:the\s+)?(?P<lead>\w+)) (?P<verb>sells?|sold|buys?|bought|"
    r"spends?|spent|pays?|paid|purchased?|order(?:s|ed)?|performs?) (?:the )?most\b")
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
RE_CYCLE = re.compile(r"\b(days? of (?:the )?week|weekdays?|(?:what|which) day\b|hours? of (?:the )?day|hourly|"
                      r"by hour|per hour|each hour|(?:what|which) hour|time of (?:the )?day)\b")
RE_FISCAL = re.compile(r"\bfiscal\b|\bfy\s?\d{2,4}\b")
RE_WEEK_CONVENTION = re.compile(r"\biso\b|\bmonday[- ]start|\bsunday[- ]start|\bweeks? start")
RE_CALENDAR_WORD = re.compile(r"\bcalendar\s+(?:month|quarter|year|week)")
RE_VAGUE_TIME = re.compile(
    r"\b(trend(?:s|ing|ed)?|recent(?:ly)?|lately|latest|these days|nowadays|over time|over the years|"
    r"growth|growing|grown|declining|decline|momentum|"
    r"how (?:are|is|have|has) (?:our |the |we )?[a-z ]{0,30}(?:doing|going|performing|been doing|looking|holding up)|"
    r"how (?:did|do|does) (?:we|our \w+|the \w+) (?:do|perform|look)|"
    r"going up|going down|picking up|picked up|slowing down|compared to before|a while|rising|falling|"
    r"of late(?=\s*(?:$|[,.?!;)]|(?:in|at|for|on|and|from|across|by|with)\b))|"  # not 'share of late parcels'
    r"(?:last|past|previous|recent|next) (?:few|couple of|several|many) (?:days|weeks|months|quarters|years))\b")
RE_DAY_BOUNDARY = re.compile(
    r"\b(yesterday|today|tonight|this morning|last night|daily|per day|by day|each day|every day|a day|"
    r"day[- ]by[- ]day|day[- ]over[- ]day|by date|per date|each date|days? of (?:the )?week|weekdays?|weekends?|"
    r"hours?|hourly|time of (?:the )?day|mornings?|evenings?|overnight|midnight|"
    r"on " + _MONTH_RE + r"\.? \d{1,2}(?:st|nd|rd|th)?|on \d{1,2}(?:st|nd|rd|th)? (?:of )?" + _MONTH_RE +
    r"|on (?:19|20)\d{2}-\d{2}-\d{2}|(?:19|20)\d{2}-\d{2}-\d{2}|on (?:mon|tues|wednes|thurs|fri|satur|sun)day)\b")
RE_CURRENCY = re.compile(
    r"(\bin (?:us |u\.s\. )?dollars\b|\bdollars?\b|\busd\b|\beur\b|\beuros?\b|\bgbp\b|\bpounds? sterling\b|"
    r"\bsterling\b|\byen\b|\bjpy\b|\bcad\b|\baud\b|\bcurrenc(?:y|ies)\b|\bexchange rates?\b|\bconvert(?:ed)?\b|"
    r"[$€£¥])")
RE_MONEY = re.compile(r"\b(revenue|revenues|rev|turnover|income|earnings|takings|gmv|money|how much|spend|spent|"
                      r"spending|sales amount|sales value|amount|billings?|gross|order value|aov|basket value|"
                      r"basket size|ticket size|(?:total|dollar|cash|monetary)\s+value|value\s+of)\b")
RE_MONEY_CONTEXT = re.compile(r"\b(revenue|sales|sold|total|sum|amount|spent|spend|value|price|prices|paid|"
                              r"how much|income|turnover|earn\w*|gmv)\b")
RE_RATE_SUBJECT = re.compile(r"\b(?:exchange rates?|fx rates?|conversion rates?|rates?)\b")
RE_MONEY_AS_CRITERION = re.compile(r"\b(?:by|in terms of|ranked by|based on|with the (?:most|highest))\s+(?:total\s+)?$")
RE_VIZ = re.compile(
    r"\b(interactive|animated|animation|animate|sankey|dashboards?|choropleth|heat ?maps?|treemaps?|sunburst|"
    r"chord diagram|network (?:graph|diagram)|force[- ]directed|3d|three[- ]dimensional|globe|gantt|"
    r"drill[- ]?down|live[- ]updating|real[- ]time (?:chart|view|map)|flow diagram|funnel chart|word cloud|"
    r"(?:a|an|the|on a|interactive|world|geo|geographic) maps?|maps? (?:of|showing|with))\b")
# ('over the last 6 months': 'over' is the window's word, no threshold)
RE_WINDOW_N = re.compile(r"\b(?:over\s+(?:the\s+)?)?(?:last|past|previous|trailing|prior|recent)\s+"
                         r"(\d{1,4}|two|three|four|five|six|seven|"
                         r"ten|twelve|thirty|ninety)\s+(day|week|month|quarter|year)s?\b")
RE_WINDOW_UNIT = re.compile(r"\b(last|previous|past|this|current|prior)\s+(?:(fiscal|calendar)\s+)?"
                            r"(week|month|quarter|year|wk|qtr|yr)\b")
UNIT_WORDS = {"wk": "week", "qtr": "quarter", "yr": "year"}  # 'this yr', 'last qtr
RE_TO_DATE = re.compile(r"\b(ytd|year[- ]to[- ]date|mtd|month[- ]to[- ]date|qtd|quarter[- ]to[- ]date)\b")
RE_MONTH_YEAR = re.compile(r"\b" + _MONTH_RE + r"\.?,?\s+" + _YEAR_RE + r"\b")
RE_QUARTER = re.compile(r"\b(?:q([1-4])|(first|second|third|fourth) quarter)(?:\s+(?:of\s+)?(?:fy\s?)?" + _YEAR_RE + r")?\b")
# 'jan-mar 2025', 'april through june 2024': a run of months (a change 'from may to june' is two periods, read
# by the change reader)
RE_MONTH_RANGE = re.compile(r"\b" + _MONTH_RE + r"\s*(-|–|\bthrough\b|\bthru\b|\buntil\b|\btill\b|\band\b|&)\s*" + _MONTH_RE +
                            r"(?:,?\s+(?:of\s+)?" + _YEAR_RE + r")?\b")
RE_SPAN_MONTHS = re.compile(r"\b(?:between|from)\s+(?:the\s+start\s+of\s+)?" + _MONTH_RE +
                            r"\s+(?:and|to|through|thru|until|till|-)\s+(?:the\s+end\s+of\s+)?" + _MONTH_RE +
                            r"(?:,?\s+(?:of\s+)?" + _YEAR_RE + r")?\b(?![\s.,]*\d)")
# 'q1 this year', 'h2 last year', 'march of last year': a part of the year named relative to now
RE_PART_OF_YEAR = re.compile(r"\b(?:q([1-4])|h([12])|(first|second|third|fourth) quarter|" + _MONTH_RE +
                             r")(?:\s+(?!vs\b|versus\b|and\b|to\b|than\b|compared\b|against\b)[a-z]+){0,2}?"
                             r"\s+(?:of\s+|in\s+)?(this|current|last|previous|prior)\s+(?:year|yr)\b")
RE_HALF = re.compile(r"\b(?:h([12])|(first|second|1st|2nd) half)(?:\s+(?:of\s+)?" + _YEAR_RE + r")?\b")
_YEAR_SPAN = re.compile(r"(?:\bacross\s+|\b(?:from|over|during|in|for)\s+)?\b(?P<first>(?:19|20)\d{2})\s*"
                        r"(?:(?P<dash>-|–)|\b(?P<through>through|thru|until|till)\b|\band\b|&|\bto\b)\s*"
                        r"(?P<last>(?:19|20)\d{2})\b"
                        r"(?P<whole>\s+(?:combined|together|put\s+together|in\s+total|inclusive|both\s+included))?")
RE_YEAR = re.compile(r"(?<![$€£¥\d,.])\b(?:fy\s?)?" + _YEAR_RE + r"\b(?![,.]\d)")  # '$2000' is money
_COMPARED_WITH = re.compile(r"\b(?:(?:more|less|fewer|greater|higher|lower)\s+than|over|above|under|below|at least|"
                            r"at most|exceeding|beyond)\s+\$?$")
RE_ISO_DAY = re.compile(r"\b((?:19|20)\d{2})-(\d{2})-(\d{2})\b")
RE_ISO_RANGE = re.compile(r"\b(?:from\s+|between\s+)?((?:19|20)\d{2})-(\d{2})-(\d{2})\s*(?:to|through|thru|until|till|and|-|–)\s*"
                          r"((?:19|20)\d{2})-(\d{2})-(\d{2})\b")
# 'on march 6', 'for the 6th of march', and without a preposition when the year follows ('march 6 2025')
RE_ON_DAY = re.compile(r"\b(?:on|for|during)\s+" + _MONTH_RE + r"\.?\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s+" + _YEAR_RE + r")?\b"
                       r"|\b(?:on|for|during)\s+(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH_RE +
                       r"(?:,?\s+" + _YEAR_RE + r")?\b"
                       r"|\b" + _MONTH_RE + r"\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+" + _YEAR_RE + r"\b")
# 'how much has X spent so far': to this day, every row (a period said with it, 'this year so far', bounds it)
RE_ALL_TIME = re.compile(r"\b(all[- ]time|of all time|ever|since the (?:start|beginning)|in total|overall|lifetime|"
                         r"so far|up to now|until now|till now|to date(?=\s*[?.!]*$))\b")
RE_BARE_MONTH = re.compile(r"\b(?:in|for|during|of|from|over|this(?:\s+past)?)\s+(?:the\s+month\s+of\s+)?" + _MONTH_RE +
                           r"\b(?![\s.,]*\d)")
RE_SINCE = re.compile(r"\bsince\s+(?:" + _MONTH_RE + r"(?:\s+" + _YEAR_RE + r")?|" + _YEAR_RE + r")\b")
RE_NOT_SINCE = re.compile(r"\b(?:not|never|no|haven'?t|hasn'?t|didn'?t|nothing|none)\b")
RE_PROPER = re.compile(r"[\"“]([^\"”]{2,60})[\"”]|(?<!\w)'([^']{2,60})'(?=\s|[?.!,]|$)|"
                       r"(?<![\w'’])((?:[A-Z]|[a-z]+[A-Z])[\w’'/&.-]*(?:\s+(?:&\s+)?(?:[A-Z]|\d)[\w’'/&.-]*)*)")
RE_ALL_MATCHES = re.compile(r"\b(?:contain(?:s|ing)?|like|matching|match(?:es)?|starting with|starts with|"
                            r"beginning with|begins with|includ(?:e|es|ing)|with .{0,12}in (?:the|their|its) name)\s+$")
RE_KEY_REF = re.compile(r"^\s*(?:#|no\.?\s*|number\s+|id\s+)?(\d{1,9})\b")
RE_MOST_OF = re.compile(r"^\s*(?:which|what|where)\b.*\b(?:do|does|did)\s+most\s+(?:of\s+)?(?:our|the|all|all\s+the)?\s*"
                        r"([a-z]+)\s+(?:come|live|shop|stay|work|sit|belong|buy|order)")
RE_ROWS_BY = re.compile(r"^\s*(?:(?:show|give|get)\s+(?:me\s+)?)?(?:(?:an?|the)\s+)?"
                        r"(?:(?:breakdown|breakout|split|mix)\s+of\s+)?(?:(?:the|our|all|all\s+the)\s+)?([a-z]+)\s+"
                        r"(?:by|per|grouped\s+by|broken\s+down\s+by|split\s+by|for\s+each)\s+[a-z]")
RE_NOUN_COUNT = re.compile(r"\b([a-z]+)\s+(?:count|counts|tally|volume|volumes)\b")
RE_CHILD_COUNT = re.compile(r"\b(?:most|fewest|least|number of|count of|how many)\s+(?:distinct\s+|unique\s+|different\s+)?"
                            r"([a-z][a-z ]{1,30})")
RE_SUPERLATIVE = re.compile(r"\b(?<!at )(?:the )?(most|fewest|least|highest|lowest|largest|smallest|biggest)\b"
                            r"(?! recent)")  # 'at least 5' and 'at most 5' are conditions
RE_TOP_N = re.compile(r"\b(?:top|best|worst|bottom)\s+(\d{1,3})\b")
# 'the 5 most expensive items', '3 cheapest', '10 biggest': how many, before the superlative
RE_N_MOST = re.compile(r"\b(\d{1,3})\s+(?:most|least|cheapest|priciest|biggest|largest|smallest|highest|lowest|"
                       r"newest|oldest|latest|earliest|longest|shortest|youngest|best|worst|heaviest|lightest)\b")

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
                           "income", "earnings", "transactions", "transaction", "business", "gmv", "money",
                           "earn", "earns", "earned", "earning"})
# 'how much did we make last year', 'how much did the iphone bring in': the verb says money came in
RE_MONEY_MADE = re.compile(r"\b(?:how much|what (?:did|do|does|have|has|had))\b(?:\s+[\w']+){1,6}?\s+"
                           r"(?:make|made|makes|making|bring in|brought in|brings in|take in|took in|takes in|rake in|"
                           r"raked in|pull in|pulled in|gross|grossed|earn|earned|earns)\b")


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
    also_group: Target | None = None              # a second breakdown: 'by category and store'
    grain: tuple[str, Span] | None = None         # day | week | month | quarter | year, span
    grain_fiscal: bool | None = None              # True fiscal named, False calendar named, None unsaid
    week_convention: bool = False
    window: calendar.Window | None = None
    window_span: Span | None = None
    day_specific: bool = False                    # the window is a single local day
    vague_time: Span | None = None
    day_boundary: Span | None = None
    currency: Span | None = None
    currency_named: str | None = None
    money: Span | None = None
    viz: Span | None = None
    names: list[Span] = field(default_factory=list)
    schema_hits: int = 0
    unknown_subject: Span | None = None
    key_refs: list[tuple[Entity, str, Span]] = field(default_factory=list)
    rate_subject: bool = False
    superlative: Span | None = None               # 'the most albums': a ranking whose metric is named
    top_span: Span | None = None                  # the N of 'the 5 most expensive
    partition: Target | None = None               # 'top 3 albums per genre': the ranking runs in each
    partition_span: Span | None = None            # the words naming it ('per category', 'in each genre')
    absent_subject: bool = False                  # unknown_subject is a usual business subject the schema lacks
    money_context: bool = False
    read_as: list[tuple[Span, str]] = field(default_factory=list)  # misspelt schema words, read as the word
    table_measures: list[Measure] = field(default_factory=list)   # 'refund amount': a fact's measure by its table


# -- vocabulary ---------------------------------------------------------------------------------

# generic English words for the usual business nouns (not any schema's names): used only when the
# schema itself has no table or column of the question's word
SYNONYMS = {"client": "customer", "buyer": "customer", "shopper": "customer", "purchaser": "customer",
            "account": "customer", "subscriber": "customer", "member": "customer", "song": "track", "tune": "track",
            "band": "artist", "musician": "artist",
            "singer": "artist", "record": "album", "agent": "employee", "rep": "employee", "representative": "employee",
            "salesperson": "employee", "staff": "employee", "worker": "employee", "item": "product", "sku": "product",
            "good": "product", "merchandise": "product", "vendor": "supplier", "shop": "store", "outlet": "store",
            "branch": "store", "location": "store", "carrier": "shipper", "courier": "shipper", "nation": "country",
            "purchase": "order", "sale": "order", "transaction": "order", "bill": "invoice", "genre": "category",
            "category": "genre", "manager": "employee", "sales rep": "employee", "sales representative": "employee",
            "sales agent": "employee", "support rep": "employee", "support agent": "employee",
            "account manager": "employee", "sales person": "employee", "salespeople": "employee",
            "sales people": "employee", "customer": "account"}

# subjects analysts ask about that many schemas lack; asked of a schema without them -> insufficient_info
ABSENT_SUBJECTS = frozenset("""
employee employees headcount staff salary salaries payroll marketing campaign campaigns advertising ads website
web visitor visitors visit visits session sessions pageview pageviews click clicks impression impressions traffic
conversion conversions churn churned retention ticket tickets complaint complaints satisfaction nps survey surveys
profit profits margin margins cogs return returns refund refunds inventory warehouse age gender stream streams
streamed play plays played download downloads view views like likes rating ratings review reviews budget budgets
forecast forecasts quota quotas expense expenses login logins user users subscriber subscribers subscription
subscriptions app installs costs returned
""".split())


@dataclass
class Vocabulary:
    phrases: dict[tuple[str, ...], list[Entity]]      # singular word tuples -> targets
    measure_words: dict[tuple[str, ...], Measure]
    known: frozenset[str]
    longest: int
    tables: dict[tuple[str, ...], str] = field(default_factory=dict)   # singular phrase -> any table
    rate_words: frozenset[str] = frozenset()
    stems: frozenset[str] = frozenset()
    typos: dict[str, str | None] = field(default_factory=dict)  # a misspelt word -> the schema word it is
    typo_targets: frozenset[str] = frozenset()  # the one-word schema words a misspelt word may be
    every_measure: dict[tuple[str, ...], list[Measure]] = field(default_factory=dict)  # a word several facts hold
    # facts whose rows other facts' rows point at (an order of its items): their own money is no row's value
    # ('freight'), the lines' is
    with_lines: frozenset[str] = frozenset()
    # the deed a dated column records, by its root ('ship': the rows with a shipped date): 'shipments' are them
    deeds: dict[str, str] = field(default_factory=dict)
    sampled: frozenset[str] = frozenset()  # one-word values of the columns of a few kinds ('red', 'penalty')


def typo_fix(word: str, vocab: Vocabulary) -> str | None:
    """The one schema word (a table's or a measure's, singular) a misspelt question word is ('cusomers',
    'prodcuts', 'catgory'): one edit away (two for long words), same first letter, no other word as close.
    An English word, a function word or a short one is never a typo: 'states' is not 'status'."""
    if word in vocab.typos:
        return vocab.typos[word]
    found: str | None = None
    single = singular(word)
    if len(word) >= 6 and word.isalpha() and word not in vocab.known and single not in vocab.known and \
            word not in STOPWORDS and single not in SYNONYMS and not simplemma.is_known(word, lang="en"):
        close = [k for k in vocab.typo_targets if k[0] == single[0] and
                 min(DamerauLevenshtein.distance(single, k), DamerauLevenshtein.distance(word, k)) <=
                 (2 if len(k) >= 9 else 1)]
        found = close[0] if len(close) == 1 else None
    vocab.typos[word] = found
    return found


_SUFFIXES = ("ments", "ment", "ings", "ing", "ers", "er", "ed", "es", "s")


def stem(word: str) -> str:
    """A crude stem, only to recognise 'shipments' next to 'shipped' as schema words."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


# the words a money column's other names add ('freight costs', 'shipping'): read only as part of that name
_MONEY_SAID = frozenset(lexicon.MONEY_TAILS) | frozenset(w for names in lexicon.MONEY_COLUMN_SYNONYMS.values()
                                                        for n in names for w in n.split())

_PEOPLE_WORDS = ("people", "person", "headcount", "staff", "folks")


def _nearer(profile: SchemaProfile, table: str, other: str) -> bool:
    """Whether the primary fact reaches `table` in fewer steps than `other`."""
    fact = profile.primary_fact()
    if fact is None:
        return False
    mine, theirs = profile.path(fact.table, table), profile.path(fact.table, other)
    return mine is not None and (theirs is None or len(mine) < len(theirs))


# the last word of a table's name that names no rows alone: 'order lines' are no lines, 'price list' no list
_NOT_HEADS = frozenset({"type", "line", "detail", "details", "info", "data"}) | lexicon.VERB_HEADS


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
        if len(key) > 1 and key[-1] not in _NOT_HEADS and \
                not (key[-1] == "item" and entity.table in profile.facts):  # ('store items' are items; lines are not)
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
                                                                                      "description"):
                if column_words[-1] in ("name", "title") and len(column_words) == 1:
                    continue
                key = tuple(singular(w) for w in column_words)
                other = [e for e in phrases.get(key, []) if e.column_only and e.table != name]
                if other and _nearer(profile, name, other[0].table):
                    # 'revenue by country' with a country on the students and on the instructors: the column
                    # nearest the events (the buyer's), not the first table's
                    phrases[key] = [e for e in phrases[key] if e not in other]
                if key in phrases and any(e.table != name for e in phrases[key]):
                    continue  # a table of that name exists: that is the entity
                pseudo = Entity(table=name, name_columns=(column.name,), noun=" ".join(key),
                                key=tuple(table.primary_key), row_count=table.row_count, column_only=True)
                if tuple(key) not in phrases or all(e.table != name for e in phrases[tuple(key)]):
                    add(tuple(key), pseudo)
                if len(key) > 1 and key[-1] not in ("name", "title", "type", "number", "no"):
                    add(key[-1:], pseudo)  # ('tail number' is not 'the number of bookings')
    measure_words: dict[tuple[str, ...], Measure] = {}
    every_measure: dict[tuple[str, ...], list[Measure]] = {}
    for fact in profile.facts.values():
        for measure in fact.measures:
            for text in measure.words:
                key = tuple(singular(w) for w in text.split())
                every_measure.setdefault(key, []).append(measure)
                held = measure_words.get(key)
                # 'trips' counts the trips' own rows, not the distinct trips its payments name (a trip with no
                # payment would not count); a filter on the lines still reaches them (analyse._reach_filters)
                if held is None or (measure.kind == "count" and held.kind == "count_distinct"):
                    measure_words[key] = measure
                if text == measure.words[0] or not measure.money:
                    # 'freight cost' names the freight; 'cost' alone is no word of this schema
                    known.update(text.split())
                else:
                    known.update(w for w in text.split() if w not in _MONEY_SAID)
    tables: dict[tuple[str, ...], str] = {}
    for word, target in profile.synonyms.items():
        key = tuple(singular(w) for w in word.split())
        entity_name = next((n for n in profile.entities if n.lower() == target.lower()), None)
        table_name = next((n for n in profile.tables if n.lower() == target.lower()), None)
        named = next((m for f in profile.facts.values() for m in f.measures if m.value == target), None)
        if entity_name:
            add(key, profile.entities[entity_name])
        elif named:
            measure_words[key] = named
        if table_name:  # 'jobs: work_orders': the rows of a table with no name column are counted by the word too
            tables[key] = table_name
        if entity_name or named or table_name:
            known.add(word)  # (a synonym of nothing this data holds stays unread)
    known.update(singular(w) for w in list(known))
    for name in profile.tables:  # whole names first, then the last word of multi-word names
        tables.setdefault(tuple(singular(w) for w in phrase(name).split()), name)
    whole = set(tables)
    for name in profile.tables:
        key = tuple(singular(w) for w in phrase(name).split())
        if len(key) > 1 and key[-1] not in lexicon.VERB_HEADS:  # ('list the wines': no price_list rows)
            tables.setdefault(key[-1:], name)
    for word, canonical in SYNONYMS.items():
        said = tuple(singular(w) for w in word.split()) if " " in word else (word,)
        if said not in phrases and said not in whole and (canonical,) in phrases:  # (a table of accounts is meant)
            phrases[said] = phrases[(canonical,)]
            if len(said) == 1:  # 'sales person' is read as a phrase; 'person' alone stays unknown
                known.add(word)
        if said not in tables and (canonical,) in tables:
            tables[said] = tables[(canonical,)]
    for table in profile.tables.values():
        # a key's own words name the row it points at: 'support rep' (support_rep_id) is an employee
        for fk in table.foreign_keys:
            said = tuple(singular(w) for w in words(fk.columns[0]) if w not in ("id", "key", "fk", "no", "code"))
            pointed = next((e for n, e in profile.entities.items() if n.lower() == fk.ref_table.lower()), None)
            if len(fk.columns) == 1 and len(said) > 1 and pointed is not None and said not in phrases and \
                    not any(w in STOPWORDS for w in said):  # 'reports to', 'ship via': a verb, read elsewhere
                phrases[said] = [pointed]
    # 'people', 'headcount': the one table of people there is (the employees of an HR schema); with several
    # ('employees' and 'clients') the word says nothing of which, and stays unread
    people = [e for n, e in profile.entities.items() if not e.column_only and
              singular(phrase(n).split()[-1] if phrase(n) else n) in lexicon.PEOPLE_NOUNS]
    if len(people) == 1:
        for word in _PEOPLE_WORDS:
            if (word,) not in phrases:
                phrases[(word,)] = [people[0]]
                tables.setdefault((word,), people[0].table)
                known.add(word)
    sold = catalogue(profile)
    for word in lexicon.CATALOGUE_WORDS:
        if sold is not None and (word,) not in phrases:
            phrases[(word,)] = [sold]
            known.add(word)
    # 'premium' for annual_premium: the last word of a money column's name names it, when no other figure, table
    # or name of this schema has that word
    tails: dict[tuple[str, ...], list[Measure]] = {}
    for fact in profile.facts.values():
        for measure in fact.measures:
            tail = measure.words[0].split() if measure.words else []
            if measure.money and measure.kind == "sum" and len(tail) == 2 and not tail[-1].endswith("ed") and \
                    tail[-1] not in ("paid", "spent", "sold", "due", "owed", "sent"):  # ('amount paid': a state)
                tails.setdefault((singular(tail[-1]),), []).append(measure)
    for key, owners in tails.items():
        if len(owners) == 1 and key not in measure_words and key not in phrases and key not in tables and \
                key[0] not in _MONEY_SAID:
            measure_words[key] = owners[0]
    rate_words = frozenset(words(profile.rate_table.table)) if profile.rate_table else frozenset()
    longest = max([len(k) for k in phrases] + [len(k) for k in measure_words] + [1])
    stems = frozenset(stem(w) for w in known if len(w) > 3)
    vocab = Vocabulary(phrases, measure_words, frozenset(known), longest, tables, rate_words, stems,
                       every_measure={k: v for k, v in every_measure.items() if len(v) > 1},
                       typo_targets=frozenset(k[0] for k in [*phrases, *measure_words] if len(k) == 1 and
                                              len(k[0]) >= 5),
                       with_lines=frozenset(e.ref_table for f in profile.facts for e in profile.edges.get(f, ())
                                            if e.ref_table in profile.facts))
    vocab.deeds = _deeds(profile)
    vocab.sampled = frozenset(str(v).lower() for t in profile.tables.values() for c in t.columns
                              if c.family == "text" and 0 < len(c.samples) <= 30 for v in c.samples
                              if str(v).isalpha())
    for root, deed_table in vocab.deeds.items():
        # 'late shipments', 'shipments per employee': the rows with a shipped date, counted as the table's rows
        counted = next((m for m in profile.facts[deed_table].measures if m.kind == "count"), None)
        if counted is not None and (f"{root}ment",) not in measure_words and (f"{root}ment",) not in phrases:
            measure_words[(f"{root}ment",)] = counted
            vocab.known = vocab.known | {f"{root}ment", f"{root}ments"}
    profile.cache["vocabulary"] = vocab
    return vocab


_DEED_WORDS = frozenset({"shipped", "delivered", "dispatched", "returned", "refunded", "cancelled", "canceled",
                         "completed", "fulfilled", "paid"})


def _deed_root(word: str) -> str:
    """'shipped' and 'shipment', 'delivered' and 'delivery': one root ('ship', 'deliver')."""
    for suffix in ("ments", "ment", "ies", "y", "ed", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word[:-1] if len(word) > 3 and word[-1] == word[-2] else word


def _deeds(profile: SchemaProfile) -> dict[str, str]:
    found: dict[str, set[str]] = {}
    for fact in profile.facts.values():
        table = profile.tables.get(fact.table)
        for column in table.columns if table is not None else ():
            for word in set(words(column.name)) & _DEED_WORDS if column.family == "temporal" else ():
                found.setdefault(_deed_root(word), set()).add(fact.table)
    return {root: next(iter(tables)) for root, tables in found.items() if len(tables) == 1}


def catalogue(profile: SchemaProfile) -> Entity | None:
    """'our catalog': the one priced, named table the main fact's lines point at (what is for sale)."""
    fact = profile.primary_fact()
    if fact is None:
        return None
    found = []
    for edge in profile.edges.get(fact.table, ()):
        entity = next((e for n, e in profile.entities.items() if n == edge.ref_table), None)
        table = profile.tables.get(edge.ref_table)
        if entity is None or table is None or entity.column_only or edge.ref_table in profile.facts:
            continue
        if any(c.family == "numeric" and set(words(c.name)) & set(lexicon.ATTRIBUTE_COLUMNS["price"])
               for c in table.columns):
            found.append(entity)
    return found[0] if len(found) == 1 else None


# -- reading a question -------------------------------------------------------------------------

# 'acme corp's email': the possessive is not part of the name or the noun; contractions keep theirs
_HYPHENATED = re.compile(r"\b([a-z]+)-([a-z]+)\b")


def _joined(m: re.Match[str], vocab: Vocabulary) -> str:
    """'check-ins' for a table 'checkins': the word the schema spells as one, its hyphen moved to the end (the
    same length, so every span still holds); other hyphenated words are left as they are."""
    joined = m.group(1) + m.group(2)
    if joined not in vocab.known and singular(joined) not in vocab.known or m.group(0) in vocab.known:
        return m.group(0)
    return joined + " "


# 'never checked in', 'who logged in': a verb and its particle that name a table spelt as one word ('checkins')
_PHRASAL = re.compile(r"\b([a-z]{3,}?)(?:ed|s|ing)?\s+(in|out|up|on)\b")


def _phrasal_table(m: re.Match[str], vocab: Vocabulary) -> str:
    """The table's word in place of the phrase, padded to the same length (every span still holds)."""
    for stem in (m.group(1), m.group(1) + "e"):
        joined = stem + m.group(2)
        if (joined,) in vocab.tables or (singular(joined),) in vocab.tables:
            return joined + " " * (len(m.group(0)) - len(joined))
    return m.group(0)


_ARROW = re.compile(r"(?<=\s)(?:->|=>)(?=\s)")
_SHORTHAND_WITH = re.compile(r"\bw/(?=\s)")
_CONTACT_NUMBER = re.compile(r"\b(phone|telephone|fax|mobile|cell|contact)\s+numbers?\b")
_POSSESSIVE = re.compile(r"(?<=[a-z])(?<!\bwhat)(?<!\bwho)(?<!\bit)(?<!\bthat)(?<!\bthere)(?<!\bhere)(?<!\blet)"
                         r"(?<!\bhow)(?<!\bwhere)(?<!\bwhen)(?<!\bhe)(?<!\bshe)'s\b")


def read(question: str, profile: SchemaProfile, as_of: dt.date | None) -> Intent:
    text = question  # at most adapters.safety.MAX_QUESTION_BYTES: every word is read
    lower = _POSSESSIVE.sub("  ", text.lower().replace("’", "'"))  # same length: spans still hold
    lower = _SHORTHAND_WITH.sub("vs", _ARROW.sub("to", lower))  # '2024 -> 2025', 'compared w/ may': same length
    # 'the phone number of our london client' names a column, no count: the word 'number' blanked, same length
    lower = _CONTACT_NUMBER.sub(lambda m: m.group(1) + " " * (m.end() - m.end(1)), lower)
    vocab = vocabulary(profile)
    lower = _HYPHENATED.sub(lambda m: _joined(m, vocab), lower)
    lower = _PHRASAL.sub(lambda m: _phrasal_table(m, vocab), lower)
    tokens = word_spans(lower)
    intent = Intent(question=text, lower=lower, tokens=tokens)
    _schema_words(intent, vocab)
    _ranking(intent, vocab)
    _time(intent, as_of)
    _fiscal_window(intent, profile, as_of)
    _grain(intent)
    _money(intent)
    idioms = lexicon.grammar_idioms(lower)  # ('converted at order-date rates' names the rate used, asks none)
    if vocab.rate_words and any(w in vocab.rate_words and not any(a <= at < b for a, b in idioms) for w, at, _ in tokens) \
            or (vocab.rate_words and any(not any(a <= m.start() < b for a, b in idioms)
                                         for m in RE_RATE_SUBJECT.finditer(lower))):
        intent.rate_subject = True
    if (m := RE_VIZ.search(lower)) is not None:
        intent.viz = Span(m.start(), m.end(), text[m.start():m.end()])
    _how_many(intent, vocab)
    _owners_column(intent, profile)
    _group(intent, vocab)
    _what_each_did(intent)
    _breakdown_named(intent)
    _rows_by(intent, vocab)
    _rows_most(intent, vocab)
    _partition(intent)
    _absent_subject(intent, vocab)
    _key_refs(intent, profile)
    _names(intent, vocab)
    return intent


def _absent_subject(intent: Intent, vocab: Vocabulary) -> None:
    measured = [s for _, s in intent.measures]  # 'freight costs': the freight, no costs the schema lacks
    for word, start, end in intent.tokens:
        if word in ABSENT_SUBJECTS and word not in vocab.known and singular(word) not in vocab.known and \
                not any(s.start <= start < s.end for s in measured):
            intent.unknown_subject = Span(start, end, intent.question[start:end])
            intent.absent_subject = True
            return


def _key_refs(intent: Intent, profile: SchemaProfile) -> None:
    """'store 3', 'customer #12': a row named by its key."""
    for target in intent.targets:
        if not target.entity.key or len(target.entity.key) != 1:
            continue
        m = RE_KEY_REF.match(intent.lower[target.span.end:])
        if m is not None and not m.group(0).strip().startswith(("#", "no", "number", "id")) and \
                RE_YEAR.fullmatch(m.group(1)) is not None:
            continue  # 'revenue by genre 2024': a year, unless written as a key ('store #2024', 'id 2024')
        if m is not None:
            start, end = target.span.start, target.span.end + m.end()
            intent.key_refs.append((target.entity, m.group(1), Span(start, end, intent.question[start:end])))
    for measure, span in list(intent.measures):
        # 'the freight for order 10248': an event named by its key (a table of events, with no name of its own)
        m = RE_KEY_REF.match(intent.lower[span.end:])
        table = profile.tables.get(measure.table)
        if measure.kind != "count" or m is None or table is None or len(table.primary_key) != 1 or \
                RE_YEAR.fullmatch(m.group(1)) is not None or span.text.lower() != singular(span.text.lower()):
            continue
        key = table.primary_key[0]
        entity = Entity(table.name, (key,), phrase(table.name), (key,), table.row_count)
        start, end = span.start, span.end + m.end()
        intent.key_refs.append((entity, m.group(1), Span(start, end, intent.question[start:end])))
        intent.measures.remove((measure, span))  # the row named, not a count of rows (one, by its key)


def _schema_words(intent: Intent, vocab: Vocabulary) -> None:
    singles = [singular(t[0]) for t in intent.tokens]
    for index, (word, start, end) in enumerate(intent.tokens):
        fixed = typo_fix(word, vocab)
        if fixed is not None:  # read as the schema word, and said so (Understood.read_as)
            singles[index] = fixed
            intent.read_as.append((Span(start, end, intent.question[start:end]), fixed))
    made = RE_MONEY_MADE.search(intent.lower)
    index = 0
    while index < len(singles):
        matched = False
        for size in range(min(vocab.longest, len(singles) - index), 0, -1):
            key = tuple(singles[index:index + size])
            start, end = intent.tokens[index][1], intent.tokens[index + size - 1][2]
            span = Span(start, end, intent.question[start:end])
            if key in vocab.measure_words and size > 1 and (key[0],) in vocab.phrases and index > 0 and \
                    intent.tokens[index - 1][0] in ("which", "what", "each", "every", "per", "by"):
                continue  # 'which item sold the most': the items ranked by what they sold, not 'items sold'
            if key in vocab.measure_words and _said_as_verb(intent, index, size, vocab):
                intent.schema_hits += 1  # 'which region books the most seafood': what it books is counted
                index += size
                break
            if key in vocab.measure_words:
                named = _money_of_row_said(intent, vocab, _measure_of_table_named(intent, vocab, key, index), index,
                                           size)
                intent.measures.append((named, span))
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
            if (singles[index] in vocab.known or stem(singles[index]) in vocab.stems) and \
                    singles[index] not in STOPWORDS or intent.tokens[index][0] in _GENERIC_DATA or \
                    made is not None and made.end() == intent.tokens[index][2]:
                intent.schema_hits += 1
            index += 1


_RANKED_BY = frozenset({"by", "highest", "lowest", "top", "average", "avg", "mean", "median", "max", "min", "biggest",
                        "largest", "smallest", "total", "best", "worst"})


def _money_of_row_said(intent: Intent, vocab: Vocabulary, measure: Measure, index: int, size: int) -> Measure:
    """'top 5 employees by salary', 'the highest salary': one row's money, ranked or averaged, when the table is
    named in the singular and holds exactly one amount of money, not a count of its rows ('by salaries' stays
    a count); never a table of headers whose lines hold the value ('the largest order' is no freight)."""
    word = intent.tokens[index][0]
    if size != 1 or measure.kind not in ("count", "count_distinct") or singular(word) != word or index == 0 or \
            intent.tokens[index - 1][0] not in _RANKED_BY or measure.table in vocab.with_lines:
        return measure
    money: list[Measure] = []
    for found in vocab.measure_words.values():
        if found.table == measure.table and found.money and not any(found is m for m in money):
            money.append(found)
    return money[0] if len({m.value for m in money}) == 1 else measure


def _said_as_verb(intent: Intent, index: int, size: int, vocab: Vocabulary) -> bool:
    """'which region books the most seafood', 'the shop that sells more laptops': a fact's word used as the
    verb between its subject and 'the most' names no figure of its own (the thing after it is what counts)."""
    word = intent.tokens[index][0]
    if size != 1 or index == 0 or not word.endswith("s") or singular(word) not in lexicon.FACT_WORDS:
        return False
    before = singular(intent.tokens[index - 1][0])
    after = intent.lower[intent.tokens[index][2]:]
    return ((before,) in vocab.phrases or before in ("that", "who", "which")) and \
        re.match(r"\s+(?:the\s+)?(?:most|more|least|fewer|less)\s+[a-z]", after) is not None


def _measure_of_table_named(intent: Intent, vocab: Vocabulary, key: tuple[str, ...], index: int) -> Measure:
    """'refund amount': the amount of the refunds, not of the payments, when several facts hold an 'amount'
    and the word before it names one of their tables."""
    chosen = vocab.measure_words[key]
    if key not in vocab.every_measure or index == 0:
        return chosen
    before = singular(intent.tokens[index - 1][0])
    named = [m for m in vocab.every_measure[key] if before in {singular(w) for w in words(m.table)}]
    if len(named) == 1 and named[0] is not chosen:
        intent.table_measures.append(named[0])
        return named[0]
    return chosen


def _ranking(intent: Intent, vocab: Vocabulary) -> None:
    lower = intent.lower
    if (few := RE_N_MOST.search(lower)) is not None:
        intent.top_n = int(few.group(1))
        intent.top_span = Span(few.start(1), few.end(1), intent.question[few.start(1):few.end(1)])
    m = RE_RANKING.search(lower)
    if m is None:
        m = RE_SUPERLATIVE.search(lower)
        if m is None:
            return
        intent.superlative = Span(m.start(), m.end(), intent.question[m.start():m.end()])
    else:
        start = m.start()
        noun = m.group("noun") or m.group("lead")  # ('product sold most in 1997 which one?')
        if noun is not None and not all(w in vocab.known or singular(w) in vocab.known or (singular(w),) in vocab.phrases
                                        for w in noun.split() if w != "and"):
            start = m.start("verb")  # 'which comedian sold the most': a noun of no table is left unread, not ranked
        intent.ranking = Span(start, m.end(), intent.question[start:m.end()])
    if (n := RE_TOP_N.search(lower)) is not None:
        intent.top_n = int(n.group(1))
    elif intent.top_n is None and (n := _WHICH_N.match(lower)) is not None:
        # 'which three genres brought in the most': as many as the number says
        intent.top_n = int(n.group(1)) if n.group(1).isdigit() else _COUNT_WORDS[n.group(1)]
        intent.top_span = Span(n.start(1), n.end(1), intent.question[n.start(1):n.end(1)])
    for criterion in RE_EXPLICIT_METRIC.finditer(lower):
        begin, finish = criterion.start(1) - 1, criterion.start(1) + len(criterion.group(1))
        for measure, span in intent.measures:
            if begin <= span.start <= finish:
                intent.explicit_measure = measure.value
                return
        sold = re.match(r"([a-z]+)\s+(?:sold|bought|purchased)\b", criterion.group(1))
        units = vocab.measure_words.get(("unit",))
        if sold is not None and units is not None and (singular(sold.group(1)),) in vocab.tables:
            intent.explicit_measure = units.value  # 'top artists by tracks sold': the units the lines hold
            intent.measures.append((units, Span(criterion.start(1), criterion.start(1) + sold.end(),
                                                intent.question[criterion.start(1):criterion.start(1) + sold.end()])))
            return
    # 'most albums', 'by number of tracks': a count of the rows of another table
    for criterion in RE_CHILD_COUNT.finditer(lower):
        parts = [singular(w) for w in WORD.findall(criterion.group(1))][:3]
        # ('most red cards': a word of no table first, a value of the rows counted, then their noun)
        value_first = bool(parts) and parts[0] in vocab.sampled and parts[0] not in vocab.known
        for start in (0, 1) if value_first else (0,):
            for size in range(len(parts), start, -1):
                table = vocab.tables.get(tuple(parts[start:size]))
                if table is not None:
                    intent.explicit_measure = f"count:{table}"
                    return
    # a measure named anywhere in a ranking question ('top product for revenue', 'most units')
    for measure, _ in intent.measures:
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
        window, match = _open_ended(lower, window, match, anchor)
        intent.window = window
        intent.window_span = Span(match[0], match[1], text[match[0]:match[1]])
        intent.day_specific = single_day
        if single_day and intent.day_boundary is None:
            intent.day_boundary = intent.window_span  # 'march 6 2025' is a day: whose day?
    elif (m := RE_ALL_TIME.search(lower)) is not None:
        intent.window_span = Span(m.start(), m.end(), text[m.start():m.end()])


_BEFORE = re.compile(r"\b(?:before|prior to|until|till|earlier than|pre)\s+(?:the\s+(?:start\s+of\s+)?)?$")
_AFTER = re.compile(r"\b(?:after|later than|post)\s+(?:the\s+(?:end\s+of\s+)?)?$")
_WEEK_OF = re.compile(r"\bweek\s+of\s+(?:the\s+)?$")
_THROUGH = re.compile(r"\b(?:through|thru|up\s+to|up\s+until|up\s+till|to\s+the\s+end\s+of|until\s+the\s+end\s+of|"
                      r"as\s+of|as\s+at)\s+"  # ('visits as of june 1': every one made by then)
                      r"(?:and\s+including\s+)?$")
_SINCE_DAY = re.compile(r"\b(?:since|starting(?:\s+(?:on|from))?|on\s+or\s+after|from)\s+(?:the\s+)?$")


def _open_ended(lower: str, window: calendar.Window, match: tuple[int, int],
                as_of: dt.date) -> tuple[calendar.Window, tuple[int, int]]:
    """'before 1997': everything up to the year's start, never the year itself; 'after june 2024': from the
    month's end to the latest day. The word is part of the window's span."""
    before = _BEFORE.search(lower[:match[0]])
    if before is not None:
        return calendar.Window(calendar.OPEN_START, window.start, lower[before.start():match[1]]), \
            (before.start(), match[1])
    week = _WEEK_OF.search(lower[:match[0]])
    if week is not None and window.end - window.start == calendar.DAY:  # 'the week of 2024-03-13': Monday to Sunday
        monday = window.start - dt.timedelta(days=window.start.weekday())
        return calendar.Window(monday, monday + dt.timedelta(days=7), lower[week.start():match[1]]), \
            (week.start(), match[1])
    through = _THROUGH.search(lower[:match[0]])
    if through is not None:  # 'through march 1998', 'up to 2024-03-15': everything to the period's end
        return calendar.Window(calendar.OPEN_START, window.end, lower[through.start():match[1]]), \
            (through.start(), match[1])
    since = _SINCE_DAY.search(lower[:match[0]])
    if since is not None and window.end - window.start == calendar.DAY:
        # 'since april 1 1998': from that day to the latest one
        return calendar.Window(window.start, max(as_of + calendar.DAY, window.end), lower[since.start():match[1]]), \
            (since.start(), match[1])
    after = _AFTER.search(lower[:match[0]])
    if after is not None:
        end = max(as_of + calendar.DAY, window.end + calendar.DAY)
        return calendar.Window(window.end, end, lower[after.start():match[1]]), (after.start(), match[1])
    return window, match


# 'fiscal q4 fy2024', 'q4 fy24', 'fy2024 q4', 'fiscal 2024', 'fy 2024': a fiscal quarter or year named
_NAMED_FISCAL = re.compile(r"\b(?:fiscal\s+)?q([1-4])\s+(?:of\s+)?(?:fy|fiscal(?:\s+year)?)\s?'?((?:19|20)?\d{2})\b|"
                           r"\bfy\s?'?((?:19|20)?\d{2})\s+q([1-4])\b|"
                           r"\bfiscal\s+q([1-4])(?:\s+(?:of\s+)?((?:19|20)\d{2}))?\b|"
                           r"\b(?:fy|fiscal(?:\s+year)?)\s?'?((?:19|20)\d{2}|\d{2})\b")


def _named_fiscal_window(intent: Intent, profile: SchemaProfile, as_of: dt.date | None) -> bool:
    """A fiscal quarter or year named by the question, placed on the profile's fiscal calendar (never the
    calendar quarter of the same number): applied, with the words that name it as the window's span."""
    m = _NAMED_FISCAL.search(intent.lower)
    if m is None or not (profile.fiscal or profile.fiscal_year_start):
        return False
    quarter = m.group(1) or m.group(4) or m.group(5)
    said = m.group(2) or m.group(3) or m.group(6) or m.group(7)
    year = int(said) if said else (as_of or dt.date.today()).year
    year = year + 2000 if year < 100 else year
    window = calendar.named_fiscal(year, int(quarter) if quarter else None, fiscal=profile.fiscal,
                                   fiscal_year_start=profile.fiscal_year_start)
    if window is None:
        return False
    intent.window = window
    intent.window_span = Span(m.start(), m.end(), intent.question[m.start():m.end()])
    return True


def _fiscal_window(intent: Intent, profile: SchemaProfile, as_of: dt.date | None) -> None:
    """'this fiscal quarter': the fiscal period of the profile's calendar, not the calendar one."""
    if _named_fiscal_window(intent, profile, as_of):
        return
    m = RE_WINDOW_UNIT.search(intent.lower)
    if m is None or m.group(2) != "fiscal" or as_of is None or intent.window_span is None or \
            intent.window_span.start != m.start():
        return
    window = calendar.fiscal_window(UNIT_WORDS.get(m.group(3), m.group(3)), as_of, current=m.group(1) in ("this", "current"),
                                    fiscal=profile.fiscal, fiscal_year_start=profile.fiscal_year_start)
    if window is not None:
        intent.window = window


# holidays of a fixed date; movable ones (Easter, Thanksgiving) are not read
RE_HOLIDAY = re.compile(r"\b(christmas eve|christmas day|christmas|xmas|boxing day|new year(?:'?s)?\s+eve|nye|"
                        r"new year(?:'?s)?\s+day|valentine(?:'?s)?\s+day|halloween|independence day|"
                        r"(?:the )?fourth of july|black friday|cyber monday|thanksgiving(?: day)?)"
                        r"(?:,?\s+((?:19|20)\d{2}))?\b")


def _holiday_on(said: str, year: int) -> dt.date:
    """The day of a holiday RE_HOLIDAY found, in a year: US Thanksgiving is November's fourth Thursday, Black
    Friday the day after, Cyber Monday the Monday after."""
    if said.startswith(("thanksgiving", "black", "cyber")):
        first = dt.date(year, 11, 1)
        thursday = first + dt.timedelta(days=(3 - first.weekday()) % 7 + 21)
        return thursday + dt.timedelta(days={"thanksgiving": 0, "black": 1, "cyber": 4}[said.split()[0]])
    month, day_number = _holiday(said)
    return dt.date(year, month, day_number)


def _holiday(said: str) -> tuple[int, int]:
    """(month, day) of a holiday RE_HOLIDAY found ('new year   eve': a possessive blanked out)."""
    if "eve" in said.split() or said == "nye":
        return (12, 24) if "christmas" in said else (12, 31)
    for word, when in (("christmas", (12, 25)), ("xmas", (12, 25)), ("boxing", (12, 26)), ("new", (1, 1)),
                       ("valentine", (2, 14)), ("halloween", (10, 31))):
        if said.startswith(word):
            return when
    return (7, 4)


def _concrete_window(lower: str, as_of: dt.date) -> tuple[calendar.Window, tuple[int, int], bool] | None:
    day = calendar.DAY
    if (m := re.search(r"\byesterday\b", lower)) is not None:
        return calendar.Window(as_of - day, as_of, "yesterday"), m.span(), True
    if (m := re.search(r"\b(today|tonight|this morning)\b", lower)) is not None:
        return calendar.Window(as_of, as_of + day, "today"), m.span(), True
    if (m := RE_ISO_RANGE.search(lower)) is not None:
        # 'from 2024-03-01 to 2024-03-15': both days included
        try:
            first_day = dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
            last_day = dt.date(int(m.group(4)), int(m.group(5)), int(m.group(6)))
            if first_day <= last_day:
                return calendar.Window(first_day, last_day + day, f"{first_day.isoformat()} to {last_day.isoformat()}"), \
                    m.span(), False
        except ValueError:
            pass
    if (m := RE_ISO_DAY.search(lower)) is not None:
        try:
            value = dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
            return calendar.Window(value, value + day, value.isoformat()), m.span(), True
        except ValueError:
            pass
    if (m := RE_HOLIDAY.search(lower)) is not None:
        # 'on christmas day 2024': a holiday of a fixed date, that year's, or the latest one begun
        value = _holiday_on(m.group(1), int(m.group(2)) if m.group(2) else as_of.year)
        if not m.group(2) and value > as_of:
            value = _holiday_on(m.group(1), as_of.year - 1)
        return calendar.Window(value, value + day, value.isoformat()), m.span(), True
    if (m := RE_ON_DAY.search(lower)) is not None:
        month_word = m.group(1) or m.group(5) or m.group(7)
        day_number = int(m.group(2) or m.group(4) or m.group(8))
        year = m.group(3) or m.group(6) or m.group(9)
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
            start = calendar.months_before(end, months)
        else:
            start = calendar.months_before(end, 12 * count)
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
    if (m := RE_SPAN_MONTHS.search(lower)) is not None and not lexicon.CHANGE_SAID.search(lower):
        # 'between april and june 2025', 'from april to june': the months from the one to the other (no change asked)
        first, last = _MONTHS.get(m.group(1)[:3], 1), _MONTHS.get(m.group(2)[:3], 1)
        year = int(m.group(3)) if m.group(3) else as_of.year - (1 if dt.date(as_of.year, first, 1) > as_of else 0)
        start = dt.date(year - (1 if last < first and m.group(3) else 0), first, 1)
        end = calendar.add_months(dt.date(start.year + (1 if last < first else 0), last, 1), 1)
        return calendar.Window(start, end, m.group(0)), m.span(), False
    if (m := RE_MONTH_RANGE.search(lower)) is not None and (
            m.group(2) not in ("and", "&") or _MONTHS.get(m.group(3)[:3], 1) % 12 == _MONTHS.get(m.group(1)[:3], 1) % 12 + 1
            or _MONTHS.get(m.group(3)[:3], 1) == _MONTHS.get(m.group(1)[:3], 1) + 1):
        # ('march and april': two months in a row are one range; 'march and may' is not one)
        first, last = _MONTHS.get(m.group(1)[:3], 1), _MONTHS.get(m.group(3)[:3], 1)
        year = int(m.group(4)) if m.group(4) else as_of.year - (1 if dt.date(as_of.year, first, 1) > as_of else 0)
        start = dt.date(year, first, 1)
        end = calendar.add_months(dt.date(year + (1 if last < first else 0), last, 1), 1)
        return calendar.Window(start, end, m.group(0)), m.span(), False
    if (m := RE_PART_OF_YEAR.search(lower)) is not None:
        year = as_of.year - (0 if m.group(5) in ("this", "current") else 1)
        if m.group(1) or m.group(3):
            start, months = dt.date(year, 3 * ((int(m.group(1)) if m.group(1) else _ORDINAL[m.group(3)]) - 1) + 1, 1), 3
        elif m.group(2):
            start, months = dt.date(year, 6 * (int(m.group(2)) - 1) + 1, 1), 6
        else:
            start, months = dt.date(year, _MONTHS.get(m.group(4)[:3], 1), 1), 1
        end = calendar.add_months(start, months)
        return calendar.Window(start, min(end, as_of + day) if start <= as_of < end else end, m.group(0)), \
            m.span(), False
    if (m := RE_WINDOW_UNIT.search(lower)) is not None:
        which, unit = m.group(1), UNIT_WORDS.get(m.group(3), m.group(3))
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
        if m.group(3):  # 'haven't ordered since 1997': their last order was in 1997, none after it
            year = int(m.group(3)) + (1 if RE_NOT_SINCE.search(lower[:m.start()]) else 0)
        else:  # 'since january': the latest january that has begun
            year = int(m.group(2)) if m.group(2) else as_of.year - (1 if month > as_of.month else 0)
        start = dt.date(year, month, 1)
        return calendar.Window(start, as_of + day, m.group(0)), m.span(), False
    if (m := RE_MONTH_YEAR.search(lower)) is not None:
        month = _MONTHS.get(m.group(1)[:3], 1)
        start = dt.date(int(m.group(2)), month, 1)
        return calendar.Window(start, calendar.add_months(start, 1), m.group(0)), m.span(), False
    if (m := RE_HALF.search(lower)) is not None:
        number = int(m.group(1)) if m.group(1) else (1 if m.group(2) in ("first", "1st") else 2)
        year = int(m.group(3)) if m.group(3) else as_of.year
        start = dt.date(year, 6 * (number - 1) + 1, 1)
        if not m.group(3) and start > as_of:  # 'h2' with no year: the latest one that has begun
            start = dt.date(year - 1, start.month, 1)
        return calendar.Window(start, calendar.add_months(start, 6), m.group(0)), m.span(), False
    if (m := RE_QUARTER.search(lower)) is not None and (m.group(3) or m.group(1) or m.group(2)):
        number = int(m.group(1)) if m.group(1) else _ORDINAL[m.group(2)]
        year = int(m.group(3)) if m.group(3) else as_of.year
        start = dt.date(year, 3 * (number - 1) + 1, 1)
        if not m.group(3) and start > as_of:  # 'q4' with no year: the latest one that has begun
            start = dt.date(year - 1, start.month, 1)
        return calendar.Window(start, calendar.add_months(start, 3), m.group(0)), m.span(), False
    if (m := RE_BARE_MONTH.search(lower)) is not None:
        # 'revenue in march': the latest March that has begun, never every March summed or none at all
        month = _MONTHS.get(m.group(1)[:3], 1)
        start = dt.date(as_of.year, month, 1)
        if start > as_of:
            start = dt.date(as_of.year - 1, month, 1)
        return calendar.Window(start, calendar.add_months(start, 1), m.group(1)), m.span(1), False
    if (m := _YEAR_SPAN.search(lower)) is not None and int(m["first"]) < int(m["last"]) and \
            (m["dash"] or m["through"] or m["whole"] or m.group(0).startswith("across")) and \
            not lexicon.CHANGE_SAID.search(lower):
        # '2023-2024', 'from 2023 through 2024', '2023 and 2024 combined', 'across 2023 and 2024': one run of years
        return calendar.Window(dt.date(int(m["first"]), 1, 1), dt.date(int(m["last"]) + 1, 1, 1), m.group(0)), \
            m.span(), False
    years = list(RE_YEAR.finditer(lower))
    # 'spent more than 2000 in 2025': a number compared with is a threshold when another year is the window
    kept = [m for m in years if not (len(years) > 1 and _COMPARED_WITH.search(lower[:m.start()]))] or years
    if kept:
        m = kept[0]
        year = int(m.group(1))
        return calendar.Window(dt.date(year, 1, 1), dt.date(year + 1, 1, 1), m.group(0)), m.span(), False
    return None


_LENGTH_COMPARED = re.compile(r"\b(?:more|less|longer|shorter|fewer) than\s+$|\b(?:over|under|within|at least|"
                              r"at most|about|almost|nearly)\s+$")


def _grain(intent: Intent) -> None:
    lower = intent.lower
    cycle = RE_CYCLE.search(lower)
    if cycle is not None:
        unit = "hour" if "hour" in cycle.group(0) or "time of" in cycle.group(0) else "weekday"
        intent.grain = (unit, Span(cycle.start(), cycle.end(), intent.question[cycle.start():cycle.end()]))
        return
    # 'took more than a week', 'within a day': a length of time compared, not a period to group by
    m = next((g for g in RE_GRAIN.finditer(lower)
              if not _LENGTH_COMPARED.search(lower[:g.start()]) or not g.group(0).startswith(("a ", "one "))), None)
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
            intent.currency_named = "USD"
        elif "eur" in token or token == "€":
            intent.currency_named = "EUR"
        elif token in ("gbp", "£") or "pound" in token or "sterling" in token:
            intent.currency_named = "GBP"
        elif token in ("yen", "jpy", "¥"):
            intent.currency_named = "JPY"
        elif token in ("cad", "aud"):
            intent.currency_named = token.upper()
    for m in RE_MONEY.finditer(lower):
        if RE_MONEY_AS_CRITERION.search(lower[:m.start()]):
            continue
        if any(t.span.start <= m.start() and m.end() <= t.span.end and t.span.end - t.span.start > m.end() - m.start()
               for t in intent.targets):
            continue  # 'our sales rep': a word of a phrase naming people, not money
        intent.money = Span(m.start(), m.end(), text[m.start():m.end()])
        break
    made = RE_MONEY_MADE.search(lower) if intent.money is None else None
    if made is not None and made.group(0).startswith("what"):
        # 'what did we make last month': the money that came in, named by its verb
        verb = re.search(r"\w+(?: in)?$", made.group(0))
        if verb is not None:
            start = made.start() + verb.start()
            intent.money = Span(start, made.end(), text[start:made.end()])
    intent.money_context = intent.money is not None or RE_MONEY_CONTEXT.search(lower) is not None


def _resolve(words_text: str, vocab: Vocabulary) -> tuple[list[Entity], int] | None:
    """Targets named at the start of `words_text` (longest phrase first) and how many words matched."""
    parts = [typo_fix(w, vocab) or singular(w) for w in WORD.findall(words_text)]
    for size in range(min(vocab.longest, len(parts)), 0, -1):
        key = tuple(parts[:size])
        if key in vocab.phrases:
            return vocab.phrases[key], size
    return None


_SKIP = {"the", "our", "all", "distinct", "unique", "different", "active", "new", "total", "selling", "performing",
         "popular", "valuable", "of", "a", "an", "most", "top", "best", "my", "your", "their", "its", "current",
         "single", "one", "individual", "ever"}


def _subject_word(text: str) -> tuple[str, int] | None:
    """The first content word of `text` and its offset (skipping articles, numbers and adjectives)."""
    for m in WORD.finditer(text):
        word = m.group(0)
        if word in _SKIP or word.isdigit():
            continue
        return word, m.start()
    return None


# 'members from brazil how many?', 'members never visit, how many?': the count asked last
_HOW_MANY_LAST = re.compile(r"^\s*(?:the\s+|our\s+|all\s+)?([a-z]+)\b[^?]*?[,;:]?\s*how many\s*[?.!]*\s*$")


def _how_many(intent: Intent, vocab: Vocabulary) -> None:
    last = _HOW_MANY_LAST.match(intent.lower)
    table = vocab.tables.get((singular(last.group(1)),)) if last is not None else None
    if last is not None and table is not None:
        intent.how_many = (table, Span(last.start(1), last.end(1), intent.question[last.start(1):last.end(1)]))
        return
    m = RE_HOW_MANY.search(intent.lower)
    if m is None:
        _noun_count(intent, vocab)
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
    parts = [singular(w) for w in WORD.findall(intent.lower[start:])][:3]
    for size in range(len(parts), 0, -1):
        table = vocab.tables.get(tuple(parts[:size]))
        if table is not None:
            intent.how_many = (table, span)
            return
    measure = vocab.measure_words.get(key)
    if measure is not None:
        intent.how_many = (measure.table, span)
        return
    for later in list(WORD.finditer(intent.lower[start:]))[1:3]:
        # 'how many jazz tracks', 'how many german clients': a value or an adjective before the table's noun
        if later.group(0) in STOPWORDS:
            break  # 'items per invoice': the noun after a preposition is not what is counted
        table = vocab.tables.get((singular(later.group(0)),))
        if table is not None:
            at = start + later.start()
            intent.how_many = (table, Span(at, at + len(later.group(0)), intent.question[at:at + len(later.group(0))]))
            return
    for later in list(WORD.finditer(intent.lower[start:]))[:3]:
        # 'how many late shipments': the rows whose dated deed the noun names (a shipped date)
        table = vocab.deeds.get(_deed_root(later.group(0))) if later.group(0) not in vocab.known else None
        if table is not None and later.group(0).endswith(("ment", "ments", "ies", "ery")):
            at = start + later.start()
            intent.how_many = (table, Span(at, at + len(later.group(0)), intent.question[at:at + len(later.group(0))]))
            return
    noun = next(iter(list(WORD.finditer(intent.lower[start:]))[1:2]), None)
    if noun is not None and (noun.group(0) in STOPWORDS or noun.group(0) in _TIMELINESS_ADJECTIVES or
                             not {noun.group(0), singular(noun.group(0))} & vocab.known or
                             (singular(noun.group(0)),) in vocab.measure_words):
        noun = None  # (a word the schema does not know is said unread anyway)
    if noun is not None and word not in _TIMELINESS_ADJECTIVES and word not in STOPWORDS:
        # 'how many open jobs' with no table of jobs: the rows counted (the noun after the state) are unknown, never
        # a sum of the first figure found ('job' a word of a column's name is no table of them)
        at = start + noun.start()
        intent.unknown_subject = Span(at, at + len(noun.group(0)), intent.question[at:at + len(noun.group(0))])
    elif word not in vocab.known and singular(word) not in vocab.known and word not in STOPWORDS and \
            word not in _TIMELINESS_ADJECTIVES:  # 'how many late shipments': the rows late, read as a condition
        intent.unknown_subject = span


_TIMELINESS_ADJECTIVES = frozenset({"late", "overdue", "delayed", "early"})


_UNITS_VOLUME = frozenset({"sale", "sales", "selling", "sold", "unit", "units", "trade", "trading", "product", "item"})


def _noun_count(intent: Intent, vocab: Vocabulary) -> None:
    """'song count by genre', 'order count for march': the noun before 'count' is what is counted; 'patients by
    sex', 'clients by country': the rows of the table the question opens with, counted per group (no figure is
    named, and a table's rows broken down are counted, not some other table's money summed)."""
    for m in RE_NOUN_COUNT.finditer(intent.lower):
        table = vocab.tables.get((singular(m.group(1)),))
        said = intent.lower[m.end(1):m.end()].strip()
        if said.startswith("volume") and (m.group(1) in _UNITS_VOLUME or m.group(1) in lexicon.MONEY_WORDS):
            continue  # 'sales volume' is units sold; 'booking volume', 'call volume' the rows counted
        if table is not None:
            intent.how_many = (table, Span(m.start(1), m.end(1), intent.question[m.start(1):m.end(1)]))
            # the word 'volume' counts those rows: it names no units figure
            intent.measures = [(measure, span) for measure, span in intent.measures
                               if not (span.start >= m.end(1) and span.end <= m.end())]
            return


def _rows_most(intent: Intent, vocab: Vocabulary) -> None:
    """'which country do most of our guests come from': the guests counted per country (no figure is named; the
    money of other rows per country answers another question)."""
    m = RE_MOST_OF.search(intent.lower)
    if m is None or intent.how_many is not None or intent.group is None or intent.explicit_measure or \
            intent.money is not None or m.group(1) in lexicon.FACT_WORDS or m.group(1) in lexicon.MONEY_WORDS:
        return
    table = vocab.tables.get((singular(m.group(1)),))
    if table is not None:
        intent.how_many = (table, Span(m.start(1), m.end(1), intent.question[m.start(1):m.end(1)]))


def _rows_by(intent: Intent, vocab: Vocabulary) -> None:
    """'patients by sex', 'clients by country': the rows of the table the question opens with, counted per the
    group named (no figure is named: a table's rows broken down are counted, not some other table's money summed;
    'albums by led zeppelin' names no group, and is not this)."""
    m = RE_ROWS_BY.match(intent.lower)
    if m is None or intent.how_many is not None or intent.group is None or intent.explicit_measure or \
            m.group(1) in lexicon.FACT_WORDS or m.group(1) in lexicon.MONEY_WORDS:
        return
    table = vocab.tables.get((singular(m.group(1)),))
    if table is not None:
        intent.how_many = (table, Span(m.start(1), m.end(1), intent.question[m.start(1):m.end(1)]))


_PARTICIPLE_BEFORE = re.compile(r"\b(?:[a-z]{3,}ed|made|sold|bought|written|sent|paid|held|won|built|kept|led|"
                                r"brought|given|taken|done|run)\s+$")
_QUALIFIED = re.compile(r"s?\s+(?:on|in|from|with|who|that|whose|at|based|located|living)\b")


def by_agent(lower: str, by_at: int, noun_end: int) -> bool:
    """'opened by clients on the gold plan': the 'by' at `by_at` names who did the deed, qualified after the noun
    ending at `noun_end`, not a breakdown ('parcels sent by client' is still one)."""
    return _PARTICIPLE_BEFORE.search(lower[:by_at]) is not None and _QUALIFIED.match(lower, noun_end) is not None


_ACROSS_ALL = re.compile(r"\b(?:across|over|in|for|from)\s+(?:all|every)\s+(?:(?:the|our|of\s+the|of\s+our)\s+)?$")


def _group(intent: Intent, vocab: Vocabulary) -> None:
    lower = intent.lower
    if intent.ranking is not None:
        # the ranked thing: the first schema target after the ranking words, else any target ('across all shops'
        # names the whole, not what is ranked)
        # ('which skill is most common among freelancers': among whom, not what is ranked)
        after = [t for t in intent.targets if t.span.start >= intent.ranking.start and
                 not _ACROSS_ALL.search(lower[:t.span.start]) and
                 not re.search(r"\bamong\s+(?:all\s+)?(?:of\s+)?(?:our|the|my)?\s*$", lower[:t.span.start])]
        chosen = after[0] if after else (intent.targets[0] if intent.targets else None)
        which = _WHICH_HAS_END.match(lower[:intent.ranking.start].removesuffix("the "))
        asked = next((t for t in intent.targets if which is not None and t.span.start == which.start(2)), None)
        if asked is not None and chosen is not None and chosen.span.start > asked.span.start:
            chosen = asked  # 'which village has the most active growers': the villages, by their active growers
        if chosen is not None:
            chosen = compound_head(intent, chosen)  # 'which item category grew the most': the category
            intent.group = chosen
            _second_breakdown(intent, chosen)
            return
        subject = _subject_word(lower[intent.ranking.end:intent.ranking.end + 40])
        if subject is not None:
            word, offset = subject
            if word not in vocab.known and singular(word) not in vocab.known and word not in STOPWORDS:
                start = intent.ranking.end + offset
                intent.unknown_subject = Span(start, start + len(word), intent.question[start:start + len(word)])
        return
    for m in RE_GROUP.finditer(lower):
        target = next((t for t in intent.targets if t.span.start == m.start(1)), None) or _owned_column(intent, m)
        if target is not None:  # 'per item category': the category (the head of the compound), of items
            target = compound_head(intent, target)
        if target is not None and m.group(0).startswith("per") and _which_ranked(intent) not in (None, target):
            continue  # 'which shop has the highest revenue per client': the shops, each one's revenue per client
        if target is not None and m.group(0).startswith("by ") and by_agent(lower, m.start(), target.span.end):
            continue  # 'tickets opened by clients on the gold plan': who opened them (qualified), not a breakdown
        if target is not None:
            intent.group = target
            _second_breakdown(intent, target)
            return
    ranked = [t for t in intent.targets if not _ACROSS_ALL.search(lower[:t.span.start])]
    if intent.superlative is not None and intent.explicit_measure and ranked:
        before = [t for t in ranked if t.span.end <= intent.superlative.start]
        intent.group = compound_head(intent, before[0] if before else ranked[0])  # ('which candidate source')
        return
    which = _which_has(intent)
    if intent.superlative is not None and (which is None or which.end() != intent.superlative.start):
        which = _WHICH_HAS_PAID.match(lower) or which  # 'which client has paid the most', 'brings in the most'
    if intent.superlative is not None and which is not None and which.end() == intent.superlative.start:
        # 'which store has the highest refund rate', 'which five albums earned the least': the rows named
        # are ranked by what follows (one verb between them and the superlative), as many as the number says
        intent.group = next((compound_head(intent, t) for t in intent.targets if t.span.start == which.start(2)), None)
        if intent.group is not None and which.group(1):
            count = which.group(1)
            intent.top_n = int(count) if count.isdigit() else _COUNT_WORDS[count]
            intent.top_span = Span(which.start(1), which.end(1), intent.question[which.start(1):which.end(1)])


def _which_has(intent: Intent) -> re.Match[str] | None:
    """'which X has' right before the superlative; X may be several words ('which class type has the highest')."""
    which = _WHICH_HAS.match(intent.lower)
    if intent.superlative is not None and (which is None or which.end() != intent.superlative.start):
        return _WHICH_HAS_END.match(intent.lower[:intent.superlative.start]) or which
    return which


def _which_ranked(intent: Intent) -> Target | None:
    """The rows a 'which X has the highest ...' question ranks (X), or None."""
    which = _which_has(intent)
    if intent.superlative is None or which is None or which.end() != intent.superlative.start:
        return None
    return next((t for t in intent.targets if t.span.start == which.start(2)), None)


# 'top 3 albums per genre', 'best selling track in each genre', 'top 2 sellers within each store': the
# ranking runs within each row of the entity named after the words ('per' only right after the ranked rows:
# 'top artists by revenue per client' is a ratio)
_IN_EACH = re.compile(r"(?<![a-z])(?:(?:in|for|within|across|from)\s+)?(?:each|every)\s+(?:of\s+(?:the|our)\s+)?$")
_PER_RIGHT_AFTER = re.compile(r"^\s*(?:per|by)\s+$")
# 'top 5 artists by tracks sold': the rows after 'by' are what is counted, not a group to rank within
_COUNTED_AFTER = re.compile(r"\s*(?:sold|bought|purchased|ordered|played|streamed|downloaded|shipped|count|"
                            r"revenue|sales|units)\b")
_TOP_N_BY = re.compile(r"\b(?:top|best|bottom|worst)\s+\d{1,3}\s+$")


def _partition(intent: Intent) -> None:
    """The entity a ranking runs within: named after 'in each' / 'for every' anywhere after the ranking words,
    or after 'per' right after the ranked rows ('top 3 albums per genre'); 'by' only after 'top N <rows>'
    ('top 3 albums by genre', not 'top albums by revenue', which names no entity)."""
    ranked = intent.ranking or intent.superlative
    if ranked is None:
        return
    group, lower = intent.group, intent.lower
    for target in intent.targets:
        start = target.span.start
        if start < ranked.end:
            continue
        floor = max(ranked.end, start - 20)
        each = _IN_EACH.search(lower[floor:start])
        begin = floor + each.start() if each is not None else None
        if begin is None and group is not None and group.span.end <= start and group.span != target.span:
            per = _PER_RIGHT_AFTER.match(lower[group.span.end:start])
            if per is not None and (per.group(0).strip() == "per" or
                                    _TOP_N_BY.search(lower[:group.span.start]) is not None and
                                    _COUNTED_AFTER.match(lower, target.span.end) is None):
                begin = group.span.end + len(per.group(0)) - len(per.group(0).lstrip())
        if begin is None or (group is not None and group.span != target.span and
                             target.entity.table == group.entity.table):
            continue
        intent.partition = target
        intent.partition_span = Span(begin, target.span.end, intent.question[begin:target.span.end])
        if group is not None and group.span == target.span:
            intent.group = None   # 'top 2 sellers in each category': the ranked rows are not the category
        return


def _owned_column(intent: Intent, m: re.Match[str]) -> Target | None:
    """'per order status': a column named after its own table's noun ('order' names the rows that hold it)."""
    first = WORD.match(intent.lower, m.start(1))
    if first is None:
        return None
    at = first.end() + 1
    owner = singular(first.group(0))
    return next((t for t in intent.targets if t.span.start == at and t.entity.column_only and
                 owner in phrase(t.entity.table).split()), None)


_COUNT_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
                "twenty": 20}
_WHICH_HAS = re.compile(r"(?:which|what)\s+(?:(\d{1,3}|" + "|".join(_COUNT_WORDS) + r")\s+)?"
                        r"([a-z][a-z ]{0,30}?)\s+[a-z']+\s+")
_WHICH_HAS_END = re.compile(_WHICH_HAS.pattern + "$")


# the same with an auxiliary before the verb or a particle after it, up to the superlative
_WHICH_HAS_PAID = re.compile(r"(?:which|what)\s+(?:(\d{1,3}|" + "|".join(_COUNT_WORDS) + r")\s+)?"
                             r"([a-z][a-z ]{0,30}?)\s+(?:(?:has|have|had|did|does|do)\s+)?[a-z']+\s+"
                             r"(?:(?:in|up|out|back|on)\s+)?(?=(?:the\s+)?(?:most|least|fewest|highest|lowest|"
                             r"largest|smallest|biggest)\b)")


_WHICH_N = re.compile(r"\s*(?:which|what|name|list|show\s+me)\s+(?:the\s+|our\s+)?(\d{1,3}|" + "|".join(_COUNT_WORDS) +
                      r")\s+[a-z]")
_AND_BY = re.compile(r"\s*(?:,\s*|\s+)(?:and|&)\s+(?:by\s+|per\s+|each\s+)?")
_AND_GRAIN = re.compile(r"(day|week|month|quarter|year)s?\b")


_BREAKDOWN_AFTER = re.compile(r"\s+(?:breakdown|breakout|split|mix)\b")
_BREAKDOWN_BEFORE = re.compile(r"\b(?:breakdown|breakout|split|mix)\s+(?:of|by)\s+(?:the\s+|our\s+)?")
# 'a breakdown of clients by city': the clients are what is split (counted), the city the breakdown
_SPLIT_BY = re.compile(r"\s+(?:by|per|across|for\s+each)\b")


def _breakdown_named(intent: Intent) -> None:
    """'order status breakdown per store', 'a breakdown by category': the rows split by what the breakdown names,
    beside any other grouping said."""
    starts = {m.end() for m in _BREAKDOWN_BEFORE.finditer(intent.lower)}
    named = next((t for t in intent.targets if _BREAKDOWN_AFTER.match(intent.lower, t.span.end) or
                  t.span.start in starts and not _SPLIT_BY.match(intent.lower, t.span.end)), None)
    if named is None or intent.ranking is not None:
        return
    named = compound_head(intent, named)  # 'split by item category': the category, of items
    if intent.group is not None and intent.group.span.start == named.span.start:
        return
    if intent.group is None:
        intent.group = named
    elif intent.also_group is None and intent.group.entity != named.entity:
        intent.also_group = named


_EACH_DID = re.compile(r"\b(?:what|how\s+much|how\s+many)\s+each(?:\s+one|\s+of\s+(?:them|those))?\s+(?:has\s+|have\s+)?"
                       r"(?:spent|spend|paid|pays|bought|buys|order(?:ed|s)|earned|made|sold|sells|brought\s+in)\b")


def _what_each_did(intent: Intent) -> None:
    """'our brazilian clients and what each spent': one figure per client named before, not their total."""
    m = _EACH_DID.search(intent.lower)
    if m is None or intent.group is not None:
        return
    named = [t for t in intent.targets if not t.entity.column_only and t.span.end <= m.start()]
    if named:
        intent.group = named[-1]


def _owners_column(intent: Intent, profile: SchemaProfile) -> None:
    """'visits by agent city': the city right after a table's noun is that table's own city column, when it has
    one (not the city of the tables nearest the events)."""
    for index, target in enumerate(intent.targets):
        if not target.entity.column_only:
            continue
        owner = next((t for t in intent.targets if not t.entity.column_only and t.span.end + 1 == target.span.start
                      and intent.lower[t.span.end] == " " and t.entity.table != target.entity.table), None)
        if owner is None:
            continue
        said = [singular(w) for w in words(target.entity.name_columns[0])][-1:]
        table = profile.tables[owner.entity.table]
        column = next((c for c in table.columns if c.family == "text" and
                       [singular(w) for w in words(c.name)][-1:] == said), None)
        if column is not None:
            intent.targets[index] = Target(replace(target.entity, table=owner.entity.table, name_columns=(column.name,),
                                                   key=tuple(table.primary_key), row_count=table.row_count), target.span)


_ONLY_AFTER = re.compile(r"\s+only\b")
_ONLY_BEFORE = re.compile(r"\b(?:only|excluding|except|just|counting)\s+(?:counting\s+)?(?:the\s+)?(?:[a-z-]+\s+)?$")


def scope_noun(intent: Intent, span: Span) -> bool:
    """Rows named to say which records count ('completed visits only', 'only counting completed visits'), not
    the figure asked."""
    return _ONLY_AFTER.match(intent.lower, span.end) is not None or \
        _ONLY_BEFORE.search(intent.lower[:span.start]) is not None


def compound_head(intent: Intent, target: Target) -> Target:
    """'item category': the target right after another of a different table is the head of the compound (the
    category, of items), else the target itself; 'donor country': a column of the same table (the donors' country)."""
    head = next((t for t in intent.targets if t.span.start == target.span.end + 1 and
                 intent.lower[target.span.end] == " " and (
                     not t.entity.column_only and t.entity.table != target.entity.table or
                     t.entity.column_only and not target.entity.column_only and t.entity.table == target.entity.table)),
                None)
    return head or target


def _second_breakdown(intent: Intent, first: Target) -> None:
    """'by category and store', 'by store and month': a second dimension after the first, or a period."""
    joiner = _AND_BY.match(intent.lower, first.span.end)
    if joiner is None:
        return
    at = joiner.end()
    second = next((t for t in intent.targets if t.span.start == at and t.entity.table != first.entity.table), None)
    if second is not None:
        intent.also_group = second
        return
    grain = _AND_GRAIN.match(intent.lower, at)
    if grain is not None and intent.grain is None:
        intent.grain = (grain.group(1), Span(grain.start(), grain.end(), intent.question[grain.start():grain.end()]))


_NOT_NAMES = frozenset({"i", "what", "which", "who", "how", "show", "give", "list", "tell", "find", "build",
                        "make", "run", "top", "best", "total", "revenue", "sales", "the", "is", "are", "was", "me",
                        "can", "could", "please", "did", "do", "does", "when", "where", "why", "compare", "plot",
                        "chart", "draw", "create", "get", "count", "sum", "all", "average", "q1", "q2", "q3", "q4",
                        "fy", "ytd", "usd", "eur", "gbp", "jpy", "iso", "utc", "gmt", "us", "uk", "eu", "monday",
                        "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "has", "have", "had",
                        "hi", "hello", "ok", "okay", "yesterday", "today", "daily", "weekly", "monthly", "by", "in",
                        "for", "on", "at", "of", "and", "or", "our", "my", "we", "how's", "what's", "who's"})


def _names(intent: Intent, vocab: Vocabulary) -> None:
    """Candidate entity names: quoted text, capitalised or camel-case words that are not schema or question
    words, and an unknown lowercase word right before a table noun ('metal tracks')."""
    text = intent.question
    for m in RE_PROPER.finditer(text):
        index = 1 if m.group(1) else 2 if m.group(2) else 3
        value, start = m.group(index), m.start(index)
        if not value:
            continue
        if index == 3:
            parts = value.split()
            while parts and (_not_name(parts[0], vocab) or parts[0] == "&" or (
                    parts[0].lower() in STOPWORDS and not text[:start].strip(" \t\"'“(").rstrip(".!?:;"))):
                start += len(parts[0]) + 1
                parts = parts[1:]
            while parts and (_not_name(parts[-1], vocab) or parts[-1] == "&"):
                parts = parts[:-1]
            value = " ".join(parts)
        value = value.strip().rstrip(".,;:!?")
        for suffix in ("'s", "’s", "'", "’"):
            if value.endswith(suffix) and len(value) > len(suffix) + 1:
                value = value[: -len(suffix)]
                break
        if len(value) < 2 or value.isdigit() or RE_ALL_MATCHES.search(intent.lower[:start]):
            continue
        intent.names.append(Span(start, start + len(value), value))
    taken = {(n.start, n.end) for n in intent.names}

    def unknown(word: str, start: int, end: int) -> bool:
        return (word.isalpha() and len(word) > 2 and word not in STOPWORDS and word not in vocab.known
                and singular(word) not in vocab.known and word not in _NOT_NAMES and word not in _MONTHS
                and word not in lexicon.OPERATORS and word not in lexicon.FUNCTION_WORDS  # 'longest tracks'
                and word not in lexicon.FACT_WORDS and word not in lexicon.TIME_WORDS
                and (start, end) not in taken and not any(n.start <= start < n.end for n in intent.names))

    for target in intent.targets:
        before = [t for t in intent.tokens if t[2] <= target.span.start]
        if not before or target.span.start - before[-1][2] > 1 or not unknown(*before[-1]):
            continue
        start, end = before[-1][1], before[-1][2]
        for word, at, stop in reversed(before[-3:-1]):  # 'iron maiden albums': the words of the name before it
            if start - stop > 1 or not unknown(word, at, stop):
                break
            start = at
        intent.names.append(Span(start, end, text[start:end]))


def _not_name(word: str, vocab: Vocabulary) -> bool:
    lowered = word.lower().strip(".,;:!?'’")
    if lowered.endswith(("'s", "’s")):
        lowered = lowered[:-2]
    return (lowered in _NOT_NAMES or lowered in _MONTHS or (singular(lowered),) in vocab.phrases
            or (singular(lowered),) in vocab.measure_words or (singular(lowered),) in vocab.tables
            or bool(RE_YEAR.fullmatch(lowered)) or bool(re.fullmatch(r"q[1-4]", lowered)))


def _is_schema_word(word: str, vocab: Vocabulary) -> bool:
    lowered = word.lower()
    return (singular(lowered),) in vocab.phrases or (singular(lowered),) in vocab.measure_words or \
        lowered in STOPWORDS
