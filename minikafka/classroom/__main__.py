"""``python -m minikafka.classroom serve ...``: the class's score service (see `score_service`)."""

from __future__ import annotations

import sys

USAGE = "usage: python -m minikafka.classroom serve [--db PATH] [--ip IP] [--port N] [--class-scope SCOPE]"


def main(argv: list[str]) -> int:
    if not argv or argv[0] != "serve":
        print(USAGE, file=sys.stderr)
        return 2
    from minikafka.classroom.score_service import serve
    return serve(argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
