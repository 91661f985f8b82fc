"""The ``uniform`` assignor: Kafka's own examples (OptimizedUniformAssignmentBuilderTest and the
heterogeneous builder's tests), balance within one partition, and stickiness (only the partitions
that must move, move).

The expected answers are those of Kafka 4.3.1's ``UniformAssignor`` (run from
kafka-group-coordinator-4.3.1.jar on these very inputs: topic ids ``Uuid(0, n)``, members in name
order).  Where 4.3.1 answers differently from the example in Kafka's older test (4.3 gives the
"+1" slots of the homogeneous builder back when a member does not need them), the test says so.
"""

import random

import pytest

from minikafka.common.uuid import Uuid
from minikafka.coordinator.partition_assignor import (
    GroupSpec, MemberSubscriptionAndAssignment as M, PartitionAssignorException, SubscriptionType,
    subscription_type,
)
from minikafka.coordinator.topic_metadata import TopicMetadata, TopicsImage
from minikafka.coordinator.uniform_assignor import UniformAssignor


def tid(n: int) -> Uuid:
    return Uuid(0, n)


def image(**partitions_by_id: int) -> TopicsImage:
    return TopicsImage(tuple(TopicMetadata(tid(int(k[1:])), k, n) for k, n in partitions_by_id.items()))


def assign(members: dict[str, M], topics: TopicsImage):
    return UniformAssignor().assign(GroupSpec(members, subscription_type(members)), topics)


def a(**topics):  # a(t1=[0, 2], t2=[1]) -> {tid(1): {0, 2}, tid(2): {1}}
    return {tid(int(k[1:])): frozenset(v) for k, v in topics.items()}


def subs(*ns):
    return frozenset(tid(n) for n in ns)


def check_valid(members, result, balanced=True):
    seen = set()
    for member_id, assignment in result.items():
        for topic_id, partitions in assignment.items():
            assert topic_id in members[member_id].subscribed_topic_ids
            for p in partitions:
                assert (topic_id, p) not in seen, f"{topic_id}-{p} assigned twice"
                seen.add((topic_id, p))
    sizes = [sum(len(p) for p in x.values()) for x in result.values()]
    if balanced:
        assert max(sizes) - min(sizes) <= 1
    return seen


def test_one_member_no_subscription_gets_nothing():
    assert assign({"A": M(frozenset())}, image(t1=3)) == {"A": {}}


def test_subscription_to_a_topic_missing_from_the_metadata_fails():
    with pytest.raises(PartitionAssignorException, match="doesn't exist in the topic metadata"):
        assign({"A": M(subs(9))}, image(t1=3))


def test_first_assignment_two_members_two_topics():
    # Kafka's example (topic1: 3 partitions, topic3: 2): 5 partitions, A may keep 3, B 2.  A owns
    # nothing yet, so it gives its "+1" back to B (4.3; Kafka's older test expected A: 3).
    members = {"A": M(subs(1, 3)), "B": M(subs(1, 3))}
    result = assign(members, image(t1=3, t3=2))
    assert result == {"A": a(t1=[0, 1]), "B": a(t1=[2], t3=[0, 1])}


def test_more_members_than_partitions():
    # The "+1"s (here: the only partitions) go to the last members when nobody owns anything yet.
    members = {m: M(subs(1)) for m in "ABC"}
    result = assign(members, image(t1=2))
    assert result == {"A": {}, "B": a(t1=[0]), "C": a(t1=[1])}


def test_reassignment_given_unbalanced_previous_assignment():
    members = {"A": M(subs(1, 2), a(t1=[0, 1], t2=[0, 1])), "B": M(subs(1, 2), a(t1=[2], t2=[2]))}
    result = assign(members, image(t1=3, t2=3))
    assert result == {"A": a(t1=[0, 1], t2=[0]), "B": a(t1=[2], t2=[1, 2])}


def test_reassignment_when_partitions_are_added():
    # topic1 grows to 6 partitions, topic2 to 5: the 5 new ones are shared out, nothing moves.
    members = {"A": M(subs(1, 2), a(t1=[0, 2], t2=[0])), "B": M(subs(1, 2), a(t1=[1], t2=[1, 2]))}
    result = assign(members, image(t1=6, t2=5))
    assert result == {"A": a(t1=[0, 2, 3, 4], t2=[0]), "B": a(t1=[1, 5], t2=[1, 2, 3, 4])}


