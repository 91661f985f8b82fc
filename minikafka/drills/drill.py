"""`Drill`: one play of a scenario, from the questions to the grade and the scoreboard line.

Theory of operation
-------------------
``drills.start("leader-crash", seed=3)`` builds the scenario's cluster,
runs its scene (topics, records: everything before the fault) and returns a
`Drill` in state ``ready``.  Its life:

1. ``ready``: the learner reads `brief` and answers the predictions
   (questions with ``when == "before"``) with `answer`; `hint` gives the
   next hint and costs a point.
2. `run` locks the predictions and plays the fault; the returned story (and
   `story`) says what the cluster did, in Kafka's terms.  State ``ran``.
   Diagnoses (``when == "after"``) are answered now; a fix drill's cluster
   is now unhealthy and the learner repairs it through `cluster`
   (`check` shows the health checks without grading).
3. `grade` locks every answer, compares each with the answer the run itself
   produced (never a constant: another seed gives another victim, other
   numbers), scores it, sends a line to the scoreboard (the class's score
   service when ``MINIKAFKA_SCORE_SERVICE`` names one, else the scores
   file; see `scoreboard`), and unlocks `explanation`.  State ``graded``;
   grading again returns the same result.
4. `close` stops the cluster and removes its files (also on any failure
   in `start` or `run`: a drill that breaks midway leaves nothing behind).

Scoring: each question or health check is worth its points (2), each hint
taken costs 1, the score never goes below 0.  A fix drill's *guards* (checks
that something was kept, which the unrepaired cluster passes) earn their
points only when at least one repair check passes: an unrepaired cluster
scores 0.  An optional time limit locks
the answers when it runs out.  Bad input raises `DrillError` with one line
and changes nothing.

Not a Kafka concept: the teaching layer.  The engine reads the wall clock
(`time.monotonic`) only to time the learner, never inside the cluster.
"""

from __future__ import annotations

import random
import time
from typing import Any, Callable

from minikafka.drills.catalogue import DrillInfo, info as catalogue_info
from minikafka.drills.question import AFTER, BEFORE, DrillError, Question, shown
import minikafka.drills.scoreboard as scoreboard
from minikafka.classroom.score_client import ScoreServiceClient

HINT_COST = 1


