"""`ambiguity-checker eval-ambiqt FILE`: the schema_mapping archetype measured on AmbiQT examples."""
from __future__ import annotations

import click

from checker_app.commands.common import EXIT_OK, emit_json, fail


@click.command("eval-ambiqt")
@click.argument("file", type=click.Path(exists=True, dir_okay=True, path_type=str))
@click.option("--limit", type=click.IntRange(min=1), default=None,
              help="Only the first N examples of each file.")
@click.option("--outputs", type=click.Path(exists=True, file_okay=False, path_type=str), default=None,
              help="Folder of models' top-5 outputs (default: the dataset's outputs/join-ambiguity).")
@click.option("--controls", type=click.IntRange(min=0), default=2, show_default=True,
              help="Questions about other columns of the same database asked of each example's database "
                   "(the control false-positive rate); 0 to skip.")
@click.option("--only", default=None, metavar="ITEMS",
              help="Evaluate only these, comma-separated: a category (J) or one record (J:43); control questions "
                   "still come from every example loaded.")
@click.option("--listed-keys", is_flag=True,
              help="Build the tables with their listed key samples (by default a J record's split-off table is a "
                   "vertical split: the base table's keys, each once, each paired with the next row's value; and "
                   "a value referring to a key named after its table, such as template_id, is one of the key's).")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def eval_ambiqt(file: str, limit: int | None, outputs: str | None, controls: int, only: str | None,
                listed_keys: bool, as_json: bool) -> None:
    """Score schema_mapping on AmbiQT examples (a .json file of the benchmark, or its folder for all of them).

    Each example becomes a small SQLite database built from the sample values in its schema text. Per
    category: the share of examples where schema_mapping fires on the question, and the share where one of
    the alternatives expanded from query1 returns the same rows as query2 (both readings found); per model
    with outputs: the other reading found from its top-1, next to its own top-5 "both found"."""
    from checker_app.evaluation.ambiqt import AmbiqtError, evaluate_examples, load_path, report_text, selected

    try:
        examples, _ = load_path(file, limit, outputs, listed_keys)
    except AmbiqtError as err:
        fail(str(err))
    chosen = [item.strip() for item in only.split(",") if item.strip()] if only is not None else None
    if not examples or chosen is not None and not any(selected(e, chosen) for e in examples):
        fail(f"{file}: no examples" + (f" named by --only {only}" if chosen is not None else ""))
    report = evaluate_examples(examples, controls=controls, only=chosen)
    if as_json:
        emit_json(report.to_dict())
    else:
        click.echo(report_text(report))
    raise SystemExit(EXIT_OK)