def test_reassignment_when_a_member_is_added():
    members = {"A": M(subs(1, 2), a(t1=[0, 2], t2=[0])), "B": M(subs(1, 2), a(t1=[1], t2=[1, 2])),
               "C": M(subs(1, 2))}
    result = assign(members, image(t1=3, t2=3))
    assert result == {"A": a(t1=[0, 2]), "B": a(t1=[1], t2=[1]), "C": a(t2=[0, 2])}


def test_reassignment_when_a_member_is_removed():
    # C (t1-2, t2-2) left; its partitions are shared out, nobody else's move.
    members = {"A": M(subs(1, 2), a(t1=[0], t2=[0])), "B": M(subs(1, 2), a(t1=[1], t2=[1]))}
    result = assign(members, image(t1=3, t2=3))
    assert result == {"A": a(t1=[0, 2], t2=[0]), "B": a(t1=[1], t2=[1, 2])}


def test_reassignment_when_a_subscription_is_removed():
    members = {"A": M(subs(2), a(t1=[0], t2=[0])), "B": M(subs(2), a(t1=[1], t2=[1]))}
    result = assign(members, image(t1=2, t2=2))
    assert result == {"A": a(t2=[0]), "B": a(t2=[1])}


def test_fourth_member_joining_twelve_partitions_moves_three():
    """The drill of issue 26: 3 members own 4 partitions each; a 4th joins; exactly 3 move."""
    old = {"A": a(t1=[0, 1, 2, 3]), "B": a(t1=[4, 5, 6, 7]), "C": a(t1=[8, 9, 10, 11])}
    members = {m: M(subs(1), old.get(m, {})) for m in "ABCD"}
    result = assign(members, image(t1=12))
    check_valid(members, result)
    moved = {(m, p) for m in "ABC" for p in old[m][tid(1)] if p not in result[m].get(tid(1), ())}
    assert len(moved) == 3 and len(result["D"][tid(1)]) == 3
    for m in "ABC":
        assert result[m][tid(1)] <= old[m][tid(1)]      # nobody receives anything new


@pytest.mark.parametrize("seed", range(30))
def test_homogeneous_random_groups_are_balanced_and_sticky(seed):
    rng = random.Random(seed)
    partitions = {n: rng.randint(1, 12) for n in range(1, rng.randint(2, 4))}
    topics = TopicsImage(tuple(TopicMetadata(tid(n), f"t{n}", c) for n, c in partitions.items()))
    members = {f"m{i}": M(subs(*partitions)) for i in range(rng.randint(1, 6))}
    for _ in range(6):
        result = assign(members, topics)
        seen = check_valid(members, result)
        assert len(seen) == sum(partitions.values())           # every partition has an owner
        quota = sum(partitions.values()) // len(result)
        for m, spec in members.items():                        # sticky: kept min(old, quota) at least
            kept = sum(len(spec.assignment.get(t, frozenset()) & ps) for t, ps in result[m].items())
            old = sum(len(ps) for ps in spec.assignment.values())
            assert kept >= min(old, quota)
        members = {m: M(spec.subscribed_topic_ids, result[m]) for m, spec in members.items()}
        if rng.random() < 0.5 and len(members) > 1:
            del members[rng.choice(sorted(members))]
        else:
            members[f"n{rng.randint(0, 10**6)}"] = M(subs(*partitions))


# ---------------------------------------------------------------------------- heterogeneous
def test_heterogeneous_first_assignment_balances_what_subscriptions_allow():
    # A and B read t1 (3 partitions) and t2 (3); C reads only t2.
    members = {"A": M(subs(1, 2)), "B": M(subs(1, 2)), "C": M(subs(2))}
    assert subscription_type(members) is SubscriptionType.HETEROGENEOUS
    result = assign(members, image(t1=3, t2=3))
    check_valid(members, result)
    assert sorted(sum(len(p) for p in x.values()) for x in result.values()) == [2, 2, 2]
    assert tid(1) not in result["C"]


