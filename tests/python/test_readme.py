"""The README against the beast it describes: every option it names after
`beast VERB` (in a code span or a command block) is one that `beast VERB
--help` lists, and every shell block it gives for the exported library's
example program names files that exist. Needs the built binary
(build/beast/beast, which ./run test builds first)."""

import collections
import re
import subprocess

import pytest
from conftest import REPO_ROOT

BEAST = REPO_ROOT / "build" / "beast" / "beast"
VERBS = [
    "devices",
    "space",
    "tune",
    "query",
    "export-results",
    "export",
    "report",
    "import",
    "replay",
]
VERB = r"\bbeast (" + "|".join(VERBS) + r")\b"


def options_named_in_readme():
    """{verb: {"--option", ...}} over the README's code spans and blocks."""
    text = (REPO_ROOT / "README.md").read_text()
    spans = re.findall(r"```.*?```", text, re.DOTALL) + re.findall(r"`[^`\n]+`", text)
    named = collections.defaultdict(set)
    for span in spans:
        for line in span.splitlines():
            for m in re.finditer(VERB + r"(.*)", line):
                rest = re.split(VERB, m.group(2))[0]  # up to the next beast command
                named[m.group(1)].update(re.findall(r"(?<![\w-])--[a-z0-9][a-z0-9-]*", rest))
    return named


@pytest.mark.skipif(not BEAST.exists(), reason="beast is not built")
def test_every_option_the_readme_names_exists():
    named = options_named_in_readme()
    # The README documents every verb with some of its options.
    assert {"tune", "space", "query", "export", "report", "import"} <= set(named)
    for verb, options in sorted(named.items()):
        run = subprocess.run([BEAST, verb, "--help"], check=False, capture_output=True, text=True)
        assert run.returncode == 0, (verb, run.stderr)
        missing = sorted(
            o for o in options if not re.search(re.escape(o) + r"(?![\w-])", run.stdout)
        )
        assert missing == [], f"beast {verb} --help lacks {missing}"


def test_the_export_example_the_readme_builds_ships_with_the_export():
    readme = (REPO_ROOT / "README.md").read_text()
    assert "cc tuned/example/example.c $(pkg-config --static --cflags --libs beast_tuned)" in readme
    assert (REPO_ROOT / "beast" / "export_skeleton" / "example" / "example.c").exists()
