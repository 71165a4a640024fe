"""Every option the README names after `beast VERB` (or `./run tune`, which
passes its arguments to beast tune) is one that `beast VERB --help` lists,
wherever it is named: code spans, wrapped or not, and fenced blocks."""

import re
import subprocess

from conftest import REPO_ROOT

README = (REPO_ROOT / "README.md").read_text()
BEAST = REPO_ROOT / "build" / "beast" / "beast"


def verbs():
    """The verbs `beast --help` lists."""
    out = subprocess.run([BEAST, "--help"], capture_output=True, text=True, check=False).stdout
    return re.findall(r"^  ([a-z][a-z-]*) ", out.split("verbs:", 1)[1], re.MULTILINE)


def commands(text):
    """Every command the text gives in code: its code spans (line breaks
    inside one joined) and its fenced blocks' lines (a trailing backslash
    joining the next), cut where a shell command ends (`|`, `&&`, `;`)."""
    blocks = re.findall(r"```[a-z]*\n(.*?)```", text, re.DOTALL)
    prose = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    pieces = [" ".join(span.split()) for span in re.findall(r"`([^`]+)`", prose)]
    for block in blocks:
        pieces += block.replace("\\\n", " ").splitlines()
    return [c for piece in pieces for c in re.split(r" \| |&&|;|\$\(", piece)]


def options_named(text, known_verbs):
    """{verb: {--option, ...}}: the options after `beast VERB` (or after
    `./run tune`, which passes its arguments to beast tune), up to the next
    beast command."""
    verb = r"(?:\bbeast|\./run) (%s)(?![\w-])" % "|".join(
        re.escape(v) for v in sorted(known_verbs, key=len, reverse=True)
    )
    named = {}
    for command in commands(text):
        parts = re.split(verb, command)
        for name, rest in zip(parts[1::2], parts[2::2], strict=True):
            if command.startswith("./run") and name != "tune":
                continue
            found = re.findall(r"(?<![\w-])--[a-z0-9][a-z0-9-]*", rest)
            named.setdefault(name, set()).update(found)
    return named


def missing_options(text, known_verbs):
    """[(verb, option)] the text names that `beast VERB --help` lacks."""
    missing = []
    for name, options in sorted(options_named(text, known_verbs).items()):
        run = subprocess.run([BEAST, name, "--help"], capture_output=True, text=True, check=False)
        assert run.returncode == 0, (name, run.stderr)
        missing += [
            (name, o)
            for o in sorted(options)
            if not re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(o), run.stdout)
        ]
    return missing


def test_every_option_the_readme_names_is_in_its_verbs_help():
    known = verbs()
    named = options_named(README, known)
    # The README gives every verb a row of options, and spans that wrap count.
    assert set(known) - {"worker"} <= set(named), sorted(set(known) - set(named))
    assert {"--baselines", "--max-configs"} <= named["tune"]  # a span over two lines
    assert "--seed" in named["tune"]  # ./run tune --seed 7
    assert missing_options(README, known) == []


def test_a_made_up_option_is_caught():
    known = verbs()
    text = "Run `beast tune --template T\n--no-such-option` or\n```\nbeast query --best \\\n    --made-up\n```\n"
    assert missing_options(text, known) == [("query", "--made-up"), ("tune", "--no-such-option")]
