"""README.md is the kit's front page: what it names must be what the kit has. A command, a lab or a
"still to come" that the kit contradicts fails here (issue 49: README listed five of the seven labs,
and promised as still to come what had been built)."""
import re

from handofflab.ground import paths
from handofflab.commands.cli import bench, check, cli

README = (paths.ROOT / "README.md").read_text()


def test_every_command_readme_names_exists_and_every_command_is_in_its_table():
    named = set(re.findall(r"\./lab ([a-z][a-z-]*)(?: ([a-z][a-z-]*))?", README))
    for command, sub in named:
        assert command in cli.commands, f"README names `./lab {command}`, which ./lab does not have"
        group = {"check": check, "bench": bench}.get(command)
        assert not group or not sub or sub in group.commands, f"README names `./lab {command} {sub}`, which is none"
    table = set(re.findall(r"^\| `\./lab ([a-z][a-z-]*)", README, re.M))
    assert set(cli.commands) <= table, f"commands missing from README's table: {sorted(set(cli.commands) - table)}"
    for group, name in ((check, "check"), (bench, "bench")):
        rows = set(re.findall(rf"^\| `\./lab {name} ([a-z-]+)", README, re.M))
        assert set(group.commands) <= rows, f"`./lab {name}` subcommands missing: {sorted(set(group.commands) - rows)}"


def test_the_labs_table_lists_every_lab_and_only_those():
    labs = {p.parent.name for p in paths.LABS.glob("*/rubric.toml")}
    section = README.split("## The labs", 1)[1].split("\n## ", 1)[0]
    listed = set(re.findall(r"^\| `([a-z-]+)` —", section, re.M))
    assert listed == labs, f"README's labs table: {sorted(listed)}, the kit's labs: {sorted(labs)}"


def test_readme_promises_nothing_as_still_to_come():
    """What is not built yet is an issue, not a promise on the front page that goes stale when it is built."""
    stale = re.findall(r"[^.\n]*\b(?:still to come|coming soon|not yet (?:built|done))\b[^.\n]*", README, re.I)
    assert not stale, stale
