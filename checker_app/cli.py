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
    ("demo", "demo"),
    ("prompt", "prompt"),
    ("diagnose", "diagnose"),
    ("role", "role"),
    ("schema", "schema"),
)


class CheckerGroup(click.Group):
    """Every failure ends as one line on stderr: an error this project raises on purpose exits 2 (bad
    input), anything else exits 2 too, prefixed "internal", never a traceback (it could hold a URL)."""

    def invoke(self, ctx: click.Context) -> object:
        from adapters import CheckerError
        from checker_app.commands.common import fail

        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.ClickException, click.exceptions.Abort, SystemExit, KeyboardInterrupt):
            raise
        except CheckerError as err:
            fail(str(err))
        except RecursionError:
            fail("input nested too deeply")
        except Exception as err:  # noqa: BLE001 - the last edge: one line, no traceback
            first = str(err).splitlines()[0] if str(err) else ""
            fail(f"internal: {type(err).__name__}: {first}")


@click.group(cls=CheckerGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="ambiguity-checker", prog_name="ambiguity-checker", message="%(prog)s %(version)s")
def main() -> None:
    """Show every defensible reading of a data question, run side by side on live databases."""


for _module, _name in COMMANDS:
    main.add_command(getattr(importlib.import_module(f"checker_app.commands.{_module}"), _name))
