"""The words a question is read with, as data: function words, analytic operators, fact verbs, time words.

Nothing here names a schema. A word of a question is read when it is one of these, a schema word, a data
value, a time expression or an archetype's cue; anything else is reported as not read.
"""
from __future__ import annotations

import re
from collections.abc import Iterable

from archetypes.naming import WORD

# grammar and request words: reading them changes nothing in the SQL
FUNCTION_WORDS = frozenset("""
a an the of for to in on at by with from and or is are was were be been being am do does did done have has had
what which who whom whose how when where why whats what's who's how's whos hows how'd howd there here it its it's this that these those
me my mine we us our ours you your yours they them their theirs he she his her i i'm im i'd i've
we've we're we'd you've they've who've
show shows showing give gives tell find get list lists display see look let lets let's can could would should will
shall may might must please pls need want wanted like know just also only so then than as into onto about
use uses used using
any some all each every both either neither other others own same such very really much many more most
one ones thing things stuff everything something anything someone anyone everyone
data numbers number figures figure info information details detail overview summary stats statistics
value values worth results result breakdown break down split pair pairs combination combinations distributed
yes ok okay hi hello hey thanks thank thx fyi
got make made makes making bring brought brings generate generated generates generating come comes came coming
contain contains contained containing include includes included including matching live lives living located based situated
work works working worked employed
single
happen happens happened happening arrive arrives arrived take took taken place placed places placing
opened raised submitted filed logged
carry carries carried carrying handle handles handled handling went go goes gone gets called named
appear appears appeared appearing featured
actually through via market markets still eventually obviously spread sit sits
roughly approximately approx around ballpark
""".split())

# verbs and nouns that name the fact rows themselves ('sold', 'purchases', 'spent'): read as the
# fact the reading counts or sums
FACT_WORDS = frozenset("""
sell sells selling sold sale sales buy buys buying bought purchase purchases purchased purchasing
order ordered ordering spend spends spent spending pay pays paid paying earn earns earned earning
revenue revenues turnover income earnings takings gmv money business transactions transaction
move moved moving shift shifted
""".split())

# words after a money column's name that say the same money ('freight costs', 'the shipping charge')
MONEY_TAILS = ("cost", "charge", "fee", "spend", "expense", "bill")
# other names of money columns, in plain English ('shipping cost' is the freight)
MONEY_COLUMN_SYNONYMS: dict[str, tuple[str, ...]] = {
    "freight": ("shipping cost", "shipping costs", "shipping charge", "shipping fee", "delivery cost", "delivery charge",
                "postage", "carriage"),
    "spend": ("cost", "costs", "ad spend"),  # an ad account's spend is what its clicks cost
}

# the last word of a table's name that names no rows when said alone: 'list the wines' (no price_list),
# 'the history of' (no price_history), 'the log'
VERB_HEADS = frozenset({"list", "log", "history", "summary"})

# fact words that ask for money, not for a count of rows ('invoice revenue', 'what clients spent')
MONEY_WORDS = frozenset("""
revenue revenues rev turnover income earnings takings gmv money spend spends spent spending earn earns earned
""".split())

# money words that say money coming in: never a cost column's figure when another money column is there
INCOME_WORDS = frozenset("revenue revenues rev turnover income earnings takings gmv earn earns earned".split())
# a money column or a table whose names say income ('sale_price', 'invoices'): first among the money figures
INCOME_COLUMN_WORDS = frozenset("revenue sale price income turnover".split())
INCOME_ROW_WORDS = frozenset("sale order invoice payment booking".split())
# words of a money column that says money going out
COST_WORDS = frozenset("cost costs expense expenses spend spending".split())


def cost_named(columns: Iterable[str]) -> bool:
    """A money figure named as money going out ('labor_cost'), not coming in."""
    from archetypes.naming import words

    return any(set(words(c)) & COST_WORDS for c in columns)

# operations people ask for that no reading computes yet: reported as not read with this reason, never
# answered by a total
UNSUPPORTED = {
    **dict.fromkeys(["percentile", "percentiles", "quartile", "quartiles", "p90", "p95", "p99"],
                    "a percentile is not computed by the rules yet"),
    **dict.fromkeys(["cumulative", "running", "rolling", "moving"], "running and rolling totals are not computed yet"),
}

