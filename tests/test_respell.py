"""The question as the rules read it (archetypes.respell): two-digit years and misspelt operator words, each
change mapped back to the words typed. Pure text: no database."""
from __future__ import annotations

import datetime as dt

import pytest

from archetypes.respell import respell

NORTHWIND = {"earliest": dt.date(1996, 7, 4), "latest": dt.date(1998, 5, 6)}
DEMO = {"earliest": dt.date(2023, 7, 1), "latest": dt.date(2025, 6, 30)}

# typed | data | read as
CASES = [
    ("sales growth '96 to '97", NORTHWIND, "sales growth 1996 to 1997"),
    ("5 best-selling items of ’97", NORTHWIND, "5 best-selling items of 1997"),
    ("sales growth 98 vs 97 in %", NORTHWIND, "sales growth 1998 vs 1997 in %"),
    ("q1 98 sales per rep", NORTHWIND, "q1 1998 sales per rep"),
    ("orders shipped to germany in 97", NORTHWIND, "orders shipped to germany in 1997"),
    ("not ordered since march 98", NORTHWIND, "not ordered since march 1998"),
    ("fy 24 revenue", DEMO, "fy 2024 revenue"),
    ("averge invoice total", DEMO, "average invoice total"),
    ("whats the bigest order", DEMO, "whats the biggest order"),
    # left alone: a day after a month, counts, thresholds, a year outside the data, decades, English words
    ("orders on june 29?", DEMO, "orders on june 29?"),
    ("top 10 products in 97 countries", NORTHWIND, "top 10 products in 97 countries"),
    ("orders over 97", NORTHWIND, "orders over 97"),
    ("between 23 and 25 items", DEMO, "between 23 and 25 items"),
    ("orders in 12", DEMO, "orders in 12"),
    ("music of the '90s", DEMO, "music of the '90s"),
    ("which courts are busiest", DEMO, "which courts are busiest"),
    # how many said in words, the money sign, whose average, gaps after a negation, reporting lines, shorthand
    ("top five customers", DEMO, "top 5 customers"),
    ("our three biggest artists", DEMO, "our 3 biggest artists"),
    ("genres ranked by sales, first five", DEMO, "genres ranked by sales, top 5"),
    ("the first five orders", DEMO, "the first five orders"),
    ("in the last three months", DEMO, "in the last three months"),
    ("mean $ per order", DEMO, "mean money per order"),
    ("orders over $500", DEMO, "orders over $500"),
    ("average customer spend", DEMO, "average spend per customer"),
    ("average order value", DEMO, "average order value"),
    ("who hasn't purchased in six months", DEMO, "who hasn't purchased in the last 6 months"),
    ("how many orders in 3 months", DEMO, "how many orders in 3 months"),
    ("who works under andrew adams", DEMO, "who reports to andrew adams"),
    ("which products are under cables", DEMO, "which products are under cables"),
    ("who is our #1 customer", DEMO, "who is our top customer"),
    ("order #1 status", DEMO, "order #1 status"),
    ("how many ppl signed up", DEMO, "how many people signed up"),
    # the courtesy around a request is how it is asked, set aside; never the words of the question itself
    ("I was wondering if you could tell me how many orders we had", DEMO, "how many orders we had"),
    ("Sorry if this is obvious, but how many stores do we have?", DEMO, "how many stores do we have?"),
    ("Just to double-check, what was revenue in 2024?", DEMO, "what was revenue in 2024?"),
    ("Would you mind letting me know which store sold most?", DEMO, "which store sold most?"),
    ("Hi! Sorry to bother you, could you please tell me the total revenue?", DEMO, "the total revenue?"),
    ("Do you happen to know who sold the most in 1997?", NORTHWIND, "who sold the most in 1997?"),
    ("Would it be possible to get a list of customers in Brazil?", DEMO, "a list of customers in Brazil?"),
    ("Thanks in advance! How many artists have no albums?", DEMO, "How many artists have no albums?"),
    ("How many orders in May 2025? I need it for the monthly review.", DEMO, "How many orders in May 2025? "),
    ("How many discontinued products? Many thanks.", NORTHWIND, "How many discontinued products"),
    ("could you check which orders are late", DEMO, "which orders are late"),
    ("can you tell", DEMO, "can you tell"),
    ("tell me about sorry states", DEMO, "tell me about sorry states"),
    # an analyst's shorthand, read as the words it stands for; a '#' before words is how many, before a number a key
    ("top 5 custs by rev excl. cancelled", DEMO, "top 5 customers by rev excluding cancelled"),
    ("avg px by cat", DEMO, "avg price by category"),
    ("# invoices by yr, all yrs", DEMO, "number of invoices by year, all years"),
    ("# of orders", DEMO, "number of orders"),
    ("order #12 status", DEMO, "order #12 status"),
    ("custs who haven't ordered in 6 mo", DEMO, "customers who haven't ordered in the last 6 months"),
    ("hire dt of margaret park", DEMO, "hire date of margaret park"),
    ("seafood skus", DEMO, "seafood products"),
    ("mo and jo", DEMO, "mo and jo"),
    # 'most active' people are ranked by what they do; how many active ones a place has is a count of a state
    ("who are our most active customers", DEMO, "who are our busiest customers"),
    # a year of the data said last, alone; a number a ranking or a threshold takes stays as typed
    ("aov 97", NORTHWIND, "aov 1997"),
    ("net sales by qtr, 97", NORTHWIND, "net sales by quarter, 1997"),
    ("top 97", NORTHWIND, "top 97"),
    ("orders over 97", NORTHWIND, "orders over 97"),
    ("which store has the most active customers", DEMO, "which store has the most active customers"),
]


