"""Seeded property test: random joins, leaves, static leaves and returns, crashes (session
timeouts), heartbeats in random order, topic growth and coordinator failovers.

After every step: no partition is owned by two members of the group (as the running clients
see it, and as the coordinator records it; a client fenced while silent is no longer a member).  Once the events stop and everyone heartbeats for a while: the
group is stable and every subscribed partition is owned by exactly one running member.  Every
failover checks that replaying the log rebuilds exactly the state the old coordinator had.
"""

import random

import pytest

from minikafka.coordinator.topic_metadata import TopicMetadata, TopicsImage
from tests.coordinator.consumer_group_sim import GROUP, ORDERS, PAYMENTS, Client, Sim
from minikafka.coordinator.consumer_group_heartbeat import ConsumerGroupHeartbeatRequest as Req

SUBSCRIPTIONS = [("orders",), ("orders",), ("orders", "payments"), ("payments",)]
REGEXES = ["(orders|payments)", "ord.*", "nothing-.*"]


def run(seed: int, steps: int = 60) -> Sim:
    rng = random.Random(seed)
    sim = Sim()
    homogeneous = rng.random() < 0.5
    assignor = rng.choice([None, None, "range"])
    names = iter(f"c{i}" for i in range(1000))

    def new_client(instance_id=None) -> Client:
        topics = ("orders",) if homogeneous else rng.choice(SUBSCRIPTIONS)
        regex = None if homogeneous or rng.random() < 0.8 else rng.choice(REGEXES)
        return Client(next(names), topics=topics, regex=regex, instance_id=instance_id, assignor=assignor)

    def running():
        return [c for c in sim.clients.values() if c.running]

    for _ in range(steps):
        event = rng.random()
        if event < 0.2 or not running():
            static = rng.random() < 0.3
            sim.add(new_client(instance_id=f"host-{rng.randint(0, 3)}" if static else None))
        elif event < 0.3:
            c = rng.choice(running())
            if c.epoch > 0:
                sim.send(Req(GROUP, c.member_id, -1, c.instance_id))
            c.running = False                           # left for good
        elif event < 0.37:
            c = rng.choice(running())
            if c.instance_id is not None and c.epoch > 0:
                sim.send(Req(GROUP, c.member_id, -2, c.instance_id))
            c.running = False                           # static: gone for a while, or a crash
        elif event < 0.42:
            sim.failover()
        elif event < 0.45:
            old = sim.image.by_id(ORDERS).num_partitions
            sim.image = TopicsImage.of(TopicMetadata(ORDERS, "orders", old + rng.randint(1, 3)),
                                       sim.image.by_id(PAYMENTS))
        elif event < 0.55:
            sim.advance(rng.choice([100, 500, 1500]))    # time passes; silent members may time out
        else:
            order = [c.name for c in running()]
            rng.shuffle(order)
            for name in order[: rng.randint(1, len(order))]:
                sim.heartbeat(sim.clients[name])
        sim.check_no_double_ownership()

    # quiesce: everyone still running heartbeats until the group settles
    for _ in range(20):
        order = sorted(c.name for c in running())
        rng.shuffle(order)
        sim.round(order)
        sim.check_no_double_ownership()
    sim.check_stable_and_complete()
    sim.failover()
    return sim


@pytest.mark.parametrize("seed", range(40))
def test_random_histories_keep_ownership_exclusive_and_complete(seed):
    run(seed)


def test_a_long_history():
    sim = run(12345, steps=400)
    assert len(sim.log) > 100
