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


def play(drill_id, seed, answers, repair=None, diagnose=None, **options):
    """Play with ``answers`` (predictions before the run, diagnoses after it; ``diagnose(drill)``
    may find more after the run); the graded result and the questions the drill asked."""
    with start(drill_id, seed, **options) as drill:
        questions = [(q.id, q.text, q.type, q.choices, q.when) for q in drill.questions]
        for question in drill.questions:
            if question.when == "before" and question.id in answers:
                drill.answer(question.id, answers[question.id])
        drill.run()
        if callable(diagnose):
            answers = {**answers, **diagnose(drill)}
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


def repair_lagging_group(drill, group="billing"):
    """Reset the group's offsets to the latest, as kafka-consumer-groups.sh --reset-offsets
    --to-latest --execute would."""
    from kafka import KafkaAdminClient, TopicPartition
    from kafka.admin import OffsetSpec
    admin = KafkaAdminClient(bootstrap_servers=drill.cluster.bootstrap_servers)
    try:
        admin.reset_group_offsets(group, {TopicPartition("orders", p): OffsetSpec.LATEST
                                          for p in range(drill.scenario.partitions)})
    finally:
        admin.close()


REPAIRS = {"offline-partition": repair_offline_partition,
           "lagging-group": repair_lagging_group,
           "unbalanced-leaders": repair_unbalanced_leaders,
           "empty-new-broker": repair_empty_new_broker}


# ---------------------------------------------------------------------------- the checks every drill passes
def check_answers_are_graded(drill_id, seed=1):
    """Right answers get full marks, wrong or missing ones less; the same seed asks the same
    questions and expects the same answers.  Returns the learned (questions, expected)."""
    questions, expected, unanswered = learn(drill_id, seed)
    assert unanswered["max"] > 0
    assert unanswered["score"] < unanswered["max"], "an unanswered drill must not get full marks"
    repair = REPAIRS.get(drill_id)
    full, asked = play(drill_id, seed, expected, repair=repair)
    assert asked == questions, "the same seed must ask the same questions"
    assert {q: a["expected"] for q, a in full["answers"].items() if q in dict.fromkeys(
        x[0] for x in questions)} == {q: expected[q] for q, *_ in questions}, \
        "the same seed must produce the same answers"
    assert full["score"] == full["max"], full
    if questions:
        kinds = {q.id: q for q in start_questions(drill_id, seed)}
        mistaken = {qid: wrong(kinds[qid], expected[qid]) for qid, *_ in questions}
        graded, _ = play(drill_id, seed, mistaken)
        assert not any(graded["answers"][qid]["correct"] for qid, *_ in questions), graded
        assert graded["score"] < full["score"]
    return questions, expected


def start_questions(drill_id, seed):
    with start(drill_id, seed) as drill:
        return drill.questions


def check_variants(drill_id, seeds=range(2, 9)):
    """Another seed gives another variant: other questions, other answers, or (a fix drill) another
    broken state to repair."""
    def variant(seed):
        questions, _, result = learn(drill_id, seed)
        return questions, {q: (a["given"], a["expected"]) for q, a in result["answers"].items()}
    base = variant(1)
    for seed in seeds:
        if variant(seed) != base:
            return seed
    raise AssertionError(f"{drill_id}: seeds {list(seeds)} all repeat seed 1's drill")