@pytest.mark.parametrize("typed, data, read", CASES, ids=[c[0] for c in CASES])
def test_the_question_as_read(typed: str, data: dict[str, dt.date], read: str) -> None:
    assert respell(typed, **data).text == read


def test_spans_of_the_text_read_map_back_to_the_words_typed() -> None:
    typed = "averge florp in q1 98 by shop"
    respelt = respell(typed, **NORTHWIND)
    text = respelt.text
    assert text == "average florp in q1 1998 by shop"
    for word in ("average", "florp", "q1 1998", "1998", "shop"):
        start = text.index(word)
        a, b = respelt.typed_span(start, start + len(word))
        assert typed[a:b] == {"average": "averge", "q1 1998": "q1 98", "1998": "98"}.get(word, word)


def test_schema_words_are_never_respelt() -> None:
    assert respell("averge by averag", **DEMO, known=frozenset({"averag"})).text == "average by averag"


def test_a_word_of_the_data_is_never_respelt() -> None:
    assert respell("price of chang", **NORTHWIND, named=lambda word: word == "chang").text == "price of chang"
    assert respell("price of chang", **NORTHWIND).text == "price of change"


def test_words_whose_singular_is_themselves() -> None:
    """'per species', never 'per specy' (a newcomer's clinic page said so)."""
    from archetypes.naming import singular

    assert [singular(w) for w in ("species", "series", "statuses", "analyses", "tracks")] == \
        ["species", "series", "status", "analysis", "track"]


def test_words_with_no_plural_of_their_own() -> None:
    """'how many staff are there', never 'staffs' (a newcomer's emergency department page said so)."""
    from archetypes.naming import plural

    assert [plural(w) for w in ("staff", "support staff", "series", "equipment", "category", "box")] == \
        ["staff", "support staff", "series", "equipment", "categories", "boxes"]


# a sentence about the asker beside the question is set aside only when it can narrow nothing: no value, number,
# date, operator, fact or time word, and no schema word the question does not say itself
SCHEMA_WORDS = frozenset({"customer", "customers", "country", "store", "stores", "order", "orders", "product"})
CONTEXT_CASES = [
    ("Could you tell me how many customers are in Canada? I'm putting together a slide about our customers.",
     "how many customers are in Canada? "),
    ("I'm new here. How many stores do we have?", " How many stores do we have?"),
    ("My manager asked me to check something before the monthly review: how many orders were there in May 2025?",
     " how many orders were there in May 2025?"),
    ("I need the first order from Acme Corp. Could you pull it for me?", "I need the first order from Acme Corp. "),
    ("Could you tell me how big a typical order is for us?", "the average order size for us?"),
    # left alone: it says what is counted, a value, a year, a measure, or no sentence is left to be the question
    ("I'm looking at customers. Which country has the most?", "I'm looking at customers. Which country has the most?"),
    ("How many customers ordered? Cancelled ones can count too, I just want a rough idea.",
     "How many customers ordered? Cancelled ones can count too, I just want a rough idea."),
    ("I only care about 2024. What was the top product?", "I only care about 2024. What was the top product?"),
    ("Which store sold the most? I mean by revenue, not units.", "Which store sold the most? I mean by revenue, not units."),
    ("Which store sold the most? I'm thinking of Tokyo.", "Which store sold the most? I'm thinking of Tokyo."),
    ("I'd love to know. I'm curious.", "I'd love to know. I'm curious."),
]


@pytest.mark.parametrize("typed, read", CONTEXT_CASES, ids=[c[0] for c in CONTEXT_CASES])
def test_a_sentence_about_the_asker_is_set_aside_when_it_narrows_nothing(typed: str, read: str) -> None:
    named = {"cancelled", "acme corp", "canada", "tokyo"}.__contains__
    assert respell(typed, **DEMO, known=SCHEMA_WORDS, named=named).text == read


def test_shorthand_the_data_uses_as_a_word_is_kept() -> None:
    # a vet's data holds the species 'cat': 'cats' are cats there, categories elsewhere
    assert respell("how many cats did we see", **DEMO, named={"cat", "cats"}.__contains__).text == \
        "how many cats did we see"
    assert respell("how many cats", **DEMO).text == "how many categories"
    # a column named so keeps its own word ('the acct of each invoice')
    assert respell("acct by region", **DEMO, known=frozenset({"acct"})).text == "acct by region"