# columns of a physical size ('weight_kg', 'distance_km'): a figure only when its words are said, never what
# 'sales', 'most popular' or 'top' rank by
PHYSICAL_WORDS = frozenset("weight kg kgs kilos grams lbs pounds mass volume litres liters distance km kms miles "
                           "meters metres cm length height width depth size "
                           # a time taken is no amount sold either ('top riders by spend' never sums minutes)
                           "duration min mins minutes hours hrs seconds secs milliseconds".split())


def physical(measure_columns: Iterable[str], said: Iterable[str]) -> bool:
    """A summed column of a physical size whose words the question does not say."""
    from archetypes.naming import words

    parts = {w for c in measure_columns for w in words(c)}
    return bool(parts & PHYSICAL_WORDS) and not parts & set(said)


# columns of a judgement on a scale: averaged, never added up ('the best rating' is the highest mean)
RATING_WORDS = frozenset("rating ratings score scores stars grade nps satisfaction csat".split())

# a buyer's verbs (singular forms also match their third person): what was bought, counted as money or units
BUYING_VERBS = frozenset("buy bought order ordered purchase purchased".split())

# 'how many pets did the vet see', 'patients treated in 2025': the rows the events are of, by their verb
SERVING_VERBS = frozenset("see saw seen treat treated visit visited serve served handle handled".split())
# verbs of selling: 'how many X did we sell' counts units
SOLD_VERBS = frozenset("sell sells sold selling buy buys bought purchase purchased ship shipped".split())
# words that say something was sold without saying whether it is counted in money or in units
SALES_WORDS = frozenset("sales sale sell sells sold selling".split())
# fact nouns that name no actor: 'how many clients ordered' counts clients, 'sales' does not say who
FACT_NOUNS = frozenset("sales sale revenue revenues money business turnover income".split())
# words of a column that holds a row's state
STATE_COLUMN_WORDS = frozenset({"status", "state"})
# a state a row's closing date is for ('tickets closed in june' are dated by resolved_at)
CLOSING_WORDS = frozenset({"closed", "solved", "resolved", "completed", "finished", "fulfilled", "done", "shipped",
                           "delivered", "cancelled", "canceled", "refunded", "ended", "terminated", "churned"})
# words that ask for a change or a comparison between two periods named ('how did sales change from may to june')
CHANGE_SAID = re.compile(r"\b(?:change[sd]?|changing|grow|grew|grown|growth|rise|rose|risen|fall|fell|fallen|drop|"
                         r"dropped|increase[sd]?|decrease[sd]?|decline[sd]?|difference|differ|compare[sd]?|"
                         r"comparison|vs|versus|against|trend|trending|better|worse|up|down|improve[sd]?|jump|"
                         r"jumped|shift|shifted|move[sd]?|moving|go|went|gone|evolve[sd]?)\b|"
                         r"^\s*how\s+(?:did|has|have|was|were|do|does)\b")
# words of a date column that records a closing ('ends_on', 'closed_at', 'cancelled_on'): the day a row ended
CLOSING_COLUMN_WORDS = CLOSING_WORDS | frozenset({"end", "ends", "close", "closing", "finish", "termination",
                                                  "cancellation", "churn"})
# nouns of the deed a closing state records ('cancellations in 2024': dated by the day they ended)
CLOSING_NOUNS = frozenset({"cancellation", "cancellations", "cancels", "churn", "churns", "closure", "closures",
                           "completions", "deliveries", "refunds", "terminations", "resolutions"})
# states of a row that never went through: it is void, not a row of another kind that counts
NEVER_HAPPENED = frozenset({"cancelled", "canceled", "void", "voided", "rejected", "declined", "failed", "abandoned"})
# values that say a row's state, in a column of any name ('response': accepted, declined, pending)
STATE_VALUES = NEVER_HAPPENED | frozenset({"accepted", "approved", "completed", "pending", "refunded", "returned",
                                           "shipped", "delivered", "resolved", "expired", "withdrawn", "denied"})
# states nobody wants more of: the worst rate of them is the highest ('worst refund rate')
BAD_STATES = NEVER_HAPPENED | frozenset({"refunded", "returned", "late", "overdue", "churned", "lost", "disputed",
                                         "chargeback", "no-show", "no show", "no_show", "missed", "damaged",
                                         "defective", "complaint", "escalated", "delayed", "bounced", "expired"})


