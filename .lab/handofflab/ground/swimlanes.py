"""The one counterexample view of the kit: per-thread swimlanes.

TLC, Lincheck, the stress watchdog and JPF each produce a Swimlane: a list
of steps, each done by one thread (its lane), with what changed in the
shared state.  It renders the same way in the terminal, in markdown (the
book, grading feedback) and as JSON (saved, replayable)."""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from rich.markup import escape
from rich.table import Table

from handofflab.ground.console import console


_BREAKS = str.maketrans({c: " " for c in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"})


def cell(text: str) -> str:
    """Text as one markdown table cell: on one line, its pipes escaped. Threads name themselves, and a
    submission's thread name once broke out of the table into headings of its own ("✔ hidden … 2 / 2")."""
    return text.translate(_BREAKS).replace("|", "\\|")


def code(text: str) -> str:
    """Text as a code span in one table cell (a backquote of its own would end the span)."""
    return "`" + cell(text).replace("`", "'") + "`"


@dataclass
class Step:
    thread: str | None      # the lane; None for a step of no thread (e.g. "all served")
    action: str             # what the thread did: an action, an operation, a source line
    changes: list[str] = field(default_factory=list)  # shared state after the step
    # the whole state after the step, variable -> value as shown, or for a function or record, key -> value (TLC's
    # traces have it); empty where the checker saw only what changed, and the book's stepper folds `changes` instead
    state: dict[str, str | dict[str, str]] = field(default_factory=dict)


@dataclass
class Swimlane:
    title: str              # e.g. "NotifyBuffer under TLC"
    checker: str            # tlc | lincheck | stress | jpf
    verdict: str            # e.g. "deadlock", "violation:NoInvented"
    threads: list[str]
    steps: list[Step]
    ending: dict[str, str] = field(default_factory=dict)  # where each thread is stuck or ends
    note: str = ""
    loop_from: int = 0      # a lasso's cycle starts at this row (1-based) and repeats for ever; 0: no cycle drawn
    initial: dict[str, str | dict[str, str]] = field(default_factory=dict)  # the state before row 1, where given

    # -- persistence -------------------------------------------------------
    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2)

    @staticmethod
    def from_json(text: str) -> "Swimlane":
        d = json.loads(text)
        d["steps"] = [Step(**s) for s in d["steps"]]
        return Swimlane(**d)

    def save(self, stem: Path) -> None:
        stem.parent.mkdir(parents=True, exist_ok=True)
        stem.parent.joinpath(stem.name + ".json").write_text(self.to_json())  # stems hold dots: NotifyBuffer.stress
        stem.parent.joinpath(stem.name + ".md").write_text(self.markdown())

    # -- rendering ---------------------------------------------------------
    def _cells(self, step: Step) -> list[str]:
        return [step.action if step.thread == t else "" for t in self.threads]

    def _row(self, i: int) -> str:
        """A row's number; where a lasso's cycle starts, marked ↻ (the rows from there repeat for ever)."""
        return f"{i} ↻" if i == self.loop_from else str(i)

    def markdown(self) -> str:
        esc = cell
        # a checker that sees no shared state (stress, Lincheck) gets no empty column: the page stays narrow
        state = any(s.changes for s in self.steps)
        head = ["#", *map(esc, self.threads), *(["shared state after the step"] if state else [])]
        rows = [f"| {' | '.join(head)} |", "|" + "---|" * len(head)]
        for i, s in enumerate(self.steps, 1):
            cells = [self._row(i), *(code(c) if c else "" for c in self._cells(s)),
                     *([esc(", ".join(s.changes))] if state else [])]
            rows.append(f"| {' | '.join(cells)} |")
        if self.ending:
            cells = ["end", *(f"**{esc(self.ending.get(t, ''))}**" for t in self.threads),
                     *([esc(self.verdict)] if state else [])]
            rows.append(f"| {' | '.join(cells)} |")
        text = f"**{self.title}** — {self.checker} reports `{self.verdict}`\n\n" + "\n".join(rows) + "\n"
        if self.note:
            text += f"\n{self.note}\n"
        return text

    def frames(self) -> dict:
        """The trace as the book's stepper reads it: for each row, the whole state after it as far as the checker
        saw it, what the row changed, and where each thread is. TLC gives every state whole; for the others the
        state is the writes so far (a `x = v` change sets x; any other note stands under its own text)."""
        state = dict(self.initial)
        at = {t: "not started" for t in self.threads}
        frames = []
        for i, s in enumerate(self.steps, 1):
            before = dict(state)
            if s.state:
                state = dict(s.state)
            else:
                for c in s.changes:
                    name, eq, value = c.partition(" = ")
                    state[name if eq else c] = value if eq else ""
            if s.thread is not None:
                at[s.thread] = s.action
            changed = _changed(before, state)
            if not s.state:  # a write of the value already there is still the step's write
                changed += [k for k in (c.partition(" = ")[0] for c in s.changes) if k not in changed]
            frames.append({"row": i, "thread": s.thread, "action": s.action, "state": dict(state), "changed": changed,
                           "writes": s.changes, "at": dict(at)})
        return {"title": self.title, "checker": self.checker, "verdict": self.verdict, "threads": self.threads,
                "initial": self.initial, "steps": frames, "ending": self.ending, "loop_from": self.loop_from}

    def stepper_markdown(self) -> str:
        """The markdown table inside the book's stepper: the table stays the view (and is all a reader without
        JavaScript gets); book/theme/stepper.js reads the frames beside it to move a cursor over its rows and show the
        whole state at each. The frames are inline JSON, so a page opened from file:// needs no fetch; every
        character mdBook's preprocessors or HTML could read (`$` is math to KaTeX) is escaped."""
        data = json.dumps(self.frames(), ensure_ascii=True, separators=(",", ":"))
        for ch in "$<>&`":
            data = data.replace(ch, f"\\u{ord(ch):04x}")
        return (f'<div class="stepper" data-stepper>\n\n{self.markdown()}\n'
                f'<script type="application/json" class="stepper-data">{data}</script>\n\n</div>\n')

    def show(self) -> None:
        table = Table(title=f"{self.title} — {self.checker}: {self.verdict}", show_lines=False, expand=False)
        table.add_column("#", justify="right")
        for t in self.threads:
            table.add_column(t, style="cyan")
        table.add_column("shared state after the step", style="dim")
        for i, s in enumerate(self.steps, 1):
            table.add_row(self._row(i), *map(escape, self._cells(s)), escape(", ".join(s.changes)))
        if self.ending:
            table.add_row("end", *(f"[bold red]{escape(self.ending.get(t, ''))}" for t in self.threads),
                          escape(self.verdict))
        console.print(table)
        if self.note:
            console.print(escape(self.note))


def _changed(before: dict, now: dict) -> list[str]:
    """What differs between two whole states, named as the rows name it: `slot[1]` for one entry of a function
    whose keys stayed, the variable's name otherwise."""
    out = []
    for var, value in now.items():
        old = before.get(var)
        if isinstance(old, dict) and isinstance(value, dict) and old.keys() == value.keys():
            out += [f"{var}[{k}]" for k in value if old[k] != value[k]]
        elif old != value:
            out.append(var)
    return out
