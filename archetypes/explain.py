"""One plain-English sentence saying what a reading's SQL computes, generated from its query spec.

"Sum of unit price × quantity over the order lines of 2024-01-01 to 2024-12-31 where category is Tablets,
per shop, highest first, top 10": measure and aggregation, rows and filters, window, grouping, order, limit.
A person must be able to see in one line what was computed.
"""
from __future__ import annotations

import datetime as dt

from archetypes.naming import phrase, plural, words
from archetypes.profile import Measure, SchemaProfile
from archetypes.query import EntityFilter, QuerySpec, nullable_route, singular_noun

_PART_WORDS = {"weekday": "day of the week", "hour": "hour of the day", "month": "month of the year",
               "month_key": "calendar month", "year": "year"}
_OPS = {"gt": "more than", "ge": "at least", "lt": "less than", "le": "at most", "eq": "exactly"}


def _number(value: float) -> str:
    return f"{int(value):,}" if float(value).is_integer() else f"{value:,}"


def _rows(table: str) -> str:
    words = phrase(table).split()
    if not words:
        return "rows"
    words[-1] = plural(words[-1])
    return " ".join(words)


def measure_text(measure: Measure, agg: str | None = None, weight: Measure | None = None) -> str:
    columns = [phrase(c) for c in measure.columns]
    if agg == "weighted" and weight is not None and measure.kind == "expression" and \
            measure.columns[1:] == weight.columns:  # 'open rate': all opens over all recipients
        return f"Total {' '.join(words(measure.columns[0]))} over total {' '.join(words(weight.columns[0]))}"
    if agg == "weighted" and weight is not None and columns:
        return f"Average {' × '.join(columns)} weighted by {' × '.join(phrase(c) for c in weight.columns)}"
    if agg in ("avg", "min", "max") and columns:
        word = {"avg": "Average", "min": "Lowest", "max": "Highest"}[agg]
        if agg != "avg" and any(words(c)[-1:] in (("at",), ("date",), ("time",), ("day",), ("on",))
                                for c in measure.columns):
            word = "Earliest" if agg == "min" else "Latest"  # a date column: 'earliest ordered at'
        if measure.kind == "expression":  # a column converted ('milliseconds in minutes')
            return f"{word} {measure.label}"
        return f"{word} {' × '.join(columns)}"
    if measure.kind == "expression" and agg is None and measure.expression:
        return f"Sum of {measure.label}"  # 'nights sold': each row's days added up
    if measure.kind == "product" and len(columns) == 2:
        return f"Sum of {columns[0]} × {columns[1]}"
    if measure.kind == "product" and len(columns) == 3:
        return f"Sum of {columns[0]} × {columns[1]} × (1 − {columns[2]}), net of {columns[2]}"
    if measure.kind == "sum" and columns:
        return f"Sum of {columns[0]}"
    if measure.kind == "count_distinct" and columns:
        noun = measure.label.split("(")[0].replace("Distinct", "").strip() or columns[0]
        return f"Number of distinct {noun}"
    if measure.kind == "count":
        return f"Number of {_rows(measure.table)}"
    return measure.label


def _window(spec: QuerySpec, profile: SchemaProfile) -> str:
    window = spec.window
    counted = profile.tables.get(spec.count_table) if spec.count_table else None
    if window is None or spec.fact is not None and spec.fact.time is None and spec.count_table is None or \
            counted is not None and not any(c.family == "temporal" for c in counted.columns) and \
            (spec.fact is None or spec.fact.time is None):
        return ""  # rows with no date: no window bounds them, and the explanation must not say one does
    when = window.dates()
    zone = spec.zone or profile.business_time_zone or "UTC"
    where = " in each row's own time zone" if zone == "local" else "" if zone == "UTC" else f" ({zone} days)"
    time = spec.fact.time if spec.fact is not None else None
    table = profile.tables.get(spec.fact.table) if spec.fact is not None else None
    dates = [c for c in table.columns if c.family == "temporal"] if table is not None else []
    if time is not None and len(dates) > 1:  # 'by shipped date' or 'by order date': say which date it is
        return f" with {phrase(time.column)} {when}{where}"
    return f" dated {when}{where}"