def names_a_figure(tokens: Iterable[tuple[str, int, int]]) -> bool:
    """The question names what to add up or count with a fact or money word ('sales', 'spent', 'bought')."""
    return any(t[0] in FACT_WORDS or t[0] in MONEY_WORDS for t in tokens)


def is_state_column(column_words: Iterable[str]) -> bool:
    return bool(STATE_COLUMN_WORDS & set(column_words))


# analytic operators: each must be reflected by the reading's shape, or it is reported as not read
OPERATORS: dict[str, str] = {
    **dict.fromkeys(["average", "avg", "mean", "typical", "typically", "averages", "aov", "median", "medians"],
                    "average"),
    **dict.fromkeys(["total", "totals", "sum", "overall", "combined", "altogether", "aggregate"], "total"),
    **dict.fromkeys(["count", "counts", "number", "how many", "many"], "count"),
    **dict.fromkeys(["distinct", "unique", "different"], "distinct"),
    **dict.fromkeys(["share", "percentage", "percent", "pct", "proportion", "fraction", "portion", "%", "slice",
                     "how much of", "how many of"], "share"),
    **dict.fromkeys(["ratio", "rate", "rates", "how often"], "rate"),
    **dict.fromkeys(["per", "each", "every", "by", "for each", "for every", "across", "broken down by",
                     "split by", "grouped by"], "per"),
    **dict.fromkeys(["never", "no", "not", "without", "nobody", "none", "zero", "haven't", "hasn't", "didn't",
                     "don't", "doesn't", "nothing", "no one", "weren't", "wasn't", "aren't", "isn't", "hasnt", "havent",
                     "didnt", "dont", "doesnt", "isnt", "arent", "wasnt", "werent", "never been"], "negation"),
    **dict.fromkeys(["more than", "over", "above", "greater than", "at least", "exceeding", "exceeded", "beyond",
                     "less than", "fewer than", "under", "below", "at most", "up to", "exactly"], "compare"),
    **dict.fromkeys(["grew", "grow", "grows", "growing", "growth", "increase", "increased", "increases", "rise",
                     "rose", "risen", "drop", "dropped", "drops", "decline", "declined", "declines", "declining",
                     "decrease", "decreased", "fall", "fell", "fallen", "change", "changed", "changes", "up",
                     "down", "compared", "compare", "versus", "vs", "between", "difference", "gain", "gained",
                     "lost", "loss", "improve", "improved", "shrank", "shrunk", "yoy", "year over year",
                     "year-over-year", "how many more", "how much more", "how many fewer", "how much less"], "change"),
    **dict.fromkeys(["busiest", "busy", "quietest", "quiet", "slowest", "peak", "peaks"], "distribution"),
    **dict.fromkeys(["cheapest", "priciest", "expensive", "cheap", "oldest", "newest", "youngest", "longest",
                     "shortest", "earliest", "latest", "heaviest", "lightest", "first", "last", "longest tenured",
                     "longest-tenured", "longest serving", "longest-serving"], "attribute"),
    **dict.fromkeys(["top", "bottom", "best", "worst", "highest", "lowest", "most", "least", "fewest",
                     "biggest", "largest", "smallest", "greatest", "leading", "popular", "common", "frequent",
                     "ever", "rank",
                     "ranked", "ranking", "ranks", "sorted", "sort"], "ranking"),
}
# operators a reading must reflect; the others (totals, counts, grouping, ranking) every shape reads
SHAPE_OPERATORS = frozenset({"average", "share", "rate", "negation", "compare", "change", "distribution",
                             "attribute"})
MULTIWORD_OPERATORS = sorted((k for k in OPERATORS if " " in k or "-" in k), key=len, reverse=True)

# words that only mark time, read by the time-expression parser or by a grain
TIME_WORDS = frozenset("""
when time times timestamp timestamps date dates day days daily week weeks weekly month months monthly quarter quarters quarterly
year years yearly annual annually hour hours hourly minute weekday weekdays weekend weekends morning mornings
evening evenings night nights today yesterday tonight ago since until till before after during period periods
season seasonal calendar fiscal fy iso ytd mtd qtd so far now currently current recent recently lately
monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays fridays
saturdays sundays jan feb mar apr jun jul aug sep sept oct nov dec january february march april may june july
august september october november december
""".split())