class Drill:
    def __init__(self, info: DrillInfo, seed: int | str, learner: str, scores_path,
                 time_limit_s: float | None, clock: Callable[[], float],
                 score_service: ScoreServiceClient | None = None):
        self.info = info
        self.seed = seed
        self.learner = learner
        self.scores_path = scores_path      # where grade() appends; None: nowhere
        self.score_service = score_service  # the class's service, tried before the file; None: the file
        self.scores_went: str | None = None  # where grade() sent the line: "score service" or the file
        self.time_limit_s = time_limit_s
        self._clock = clock
        self.scenario = info.load()(info, seed, random.Random(f"minikafka-drill:{info.id}:{seed}"))
        self.cluster = None
        self.state = "new"                  # new, ready, ran, graded, closed
        self.answers: dict[str, Any] = {}   # question id -> the learner's answer (stored form)
        self.locked_before = False          # predictions locked (by run or lock)
        self.locked = False                 # every answer locked
        self.hints_used = 0
        self.story = ""
        self.result: dict[str, Any] | None = None
        self.unearned: set[str] = set()     # guards that held, unearned: nothing was repaired
        self._started_at = 0.0

    # ------------------------------------------------------------------ identity
    id = property(lambda self: self.info.id)
    title = property(lambda self: self.info.title)
    kind = property(lambda self: self.info.kind)

    @property
    def questions(self) -> tuple[Question, ...]:
        return tuple(self.scenario.questions())

    def question(self, question_id: str) -> Question:
        for question in self.questions:
            if question.id == question_id:
                return question
        known = ", ".join(q.id for q in self.questions) or "none (a fix drill is graded on the cluster)"
        raise DrillError(f"Drill {self.id!r} has no question {question_id!r}; its questions are {known}")

    # ------------------------------------------------------------------ lifecycle
    def _start(self) -> "Drill":
        from minikafka.cluster import Cluster
        options = {"seed": f"{self.id}:{self.seed}", "simulated": not self.info.live,
                   **self.scenario.cluster_options()}
        self._guarded("setting up", lambda: self._build(Cluster, options))
        self.state = "ready"
        self._started_at = self._clock()
        return self

    def _build(self, cluster_class, options) -> None:
        self.cluster = cluster_class(**options)
        self.cluster.start()
        self.scenario.setup(self.cluster)

    def _guarded(self, doing: str, step: Callable[[], Any]) -> Any:
        """Run a scenario step; if it fails, stop the cluster, remove its files, say so."""
        try:
            return step()
        except BaseException as error:
            self.close()
            if isinstance(error, (DrillError, KeyboardInterrupt)):
                raise
            raise DrillError(f"Drill {self.id!r} failed while {doing} ({type(error).__name__}: "
                             f"{error}); its cluster was stopped and its files removed") from error

    def run(self) -> str:
        """Lock the predictions, play the fault(s), and return what happened."""
        self._require("ready", "run")
        self.locked_before = True
        lines = self._guarded("running", lambda: self.scenario.run(self.cluster))
        self.story = "\n".join(lines)
        self.state = "ran"
        return self.story

    def lock(self) -> None:
        """Lock the answers given so far: before the run the predictions, after it all."""
        self._require(("ready", "ran"), "lock")
        if self.state == "ready":
            self.locked_before = True
        else:
            self.locked = True

    def close(self) -> None:
        """Stop the cluster and remove its files; nothing keeps running."""
        cluster, self.cluster = self.cluster, None
        self.state = "closed"
        if cluster is None:
            return
        try:
            cluster.stop()
        except Exception:
            cluster.stop(graceful=False)

    def __enter__(self) -> "Drill":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    # ------------------------------------------------------------------ answers
    def answer(self, question_id: str, value: Any) -> None:
        """Give (or, with None, withdraw) the answer to one question."""
        question = self.question(question_id)
        self._require(("ready", "ran"), "answer")
        self._check_time()
        if question.when == BEFORE and (self.locked_before or self.locked):
            raise DrillError(f"The predictions of {self.id!r} are locked (the scenario has run); "
                             f"{question_id!r} stays {shown(self.answers.get(question_id))}")
        if question.when == AFTER and self.state == "ready":
            raise DrillError(f"{question_id!r} is a diagnosis: run the drill first (drill.run()), "
                             f"then find the answer in the cluster")
        if self.locked:
            raise DrillError(f"The answers of {self.id!r} are locked; {question_id!r} stays "
                             f"{shown(self.answers.get(question_id))}")
        stored = question.normalise(value)
        if stored is None:
            self.answers.pop(question_id, None)
        else:
            self.answers[question_id] = stored

    def remaining_s(self) -> float | None:
        """Seconds left before the time limit locks the answers (None: no limit)."""
        if self.time_limit_s is None or self.state not in ("ready", "ran"):
            return None
        return max(0.0, self.time_limit_s - (self._clock() - self._started_at))

    def elapsed_s(self) -> float:
        """Seconds since the drill started (until it was graded)."""
        if self.result is not None:
            return self.result["time_s"]
        return self._clock() - self._started_at if self._started_at else 0.0

    def time_up(self) -> bool:
        """Whether the time limit has run out; if so, every answer is locked from now on."""
        left = self.remaining_s()
        if left is not None and left <= 0:
            self.locked_before = self.locked = True
            return True
        return False

    def _check_time(self) -> None:
        if self.time_up():
            raise DrillError(f"Time is up: the answers of {self.id!r} were locked after "
                             f"{self.time_limit_s:g} s")

    def hint(self) -> str:
        """The next hint (each costs one point)."""
        self._require(("ready", "ran"), "take a hint in")
        hints = self.scenario.hints()
        if self.hints_used >= len(hints):
            raise DrillError(f"No more hints for {self.id!r} ({len(hints)} given)")
        self.hints_used += 1
        return hints[self.hints_used - 1]

    # ------------------------------------------------------------------ grading
    def check(self) -> str:
        """A fix drill's health checks as they stand now (not graded, nothing locked)."""
        self._require("ran", "check")
        return "\n".join(c.line() for c in self.scenario.checks(self.cluster))

    def grade(self) -> dict[str, Any]:
        """Lock everything, score it, append the scoreboard line, return the result."""
        if self.state == "graded":
            return self.result
        self._require("ran", "grade")
        self.locked_before = self.locked = True
        results = self._guarded("grading", self._results)
        earned = sum(points for _, _, correct, points in results.values() if correct)
        total = sum(points for *_, points in results.values())
        self.result = {
            "drill": self.id, "kind": self.kind, "seed": self.seed, "learner": self.learner,
            "score": max(0, earned - HINT_COST * self.hints_used), "max": total,
            "hints": self.hints_used, "time_s": round(self._clock() - self._started_at, 1),
            "answers": {qid: {"given": given, "expected": expected, "correct": correct}
                        for qid, (given, expected, correct, _) in results.items()}}
        self.state = "graded"
        if self.scores_path is not None:
            self.scores_went = scoreboard.record_score(self.scores_path, _score_line(self.result),
                                                       self.score_service)
        return self.result

    def _results(self) -> dict[str, tuple]:
        results = {}
        for question in self.questions:
            given = self.answers.get(question.id)
            expected = question.normalise(self.scenario.expected[question.id])
            results[question.id] = (given, expected, given is not None and given == expected,
                                    question.points)
        checks = self.scenario.checks(self.cluster) if self.kind == "fix" else []
        repaired = any(c.passed for c in checks if not c.guard)
        self.unearned = {c.id for c in checks if c.guard and c.passed and not repaired}
        for check in checks:
            results[check.id] = (check.given, check.expected,
                                 check.passed and check.id not in self.unearned, check.points)
        return results

    @property
    def explanation(self) -> str:
        """Why the answers are what they are; available once graded."""
        self._require("graded", "read the explanation of")
        return self.scenario.explain()

    # ------------------------------------------------------------------ texts
    @property
    def brief(self) -> str:
        """The scene and the questions, as the learner reads them before answering."""
        head = (f"Drill {self.id} · {self.title}\n{self.kind}, after lesson {self.info.lesson}, "
                f"seed {self.seed!r}, {'live' if self.info.live else 'simulated'} cluster")
        parts = [head, self.scenario.scene()]
        if self.questions:
            label = {"predict": "Predict (answer before drill.run()):",
                     "diagnose": "Diagnose (answer after drill.run()):"}.get(self.kind, "Questions:")
            parts.append(label + "\n" + "\n".join(f"  {q.id}: {q.describe()}" for q in self.questions))
        if self.kind == "fix":
            parts.append("Fix (after drill.run()): " + self.scenario.task())
        return "\n\n".join(parts)

    def report(self) -> str:
        """The graded answers, the score and the explanation, as text."""
        self._require("graded", "report on")
        lines = []
        for qid, entry in self.result["answers"].items():
            mark = "right" if entry["correct"] else "wrong"
            if qid in self.unearned:
                lines.append(f"[no points] {qid}: {shown(entry['given'])}, as before the fault; "
                             f"it counts only along with a repair, and nothing was repaired")
                continue
            lines.append(f"[{mark}] {qid}: {shown(entry['given'])}; the run says "
                         f"{shown(entry['expected'])}")
        cost = f" ({self.hints_used} hint{'s' * (self.hints_used != 1)} taken)" if self.hints_used else ""
        lines.append(f"Score: {self.result['score']} of {self.result['max']}{cost}")
        return "\n".join(lines) + "\n\n" + self.explanation

    def _require(self, states, verb: str) -> None:
        states = (states,) if isinstance(states, str) else states
        if self.state in states:
            return
        why = {"closed": "it is closed", "new": "it has not started",
               "ready": "it has not run yet (drill.run())", "ran": "it is not graded yet (drill.grade())",
               "graded": "it is graded already"}[self.state]
        if verb == "run" and self.state in ("ran", "graded"):
            why = "it has run already"
        raise DrillError(f"Cannot {verb} drill {self.id!r}: {why}")

    def __repr__(self) -> str:
        return f"Drill({self.id!r}, seed={self.seed!r}, kind={self.kind!r}, state={self.state!r})"