def _filters(spec: QuerySpec, profile: SchemaProfile | None = None) -> str:
    compared = tuple(v for side in spec.sides for v in side.values)
    rows = spec.fact.table if spec.fact is not None else spec.count_table or (spec.group.table if spec.group else None)
    parts = [_whose(f, rows, profile) for f in spec.filters if f not in spec.share_filters and not (
        compared and f.values == compared and f.entity == spec.group)]  # said with the rows, once
    # whose column it is, when not the rows' own: 'the student's deleted at is empty' over enrollments
    parts += [c.label if c.table == rows or not rows else f"the {singular_noun(c.table)}'s {c.label}"
              for c in spec.conditions if c.label]
    if spec.weekdays:  # which date's day: 'closed on weekends' is the closing date's, not the opening's
        dated = f"the {phrase(spec.fact.time.column)} falls" if spec.fact is not None and spec.fact.time is not None \
            else "the day falls"
        parts.append(f"{dated} on a " + " or ".join(_DAY_NAMES[d] for d in spec.weekdays))
    return f" where {' and '.join(parts)}" if parts else ""


def _whose(flt: EntityFilter, rows: str | None, profile: SchemaProfile | None) -> str:
    """The filter said; a column of another table named like one of the rows' own is said with its table ('the
    unit's status is occupied' over leases that have a status too)."""
    said = flt.describe()
    if profile is None or rows is None or not flt.entity.column_only or flt.entity.table == rows or flt.via or \
            rows not in profile.tables or profile.tables[rows].column(flt.entity.name_columns[0]) is None or \
            "'s " in said.split(" is ")[0]:  # ('employee's country': said with its table already)
        return said
    return f"the {singular_noun(flt.entity.table)}'s {said}"


_DAY_NAMES = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")


def _currency(spec: QuerySpec) -> str:
    if spec.measure and not spec.measure.money and spec.currency_mode == "only" and spec.currency_target:
        return f", only those recorded in {spec.currency_target}"  # 'how many visits in eur': the rows counted
    if not (spec.measure and spec.measure.money and spec.currency_mode):
        return ""
    if spec.currency_mode == "only":
        return f", only amounts in {spec.currency_target}"
    if spec.currency_mode == "convert":
        return f", converted to {spec.currency_target} at the rate of the day"
    return ", per currency"


def _metric(spec: QuerySpec) -> str:
    assert spec.measure is not None
    if spec.median:
        if spec.per_table:  # 'median order value': each order's total, then the middle order
            total = measure_text(spec.measure)
            return f"Median of each {singular_noun(spec.per_table)}'s {total[:1].lower()}{total[1:]}"
        return "Median" + measure_text(spec.measure, "avg").removeprefix("Average")
    text = measure_text(spec.measure, spec.agg, spec.weight)
    if spec.per_table and spec.per_all and spec.group is None:
        text += f" divided by the number of all {_rows(spec.per_table)}, with or without any"
    elif spec.per_table:
        text += f" divided by the number of distinct {_rows(spec.per_table)}"
    return text