# attribute words: which end of which kind of column they want
ATTRIBUTE_WORDS: dict[str, tuple[str, str]] = {
    "cheapest": ("price", "min"), "cheap": ("price", "min"), "priciest": ("price", "max"),
    "expensive": ("price", "max"), "oldest": ("age", "min"), "earliest": ("recency", "min"),
    "newest": ("recency", "max"), "latest": ("recency", "max"), "youngest": ("age", "max"),
    "longest": ("length", "max"), "shortest": ("length", "min"), "heaviest": ("weight", "max"),
    "lightest": ("weight", "min"),
    # with us the longest: the earliest start (a hire, a sign-up)
    "longest tenured": ("recency", "min"), "longest-tenured": ("recency", "min"),
    "longest serving": ("recency", "min"), "longest-serving": ("recency", "min"),
}
# column words that hold each attribute kind (generic English, not any schema's names)
ATTRIBUTE_COLUMNS: dict[str, tuple[str, ...]] = {
    "price": ("price", "cost", "amount", "fee"),
    "length": ("milliseconds", "duration", "length", "seconds", "minutes", "runtime", "ms"),
    "weight": ("weight", "kg", "grams", "mass"),
    "age": ("created", "joined", "signup", "registered", "since", "birth", "born", "hire", "hired", "start",
            "started", "date", "at"),
    # newest / earliest: when a row began (a hire, a sign-up), never when a person was born
    "recency": ("created", "joined", "signup", "registered", "since", "hire", "hired", "start", "started", "date",
                "at"),
}
BIRTH_WORDS = frozenset({"birth", "born", "dob"})

# a validity period's columns ('valid_from' / 'valid_to', 'begins_on' / 'ends_on'); an end this far ahead marks
# the current row, not a date
VALIDITY_START_WORDS = frozenset({"start", "started", "from", "begin", "begins", "began", "begun", "valid", "effective",
                                  "since", "opened", "opens", "opening"})
VALIDITY_END_WORDS = frozenset({"end", "ended", "to", "until", "till", "expires", "expiry", "expired", "closed", "closes",
                                "closing",
                                "thru", "through"})
SENTINEL_YEAR = 9000

# nouns that name only some kinds of a table's rows: 'songs' of a catalogue that also holds video files, TV
# episodes and films. A kind column whose values say one of the other words makes 'songs' a scope question.
_NOT_MUSIC = ("video", "videos", "movie", "movies", "film", "films", "tv", "episode", "episodes", "podcast",
              "audiobook", "audiobooks")
KIND_NOUNS: dict[str, tuple[str, ...]] = {"song": _NOT_MUSIC, "songs": _NOT_MUSIC, "music": _NOT_MUSIC,
                                          "tune": _NOT_MUSIC, "tunes": _NOT_MUSIC}

# a decimal is one token ("1.99"), so a price said in a question is read or reported whole
# tables whose rows are kinds of other rows (a genre, a media type, a category): a distinctive word of one of
# their multi-word names names it ('videos' for 'Protected MPEG-4 video file', 'punk' for 'Alternative & Punk')
# (singular: a table's words are compared singular)
KIND_TABLE_WORDS = frozenset({"type", "kind", "category", "genre", "class", "format", "media", "segment", "family"})

# words for everything a business offers for sale: the priced table its sales lines point at, counted as rows
CATALOGUE_WORDS = frozenset({"catalog", "catalogs", "catalogue", "catalogues", "catalouge", "assortment", "library",
                             "collection", "offering", "offerings"})

# a date a row fills when it goes out ('shipped date'), and the words that speak of the going out (a shipper, freight,
# a carrier): the window may bound either date, and rows without one may not count
SENT_DATE_WORDS = frozenset({"shipped", "delivered", "dispatched", "sent"})
SENDING_TALK = re.compile(r"\b(?:shippers?|shipping|ship\s+via|carriers?|couriers?|freight|delivery|deliveries)\b")

TOKEN = re.compile(r"\d+\.\d+|" + WORD.pattern + r"|%|[$€£¥]|#\d+")

# nouns for people: 'who' asks for one of these when the rows hold no first and last name
PEOPLE_NOUNS = frozenset("""
customer client buyer shopper member user subscriber patient student employee staff agent rep person people
account contact guest passenger traveller traveler owner seller vendor supplier artist author driver rider donor
""".split())

