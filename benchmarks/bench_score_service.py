"""The class's score service on a real JupyterHub: 40 learners post 12 drills each (< 1 s in total).

Measured (wall-clock seconds, no asserts), against a hub started as in
tests/classroom (`tests.classroom.real_hub.RealHub`: JupyterHub 5, dummy
authenticator, the service registered with its scopes, a 60 s token cache as
in the service's default):

* a class of 40 learners, each posting the 12 score lines of their drills one
  after the other through `ScoreServiceClient` (what a graded drill does),
  the 40 learners at once (40 threads): from the first post to the last
  answer.  The first round meets a cold token cache (the service asks the hub
  once per learner); the rounds after it are warm;
* the same 480 posts from one learner after another (no concurrency);
* the teacher reading the whole class (``GET api/class``) and building the
  `ClassReport` of it.

    .venv/bin/python benchmarks/bench_score_service.py [--rounds N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from minikafka import drills  # noqa: E402
from minikafka.classroom import ScoreServiceClient  # noqa: E402
from tests.classroom.real_hub import RealHub  # noqa: E402

LEARNERS, DRILLS = 40, 12


def lines_of(n: int) -> list[dict]:
    rows = drills.catalogue()
    out = []
    for k in range(DRILLS):
        row = rows[k % len(rows)]
        correct = {f"q{i}": (n + k + i) % 3 != 0 for i in range(3)}
        out.append({"drill": row.id, "kind": row.kind, "seed": n, "answers": {q: 1 for q in correct},
                    "correct": correct, "score": 2 * sum(correct.values()), "max": 6, "hints": k % 2,
                    "time_s": 60.0 + (n * 7 + k * 13) % 500, "at": "2026-11-29T10:00:00Z"})
    return out


def one_learner(client: ScoreServiceClient, lines: list[dict]) -> None:
    for line in lines:
        client.post(line)


def class_at_once(clients: list[ScoreServiceClient]) -> float:
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=len(clients)) as pool:
        for done in [pool.submit(one_learner, c, lines_of(n)) for n, c in enumerate(clients)]:
            done.result()
    return time.perf_counter() - started


def class_in_turn(clients: list[ScoreServiceClient]) -> float:
    started = time.perf_counter()
    for n, client in enumerate(clients):
        one_learner(client, lines_of(n))
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    with tempfile.TemporaryDirectory(prefix="bench-hub-") as workdir:
        hub = RealHub.start(Path(workdir), token_cache_s=60)
        try:
            names = [f"learner-{n:02d}" for n in range(LEARNERS)]
            tokens = hub.add_users(names)
            teacher = ScoreServiceClient(hub.service_url, hub.add_user("tess", teacher=True))
            clients = [ScoreServiceClient(hub.service_url, tokens[name]) for name in names]
            cold = class_at_once(clients)
            warm = [class_at_once(clients) for _ in range(rounds)]
            in_turn = [class_in_turn(clients) for _ in range(max(1, rounds // 2))]
            reads = []
            for _ in range(rounds):
                started = time.perf_counter()
                report = drills.ClassReport.from_service(teacher)
                report.by_drill(), report.by_learner()
                reads.append(time.perf_counter() - started)
            stored = len(report.attempts)
        finally:
            hub.stop()
    print(f"{LEARNERS} learners x {DRILLS} drills = {LEARNERS * DRILLS} posts per round")
    print(f"  at once (40 threads), cold token cache: {cold:.3f} s")
    print(f"  at once, warm: median {statistics.median(warm):.3f} s, worst {max(warm):.3f} s "
          f"({rounds} rounds)")
    print(f"  one learner after another, warm: median {statistics.median(in_turn):.3f} s")
    print(f"teacher reads the class ({stored} lines) and builds both tables: median "
          f"{statistics.median(reads) * 1000:.0f} ms, worst {max(reads) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
