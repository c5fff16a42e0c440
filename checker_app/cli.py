"""`ambiguity-checker`: the command group. Each command lives in checker_app/commands/."""
from __future__ import annotations

import importlib

import click

# module under checker_app.commands, and the click command it defines (read top to bottom)
COMMANDS: tuple[tuple[str, str], ...] = (
    ("seed", "seed"),
    ("run", "run"),
    ("check", "check_command"),
    ("batch", "batch"),
    ("repair", "repair"),
    ("eval", "eval_command"),
    ("eval_ambiqt", "eval_ambiqt"),
    ("serve", "serve"),
    ("prompt", "prompt"),
    ("diagnose", "diagnose"),
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """Show every defensible reading of a data question, run side by side on live databases."""


for _module, _name in COMMANDS:
    main.add_command(getattr(importlib.import_module(f"checker_app.commands.{_module}"), _name))