# demonyms: 'british clients', 'german buyers' name rows whose country is one of these (lemmatised keys)
# a country's territories, kept as nations of their own in many datasets ('shops in the us': with San Juan, in
# Puerto Rico, or without?), each by its ISO code and its names
TERRITORIES: dict[tuple[str, ...], tuple[tuple[str, ...], ...]] = {
    ("us", "usa", "united states", "united states of america"): (
        ("pr", "puerto rico"), ("gu", "guam"), ("vi", "us virgin islands", "virgin islands, u.s."),
        ("as", "american samoa"), ("mp", "northern mariana islands")),
    ("fr", "france"): (("gp", "guadeloupe"), ("mq", "martinique"), ("gf", "french guiana"), ("re", "reunion",
                                                                                          "réunion"),
                       ("yt", "mayotte"), ("nc", "new caledonia"), ("pf", "french polynesia")),
    ("gb", "uk", "united kingdom", "great britain"): (("je", "jersey"), ("gg", "guernsey"), ("im", "isle of man"),
                                                      ("gi", "gibraltar"), ("bm", "bermuda")),
    ("dk", "denmark"): (("gl", "greenland"), ("fo", "faroe islands")),
    ("nl", "netherlands"): (("aw", "aruba"), ("cw", "curacao", "curaçao"), ("sx", "sint maarten")),
    ("cn", "china"): (("hk", "hong kong"), ("mo", "macau", "macao")),
}

DEMONYMS: dict[str, tuple[str, ...]] = {
    "american": ("usa", "united state", "united states", "us", "united states of america"),
    "british": ("uk", "united kingdom", "great britain", "britain", "england"),
    "english": ("england",), "scottish": ("scotland",), "welsh": ("wale", "wales"), "irish": ("ireland",),
    "german": ("germany",), "french": ("france",), "spanish": ("spain",), "italian": ("italy",),
    "portuguese": ("portugal",), "dutch": ("netherlands", "netherland", "holland"), "belgian": ("belgium",),
    "swiss": ("switzerland",), "austrian": ("austria",), "swedish": ("sweden",), "norwegian": ("norway",),
    "danish": ("denmark",), "finnish": ("finland",), "polish": ("poland",), "czech": ("czech republic", "czechia"),
    "hungarian": ("hungary",), "greek": ("greece",), "russian": ("russia",), "canadian": ("canada",),
    "mexican": ("mexico",), "brazilian": ("brazil",), "argentine": ("argentina",), "argentinian": ("argentina",),
    "chilean": ("chile",), "colombian": ("colombia",), "venezuelan": ("venezuela",), "peruvian": ("peru",),
    "japanese": ("japan",), "chinese": ("china",), "korean": ("south korea", "korea"), "indian": ("india",),
    "australian": ("australia",), "kiwi": ("new zealand",), "puerto rican": ("puerto rico",),
    # and the usual short names, read only before a noun ('our us shops'): 'us' alone is a pronoun
    "us": ("usa", "united state", "united states", "united states of america"), "uk": ("united kingdom",),
    # and the country's usual names ('shops in the states', 'clients in america')
    "the states": ("usa", "united state", "united states", "united states of america"),
    "america": ("usa", "united state", "united states", "united states of america"),
    "britain": ("uk", "united kingdom", "great britain"), "holland": ("netherlands", "netherland"),
}

