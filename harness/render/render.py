#!/usr/bin/env python3
"""Renderer process of beast: turns kernel templates into source text.

The C++ harness (beast::harness::Renderer) starts this once and keeps it running, so
the Jinja2 start-up and template parsing are paid once per tuning run.

Protocol, one JSON object per line in each direction:
  request    <- {"template": "gemm/tiled.cl.j2", "vars": {"MWG": 64, ...}}
  reply      -> {"source": "..."}               or {"error": "one line"}
  request    <- {"ping": true}                  (checks that the renderer is usable)
  reply      -> {"pong": "jinja2 <version>"}
The process exits on end of input. When it cannot work at all (jinja2 missing,
no templates directory) it writes {"fatal": "..."} and exits with status 3.

Templates are rendered with StrictUndefined: a variable the template reads but
the request lacks is an error naming it, with the template file and line.
Templates may call fail("why") to reject inputs they cannot serve.
"""

import argparse
import json
import os
import signal
import sys
import traceback

try:
    import jinja2
except ImportError as exc:  # reported to the harness, which tells the user what to run
    sys.stdout.write(json.dumps({"fatal": "Python package jinja2 is missing (%s)" % exc}) + "\n")
    sys.stdout.flush()
    sys.exit(3)


class TemplateFailure(Exception):
    """Raised by a template through fail(message) when its inputs are unusable."""


def _fail(message):
    raise TemplateFailure(message)


def make_environment(templates_dir):
    """The one Jinja2 environment of beast; tests use it too."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(templates_dir),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.globals["fail"] = _fail
    return env


def _template_location(exc, templates_dir):
    """'file:line' of the template frame where exc arose, or '' when none.

    Jinja2 rewrites tracebacks so that frames of compiled templates carry the
    template's file name and source line. When the failing line is in an
    imported or included template, the requested template's line follows:
    '_common/dialect.j2:16 (from gemm/tiled.cl.j2:21)'.
    """
    if isinstance(exc, jinja2.TemplateSyntaxError) and exc.lineno:
        name = exc.name or exc.filename or "?"
        return "%s:%d" % (name, exc.lineno)
    root = os.path.realpath(templates_dir)
    frames = []
    for frame in traceback.extract_tb(exc.__traceback__):
        path = os.path.realpath(frame.filename)
        if path.startswith(root + os.sep):
            frames.append("%s:%d" % (os.path.relpath(path, root), frame.lineno))
    if not frames:
        return ""
    if frames[0].rsplit(":", 1)[0] != frames[-1].rsplit(":", 1)[0]:
        return "%s (from %s)" % (frames[-1], frames[0])
    return frames[-1]


def _one_line(text):
    return " ".join(str(text).split())


def render_request(env, templates_dir, request):
    """Returns the reply object for one decoded request."""
    if not isinstance(request, dict):
        return {"error": "bad request: expected a JSON object"}
    template = request.get("template")
    variables = request.get("vars", {})
    if not isinstance(template, str) or not template:
        return {"error": 'bad request: "template" must be a non-empty string'}
    if not isinstance(variables, dict):
        return {"error": 'bad request: "vars" must be a JSON object'}
    try:
        return {"source": env.get_template(template).render(**variables)}
    except jinja2.TemplateNotFound as exc:
        # Raised by an {% include %} or {% import %} inside a template: say where.
        where = _template_location(exc, templates_dir)
        return {
            "error": "%stemplate not found: %s (under %s)"
            % (where + ": " if where else "", exc.name, templates_dir)
        }
    except Exception as exc:  # noqa: BLE001 - every template failure is data for the caller
        where = _template_location(exc, templates_dir) or template
        kind = (
            ""
            if isinstance(exc, (jinja2.UndefinedError, TemplateFailure))
            else (type(exc).__name__ + ": ")
        )
        return {"error": "%s: %s%s" % (where, kind, _one_line(exc))}


def serve(templates_dir, stdin, stdout):
    env = make_environment(templates_dir)
    while True:
        line = stdin.readline()
        if not line:
            return
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except ValueError as exc:
            reply = {"error": "bad request: not JSON: %s" % _one_line(exc)}
        else:
            if isinstance(request, dict) and "ping" in request:
                reply = {"pong": "jinja2 " + jinja2.__version__}
            else:
                reply = render_request(env, templates_dir, request)
        stdout.write(json.dumps(reply) + "\n")
        stdout.flush()


def main():
    # Ctrl-C reaches the whole process group; the parent decides when to stop
    # and closes our input, so a traceback here would only be noise.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parser = argparse.ArgumentParser(description="Render beast kernel templates (JSON lines).")
    parser.add_argument("--templates", required=True, help="the kernel_templates directory")
    args = parser.parse_args()
    if not os.path.isdir(args.templates):
        sys.stdout.write(
            json.dumps({"fatal": "templates directory %s does not exist" % args.templates}) + "\n"
        )
        sys.stdout.flush()
        sys.exit(3)
    # Undecodable input bytes become U+FFFD rather than killing the server.
    with (
        open(sys.stdin.fileno(), encoding="utf-8", errors="replace", closefd=False) as stdin,
        open(sys.stdout.fileno(), "w", encoding="utf-8", closefd=False) as stdout,
    ):
        serve(args.templates, stdin, stdout)


if __name__ == "__main__":
    main()
