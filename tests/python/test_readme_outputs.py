"""What the README shows a command printing is what the command prints,
modulo numbers (the options it names: test_readme_options.py).

SHOWN is the table of the README's output lines and fragments that a small
run on PoCL produces in seconds: each row holds the fragment exactly as the
README has it (the test first checks it is still there, so an edit of the
README that drifts from the table fails), the scene (the commands run) that
prints it, and the words that stand for a value in it (`DB`, `KEY`, ...;
`...` and `…` always do). The fragment must occur on one line of the scene's
output once every number on both sides is one placeholder and runs of blanks
are one space; the words stand for any text on that line. A row that names
JSON keys instead looks them up in the scene's JSON. The ONNX job file block
and the `beast replay --json` field list have tests of their own.

Not run here (each needs what a test cannot make in seconds, or a GPU): the
full disk's line, `tuned kernel K ... passed over`, `(cubin for sm_90)` and
`(PTX ...)`, the `vs vendor` column, a beast without MPI, `internal error`."""

import json
import os
import re
import shutil
import sqlite3
import subprocess
from dataclasses import dataclass

import onnx_models
import pytest
from conftest import REPO_ROOT

README = (REPO_ROOT / "README.md").read_text()
BEAST = REPO_ROOT / "build" / "beast" / "beast"
TEST_TEMPLATES = REPO_ROOT / "tests" / "data" / "kernel_templates"
T1_FILE = REPO_ROOT / "tests" / "bench" / "spaces" / "t1" / "gemm_milo.json"
KT_CACHE = REPO_ROOT / "tests" / "data" / "kernel_tuner" / "test_test_cache_file.json"
SMALL = "gemm:M=64,N=48,K=40"
NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")

cnn = onnx_models.cnn  # the fixture: a small ONNX model, here too

pytestmark = pytest.mark.skipif(not BEAST.exists(), reason="beast is not built")


def one_line(text):
    return " ".join(text.split())


def normalized(output):
    """Every number as <n>, each line's runs of blanks as one space."""
    lines = NUMBER.sub("<n>", output).splitlines()
    return "\n".join(re.sub(r"[ \t]+", " ", line).strip() for line in lines)


def pattern(fragment, wild=()):
    """The regex of a README fragment: its line breaks and blanks as one
    space, `\\|` (a pipe in a table cell) as |, numbers as <n>, and `...`,
    `…` and the words in `wild` as any text on one line."""
    text = NUMBER.sub("<n>", one_line(fragment.replace("\\|", "|")))
    words = [r"\.\.\.", "…"] + [r"\b%s\b" % re.escape(w) for w in wild]
    parts = re.split("(%s)" % "|".join(words), text)
    return "".join("[^\n]+?" if i % 2 else re.escape(p) for i, p in enumerate(parts))


def shows(fragment, output, wild=()):
    return re.search(pattern(fragment, wild), normalized(output)) is not None


def keys_of(value):
    """Every key of every object in a JSON value, in document order."""
    if isinstance(value, dict):
        out = []
        for key, item in value.items():
            out += [key] + keys_of(item)
        return out
    if isinstance(value, list):
        return [k for item in value for k in keys_of(item)]
    return []


# --- the scenes: the commands each shown output comes from -----------------