def _score_line(result: dict[str, Any]) -> dict[str, Any]:
    from datetime import datetime, timezone
    return {"learner": result["learner"], "drill": result["drill"], "kind": result["kind"],
            "seed": result["seed"],
            "answers": {q: a["given"] for q, a in result["answers"].items()},
            "correct": {q: a["correct"] for q, a in result["answers"].items()},
            "score": result["score"], "max": result["max"], "hints": result["hints"],
            "time_s": result["time_s"],
            "at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}


def start(drill_id: str, seed: int | str = 1, *, learner: str | None = None,
          scoreboard_path=None, record: bool = True, time_limit_s: float | None = None,
          _clock: Callable[[], float] = time.monotonic) -> Drill:
    """Start a drill: its cluster, its scene, its questions (see the module docstring)."""
    row = catalogue_info(drill_id)
    if isinstance(seed, bool) or not isinstance(seed, (int, str)):
        raise DrillError(f"A drill's seed is a whole number or a text, not {type(seed).__name__}: "
                         f"{seed!r}")
    if learner is not None and (not isinstance(learner, str) or not learner.strip()):
        raise DrillError(f"learner must be a non-empty name (a text), not {learner!r}")
    if time_limit_s is not None and (isinstance(time_limit_s, bool) or
                                     not isinstance(time_limit_s, (int, float)) or time_limit_s <= 0):
        raise DrillError(f"time_limit_s must be a positive number of seconds, not {time_limit_s!r}")
    name = learner.strip() if learner else scoreboard.default_learner()
    path = service = None
    if record:
        path = scoreboard.scoreboard_path(name, scoreboard_path)
        scoreboard.check_writable(path)     # also the fallback when the class's service fails
        service = scoreboard.score_service() if scoreboard_path is None else None
    return Drill(row, seed, name, path, time_limit_s, _clock, service)._start()