# a country stored as its ISO 3166 two-letter code ('DE'), named in words ('clients in germany')
COUNTRY_CODES: dict[str, tuple[str, ...]] = {
    "US": ("usa", "united states", "united states of america", "america", "the states", "american"),
    "GB": ("uk", "united kingdom", "great britain", "britain", "england", "british"),
    "DE": ("germany", "german"), "FR": ("france", "french"), "ES": ("spain", "spanish"), "IT": ("italy", "italian"),
    "PT": ("portugal", "portuguese"), "NL": ("netherlands", "holland", "dutch"), "BE": ("belgium", "belgian"),
    "CH": ("switzerland", "swiss"), "AT": ("austria", "austrian"), "SE": ("sweden", "swedish"),
    "NO": ("norway", "norwegian"), "DK": ("denmark", "danish"), "FI": ("finland", "finnish"),
    "PL": ("poland", "polish"), "CZ": ("czech republic", "czechia", "czech"), "HU": ("hungary", "hungarian"),
    "GR": ("greece", "greek"), "IE": ("ireland", "irish"), "RU": ("russia", "russian"), "CA": ("canada", "canadian"),
    "MX": ("mexico", "mexican"), "BR": ("brazil", "brazilian"), "AR": ("argentina", "argentinian", "argentine"),
    "CL": ("chile", "chilean"), "CO": ("colombia", "colombian"), "PE": ("peru", "peruvian"),
    "JP": ("japan", "japanese"), "CN": ("china", "chinese"), "KR": ("south korea", "korea", "korean"),
    "IN": ("india", "indian"), "AU": ("australia", "australian"), "NZ": ("new zealand",), "SG": ("singapore",),
    "ZA": ("south africa",), "IL": ("israel",), "TR": ("turkey",), "AE": ("united arab emirates", "uae"),
}

# idioms whose words only carry grammar, whatever each word means alone: 'over' of 'over the past year' is no
# threshold, 'down' of 'break down by country' no fall, 'clients on file' every client, 'end up cancelled'
# the state
GRAMMAR_IDIOMS = re.compile(
    r"\bover(?=\s+(?:the\s+)?(?:last|past|previous|prior|trailing|recent|whole|entire|full|course)\b)"
    r"|\b(?:break|breaks|breaking|broken|broke|split|splits|splitting)\s+(?:(?:it|them|this|that|those|these)\s+)?(?:down|out)\b"
    r"|\bon\s+(?:file|record|the\s+books)\b|\bin\s+(?:the|our)\s+(?:system|database|db|records?|books)\b"
    r"|\b(?:end|ends|ended|ending)\s+up\b|\bin\s+total\b|\ball\s+told\b|\bright(?=\s+now\b)"
    r"|(?<=\bemail)\s+address(?:es)?\b|(?<=\be-mail)\s+address(?:es)?\b"  # 'email addresses': the email
    r"|\b(?:go|goes|went|gone|going)\s+out(?=\s+(?:with|via|by|through)\b)"  # 'go out with a shipper': ship with it
    r"|\b(?:shipped|sent|dispatched)(?=\s+(?:via|through)\s+[a-z])"  # 'shipped via X': the carrier named
    r"|\b(?:hand|hands|handed|handing)\s+out\b|\bhow\s+big\b"
    r"|(?<=\bin stock)|\bleft(?=\s+(?:in\s+stock|on\s+hand)\b)"
    # 'converted at order-date rates': which exchange rate, not a rate asked for
    r"|\b(?:at|using|with|by)\s+(?:the\s+)?(?:order[- ]date|daily|day'?s|historical|transaction[- ]date|spot|"
    r"same[- ]day)\s+(?:exchange\s+|fx\s+)?rates?\b"
    # 'tracks under rock', 'what we carry under cables & chargers': filed under a kind, no threshold
    r"|\b(?:filed\s+)?under(?=\s+(?:the\s+)?(?:[a-z][a-z&' -]*)\s*(?:$|[?.!,]|\bcategory\b|\bgenre\b))"
    r"|\b(?:filed|listed|kept|sorted)\s+under(?=\s*[?.!]*\s*$)"  # 'which category is X filed under?'
    r"|\bthe\s+start\s+of(?=\s+(?:19|20)\d{2}\b|\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b)")


# 'break 2025 billings down by quarter', 'break down sales by region': the words of a breakdown, with up to six words
# between the verb and 'down' (GRAMMAR_IDIOMS reads them when only a pronoun is between)
BREAK_DOWN = re.compile(r"\b(?:break|breaks|breaking|broken|broke|split|splits|splitting)\b(?=(?:\s+[\w'-]+){0,6}?"
                        r"\s+(?:down|out)\b)|\b(?:break|breaks|breaking|broken|broke)\s+down\b")


# who or what the answer is for, said before the question: 'finance q:', 'for the exec deck:', 'quick one before the
# stocktake:', 'hey so for the board i need', 'audit next week so tell me', 'board pack needs': context, not data
_PAPERS = (r"deck|decks|slides?|meeting|report|pack|review|presentation|qbr|stocktake|audit|call|email|memo|standup|"
           r"stand-up|update|sync|offsite|catch-?up|newsletter|q|qq|question|(?<=quick )one|(?<=quick )check|request|ask|"
           r"recap|retro|forecast|budget|"
           r"planning")