def test_heterogeneous_new_subscriber_takes_only_what_balance_needs():
    members = {"A": M(subs(1, 2), a(t1=[0, 1, 2], t2=[0, 1, 2])), "B": M(subs(2))}
    result = assign(members, image(t1=3, t2=3))
    check_valid(members, result, balanced=False)
    # A owns all 6; B can only read t2, and takes A's highest t2 partition while the two differ
    # by more than one: 6/0 -> 5/1 -> 4/2 -> 3/3.
    sizes = {m: sum(len(p) for p in x.values()) for m, x in result.items()}
    assert sizes == {"A": 3, "B": 3} and result["A"] == a(t1=[0, 1, 2])
    assert result["B"] == a(t2=[0, 1, 2])


def test_heterogeneous_drops_unsubscribed_topics_and_keeps_the_rest():
    members = {"A": M(subs(1), a(t1=[0, 1], t2=[0])), "B": M(subs(1, 2), a(t1=[2], t2=[1]))}
    result = assign(members, image(t1=3, t2=2))
    check_valid(members, result, balanced=False)
    assert result["A"][tid(1)] >= {0, 1} and tid(2) not in result["A"]
    assert result["B"][tid(2)] == {0, 1}


@pytest.mark.parametrize("seed", range(30))
def test_heterogeneous_random_groups_are_valid_and_complete(seed):
    rng = random.Random(1000 + seed)
    partitions = {n: rng.randint(1, 8) for n in range(1, 4)}
    topics = TopicsImage(tuple(TopicMetadata(tid(n), f"t{n}", c) for n, c in partitions.items()))
    members = {}
    for i in range(rng.randint(2, 6)):
        members[f"m{i}"] = M(frozenset(tid(n) for n in partitions if rng.random() < 0.6) or subs(1))
    members = {m: M(s.subscribed_topic_ids) for m, s in members.items()}
    result = assign(members, topics)
    seen = check_valid(members, result, balanced=False)
    subscribed = {t for s in members.values() for t in s.subscribed_topic_ids}
    assert seen == {(t, p) for t in subscribed for p in range(partitions[t.least])}
    # with a single topic per member set (all identical) it would be balanced within one
    for t in subscribed:
        subscribers = [m for m, s in members.items() if t in s.subscribed_topic_ids]
        if all(members[m].subscribed_topic_ids == {t} for m in subscribers):
            counts = [len(result[m].get(t, ())) for m in subscribers]
            assert max(counts) - min(counts) <= 1


def test_heterogeneous_kafka_first_assignment_two_members_two_topics():
    # A reads t1 (3 partitions) and t3 (6); B reads t3 only.
    members = {"A": M(subs(1, 3)), "B": M(subs(3))}
    result = assign(members, image(t1=3, t3=6))
    assert result == {"A": a(t1=[0, 1, 2], t3=[4]), "B": a(t3=[0, 1, 2, 3, 5])}


def test_heterogeneous_kafka_reassignment_given_unbalanced_previous_assignment():
    members = {"A": M(subs(1), a(t1=[0, 1, 2])),
               "B": M(subs(1, 2), a(t1=[3], t2=[0])),
               "C": M(subs(1, 2, 3), a(t1=[4, 5], t2=[1, 2, 3], t3=[0, 1, 2, 3]))}
    result = assign(members, image(t1=6, t2=4, t3=4))
    assert result == {"A": a(t1=[0, 1, 2, 5]), "B": a(t1=[3], t2=[0, 1, 2, 3]),
                      "C": a(t1=[4], t3=[0, 1, 2, 3])}


def test_heterogeneous_kafka_member_removed_three_topics():
    members = {"A": M(subs(1, 3), a(t1=[0, 1, 2], t3=[0, 1])), "B": M(subs(2), a(t2=[3, 4, 5, 6]))}
    result = assign(members, image(t1=3, t2=8, t3=3))
    assert result == {"A": a(t1=[0, 1, 2], t3=[0, 1, 2]), "B": a(t2=list(range(8)))}