class Folder:
    """A folder the scenes run in, each scene once (for the first row that
    asks for it): its (exit code, stdout + stderr). A command is one string,
    split at blanks."""

    def __init__(self, path):
        self.path = path
        self.done = {}

    def run(self, argv, env=None):
        run = subprocess.run(
            [str(a) for a in argv],
            cwd=self.path,
            env=dict(os.environ, **(env or {})),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        return run.returncode, run.stdout + run.stderr

    def beast(self, command, env=None):
        return self.run([BEAST] + command.split(), env)

    def tune(self, command, device="opencl:0", configs=2, env=None):
        """beast tune on `device`, `configs` configs per template and problem."""
        devices = "".join(f" --device {d}" for d in device.split())
        return self.beast(f"tune{devices} --max-configs {configs} --quiet {command}", env)

    def scene(self, name):
        if name not in self.done:
            self.done[name] = getattr(self, "scene_" + name)()
        return self.done[name]

    def ok(self, name):
        code, out = self.scene(name)
        assert code == 0, out
        return out

    # A batch job, with the vendor library (CLBlast); the other scenes that
    # need a database read job.db (or a copy).
    def scene_job(self):
        (self.path / "small.job").write_text(f"# two shapes\n{SMALL} x3\ngemm:M=32,N=32,K=32\n")
        return self.tune("--template gemm/tiled --problems small.job --db job.db")

    def scene_job_json(self):  # the same job again: all of it from the database
        self.ok("job")
        return self.tune("--template gemm/tiled --problems small.job --db job.db --json")

    def scene_job_query(self):
        self.ok("job")
        return self.beast("query --db job.db --problems small.job")

    def scene_job_query_json(self):
        self.ok("job")
        return self.beast("query --db job.db --problems small.job --json")

    def scene_best(self):
        self.ok("job")
        return self.beast("query --db job.db --best")

    def scene_limits(self):  # the device's limits_json as stored
        self.ok("job")
        with sqlite3.connect(self.path / "job.db") as db:
            return 0, db.execute("SELECT limits_json FROM devices").fetchone()[0]

    def scene_again(self):  # a problem of the job into another database
        self.ok("job")
        return self.tune(f"--template gemm/tiled --problem {SMALL} --db again.db --baselines none")

    def scene_two_devices(self):  # PoCL's two identical CPU devices, on the job's database
        self.ok("job")
        return self.tune(
            f"--template gemm/tiled --problem {SMALL} --db job.db",
            device="opencl:0 opencl:1",
            env={"POCL_DEVICES": "pthread pthread"},
        )

    def scene_mpi(self):  # a coordinator and one device rank
        if shutil.which("mpirun") is None:
            pytest.skip("no mpirun")
        self.ok("job")
        code, out = self.run(
            ["mpirun", "--oversubscribe", "-np", "2", BEAST, "tune", "--device", "opencl:0"]
            + f"--max-configs 2 --template gemm/tiled --problem {SMALL} --db job.db".split()
            + ["--quiet", "--json"],
            env={"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"},
        )
        if "built without MPI" in out:
            pytest.skip("beast is built without MPI")
        return code, out

    def scene_algorithms(self):  # every conv2d template on a 1x1 and a 3x3 layer
        return self.tune(
            "--problem conv2d:N=1,C=4,H=8,W=8,K=4,R=1,S=1 "
            "--problem conv2d:N=1,C=4,H=8,W=8,K=4,R=3,S=3,pad=1 "
            "--db conv.db --baselines none --confirm-top 0",
            configs=1,
        )

    def scene_dtype(self):
        return self.tune(
            f"--templates {TEST_TEMPLATES} --template test/launch_params "
            f"--problem {SMALL},dtype=f64 --db dtype.db"
        )

    def scene_cache_dir(self):
        (self.path / "a_file").write_text("")
        return self.tune(
            f"--template gemm/tiled --problem {SMALL} --db cache.db --cache-dir a_file/programs"
        )

    def scene_too_big(self):
        return self.tune("--template gemm/tiled --problem gemm:M=40000,N=40000,K=8 --db big.db")

    def scene_damaged(self):  # the root page of the measurements overwritten
        self.ok("job")
        shutil.copy(self.path / "job.db", self.path / "damaged.db")
        with sqlite3.connect(self.path / "damaged.db") as db:
            page_size = db.execute("PRAGMA page_size").fetchone()[0]
            (root,) = db.execute(
                "SELECT rootpage FROM sqlite_master WHERE name = 'measurements'"
            ).fetchone()
        with open(self.path / "damaged.db", "r+b") as f:
            f.seek((root - 1) * page_size)
            f.write(b"\xff" * 16)
        return self.tune(f"--template gemm/tiled --problem {SMALL} --db damaged.db")

    def scene_newer(self):
        self.ok("job")
        shutil.copy(self.path / "job.db", self.path / "newer.db")
        with sqlite3.connect(self.path / "newer.db") as db:
            db.execute("PRAGMA user_version = 99")
        return self.beast("query --db newer.db")

    def scene_render(self):  # a template that never renders, then its record
        self.tune(
            f"--templates {TEST_TEMPLATES} --template test/slow_render --problem {SMALL} "
            "--db render.db --baselines none --timeout-seconds 1"
        )
        return self.beast("query --db render.db --status timeout --json")

    def scene_python_verb(self):
        return self.beast("import --kernel-tuner absent.json --db import.db")

    def scene_bad_job(self):
        (self.path / "bad.job").write_text(f"{SMALL}\n{SMALL} x0\n")
        return self.tune("--template gemm/tiled --problems bad.job --db bad.db")

    def scene_no_cuda(self):
        if cuda_driver_present():
            pytest.skip("this machine has a CUDA driver")
        return self.tune(f"--template gemm/tiled --problem {SMALL} --db cuda.db", device="cuda:0")

    def scene_compile_only(self):
        code, out = self.tune(
            "--template gemm/tiled --problem gemm:M=512,N=512,K=512 --db sm90.db",
            device="cuda:sm_90",
        )
        if "without NVRTC" in out:
            pytest.skip("beast is built without NVRTC")
        assert code == 0, out
        return self.beast("query --db sm90.db")

    def scene_t1_count(self):
        return self.beast(f"space --t1 {T1_FILE} --count --json")

    def scene_export(self):  # a shape nobody tuned, near one tuned; a conv near none
        self.ok("job")
        return self.beast(
            "export --db job.db --out tuned --problem gemm:M=64,N=40,K=48 "
            "--problem conv2d:N=1,C=4,H=8,W=8,K=4,R=3,S=3"
        )

    def compiled(self, source, name):
        """The export's C library and `source` built into one program."""
        self.ok("export")
        if shutil.which("cc") is None:
            pytest.skip("no C compiler")
        tuned = self.path / "tuned"
        sources = sorted((tuned / "src").glob("*.c")) + [source]
        code, out = self.run(
            ["cc", "-std=c11", "-DCL_TARGET_OPENCL_VERSION=120", "-I", tuned / "include"]
            + sources
            + ["-lOpenCL", "-lpthread", "-ldl", "-lm", "-o", self.path / name]
        )
        assert code == 0, out
        return self.path / name

    def scene_explain(self):  # the export's example program: which kernel ran
        return self.run([self.compiled(self.path / "tuned/example/example.c", "example")])

    def scene_explain_elsewhere(self):  # the same on a device nothing was tuned on
        self.ok("explain")
        return self.run([self.path / "example"], env={"POCL_DEVICES": "basic"})

    def scene_cuda_context(self):
        if cuda_driver_present():
            pytest.skip("this machine has a CUDA driver")
        source = self.path / "cuda_context.c"
        source.write_text(
            "#include <beast_tuned.h>\n#include <stdio.h>\n"
            "int main(void) {\n  beast_context* ctx = NULL;\n"
            "  beast_status s = beast_context_create(BEAST_BACKEND_CUDA, 0, &ctx);\n"
            '  printf("%s %s\\n", s == BEAST_ERROR_DEVICE ? "BEAST_ERROR_DEVICE" : "other",\n'
            "         beast_last_error());\n  return 0;\n}\n"
        )
        return self.run([self.compiled(source, "cuda_context")])


def cuda_driver_present():
    import ctypes

    try:
        ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    return True


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return Folder(tmp_path_factory.mktemp("readme_outputs"))


# --- the README's shown outputs ---------------------------------------------


@dataclass
class Shown:
    text: str  # what the README shows printed, as README.md has it (line breaks aside)
    scene: str  # the commands that print it (Folder.scene_*)
    wild: tuple = ()  # words of the text that stand for a value
    exit: int | None = None  # the exit code the README gives the command
    keys: tuple = ()  # or: the JSON keys `text` names, looked up in the scene's JSON


SHOWN = [
    Shown('{"raw":…,"valid":…,"seconds":…}', "t1_count", exit=0),
    Shown(
        "template T does not support dtype D (its dtypes: ...), problem ...",
        "dtype",
        wild=("T", "D"),
        exit=2,
    ),
    Shown("cannot use the program cache directory DIR: WHY", "cache_dir", ("DIR", "WHY"), 1),
    Shown("0 compiled now", "again", exit=0),
    Shown(
        "measured on 2 devices at once, sharing the configs: cuda:0, cuda:1",
        "two_devices",
        wild=("cuda",),
        exit=0,
    ),
    Shown("opencl:0 on vm (rank 1): 25 configs, device busy 3%", "mpi", ("vm",), 0),
    Shown("`--json` adds a `ranks` array", "mpi", keys=("ranks",)),
    Shown("beast tune: cuda:0: no CUDA driver ...", "no_cuda", exit=1),
    Shown(
        "(`peak_gflops_measured`, `peak_method`)",
        "limits",
        keys=("peak_gflops_measured", "peak_method"),
    ),
    Shown(
        "stored as `bandwidth_gbs_measured` and `bandwidth_method`",
        "limits",
        keys=("bandwidth_gbs_measured", "bandwidth_method"),
    ),
    Shown(
        "memory-bound: moving its buffers once at the measured bandwidth allows X GFLOP/s; "
        "the winner reaches Y% of that",
        "algorithms",
        wild=("X", "Y"),
        exit=0,
    ),
    Shown(
        "not tuned, not computed: conv2d/winograd on conv2d:…,R=1,S=1,…: hard constraint "
        '"R == 3 and S == 3" …',
        "algorithms",
    ),
    # Which template wins a tiny layer is the machine's, and whether the
    # winner has a weight transform to name with it: the line's start and
    # its ratios, each checked apart.
    Shown(
        "fastest on conv2d:…: conv2d/winograd_split 0.5322 ms",
        "algorithms",
        wild=("winograd_split",),
    ),
    Shown(
        "1.73x over conv2d/implicit_gemm; 2.04x over conv2d/winograd; 4.41x over conv2d/direct_nchw",
        "algorithms",
        wild=("implicit_gemm", "winograd", "direct_nchw"),
    ),
    Shown("vs CLBlast", "job", exit=0),
    Shown("; 12.3 s this run", "job"),
    Shown(
        "job: 3 problems, 7 layers; weighted sum of the best times 2.9500 ms per pass, "
        "the library's 41.2000 ms (13.97x)",
        "job",
    ),
    Shown("`seconds` in `--json`", "job_json", keys=("seconds",), exit=0),
    Shown(
        "(`--json`: a `job` object with the weights, both sums, `no_winner` and, for a run "
        "interrupted before some of its pairs, `not_reached`",
        "job_json",
        keys=(
            "job",
            "weights",
            "weighted_best_ms",
            "weighted_library_ms",
            "no_winner",
            "not_reached",
        ),
    ),
    Shown("`proposal_seconds` in `--json`", "job_json", keys=("proposal_seconds",)),
    Shown("time s", "job_query", exit=0),
    Shown("(`time s`, JSON `seconds`)", "job_query_json", keys=("seconds",), exit=0),
    Shown("vs LIBRARY", "best", ("LIBRARY",), 0),
    Shown("FILE:LINE: what", "bad_job", ("FILE", "LINE", "what"), 2),
    Shown(
        "DB is damaged (SQLite: ...); beast writes nothing into it. Recover what it holds with: "
        "sqlite3 DB .recover \\| sqlite3 DB.recovered, then use DB.recovered",
        "damaged",
        wild=("DB",),
        exit=1,
    ),
    Shown(
        "problem KEY: buffer C needs 6.4 GB, more than the largest allocation opencl:0 allows "
        "(4.2 GB)",
        "too_big",
        wild=("KEY",),
        exit=2,
    ),
    Shown("render: the template did not render within S s", "render", ("S",), 0),
    Shown("beast VERB: PATH: cause", "python_verb", ("VERB", "PATH", "cause"), 1),
    Shown(
        "FILE: database schema version N is newer than this beast (M): upgrade beast",
        "newer",
        wild=("FILE", "N", "M"),
        exit=1,
    ),
    Shown("compile-only sm_90", "compile_only", exit=0),
    Shown("generic ...", "export", exit=0),
    Shown("BEAST_ERROR_DEVICE", "cuda_context", exit=0),
    Shown("CUDA device 0: no CUDA driver (libcuda.so.1 not found)", "cuda_context"),
    Shown(
        "... -> nearest tuned: config of gemm/tiled tuned for gemm:M=64,N=48,K=40,... "
        "(distance 0.093), rendered for this shape (kernel gemm_tiled) config ...",
        "explain",
        exit=0,
    ),
    Shown("(this library was not tuned on this device)", "explain_elsewhere", exit=0),
]


@pytest.mark.parametrize("row", SHOWN, ids=[f"{r.scene}: {r.text[:40]}" for r in SHOWN])
def test_the_readme_shows_what_the_command_prints(folder, row):
    assert one_line(row.text) in one_line(README), "README.md no longer says: " + row.text
    code, output = folder.scene(row.scene)
    if row.exit is not None:
        assert code == row.exit, output
    if row.keys:
        missing = [k for k in row.keys if k not in keys_of(json.loads(output))]
        assert missing == [], f"{row.scene}'s JSON lacks {missing}:\n{output[:2000]}"
    else:
        assert shows(row.text, output, row.wild), (
            f"README: {row.text!r}\nnot in what {row.scene} printed:\n{output[-3000:]}"
        )


# --- the blocks and field lists the README shows -----------------------------


def readme_block(first_line):
    """The fenced block of the README whose first line starts so."""
    for body in re.findall(r"```[a-z]*\n(.*?)```", README, re.DOTALL):
        if body.startswith(first_line):
            return body
    raise AssertionError("README.md has no block starting " + first_line)


def test_the_onnx_job_file_block_is_what_beast_problems_prints(request):
    """The block, line by line in order: `...` alone skips lines, within a
    line it stands for any text; the model is onnx_models.py's."""
    model = request.getfixturevalue("cnn")
    block = readme_block("# beast problems --onnx model.onnx --batch 2:")
    code, out = Folder(model.parent).beast(f"problems --onnx {model.name} --batch 2")
    assert code == 0, out
    printed = normalized(out).splitlines()
    at = 0
    skipping = False
    for line in block.splitlines():
        if line.strip() == "...":
            skipping = True
            continue
        regex = re.compile(pattern(line))
        while at < len(printed) and not regex.fullmatch(printed[at]):
            assert skipping, f"README: {line!r}\nprinted: {printed[at]!r}\n{out}"
            at += 1
        assert at < len(printed), f"README: {line!r} is not printed:\n{out}"
        at += 1
        skipping = False


def test_the_replay_json_has_the_fields_the_readme_lists():
    text = re.search(r'`--json` prints\s*`(\{"source".*?\})`', README, re.DOTALL)
    assert text, "README.md no longer lists beast replay's --json fields"
    listed = re.findall(r'"(\w+)"', text.group(1))
    code, out = Folder(REPO_ROOT).beast(
        f"replay --kernel-tuner {KT_CACHE} --budget 5 --repeats 2 --json"
    )
    assert code == 0, out
    value = json.loads(out)
    # Each key once: a run's fields from its first run.
    assert listed == list(dict.fromkeys(keys_of(value))), out