# (people only after 'for': 'jane's boss - who is that' asks about the boss)
_PEOPLE = r"board|investors?|execs?|exec\s+team|leadership|boss|ceo|cfo|cto|manager|team"
_AUDIENCE = r"(?:" + _PAPERS + r")"
# the plain words of both: a schema column 'reports_to' does not make 'the label report' a question about it
AUDIENCE_WORDS = frozenset(w for w in re.findall(r"[a-z]+", _PAPERS + " " + _PEOPLE) if len(w) > 2)
_FOR_AUDIENCE = r"(?:" + _PAPERS + r"|" + _PEOPLE + r")"
_GREETING = r"(?:(?:hey|hi|hello|ok|okay|so|um|quick|fyi|pls|please)[,:!]?\s+)*"
PREAMBLE = re.compile(
    r"^\s*" + _GREETING + r"for\s+(?:the|our|my|a|an|this|next|tomorrow'?s|today'?s)\s+(?:[a-z0-9&-]+\s+){0,3}?"
    + _FOR_AUDIENCE + r"\s*(?::|\s-|–|—|,)"
    r"|^\s*" + _GREETING + r"(?:[a-z0-9&-]+\s+){0,3}?" + _AUDIENCE + r"\s*(?::|\s-|–|—|,)"
    r"|^\s*" + _GREETING + r"(?:warehouse|finance|marketing|ops|operations|hr|legal|accounting|support|exec|board)\s*:"
    r"|^\s*" + _GREETING + r"for\s+(?:the|our|my|this|next|tomorrow'?s|today'?s)\s+(?:[a-z0-9&-]+\s+){0,2}?" + _FOR_AUDIENCE
    + r"(?:\s+(?:i\s+need|we\s+need|i'd\s+like|can\s+you|could\s+you|pls|please)\b)"
    r"|^\s*" + _GREETING + r"(?:the\s+)?(?:[a-z]+\s+)?(?:" + _PAPERS + r"|board)" +
    r"(?:\s+(?:is\s+)?(?:next\s+week|tomorrow|today|this\s+week|on\s+[a-z]+day)\s*,?\s+so(?:\s+(?:tell\s+me|"
    r"i\s+need|can\s+you|pls|please))?\b|\s+needs?\b)")
# the courtesy around a request, said before the question: 'sorry if this is obvious, but', 'could you tell me',
# 'i was wondering if you could let me know', 'would it be possible to get': how it is asked, not what
_TELL = (r"(?:tell\s+me|let\s+me\s+know|find\s+out|check|look\s+up|confirm|share|send\s+me|give\s+me|get\s+me|"
         r"show\s+me|work\s+out|figure\s+out|help\s+me\s+(?:find|work\s+out|figure\s+out|understand))")