def explain(spec: QuerySpec, profile: SchemaProfile, as_of: dt.date | None = None) -> str:
    """The sentence for one reading (empty when there is nothing to compute)."""
    if spec.period_mean and spec.grain:
        from archetypes.query import period_totals

        each = _explain(period_totals(spec), profile, as_of)
        every = {"day": "daily", "week": "weekly", "month": "monthly", "quarter": "quarterly", "year": "yearly"}
        grain = spec.grain.split("_")[0]
        return f"Average of the {every.get(grain, grain)} totals: {each[:1].lower()}{each[1:]}"
    if spec.count_groups and spec.group is not None and spec.having is not None:
        listed = _explain(spec, profile, as_of).removesuffix(", highest first")
        return f"How many {plural(spec.group.noun)} pass: {listed[:1].lower()}{listed[1:]}"
    if spec.share_groups and spec.group is not None and spec.having is not None:
        listed = _explain(spec, profile, as_of).removesuffix(", highest first")
        assert spec.fact is not None
        whole = f"of every one of the {plural(spec.group.noun)}" if spec.share_every else \
            f"of all {plural(spec.group.noun)} with {_rows(spec.fact.table)}"
        return f"Share of the {plural(spec.group.noun)} that pass, {whole}: {listed[:1].lower()}{listed[1:]}"
    if spec.ratio_of is not None:  # 'freight as % of sales': one figure over the other
        from dataclasses import replace

        from archetypes.query import ratio_part

        part = _explain(replace(spec, ratio_of=None, fact=ratio_part(spec), measure=spec.ratio_of[1],
                                count_table=None), profile, as_of)
        whole = _explain(replace(spec, ratio_of=None), profile, as_of)
        if spec.ratio_plain:
            return f"{part}, divided by: {whole[:1].lower()}{whole[1:]}"
        return f"{part}, as a percentage of: {whole[:1].lower()}{whole[1:]}"
    if spec.chain:  # archetypes.hierarchy: not only the rows pointing at it directly
        each = _explain(spec, profile, as_of)
        return f"Everyone below, at any depth down the chain (not only direct reports): {each[:1].lower()}{each[1:]}"
    return _explain(spec, profile, as_of)


