"""Playing drills headless in tests: learn a run's answers, replay the seed with them, repair fix drills."""

from __future__ import annotations

from collections import Counter

from minikafka import drills


def start(drill_id, seed, **options):
    options.setdefault("record", False)
    options.setdefault("learner", "tester")
    return drills.start(drill_id, seed=seed, **options)


def learn(drill_id, seed):
    """Play once without answering; the questions and the answers the run produced."""
    with start(drill_id, seed) as drill:
        questions = [(q.id, q.text, q.type, q.choices, q.when) for q in drill.questions]
        drill.run()
        result = drill.grade()
        expected = {qid: entry["expected"] for qid, entry in result["answers"].items()}
        return questions, expected, result


def play(drill_id, seed, answers, repair=None, **options):
    """Play with ``answers`` (predictions before the run, diagnoses after it); the graded result
    and the questions the drill asked."""
    with start(drill_id, seed, **options) as drill:
        questions = [(q.id, q.text, q.type, q.choices, q.when) for q in drill.questions]
        for question in drill.questions:
            if question.when == "before" and question.id in answers:
                drill.answer(question.id, answers[question.id])
        drill.run()
        for question in drill.questions:
            if question.when == "after" and question.id in answers:
                drill.answer(question.id, answers[question.id])
        if repair is not None:
            repair(drill)
        return drill.grade(), questions


def wrong(question, expected):
    """An answer of the right type that is not the expected one."""
    if question.type == "choice":
        return next(c for c in question.choices if c != expected)
    if question.type == "bool":
        return not expected
    if question.type in ("node",):
        return next(c for c in question.choices if c != expected)
    if question.type == "nodes":
        return [c for c in question.choices if c not in expected][:1] or []
    if question.type == "numbers":
        return sorted(set(expected) ^ {0})
    return expected + 1


# ---------------------------------------------------------------------------- repairs of fix drills
def repair_offline_partition(drill):
    drill.cluster.restart_broker(drill.scenario.leader)


def repair_unbalanced_leaders(drill):
    drill.cluster.elect_leaders("preferred")


def repair_empty_new_broker(drill):
    """Move replicas to the new broker, one per partition, from the most loaded brokers."""
    cluster, new = drill.cluster, drill.scenario.new_broker
    partitions = drill.scenario.partitions
    assignment = {p: cluster.replicas("events", p) for p in range(partitions)}
    target = partitions * drill.scenario.rf // len(cluster.broker_ids)
    plan = {}
    while sum(new in r for r in assignment.values()) < target:
        load = Counter(b for r in assignment.values() for b in r)
        p, heaviest = max(((p, max(r, key=lambda b: load[b])) for p, r in assignment.items()
                           if new not in r), key=lambda pair: load[pair[1]])
        assignment[p] = [new if b == heaviest else b for b in assignment[p]]
        plan[("events", p)] = assignment[p]
    cluster.reassign_partitions(plan)


REPAIRS = {"offline-partition": repair_offline_partition,
           "unbalanced-leaders": repair_unbalanced_leaders,
           "empty-new-broker": repair_empty_new_broker}
