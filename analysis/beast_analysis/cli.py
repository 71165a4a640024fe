"""The subcommands `beast report`, `beast import` and `beast export-results`
run (the C++ verbs start `python -m beast_analysis SUBCOMMAND ...`).

Conventions of the beast CLI: bad input is one line on stderr, "beast VERB:
what is wrong, and where", exit code 1 (2 for a usage error), and nothing is
half-written; --json prints what a script reads. A file the OS or a parser
refuses (missing, a directory, permission denied, no space left, not JSON) is
such bad input too, named by the path the user gave ("beast import: c.json:
no such file or directory"); only a bug says "internal error", with its
traceback. _fault_message decides which is which, for all three verbs.
"""

import argparse
import json
import shlex
import sqlite3
import sys
import traceback

from beast_analysis.db import BeastDatabaseError
from beast_analysis.errors import InputError, os_message


class _Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors, as the C++ verbs give them."""

    def error(self, message):
        self.exit(2, f"{self.prog}: {message} (see --help)\n")


def _filters(parser):
    parser.add_argument("--device", help="only this device (its name, exactly)")
    parser.add_argument(
        "--problem",
        help="only this problem (its canonical key; beast report and beast export-results "
        "take any spelling beast query takes)",
    )
    parser.add_argument("--template", help="only this template (its name, exactly)")


def _report_parser():
    parser = _Parser(
        prog="beast report",
        description=(
            "Writes DIR/index.html with PNG plots of a result database: distribution of times per "
            "template and problem, the effect of each parameter on time, parameter importance "
            "(random forest), tuned best against the default config and against each vendor library's "
            "baseline (speed-ups), a roofline of the winners (under the measured peak FLOP/s where "
            "beast tune measured one), failures by status. DIR must be absent, empty or a previous "
            "report, which is replaced. The page needs no network."
        ),
    )
    parser.add_argument("--db", default="beast.db", help="the database (default beast.db)")
    parser.add_argument("--out", required=True, metavar="DIR", help="the report folder")
    _filters(parser)
    parser.add_argument(
        "--param",
        action="append",
        metavar="NAME",
        help="plot the effect of only these parameters (repeatable); "
        "the importance model still uses all of them",
    )
    parser.add_argument("--json", action="store_true", help="print the files written as JSON")
    return parser


def _import_parser():
    parser = _Parser(
        prog="beast import",
        description=(
            "Loads a Kernel Tuner cache file (.json or .json.gz, also one a killed run left without "
            "its closing braces) into a database, created if missing, in one transaction: one "
            "measurement per cache entry, on the cache's device, problem kt:KERNEL:SIZE, template "
            "kernel_tuner/KERNEL. A config already measured there keeps its first result."
        ),
    )
    parser.add_argument("--kernel-tuner", required=True, metavar="FILE", help="the cache file")
    parser.add_argument("--db", default="beast.db", help="the database (default beast.db)")
    parser.add_argument(
        "--device-name", metavar="NAME", help="the device (default: the cache's device_name)"
    )
    parser.add_argument(
        "--default",
        metavar="CONFIG",
        help="mark this config (NAME=value,... over every parameter) as the "
        "baseline, as a template's default config is",
    )
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    return parser


def _export_parser():
    parser = _Parser(
        prog="beast export-results",
        description=(
            "Writes the measurements of one (device, problem, template) in the T4 results format "
            "(Kernel Tuner, KTT, BAT), validated against its schema before writing. An existing "
            "OUT.json is refused unless --force; the file appears only once complete."
        ),
    )
    parser.add_argument("--db", default="beast.db", help="the database (default beast.db)")
    parser.add_argument("--t4", required=True, metavar="OUT.json", help="the T4 file to write")
    parser.add_argument(
        "--force", action="store_true", help="replace OUT.json if it exists (default: refuse)"
    )
    _filters(parser)
    parser.add_argument(
        "--driver",
        help="only this driver version of the device (where its name has rows of several)",
    )
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    return parser


def _problems_parser():
    parser = _Parser(
        prog="beast problems",
        description=(
            "Prints the job file of an ONNX model (for beast tune --problems FILE): every 2-D Conv "
            "and every Gemm/MatMul whose shapes ONNX shape inference knows, as problem keys in "
            "model order, equal shapes merged with their count as weight (xN) and a comment "
            "naming the first node; nodes beast cannot express are listed in comments with why."
        ),
    )
    parser.add_argument("--onnx", required=True, metavar="MODEL", help="the ONNX model file")
    parser.add_argument(
        "--batch", type=int, default=1, help="the batch size where the model's is symbolic (1)"
    )
    parser.add_argument("--dtype", default="f32", help="f32 (default), f64, f16 or bf16")
    parser.add_argument("--layout", default="NCHW", help="NCHW (default, the model's own) or NHWC")
    return parser


def _problems(args):
    from beast_analysis.onnx_problems import job_text

    sys.stdout.write(job_text(args.onnx, args.batch, args.dtype, args.layout))


def _report(args):
    from beast_analysis import report

    summary = report.build(
        args.db,
        args.out,
        device=args.device,
        problem=args.problem,
        template=args.template,
        params=args.param,
    )
    if args.json:
        print(json.dumps(summary))
    else:
        print(
            f"wrote {args.out}/index.html and {len(summary['files']) - 1} plots under {args.out}/plots"
        )


def _import(args, argv):
    from beast_analysis.kernel_tuner_import import import_cache

    s = import_cache(
        args.kernel_tuner,
        args.db,
        device_name=args.device_name,
        default=args.default,
        command=shlex.join(["beast", "import"] + argv),
    )
    if args.json:
        print(json.dumps(s))
        return
    statuses = ", ".join(f"{n} {status}" for status, n in s["statuses"].items())
    # Of the configs read, those already in the database keep their first
    # result: only the others are imported.
    new = s["added"]
    kept = f"; {s['already_present']} were there already and keep their first result"
    print(
        f"read {s['configs']} configs ({statuses}) from {s['file']}: {new} imported into "
        f"{s['db']}{kept if s['already_present'] else ''}"
    )
    print(
        f"  device {s['device']}, problem {s['problem']}, template {s['template']} (hash {s['template_hash']})"
    )
    if s["best_ms"] is not None:
        print(f"  best time {s['best_ms']:.6g} ms")


def _export(args):
    from beast_analysis import t4_export

    count = t4_export.export(
        args.db,
        args.t4,
        force=args.force,
        device=args.device,
        problem=args.problem,
        template=args.template,
        driver=args.driver,
    )
    if args.json:
        print(
            json.dumps({"out": args.t4, "results": count, "schema": str(t4_export.schema_path())})
        )
    else:
        print(
            f"wrote {count} results to {args.t4} (T4 {t4_export.SCHEMA_VERSION}, "
            f"valid against {t4_export.schema_path()})"
        )


_COMMANDS = {
    "report": _report_parser,
    "import": _import_parser,
    "export-results": _export_parser,
    "problems": _problems_parser,
}

# SQLite's primary result codes for a fault of the file or its disk, not of
# the SQL: the database is read-only, locked, full, unreadable or damaged.
_SQLITE_FILE_FAULTS = {
    sqlite3.SQLITE_PERM,
    sqlite3.SQLITE_BUSY,
    sqlite3.SQLITE_LOCKED,
    sqlite3.SQLITE_READONLY,
    sqlite3.SQLITE_IOERR,
    sqlite3.SQLITE_CORRUPT,
    sqlite3.SQLITE_FULL,
    sqlite3.SQLITE_CANTOPEN,
    sqlite3.SQLITE_NOTADB,
}


def _fault_message(error, args):
    """The one line (without "beast VERB: ") for a fault of the user's input or
    environment; None for a bug. The one place that decides which is which."""
    if isinstance(error, (InputError, BeastDatabaseError)):
        return str(error)
    if isinstance(error, ModuleNotFoundError):
        return (
            f"the Python package {error.name} is missing from {sys.executable} (./run installs it)"
        )
    if isinstance(error, OSError):
        # Files the verbs are handed are wrapped in errors.reading/writing; this
        # catches the rest by the name the OS gives (or none, e.g. a closed pipe).
        return os_message(error)
    if isinstance(error, sqlite3.DatabaseError):
        code = getattr(error, "sqlite_errorcode", None)
        if code is not None and (code & 0xFF) in _SQLITE_FILE_FAULTS:
            return f"{args.db}: {error}"
    return None


def _run(command, args, rest):
    if command == "report":
        _report(args)
    elif command == "import":
        _import(args, rest)
    elif command == "problems":
        _problems(args)
    else:
        _export(args)


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in _COMMANDS:
        got = f'unknown subcommand "{argv[0]}"' if argv else "no subcommand"
        sys.stderr.write(f"beast_analysis: {got} (one of: {', '.join(_COMMANDS)})\n")
        return 2
    command, rest = argv[0], argv[1:]
    parser = _COMMANDS[command]()
    try:
        args = parser.parse_args(rest)
    except SystemExit as stop:  # --help (0) or a usage error (2), already printed
        return stop.code
    try:
        _run(command, args, rest)
    except KeyboardInterrupt:
        sys.stderr.write(f"{parser.prog}: interrupted; nothing written\n")
        return 130
    except Exception as error:  # noqa: BLE001 - every failure ends here, sorted below
        sys.stdout.flush()
        message = _fault_message(error, args)
        if message is not None:
            sys.stderr.write(f"{parser.prog}: {message}\n")
        else:
            # A bug: one line as the C++ verbs give, then where it happened.
            sys.stderr.write(f"{parser.prog}: internal error: {type(error).__name__}: {error}\n")
            traceback.print_exc(file=sys.stderr)
        return 1
    return 0
