"""``python -m minikafka.course copies``: make or refresh the learner's cleared copies of the lessons;
``python -m minikafka.course lab-settings``: JupyterLab without the news prompt (see `lab_settings`)."""

from __future__ import annotations

import argparse
import sys

from minikafka.course.lab_settings import write_overrides
from minikafka.course.learner_copies import make_copies


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m minikafka.course",
                                     description="The course's own commands.")
    commands = parser.add_subparsers(dest="command", required=True)
    copies = commands.add_parser("copies", help="copy the lessons with their outputs cleared, "
                                                "keeping a learner's edited copies")
    copies.add_argument("--source", default="lessons", help="the lessons (default: lessons)")
    copies.add_argument("--dest", default="my-lessons", help="where the learner's copies go "
                                                             "(default: my-lessons)")
    commands.add_parser("lab-settings", help="JupyterLab settings for the course in this environment "
                                             "(no news prompt, no update check)")
    args = parser.parse_args(argv)
    if args.command == "lab-settings":
        try:
            write_overrides()
        except OSError as error:
            print(f"python -m minikafka.course lab-settings: {error}", file=sys.stderr)
            return 1
        return 0
    try:
        report = make_copies(args.source, args.dest)
    except (OSError, ValueError) as error:
        print(f"python -m minikafka.course copies: {error}", file=sys.stderr)
        return 1
    print(report.summary())
    return 0


if __name__ == "__main__":
    sys.exit(main())
