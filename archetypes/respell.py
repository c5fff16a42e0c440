"""The question as the rules read it: a year written with two digits spelt out ("'97", 'q1 98', 'from 96 to 97'),
an operator word misspelt spelt right ('averge', 'bigest'). Every change is kept, so a span found in the text read
maps back to the words typed, and the report says what was read as what (Understood.read_as)."""
from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass

import simplemma
from rapidfuzz.distance import DamerauLevenshtein

from archetypes import lexicon
from archetypes.context_sentences import context_sentences
from archetypes.naming import plural, singular

_MONTHS = (r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|"
           r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?")
# "'97", "’98": a year, whatever precedes it ("'90s" is a decade, not read here)
_APOSTROPHE_YEAR = re.compile(r"(?<![\w'’])['’](\d{2})\b(?!['’]?s\b)")
# 'march 98', 'q1 98', 'h2 97', 'fy 98': a period's year (after a month, a number a day can be is a day)
_PERIODS = frozenset({"q1", "q2", "q3", "q4", "h1", "h2", "fy"})
_PERIOD_YEAR = re.compile(r"\b(?:" + _MONTHS + r"|q[1-4]|h[12]|fy)\.?,?\s+(\d{2})\b(?![.,]?\d|\s*%)")
# 'from 96 to 97', '98 vs 97', 'between 96 and 97': two years, when both are years of the data
_YEAR_PAIR = re.compile(r"(?<![\w$€£¥.,'’])(\d{2})\s+(?:vs\.?|versus|to|and|-|against|compared to)\s+['’]?(\d{2})\b"
                        r"(?![.,]?\d|\s*%|\s+(?!(?:in|for|of|by|per|at|on|sales|revenue|growth)\b)[a-z])")
# '97 sales split out by category': a year of the data before the figure it dates
_YEAR_FIGURE = re.compile(r"(?<![\w$€£¥.,'’-])(\d{2})\s+(?=(?:sales|revenue|invoices|takings|turnover|income|"
                          r"figures|numbers|results)\b)")
# 'parcels shipped to germany in 97': one year of the data after a preposition, ending the phrase
_LONE_YEAR = re.compile(r"\b(?:in|of|during|since|for|from|before|after|until)\s+(\d{2})\b(?![.,]?\d|\s*%|"
                        r"\s*(?!(?:revenue|sales|order|freight|income|spend|spending|profit|turnover)s?\b)[a-z])")

# 'aov 97', 'net sales by qtr, 97': a year of the data said last, alone (never a count: 'top 10', 'over 50')
_TRAILING_YEAR = re.compile(r"(?<![\w$€£¥.,'’#-])(?<!top )(?<!first )(?<!last )(?<!over )(?<!under )(?<!than )"
                            r"(?<!above )(?<!below )(?<!bottom )(?<!best )(?<!worst )(\d{2})\s*[?!.]*\s*$")
# 'how long is the average song': the average length ('how long is <a row named>' is read as it is)
_HOW_LONG = re.compile(r"\bhow\s+(long)(?=\s+(?:is|are|was|were)\s+(?:(?:the|an|a|our)\s+)?(?:average|avg|typical|mean)\b)")

# 'how big a typical order is', 'how big is the average basket': the average order size (its value, units or lines)
_HOW_BIG = re.compile(r"\bhow\s+big\s+(?:is\s+|are\s+|was\s+|were\s+)?(?:a|an|the|our)\s+(?:typical|average|avg|usual|"
                      r"normal\s+)?\s*(order|invoice|basket|ticket|transaction|purchase|sale)s?"
                      r"(?:\s+(?:is|are|was|were)\b)?")

# 'average customer spend': the spend per customer ('average order value' stays as it is: an order is no person)
_WHOSE_AVERAGE = re.compile(r"\b(?:average|avg|typical|mean)\s+((" + "|".join(sorted(lexicon.PEOPLE_NOUNS)) +
                            r")\s+(spend|spending|value|worth|revenue|lifetime value|ltv))\b")

# 'top five', 'our three biggest': how many, in digits ('the last three months' is read as it is)
_NUMBER_WORDS = {"two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8",
                 "nine": "9", "ten": "10", "twelve": "12", "fifteen": "15", "twenty": "20"}
_RANKED_COUNT = re.compile(r"\b(?:top|bottom|best|worst)\s+(" + "|".join(_NUMBER_WORDS) + r")\b|\b(" +
                           "|".join(_NUMBER_WORDS) + r")(?=\s+(?:biggest|largest|best|worst|highest|lowest|smallest|"
                           r"top|most|least|cheapest|priciest|busiest|newest|oldest|longest|shortest)\b)")
# 'genres ranked by sales, first five': the top five of the ranking said
_FIRST_RANKED = re.compile(r"\b(first)\s+(?:\d{1,3}|" + "|".join(_NUMBER_WORDS) + r")\s*$")
_RANKED = re.compile(r"\b(?:ranked|sorted|ordered)\s+by\b")

# 'average $ per order', 'how many $ did we make': the sign alone says money ('$5' is an amount, read as it is)
_MONEY_SIGN = re.compile(r"(?<![\w$€£¥])([$€£¥]{1,3})(?!\s*\d)(?=\s|$|[?!.,])")

# "who hasn't purchased in six months": in the last six months (said after a negation: a gap up to now)
_GAP = re.compile(r"\b(?:in|for|within)\s+(?:the\s+)?(?!last\b|past\b)((\d{1,3}|" + "|".join(_NUMBER_WORDS) +
                  r")\s+(days?|weeks?|wks?|months?|mos?|years?|yrs?))\b")
_NEGATED = re.compile(r"\b(?:hasn'?t|haven'?t|has not|have not|didn'?t|did not|not|no|never)\b")
# 'how many dollars more did we sell': how much more (money, not a count of dollars)
_HOW_MANY_MONEY = re.compile(r"\bhow\s+many\s+(?:dollars|euros|pounds|bucks|usd|eur|gbp)(?=\s+(?:more|less|fewer)\b)")
# 'who works under andrew adams': who reports to him
_WORKS_UNDER = re.compile(r"\b(?:works?|working|worked)\s+(?:directly\s+)?under\b(?=\s+[a-z])")
# 'our #1 customer': the top one; 'ppl': people
_NUMBER_ONE = re.compile(r"(?:(?<=\bour )|(?<=\bthe )|(?<=\bis )|(?<=\bwas )|(?<=\bmy )|^)(#\s?1|no\.\s?1|number one)"
                         r"(?=\s+[a-z])")  # ('order #1' is the order keyed 1)
_SHORTHAND = re.compile(r"\b(ppl)\b")
# 'teh': the; 'yesterdays order count': yesterday's
_COMMON_TYPOS = {"teh": "the", "yesterdays": "yesterday's", "todays": "today's", "tommorow": "tomorrow",
                 "breakdwon": "breakdown", "brekdown": "breakdown", "mins": "minutes", "hrs": "hours", "secs": "seconds"}
_COMMON_TYPO = re.compile(r"\b(" + "|".join(_COMMON_TYPOS) + r")\b")
# an analyst's shorthand ('top 5 custs by rev excl. cancelled', '% chg', 'avg px'), read when the data does not
# use the short word itself (a table of cats keeps its cats)
_ABBREVIATIONS = {"cust": "customer", "chg": "change", "excl": "excluding", "incl": "including", "px": "price",
                  "mgr": "manager", "yr": "year", "qtr": "quarter", "mkt": "market", "acct": "account", "amt": "amount",
                  "cat": "category", "dept": "department", "emp": "employee", "prod": "product", "tz": "time zone",
                  "dt": "date", "mo": "month", "wk": "week", "inv": "invoice", "txn": "transaction", "sku": "product"}
_ABBREVIATION = re.compile(r"\b(" + "|".join(_ABBREVIATIONS) + r")(s?)\b\.?(?!['’/-]\w)")  # 'custs': plural
# 'mo' is a month only after a number ('6 mo'), never a word of its own
_AFTER_NUMBER_ONLY = frozenset({"mo", "mos"})
# shorthand that is a word too: kept as typed when the data holds it ('how many cats did we see')
_WORDS_TOO = frozenset({"cat", "cats", "prod", "emp", "inv"})
_AFTER_DISCOUNT = re.compile(r"\b(after|net\s+of|less|minus|before)\s+(?:the\s+|line\s+|all\s+)?discounts?\b")
_WAITING_TO = re.compile(r"\b(?:still\s+)?(?:waiting|awaiting|yet|left|pending)\s+to\s+be\s+"
                         r"([a-z]+(?:ed|aid|ent|one|own|ilt|old|ught))\b")  # ('to be paid', 'to be sent')
_FIRST_TIME = re.compile(r"\b(first[- ]time)(?=\s+[a-z]+s\b)")
# second-language phrasings of operators the rules read: 'more then' (than), 'how much percent' (what percent),
# 'rock part of sales in percent' (share), 'most weak' (weakest)
_THEN_FOR_THAN = re.compile(r"\b(?:more|less|fewer|higher|lower|bigger|smaller|greater|better|worse|rather|other)"
                            r"\s+(then)\b")
_HOW_MUCH_PERCENT = re.compile(r"\b(how\s+(?:much|many))\s+(?=(?:percent|percentage|%|pct)\b)")
_PART_OF = re.compile(r"\b(part)\s+of\b(?=[^?.!]*(?:percent|percentage|%|pct|share))")
_MOST_ADJECTIVE = re.compile(r"\b(most\s+(weak|strong|busy|quiet|cheap|big|small|low|high|slow|fast|bad|good)|"
                             r"(weakest|strongest))\b")
# 'the most active growers', 'least engaged users': ranked by how much they do (a status 'active' is no ranking)
_MOST_ACTIVE = re.compile(r"\b(most\s+(?:active|engaged))\b(?=\s+[a-z]+s\b)")
# ('which village has the most active growers': how many active ones each has)
_HAS_THE = re.compile(r"\b(?:has|have|had|with)\s+(?:the\s+)?$")
_SUPERLATIVES = {"weak": "worst", "strong": "best", "weakest": "worst", "strongest": "best", "busy": "busiest", "quiet": "quietest", "cheap": "cheapest",
                 "big": "biggest", "small": "smallest", "low": "lowest", "high": "highest", "slow": "slowest",
                 "fast": "fastest", "bad": "worst", "good": "best"}
# 'hw many': how many ('hw' alone may be hardware); 'diff shops': different ones ('the diff' is a difference)
_SHORT_FOR = re.compile(r"\b(?:(hw)(?=\s+(?:many|much|long|often|big)\b)|(diff)(?=\s+[a-z]+s\b))")
# 'by what percent did revenue change': how much, in percent (a change, not a share)
_BY_WHAT_PERCENT = re.compile(r"^\s*(by\s+(?:what|how\s+much\s+of\s+a|which)\s+(?:percent(?:age)?|%|pct))(?=\s+(?:did|has|have|was|were|is|are|will)\b)")
# 'shipping co', 'shipping company': a shipper; 'favorite genre': the most popular one
_COMPANY = re.compile(r"\b((?:shipping|delivery|freight|courier|trucking)\s+(?:co|company|companies|firm|firms))\b(?!-)")
# 'the biggest item range': the most items
_RANGE = re.compile(r"\b((?:biggest|largest|widest|broadest|smallest|narrowest)\s+([a-z]+?)s?\s+"
                    r"(?:range|lineup|line-up|selection|assortment|variety|catalog|catalogue|offering))\b")
# "who's been with the company longest": the longest serving
_TENURE = re.compile(r"\b((?:been|worked|stayed|served)\s+(?:with\s+(?:the\s+company|us|the\s+firm|the\s+business|the\s+team)|"
                     r"here|at\s+the\s+company)\s+(?:the\s+)?longest)\b")
# 'which category grew fastest', 'our fastest-growing store': grew the most
_FASTEST_GROWING = re.compile(r"\b(?:(grew|grow|grows|growing|increased|rose)\s+(?:the\s+)?(fastest|quickest)|"
                              r"(fastest|quickest)[- ](growing))\b")
# 'biggest genre gainer': the biggest growth
_GAINER = re.compile(r"\b(?:biggest|largest|top)\s+(?:[a-z]+\s+)?(gainers?)\b")
_FAVOURITE = re.compile(r"\b(fav(?:ou?rite|e)s?)\b(?=\s+[a-z])")
# 'the largest sale in our history': of all time
_IN_HISTORY = re.compile(r"\b((?:in|of)\s+(?:our|the\s+company'?s|the\s+shop'?s|the\s+store'?s|the\s+business'?s)\s+"
                         r"(?:whole\s+|entire\s+)?history|in\s+(?:all\s+of\s+)?history|over\s+the\s+years|"
                         r"over\s+(?:all\s+)?(?:the\s+)?time|all\s+these\s+years)\b")  # ('over the years': ever, no series)
# 'the past half year': the last 6 months
_HALF_YEAR = re.compile(r"\b(half\s+(?:a\s+)?year)\b")
# 'clients inactive for the past 3 months', 'dormant since june': no purchase in that time
_INACTIVE = re.compile(r"\b(inactive|dormant)\s+(?=(?:for|in|over|during|since|the)\s)")
# 'repeat clients', 'one-time buyers': those who bought more than once, or once only
_REPEAT = re.compile(r"\b(repeat|returning|one[- ]time|one[- ]off)\s+((?:" + "|".join(sorted(lexicon.PEOPLE_NOUNS)) +
                     r")s?)\b")
# 'what do we charge for a track', 'how much does a ticket cost': its price (where no column is called that)
_CHARGE_FOR = re.compile(r"\b((?:do|does|did)\s+(?:we|you|they|it)\s+(?:charge|ask)\s+for)\s+(?=[a-z])")
_COSTS = re.compile(r"\bhow\s+much\s+(?:does|do|did)\s+((?:an?|one|each|the|our)\s+[a-z]+(?:\s+[a-z]+)?)\s+cost\b")
# 'items in one of our parcels', 'items in a single parcel': in a parcel; 'each of our shops': each shop
_ONE_OF = re.compile(r"\b(?:in|on|per|for)\s+((?:one|any)\s+of\s+(?:our|the|your|their)\s+([a-z]+s)|"
                     r"a\s+single\s+([a-z]+))\b")
_EACH_OF = re.compile(r"\b((?:each|every\s+one)\s+of\s+(?:our|the|your|their|these|those)\s+((?:[a-z]+\s+)?)([a-z]+s))\b")
# 'how much of the catalog is video': what share of it; 'what did we invoice': how much; '# of tracks': the number
_HOW_MUCH_OF = re.compile(r"\b(how\s+much)\s+of\s+(?:the|our|your|all)\s+[a-z]+(?:\s+[a-z]+)?\s+"
                          r"(?:is|are|was|were|comes?|came)\b")
_WHAT_BILLED = re.compile(r"\b(what)\s+(?:did|do|have)\s+we\s+(?:invoice|invoiced|bill|billed)\b")
_HASH_OF = re.compile(r"(?<![\w#])(#)\s?(?=of\s)")
# '# jazz tracks', '# custs w/ 15+ visits': how many (a '#' before a number is a key: 'order #12')
_HASH_COUNT = re.compile(r"(?:^|(?<=[\s,(]))(#)\s?(?=[a-z])(?!of\s)")
# 'which region purchases the most': the buying verb (how much it buys, or how many purchases), not the rows' noun
_PRESENT_BUYING = "|".join(sorted(v + "s" for v in lexicon.BUYING_VERBS if v not in ("buy", "bought") and
                                  not v.endswith("ed")))
_BUYS_MOST = re.compile(r"\b(?:which|what)\s+[a-z]+[^s\s]\s+(" + _PRESENT_BUYING +
                        r")\s+(?:the\s+)?(?:most|least|more|less)\b")
# 'what does chai sell for', 'what do we sell chai for': its price
_SELLS_FOR = re.compile(r"\b(?:what|how\s+much)\s+(?:does|do|did)\s+(?:we\s+sell\s+(.+?)|(.+?)\s+sell)\s+for\b")
# 'items that list for more than $500': whose list price is; 'what's the ipad listed at': its list price;
# 'the sticker price': the list price
_LISTS_FOR = re.compile(r"\b((?:that\s+|which\s+)?(?:lists?|listed|retails?|retailed|retailing)\s+(?:for|at))"
                        r"(?=\s+(?:more|less|over|under|above|below|at\s+least|at\s+most|between|[$€£¥]|\d))")
_LISTED_AT = re.compile(r"\b((?:listed|priced|retailing)\s+(?:at|for))(?=\s*(?:right\s+now|now|today|currently|"
                        r"these\s+days|at\s+the\s+moment)?\s*[?.!]*\s*$)")
_STICKER = re.compile(r"\b(sticker|shelf|tag|retail|catalog|catalogue|advertised)(?=\s+prices?\b)")
# 'pull up every client with acme in the name', 'grab me all the shops': list them
_PULL_UP = re.compile(r"^\s*(?:(?:can|could)\s+you\s+|pls\s+|please\s+)?((?:pull|grab|fetch|dig)(?:\s+(?:up|out))?)"
                      r"(?=\s+(?:me\s+|us\s+)?(?:every|all|the|a\s+list|our|each|those|any)\b)")
# 'with zero units in stock': a count the rows keep, at 0 (analyse passes which counts they keep)
_PLURAL_OWNERS = re.compile(r"\b(?:([a-z]+)\s+)?([a-z]+s)['’]\s+([a-z]+)\b")
_IN_STOCK = re.compile(r"\b(?:(?:are|is|were|was|still|currently)\s+(?:still\s+)?in\s+stock|"
                       r"(?:do\s+we\s+|we\s+)?(?:still\s+)?(?:have|hold|carry|got)\s+(?:any\s+|some\s+)?(?:in\s+)?"
                       r"stock(?:\s+of)?)(?=\s*[?.!]*\s*$)")
_HOW_MUCH_HELD = re.compile(r"\s*how\s+(?:much|many)\s+(?:units\s+of\s+)?((?!units\b)[a-z][a-z' -]*?)\s+(?:do|does|did)\s+we\s+"
                            r"(?:still\s+)?(?:have|hold|carry|got)\s+(?:left\s+)?in\s+stock\b")
_HAVE_SOME = re.compile(r"\b((?:have|has|having|carrying|holding)(?:\s+(?:some|any))?)\s+")
_ZERO = re.compile(r"\b(?:with|having|have|has|had|carrying|holding)\s+(zero|no|0)\s+")
# 'w/ us', 'w/o a phone': with, without; '500 bucks': dollars
_WITH = re.compile(r"\b(w/o|w/)(?=\s|$)")
_BUCKS = re.compile(r"(?<=\d\s)(bucks)\b|(?<=\d)(bucks|k bucks)\b")

# operator and fact words long enough to be misspelt recognisably ('averge', 'percnet', 'reveune')
_SPELLED = tuple(sorted({w for w in [*lexicon.OPERATORS, *lexicon.FACT_WORDS, *lexicon.MONEY_WORDS]
                         if w.isalpha() and len(w) >= 5}))


@dataclass(frozen=True)
class Respelling:
    start: int   # where the words typed were, in the question typed
    end: int
    typed: str
    word: str    # what they were read as


@dataclass(frozen=True)
class Respelt:
    typed: str
    text: str                           # the question as read
    changes: tuple[Respelling, ...] = ()

    def typed_span(self, start: int, end: int) -> tuple[int, int]:
        """A span of the text read, as a span of the question typed (a respelt word maps to the word typed)."""
        return self._back(start, at_end=False), self._back(end, at_end=True)

    def _back(self, position: int, at_end: bool) -> int:
        shift = 0
        for change in self.changes:
            read_start = change.start + shift
            read_end = read_start + len(change.word)
            if position < read_start or (at_end and position == read_start):
                break
            if position < read_end or (at_end and position == read_end):
                return change.end if at_end else change.start
            shift += len(change.word) - (change.end - change.start)
        return position - shift


def respell(question: str, *, latest: dt.date | None, earliest: dt.date | None,
            known: frozenset[str] = frozenset(), named: Callable[[str], bool] | None = None,
            quantities: frozenset[str] = frozenset()) -> Respelt:
    """The question with its two-digit years and misspelt operator words read; `known` are the schema's own
    words and `named` says whether a word is a value or a row's name of the data ('chang' is the tea Chang):
    neither is ever respelt."""
    lower = question.lower()
    found: dict[tuple[int, int], str] = {}
    anchor = latest or dt.date.today()

    def year(digits: str) -> int:
        full = anchor.year // 100 * 100 + int(digits)
        return full - 100 if full > anchor.year else full

    def in_data(full: int) -> bool:
        return earliest is not None and latest is not None and earliest.year <= full <= latest.year

    for m in _APOSTROPHE_YEAR.finditer(lower):
        found[m.span()] = str(year(m.group(1)))
    for m in _PERIOD_YEAR.finditer(lower):
        if int(m.group(1)) > 31 or m.group(0)[:2] in _PERIODS:
            found.setdefault(m.span(1), str(year(m.group(1))))  # 'june 29' is a day; 'march 98' a year
    for m in _YEAR_PAIR.finditer(lower):
        first, second = year(m.group(1)), year(m.group(2))
        if in_data(first) and in_data(second) and first != second:
            found.setdefault(m.span(1), str(first))
            at = m.start(2) - (1 if lower[m.start(2) - 1] in "'’" else 0)
            found.setdefault((at, m.end(2)), str(second))
    for m in _YEAR_FIGURE.finditer(lower):
        if in_data(year(m.group(1))):
            found.setdefault(m.span(1), str(year(m.group(1))))
    for m in (*_LONE_YEAR.finditer(lower), *_TRAILING_YEAR.finditer(lower)):
        if in_data(year(m.group(1))):
            found.setdefault(m.span(1), str(year(m.group(1))))
    for m in _WHOSE_AVERAGE.finditer(lower):
        found[m.span(1)] = f"{m.group(3)} per {m.group(2)}"
    for m in _RANKED_COUNT.finditer(lower):
        group = 1 if m.group(1) else 2
        found[m.span(group)] = _NUMBER_WORDS[m.group(group)]
    ranked = _FIRST_RANKED.search(lower.rstrip(" ?.!")) if _RANKED.search(lower) else None
    if ranked is not None:
        found[ranked.span(1)] = "top"
        number = lower[ranked.end(1):ranked.end()].strip()
        if number in _NUMBER_WORDS:
            found[(ranked.end() - len(number), ranked.end())] = _NUMBER_WORDS[number]
    for m in _MONEY_SIGN.finditer(lower):
        found[m.span(1)] = "money"
    if _NEGATED.search(lower):
        for m in _GAP.finditer(lower):
            count = _NUMBER_WORDS.get(m.group(2), m.group(2))
            unit = m.group(3).removesuffix("s")  # ('6 mo': the last 6 months)
            found[m.span(1)] = f"the last {count} {plural(_ABBREVIATIONS[unit]) if unit in _ABBREVIATIONS else m.group(3)}"
    for m in _HOW_MANY_MONEY.finditer(lower):
        found[m.span()] = "how much"
    for m in _WORKS_UNDER.finditer(lower):
        found[m.span()] = "reports to"
    for m in _NUMBER_ONE.finditer(lower):
        found[m.span(1)] = "top"
    for m in _SHORTHAND.finditer(lower):
        found[m.span(1)] = "people"
    for m in _COMMON_TYPO.finditer(lower):
        if m.group(1) not in known:
            found[m.span(1)] = _COMMON_TYPOS[m.group(1)]
    for m in _ABBREVIATION.finditer(lower):
        short = m.group(1) + m.group(2)
        if short in known or singular(short) in known or short in _WORDS_TOO and named is not None and named(short) or \
                short in _AFTER_NUMBER_ONLY and not re.search(r"\d\s*$", lower[:m.start()]):
            continue
        word = _ABBREVIATIONS[m.group(1)]
        found[(m.start(), m.end() if m.group(0).endswith(".") else m.end(2))] = plural(word) if m.group(2) else word
    if "discount" in known:
        for m in _AFTER_DISCOUNT.finditer(lower):
            found[m.span()] = "net" if m.group(1) != "before" else "gross"  # 'sales after discounts': net sales
    for m in _WAITING_TO.finditer(lower):
        found[m.span()] = f"not {m.group(1)} yet"  # 'parcels still waiting to be shipped': not shipped yet
    for m in _THEN_FOR_THAN.finditer(lower):
        found[m.span(1)] = "than"
    for m in _HOW_MUCH_PERCENT.finditer(lower):
        found[m.span(1)] = "what"
    for m in _PART_OF.finditer(lower):
        if "part" not in known:
            found[m.span(1)] = "share"
    for m in _MOST_ADJECTIVE.finditer(lower):
        found[m.span(1)] = _SUPERLATIVES[m.group(2) or m.group(3)]  # ('the weakest month': the worst one)
    for m in _MOST_ACTIVE.finditer(lower):
        if not _HAS_THE.search(lower[:m.start()]):
            found[m.span(1)] = "busiest"  # 'our most active growers': by how much they do, not the active ones
    for m in _FIRST_TIME.finditer(lower):
        found[m.span(1)] = "new"  # 'first-time donors in 2024': the new ones (their first gift then, or added then)
    for m in _SHORT_FOR.finditer(lower):
        found[m.span(1) if m.group(1) else m.span(2)] = "how" if m.group(1) else "different"
    if lexicon.CHANGE_SAID.search(lower):
        for m in _BY_WHAT_PERCENT.finditer(lower):
            found[m.span(1)] = "how much in %"
    for m in _COMPANY.finditer(lower):
        found[m.span(1)] = "shippers" if m.group(1).endswith(("ies", "firms")) else "shipper"
    for m in _RANGE.finditer(lower):
        fewest = m.group(1).startswith(("smallest", "narrowest"))
        found[m.span(1)] = f"{'fewest' if fewest else 'most'} {m.group(2)}s"
    for m in _TENURE.finditer(lower):
        found[m.span(1)] = "longest serving"
    for m in _FASTEST_GROWING.finditer(lower):
        if m.group(1):
            found[m.span(2)] = "most"
        else:  # 'fastest growing store': the store that grew the most
            found[m.span()] = "top growing"
    for m in _GAINER.finditer(lower):
        found[m.span(1)] = "growth"
    for m in _FAVOURITE.finditer(lower):
        found[m.span(1)] = "most popular"
    for m in _REPEAT.finditer(lower):
        once = m.group(1).startswith("one")
        found[m.span()] = f"{m.group(2)} who bought {'exactly once' if once else 'more than once'}"
    for m in _IN_HISTORY.finditer(lower):
        if m.group(1).startswith(("over", "all")) and lexicon.CHANGE_SAID.search(lower):
            continue  # 'how have sales changed over the years': a trend by year, not a total
        found[m.span(1)] = "ever"
    for m in _HALF_YEAR.finditer(lower):
        found[m.span(1)] = "6 months"
    for m in _INACTIVE.finditer(lower):
        if named is None or not named(m.group(1)):  # (a status value 'inactive' is read as the value)
            found[m.span(1)] = "who haven't bought"
    for m in _WITH.finditer(lower):
        found[m.span(1)] = "without" if m.group(1) == "w/o" else "with"
    for m in _BUCKS.finditer(lower):
        group = 1 if m.group(1) else 2
        found[m.span(group)] = "dollars"
    if not {"charge", "cost"} & known:
        for m in _CHARGE_FOR.finditer(lower):
            found[m.span(1)] = "is the price of"
        for m in _COSTS.finditer(lower):
            found[m.span()] = f"what is the price of {m.group(1)}"
        for m in _SELLS_FOR.finditer(lower):
            found.setdefault(m.span(), f"what is the price of {m.group(1) or m.group(2)}")
    if "price" in known:
        for m in _LISTS_FOR.finditer(lower):
            found[m.span(1)] = "with a list price" if "list" in known else "with a price"
        for m in _LISTED_AT.finditer(lower):
            found[m.span(1)] = "list price" if "list" in known else "price"
        for m in _STICKER.finditer(lower):
            if "list" in known:
                found[m.span(1)] = "list"
    for m in _PLURAL_OWNERS.finditer(lower):
        owners, owned, before = m.group(2), m.group(3), m.group(1)
        if singular(owners) in known and singular(owned) in known and owned not in lexicon.FUNCTION_WORDS:
            # "japanese makers' parts": the parts of japanese makers (not the makers)
            if before and before not in lexicon.FUNCTION_WORDS:
                found[m.span()] = f"{owned} of {before} {owners}"
            else:
                found[(m.start(2), m.end())] = f"{owned} of {owners}"
    for m in _ZERO.finditer(lower):
        if any(lower.startswith(q, m.end()) for q in quantities):
            found[m.span(1)] = "exactly 0"  # 'items with zero units in stock': that count at 0
    stocked = next((q for q in sorted(quantities) if "stock" in q.split()), None)
    held = _HOW_MUCH_HELD.match(lower) if stocked is not None else None
    if held is not None:  # 'how much tofu do we have in stock': its units in stock
        found[held.span()] = f"what are the {stocked} of {held.group(1)}"
    elif stocked is not None and not re.match(r"\s*how\s+(?:much|many)\b", lower):
        for m in _IN_STOCK.finditer(lower):
            # 'discontinued items still in stock', 'what do we have stock of': that count above 0
            found.setdefault(m.span(), f"with more than 0 {stocked}")
    for m in _HAVE_SOME.finditer(lower):
        if any(lower.startswith(q, m.end()) for q in quantities):
            found[m.span(1)] = f"{m.group(1).split()[0]} more than 0"  # 'items that still have units in stock'
    def aside(m: re.Match[str] | None) -> bool:  # (never words that name the data: 'for our it manager')
        content = [w for w in lexicon.TOKEN.findall(m.group(0)) if w not in lexicon.FUNCTION_WORDS] if m else []
        return m is not None and not any(w in known for w in content if w not in lexicon.AUDIENCE_WORDS) and not (
            named is not None and content and named(" ".join(content)))

    preamble = lexicon.PREAMBLE.match(lower)
    if aside(preamble) and preamble is not None and preamble.end() < len(lower.rstrip(" ?.!")):
        found[(preamble.start(), preamble.end())] = ""  # 'finance q:', 'for the exec deck:': who it is for, set aside
    start = preamble.end() if aside(preamble) and preamble is not None else 0
    end = len(lower)
    context = context_sentences(lower, start, end, known, named)
    for a, b in context:
        found[(a, b)] = ""  # 'I'm putting together a slide about our shops.': why it is asked, not what
    for a, b in context:  # the courtesy around the question is looked for around it, not around them
        if not lower[start:a].strip():
            start = b + len(lower[b:]) - len(lower[b:].lstrip())
    for a, b in reversed(context):
        if not lower[b:end].strip():
            end = len(lower[:a].rstrip())
    while (frame := lexicon.POLITE_FRAME.match(lower, start)) is not None and frame.end() > start and \
            frame.end() < len(lower[:end].rstrip(" ?.!")):
        found[(frame.start(), frame.end())] = ""  # 'sorry if this is obvious, but', 'could you tell me': courtesy
        start = frame.end()
    for _ in range(2):  # ('..., please. thanks so much!')
        tail = lexicon.POLITE_TAIL.search(lower[:end])
        if tail is None or tail.start() <= start + 5:
            break
        found[tail.span()] = ""
        end = tail.start()
    postscript = lexicon.POSTSCRIPT.search(lower)
    if aside(postscript) and postscript is not None and \
            postscript.start() > (preamble.end() if preamble is not None else 0) + 5 and \
            not any(a < postscript.end() and postscript.start() < b for a, b in found):
        found[postscript.span()] = ""  # '(for the board pack)', 'thx', 'rough number is fine': set aside too
    for m in _PULL_UP.finditer(lower):
        found[m.span(1)] = "list"
    for m in _HOW_MUCH_OF.finditer(lower):
        found[m.span(1)] = "what share"
    for m in _WHAT_BILLED.finditer(lower):
        found[m.span(1)] = "how much"
    for m in _BUYS_MOST.finditer(lower):
        found[m.span(1)] = "buys"
    for m in _HASH_OF.finditer(lower):
        found[m.span(1)] = "number"
    for m in _HASH_COUNT.finditer(lower):
        found[m.span(1)] = "number of"
    for m in _EACH_OF.finditer(lower):
        found[m.span(1)] = f"each {m.group(2)}{singular(m.group(3))}"  # ('each of our support agents')
    for m in _ONE_OF.finditer(lower):
        noun = singular(m.group(2)) if m.group(2) else m.group(3)
        found[m.span(1)] = f"{'an' if noun[0] in 'aeiou' else 'a'} {noun}"
    for m in _HOW_BIG.finditer(lower):
        found[m.span()] = f"the average {m.group(1)} size"
    for m in _HOW_LONG.finditer(lower):
        found[m.span(1)] = "length"
    for m in lexicon.TOKEN.finditer(lower):
        word = m.group(0)
        fixed = _operator_typo(word, known)
        if fixed is not None and (named is None or not named(word)):
            found.setdefault(m.span(), fixed)
    # a change inside a wider one is part of it ('in 6 mo': the last 6 months); two that cross are both dropped
    found = {(a, b): word for (a, b), word in found.items()
             if not any(c <= a and b <= d and (c, d) != (a, b) for (c, d) in found)}
    changes = tuple(Respelling(a, b, question[a:b], word) for (a, b), word in sorted(found.items())
                    if not any(a < d and c < b for (c, d) in found if (c, d) != (a, b)))
    if not changes:
        return Respelt(question, question)
    parts, at = [], 0
    for change in changes:
        parts += [question[at:change.start], change.word]
        at = change.end
    parts.append(question[at:])
    return Respelt(question, "".join(parts), changes)


def _operator_typo(word: str, known: frozenset[str]) -> str | None:
    """The one operator or fact word a misspelt word is: one edit away (two for long words), same first letter.
    An English word, a schema word or a short one is never a typo ('count' is not 'court')."""
    if len(word) < 5 or not word.isalpha() or word in known or word in lexicon.OPERATORS or \
            word in lexicon.FUNCTION_WORDS or word in lexicon.TIME_WORDS or word in lexicon.FACT_WORDS or \
            simplemma.is_known(word, lang="en"):
        return None
    close = [w for w in _SPELLED if w[0] == word[0] and
             DamerauLevenshtein.distance(word, w) <= (2 if len(w) >= 9 else 1)]
    return close[0] if len(close) == 1 else None
