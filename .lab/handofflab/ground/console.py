"""One console for the kit: messages, progress, and the error type that
turns every failure into 'what went wrong' + 'how to fix it'."""
from __future__ import annotations

import contextlib
import os
import sys

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

console = Console(highlight=False, soft_wrap=False, width=None if sys.stdout.isatty() else 120)


class LabError(Exception):
    """A failure the user can act on.  `./lab` prints it without a stack trace, and exits with `exit_code`."""

    exit_code = 2  # the kit's error; 1 is a check that found something

    def __init__(self, problem: str, fix: str | None = None):
        super().__init__(problem)
        self.problem = problem
        self.fix = fix


def info(msg: str) -> None:
    console.print(msg)


def ok(msg: str) -> None:
    console.print(f"[green]✔[/] {msg}")


def warn(msg: str) -> None:
    console.print(f"[yellow]![/] {msg}")


def bad(msg: str) -> None:
    console.print(f"[red]✘[/] {msg}")


def skip(msg: str) -> None:
    console.print(f"[yellow]SKIP[/] {msg}")


def heading(msg: str) -> None:
    console.rule(f"[bold]{msg}")


class _Progress(Progress):
    """Rich's progress bar; without a terminal (a CI log) each new item is a line."""

    def update(self, task_id, **kwargs):
        if self.disable and kwargs.get("description"):
            console.print(f"… {kwargs['description']}")
            sys.stdout.flush()
        super().update(task_id, **kwargs)


def progress() -> Progress:
    """A progress bar for long steps; plain lines when not on a terminal."""
    return _Progress(
        SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=console, disable=not console.is_terminal,
    )


@contextlib.contextmanager
def step(description: str):
    """A long step with a spinner on a terminal, and a start line in a log."""
    if console.is_terminal:
        with console.status(description):
            yield
    else:
        console.print(f"… {description}")
        sys.stdout.flush()
        yield


def ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")