_POLITE = (
    r"(?:thanks|thank\s+you)(?:\s+(?:so\s+much|a\s+lot|in\s+advance))?\s*[,.!:-]\s*"
    r"|(?:sorry|apologies)(?:\s+(?:if\s+this\s+is\s+(?:obvious|a\s+(?:silly|dumb|basic|stupid|simple)\s+question|"
    r"basic)|for\s+(?:the|a|this)\s+(?:basic|silly|simple|quick|dumb)\s+question|to\s+bother\s+you))?"
    r"\s*(?:,\s*but\b|\bbut\b|[,.!:-])\s*"
    r"|just\s+(?:to|wanted\s+to|want\s+to)\s+(?:double[- ]check|confirm|check|ask)\s*(?:[,:-]\s*|\s+)"
    r"|(?:a\s+)?quick\s+question\s*[,:!-]\s*"
    r"|i\s+(?:was|am|'m)\s+(?:wondering|hoping)\s+(?:if|whether)\s+(?:you|someone|anyone)\s+(?:could|can|might)"
    r"\s+(?:please\s+)?" + _TELL + r"\s+"
    r"|i\s+(?:was|am|'m)\s+wondering\s+"
    r"|(?:could|can|would)\s+you\s+(?:please\s+)?(?:kindly\s+)?" + _TELL + r"\s+"
    r"|would\s+you\s+mind\s+(?:telling\s+me|letting\s+me\s+know|checking|finding\s+out|looking\s+up|"
    r"pulling(?:\s+up)?|sharing)\s+"
    r"|(?:do|would)\s+you\s+(?:happen\s+to\s+)?know\s+"
    r"|i(?:'d|\s+would)\s+(?:like|love)\s+to\s+(?:know|find\s+out|understand|check)\s+"
    r"|i\s+(?:need|want)\s+to\s+(?:know|find\s+out|check)\s+"
    r"|(?:could|can|may)\s+i\s+(?:please\s+)?(?:ask|know|check)\s+"
    r"|would\s+it\s+be\s+possible\s+to\s+(?:know|find\s+out|check|see|get)\s+"
    r"|i(?:'m|\s+am)\s+(?:trying|hoping)\s+to\s+(?:find\s+out|figure\s+out|work\s+out|understand)\s+"
    r"|i(?:'m|\s+am)\s+putting\s+together\s+(?:the|a|an|our|my)\s+(?:[a-z0-9&-]+\s+){0,3}?" + _AUDIENCE +
    r"\s*,?\s+and\s+(?:was\s+hoping|wanted\s+to\s+ask|would\s+like\s+to\s+know)(?:\s+(?:if|whether)\s+you"
    r"\s+could\s+" + _TELL + r")?\s+")
POLITE_FRAME = re.compile(r"\s*" + _GREETING + r"(?:" + _POLITE + r")(?:please\s+)?")
# and after it: 'thanks so much!', 'many thanks', 'i need it for the monthly review.', 'for a report i'm writing'
POLITE_TAIL = re.compile(
    r"(?:\s*[,.!?]\s*|\s+)(?:(?:many\s+)?thanks(?:\s+(?:so\s+much|a\s+lot|in\s+advance))?|thank\s+you(?:\s+(?:so\s+"
    r"much|in\s+advance))?|(?:i|we)\s+need\s+(?:it|this)\s+for\s+(?:the|a|an|our|my)\s+(?:[a-z0-9&-]+\s+){0,3}?"
    + _AUDIENCE + r"|(?:it'?s|this\s+is)\s+for\s+(?:the|a|an|our|my)\s+(?:[a-z0-9&-]+\s+){0,3}?" + _AUDIENCE +
    r"|for\s+(?:a|the)\s+" + _AUDIENCE + r"\s+(?:i'?m|i\s+am|we'?re)\s+(?:writing|preparing|putting\s+together|doing)"
    r"|please)\s*[.!]*\s*$")
# the same said after the question, and how exact it must be: '(for the board pack)', ', thx', '(rough number is
# fine)', 'ballpark is fine'
POSTSCRIPT = re.compile(
    r"(?:\s*[,(–—-]\s*|\s+)(?:(?:for\s+(?:the|our|my|a|an|this|next|tomorrow'?s|today'?s)\s+(?:[a-z0-9&-]+\s+){0,2}?"
    + _FOR_AUDIENCE + r")|(?:a\s+)?(?:rough(?:\s+(?:number|figure|estimate))?|ballpark(?:\s+figure)?|approx(?:imate)?"
    r"(?:\s+(?:number|figure))?|estimate|roughly)\s+is\s+(?:fine|ok|okay|enough)|thx|thanks|thank\s+you|ty|cheers)"
    r"\s*\)?\s*[?.!]*\s*$")
# request verbs and the name of the table a value is kept in: 'can you pull', 'grab me', 'in our rates table'
_REQUEST = re.compile(r"\b(?:pull|pulls|grab|fetch|dig)(?:\s+(?:up|out))?\b(?=\s+(?:me\s+|us\s+)?[a-z#$0-9])"
                      r"|(?<=[a-z] )tables?(?=\s*[?.!]*\s*$)")


def grammar_idioms(lower: str) -> list[tuple[int, int]]:
    """The spans of GRAMMAR_IDIOMS and of request verbs in a lowercased question: read, and never an operator
    (a preamble saying who the answer is for is set aside before reading: archetypes.respell)."""
    spans = [m.span() for m in GRAMMAR_IDIOMS.finditer(lower) if m.end() > m.start()]
    return spans + [m.span() for m in _REQUEST.finditer(lower)]