def _explain(spec: QuerySpec, profile: SchemaProfile, as_of: dt.date | None = None) -> str:
    if spec.query is not None:
        return "The statement as given, read through the schema's other mapping" if spec.mappings else \
            "The statement as given"
    shape = spec.shape
    if shape == "absence" and spec.absent is not None and spec.fact is not None:
        head = f"Number of {plural(spec.absent.noun)}" if spec.absent_count else \
            f"Share of the {plural(spec.absent.noun)}" if spec.absent_share else plural(spec.absent.noun).capitalize()
        money = f" in {spec.currency_target}" if spec.currency_mode == "only" and spec.currency_target else ""
        among = "" if spec.absent_among is None else \
            f", among the {plural(spec.absent.noun)} with " + \
            ("any " if spec.absent_among == spec.fact.table else "") + _rows(spec.absent_among)
        if spec.present_window is not None:
            among += f", among those with {_rows(spec.fact.table)} dated {_span(spec.present_window)}"
        if spec.each_value:
            among += ", each value in rows of its own (both, not either)"
        return (f"{head} with {'some' if spec.present else 'no'} {_rows(spec.fact.table)}{money}"
                f"{_window(spec, profile)}"
                f"{_filters(spec, profile)}{among}" + ("" if spec.absent_count else " among all of them" if spec.absent_share
                                       else ", listed by name"))
    if shape == "attribute" and spec.attribute is not None and spec.group is not None:
        attribute = spec.attribute
        held = profile.tables.get(attribute.table)
        dated = held is not None and any(c.name == attribute.column and c.family == "temporal" for c in held.columns)
        order = ("earliest" if dated else "lowest") if attribute.direction == "min" else \
            ("latest" if dated else "highest")
        column = phrase(attribute.column)
        value = (f"number of their {_rows(attribute.table)}" if attribute.counted else
                 f"average {column} of their {_rows(attribute.table)}" if attribute.average else
                 f"the {column} of their first {_rows(attribute.table).split()[-1].rstrip('s')}" if attribute.earliest
                 else f"total {column} of their {_rows(attribute.table)}") if attribute.child else column
        head = f"{plural(spec.group.noun).capitalize()}{_filters(spec, profile)} by {value}, {order} first"
        if spec.attribute_group is not None:
            return f"{head}, the {order} in each {spec.attribute_group.noun} (ties kept)"
        owner = f", with the {spec.attribute_owner.noun} it belongs to" if spec.attribute_owner is not None else ""
        if spec.limit is None and attribute.child is None:
            return f"{head}, those holding the {order} (ties kept){owner}"
        return f"{head}, top {spec.limit or 1}{owner}"
    if shape == "list" and spec.group is not None and spec.reference is not None:
        from archetypes.shapes import reference_words

        said = " ".join(reference_words(spec.reference))
        if spec.reference_reverse:
            return f"{plural(spec.group.noun).capitalize()} whose {said} is the {spec.group.noun}{_filters(spec, profile)}"
        return f"The {phrase(spec.reference.ref_table)} named by the {spec.group.noun}'s {said}{_filters(spec, profile)}"
    if shape == "list" and spec.group is not None:
        shown = [phrase(c) for c in spec.list_columns if c not in spec.group.name_columns]
        extra = f" with their {', '.join(shown)}" if shown else ""
        by = phrase(spec.group.key[0]) if spec.group.key and spec.group.name_columns == spec.group.key else "name"
        own = profile.facts.get(spec.group.table)
        when = ""
        if spec.window is not None and own is not None and own.time is not None and not spec.group.column_only:
            # 'list bookings from last week': the list's own dates
            when = f" with {phrase(own.time.column)} {spec.window.dates()}"
        return f"{plural(spec.group.noun).capitalize()}{extra}{when}{_filters(spec, profile)}, listed by {by}"
    if spec.measure is None or spec.fact is None:
        if spec.count_table:
            return f"Number of {_rows(spec.count_table)}{_filters(spec, profile)}"
        return ""
    metric = _metric(spec)
    if spec.per_table and spec.agg is None and not spec.median and \
            nullable_route(profile, spec.fact.table, spec.per_table):
        holder = singular_noun(spec.per_table)
        metric += f", only {_rows(spec.fact.table)} with {'an' if holder[:1] in 'aeiou' else 'a'} {holder} counted"
    own_rows = spec.measure.kind == "count" and spec.measure.table == spec.fact.table and \
        metric.startswith(f"Number of {_rows(spec.fact.table)}")
    rows = "" if own_rows else f" over the {_rows(spec.fact.table)}"  # not 'number of visits over the visits'
    common = f"{rows}{_window(spec, profile)}{_filters(spec, profile)}{_currency(spec)}"
    if shape == "share":
        if spec.share_of_total and spec.group is not None:
            return f"{metric}{common}, per {_group_noun(spec)}, each as a share of the total of all"
        if spec.share_top and spec.group is not None:
            part = f"the {plural(spec.group.noun)} are the top {spec.share_top}"
        else:
            part = " and ".join([f.describe() for f in spec.share_filters] +
                                [c.label or phrase(c.column) for c in spec.share_conditions]) or "the part"
        whole = " and ".join(f.describe() for f in spec.share_against)
        text = f"{metric}{common}: the rows where {part} against those where {whole}, as a ratio" if whole else \
            f"{metric}{common}: the part where {part}, as a share of all"
        if spec.group is not None and not spec.share_top:
            order = "lowest first" if spec.ascending else "highest first"
            text += f", per {_group_noun(spec)}, {order}" + (f", top {spec.limit}" if spec.limit else "")
        elif spec.grain:
            text += f", per {_grain_words(spec.grain)}"
        return text
    if shape == "change" and spec.change is not None:
        change = spec.change
        before, after = change.before, change.after
        # the period compared first, its baseline after: 'in 2025 against 2024' is 2025 minus 2024
        text = (f"{metric}{rows}{_filters(spec, profile)}{_currency(spec)} in {_span(after)} against {_span(before)}: "
                "the difference and the relative change")
        if spec.group is not None:
            order = "smallest" if spec.ascending else "largest"
            text += f", per {_group_noun(spec)}, ranked by the {change.mode} change, {order} first"
            if spec.limit:
                text += f", top {spec.limit}"
        return text
    if shape == "distribution":
        part = _PART_WORDS.get(spec.time_part or "", spec.time_part or "time")
        zone = spec.zone or profile.business_time_zone or "UTC"
        in_zone = " in each row's own time zone" if zone == "local" else f" in {zone}"
        order = "lowest first" if spec.ascending else "highest first"
        limit = f", top {spec.limit}" if spec.limit else ""
        table = profile.tables.get(spec.fact.time.table) if spec.fact is not None and spec.fact.time else None
        dates = [c for c in table.columns if c.family == "temporal"] if table is not None else []
        if spec.fact is not None and spec.fact.time is not None and len(dates) > 1:
            part += f" of the {phrase(spec.fact.time.column)}"  # which date ('ship on': the shipped date)
        return f"{metric} per {part}{in_zone}{common}, {order}{limit}"
    text = metric + common
    if spec.partition is not None and spec.group is not None:
        # 'top 3 albums per genre': the ranking runs within each group
        count = spec.limit or 1
        ranked = f"top {count} {plural(spec.group.noun)}" if count > 1 else f"the top {spec.group.noun}"
        if spec.ascending:
            ranked = ranked.replace("top", "bottom", 1)
        return (f"{text}, per {spec.partition.noun}, {ranked} in each, "
                f"{'lowest' if spec.ascending else 'highest'} first")
    if spec.grain:
        text += f", per {_grain_words(spec.grain)}"
    if spec.group is not None and spec.sides:
        names = [side.label for side in spec.sides]
        listed = ", ".join(names[:-1]) + f" and {names[-1]}"
        text += f", per {_group_noun(spec)} for {listed}, one row each"
    elif spec.group is not None:
        text += f", per {_group_noun(spec)}"
        if spec.also_by is not None and spec.shape == "aggregate" and not spec.grain:
            text += f" and {spec.also_by.noun}"
    if spec.having is not None:
        op, number = spec.having
        text += (f", keeping {plural(spec.group.noun) if spec.group else 'groups'} whose figure is {_OPS[op]} "
                 f"{_number(number)}")
    if spec.group is not None and spec.limit and spec.ascending and not spec.sides:
        from archetypes.query import zeros_counted

        # lowest first: say whether the ones with no rows are in it ('earned the least': those that sold nothing)
        text += f", every {spec.group.noun} counted (none is 0)" if zeros_counted(spec, profile) else \
            f", among the {plural(spec.group.noun)} with {_rows(spec.fact.table)}"
    if spec.group is not None and spec.every_one and not spec.limit:
        from archetypes.query import zeros_counted

        if zeros_counted(spec, profile):
            text += f", every {spec.group.noun} (none is 0)"
    if spec.group is not None and (spec.limit or spec.having is not None):
        text += ", lowest first" if spec.ascending else ", highest first"
        if spec.limit:
            text += f", top {spec.limit}"
    return text


def _span(window) -> str:
    return window.dates()


def _group_noun(spec: QuerySpec) -> str:
    """'country', or 'store's country' when the group is reached through a role (archetypes.roles)."""
    assert spec.group is not None
    from archetypes.roles import role_name

    if not spec.group_via:
        rows = spec.fact.table if spec.fact is not None else None
        if spec.group.column_only and rows is not None and spec.group.table != rows and \
                not spec.group.noun.startswith(singular_noun(spec.group.table)):
            return f"{singular_noun(spec.group.table)}'s {spec.group.noun}"  # 'per student's country'
        return spec.group.noun
    name = role_name(spec.group_via)
    return name if name.endswith(spec.group.noun) else f"{name}'s {spec.group.noun}"  # 'per end station'


def _grain_words(grain: str) -> str:
    """'fy_period' as people say it: 'fiscal period'; 'week_iso' as 'ISO week'."""
    named = {"fy_period": "fiscal period", "fy_quarter": "fiscal quarter", "fy_year": "fiscal year",
             "week_iso": "ISO week (Monday to Sunday)", "week_sunday": "week starting on Sunday"}
    return named.get(grain, grain.replace("_", " "))
