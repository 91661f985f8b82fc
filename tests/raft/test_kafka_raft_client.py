"""KafkaRaftClient in seeded simulations: elections, failover, partitions, truncation, restarts.

Every scenario runs over many seeds; `RaftInvariantChecker` (minikafka/testing/raft_invariants.py)
checks election safety, log matching, committed data, monotonic high
watermarks, listener delivery and single votes after every step.
"""

import pytest

from minikafka.raft import ElectionState, LeaderAndEpoch, NotLeaderException
from minikafka.raft.messages import DescribeQuorumRequest
from minikafka.runtime.node import Envelope
from tests.raft.harness import START_MS, Simulation, single_node

SEEDS = range(50)


def stable(sim, timeout_ms=5000):
    assert sim.run_until(sim.has_stable_leader, timeout_ms), \
        [(i, n.client.role, n.client.epoch) for i, n in sim.nodes.items()]
    return sim.leader()


def commit(sim, records, timeout_ms=3000):
    """Propose on the leader and wait until every alive node has the records committed."""
    offset = sim.propose(records)
    assert offset is not None
    assert sim.run_until(lambda: all(n.client.high_watermark is not None
                                     and n.client.high_watermark > offset
                                     for n in sim.nodes.values()), timeout_ms)
    return offset


def elected_events(sim):
    return [e for e in sim.events if e.kind == "controller_elected"]


@pytest.mark.parametrize("seed", SEEDS)
def test_initial_election(seed):
    sim = Simulation(seed, voters=(1001, 1002, 1003), observers=(1, 2))
    leader = stable(sim, timeout_ms=1000)          # the teaching profile elects well within 1 s
    epoch = sim.client(leader).epoch
    event = elected_events(sim)[-1]
    votes = ",".join(str(v) for v in event.data["votes"])
    assert event.text == f"controller {leader} elected in epoch {epoch} with votes from {votes}"
    assert event.data["leader"] == leader and leader in event.data["votes"] and len(event.data["votes"]) >= 2
    first = sim.logs[leader].read(0, 100)
    control = [b for b in first if b.epoch == epoch][0]
    assert control.is_control and control.records[0].leader_id == leader
    assert sim.run_until(lambda: all(n.client.leader_and_epoch == LeaderAndEpoch(leader, epoch)
                                     for n in sim.nodes.values()), 1000)
    for voter in (1001, 1002, 1003):
        assert sim.stores[voter].read_election_state().leader_id == leader
    assert sim.stores[1].read_election_state().voted_id is None            # observers never vote


@pytest.mark.parametrize("seed", SEEDS)
def test_leader_crash_and_reelection(seed):
    sim = Simulation(seed)
    old = stable(sim)
    old_epoch = sim.client(old).epoch
    commit(sim, ["a", "b"])
    sim.kill(old)
    new = stable(sim, timeout_ms=5000)
    assert new != old and sim.client(new).epoch > old_epoch
    commit(sim, ["c"])
    sim.restart(old)
    assert sim.run_until(lambda: sim.client(old).leader_and_epoch == sim.client(new).leader_and_epoch
                         and sim.client(old).high_watermark == sim.client(new).high_watermark, 3000)
    assert [r for b in sim.nodes[old].recorder.batches if not b.is_control for r in b.records] == ["a", "b", "c"]


@pytest.mark.parametrize("seed", SEEDS)
def test_partitioned_leader_steps_down(seed):
    sim = Simulation(seed)
    old = stable(sim)
    sim.isolate(old)
    # 1.5 x fetch timeout without fetches from a majority, plus one poll
    assert sim.run_until(lambda: sim.client(old).role != "Leader", 1000)
    resigned = [e for e in sim.events if e.kind == "controller_resigned" and e.node == old][-1]
    assert resigned.data["reason"] == ("did not receive fetch requests from a majority of the voters "
                                       "within 600 ms")
    assert sim.run_until(lambda: any(n.client.role == "Leader" for i, n in sim.nodes.items() if i != old), 5000)
    sim.heal()
    new = stable(sim)
    assert new != old or sim.client(new).epoch > resigned.data["epoch"]


@pytest.mark.parametrize("seed", SEEDS)
def test_minority_partition_makes_no_progress(seed):
    sim = Simulation(seed, voters=(1, 2, 3, 4, 5))
    leader = stable(sim)
    commit(sim, ["before"])
    others = [v for v in sim.voters if v != leader]
    minority = (leader, others[0])
    majority = tuple(others[1:])
    frozen = {v: sim.logs[v].high_watermark for v in minority}
    follower_epoch = sim.client(others[0]).epoch
    sim.partition(minority, majority)
    sim.propose(["lost"])                           # accepted by the old leader, never committed
    elections_before = len(elected_events(sim))
    sim.run_for(3000)
    assert {v: sim.logs[v].high_watermark for v in minority} == frozen
    assert all(e.node in majority for e in elected_events(sim)[elections_before:])
    # Pre-vote keeps the minority from climbing epochs; only the old leader's resignation
    # (Resigned -> Unattached in epoch + 1) moves it, once.
    assert max(sim.client(v).epoch for v in minority) <= follower_epoch + 1
    assert sim.leader() in majority
    sim.heal()
    stable(sim)
    commit(sim, ["after"])
    records = [r for b in sim.nodes[leader].recorder.batches for r in b.records]
    assert "lost" not in records and records[-1] == "after"


@pytest.mark.parametrize("seed", SEEDS)
def test_follower_truncation_after_divergence(seed):
    sim = Simulation(seed)
    old = stable(sim)
    commit(sim, ["a"])
    sim.isolate(old)
    for _ in range(3):
        sim.propose([f"doomed-{_}"])                 # only the isolated old leader has these
        sim.run_for(30)
    assert sim.run_until(lambda: any(n.client.role == "Leader" for i, n in sim.nodes.items() if i != old), 5000)
    sim.run_for(100)
    commit_on = [i for i in sim.nodes if i != old]
    offset = sim.propose(["b"])
    assert sim.run_until(lambda: all(sim.client(i).high_watermark > offset for i in commit_on), 3000)
    sim.heal()
    new = stable(sim)
    assert sim.run_until(lambda: sim.logs[old].batches == sim.logs[new].batches, 3000)
    assert any(e.kind == "log_truncated" and e.node == old for e in sim.events)
    assert not any("doomed" in str(r) for b in sim.logs[old].batches for r in b.records)


@pytest.mark.parametrize("seed", range(25))
def test_observers_follow_leadership_changes(seed):
    sim = Simulation(seed, observers=(101, 102))
    for round_ in range(3):
        leader = stable(sim)
        target = sim.client(leader).leader_and_epoch
        assert sim.run_until(lambda: all(sim.client(o).leader_and_epoch == target for o in (101, 102)), 3000)
        offset = commit(sim, [f"round-{round_}"])
        assert all(sim.client(o).high_watermark > offset for o in (101, 102))
        assert all(sim.client(o).role == "Follower" for o in (101, 102))
        sim.kill(leader)
        sim.run_for(50)
        sim.restart(leader)
    assert all(sim.stores[o].read_election_state().voted_id is None for o in (101, 102))


@pytest.mark.parametrize("seed", SEEDS)
def test_restarts_never_vote_twice(seed):
    sim = Simulation(seed, voters=(1, 2, 3, 4, 5))
    for step in range(12):
        sim.run_for(sim.rng.randint(20, 300))
        sim.restart(sim.rng.choice(sim.voters))          # crash in the middle of elections
    stable(sim, timeout_ms=10000)
    commit(sim, ["x"])
    voted = [(s.epoch, s.voted_id) for v in sim.voters for s in sim.stores[v].history]
    assert any(v is not None for _, v in voted)       # the checker did audit real votes


@pytest.mark.parametrize("seed", range(25))
def test_graceful_shutdown_hands_leadership_to_the_best_follower(seed):
    sim = Simulation(seed)
    old = stable(sim)
    commit(sim, ["a"])
    done = []
    node = sim.nodes[old]
    node.now = sim.now
    start = sim.now
    node.client.shutdown(timeout_ms=5000, on_complete=done.append)
    sim._after_call(node)
    assert sim.run_until(lambda: done, 5000) and done == [False]      # a new leader was seen
    assert sim.now - start < 1000
    assert node.client.stopped
    sim.kill(old)
    new = stable(sim)
    assert new != old
    assert [e for e in sim.events if e.kind == "controller_resigned"][-1].data["reason"] == "graceful shutdown"


@pytest.mark.parametrize("seed", range(25))
def test_resign_moves_leadership(seed):
    sim = Simulation(seed)
    old = stable(sim)
    epoch = sim.client(old).epoch
    node = sim.nodes[old]
    node.now = sim.now
    node.client.resign(epoch)
    sim._after_call(node)
    assert sim.run_until(lambda: sim.leader() not in (None, old) or sim.client(old).epoch > epoch + 1, 3000)
    stable(sim)
    assert LeaderAndEpoch(None, epoch + 1) in node.recorder.leader_changes or \
        any(c.epoch > epoch for c in node.recorder.leader_changes)


@pytest.mark.parametrize("seed", range(10))
def test_commits_reach_every_listener_in_order_once(seed):
    sim = Simulation(seed, observers=(101,))
    stable(sim)
    sim.propose_every(15, sim.now + 1000)
    sim.run_for(1500)
    last = commit(sim, ["end"])
    for node_id, node in sim.nodes.items():
        data = [r for b in node.recorder.batches if not b.is_control for r in b.records]
        assert data[-1] == "end" and len(data) == len(set(data)), node_id
        assert node.recorder.next_offset == last + 1


@pytest.mark.parametrize("seed", range(20))
def test_chaos(seed):
    """Random kills, restarts, isolations, partitions and message loss; then recovery."""
    sim = Simulation(seed, voters=(1, 2, 3, 4, 5)[:3 + 2 * (seed % 2)], observers=(101,),
                     drop_rate=(0, 0.02, 0.1)[seed % 3])
    sim.propose_every(30, sim.now + 6000)
    everyone = sim.voters + sim.observers
    for _ in range(12):
        sim.run_for(sim.rng.randint(100, 1000))
        action, victim = sim.rng.random(), sim.rng.choice(everyone)
        if action < 0.3:
            sim.kill(victim) if victim in sim.nodes else sim.restart(victim)
        elif action < 0.5:
            sim.restart(victim)
        elif action < 0.7:
            sim.isolate(victim)
        elif action < 0.85:
            sim.heal()
        else:
            sim.partition(sim.voters[:len(sim.voters) // 2], sim.voters[len(sim.voters) // 2:] + sim.observers)
    sim.heal()
    sim.drop_rate = 0
    for node_id in everyone:
        if node_id not in sim.nodes:
            sim.restart(node_id)
    # Right after the chaos a leader may still lose its epoch (a stale election timer
    # firing); an uncommitted proposal is then legitimately dropped, so propose again.
    for _ in range(3):
        leader = stable(sim, timeout_ms=20000)
        offset = sim.propose(["final"])
        if sim.run_until(lambda: all(n.client.high_watermark is not None
                                     and n.client.high_watermark > offset
                                     for n in sim.nodes.values()), 5000):
            break
    else:
        raise AssertionError("no proposal committed on every node after three leaders")
    assert sim.checker.committed_end > 0
    assert all(sim.client(i).leader_and_epoch == sim.client(leader).leader_and_epoch for i in everyone)


def test_virtual_clock_starts_at_the_sandbox_epoch():
    sim = Simulation(0)
    stable(sim)
    assert sim.events[0].time_ms >= START_MS


# ---------------------------------------------------------------------- one node, public API
def single_voter_leader():
    node = single_node(local=1, voters=(1,))
    assert node.client.role == "Leader"
    return node


def test_single_voter_elects_itself_at_start():
    node = single_voter_leader()
    assert node.client.epoch == 1 and node.client.high_watermark == 1
    batch = node.client.log.batches[0]
    assert batch.is_control and batch.records[0].leader_id == 1 and batch.records[0].granting_voters == (1,)
    assert [b.base_offset for b in node.recorder.batches] == [0]
    assert node.recorder.leader_changes[-1].leader_id == 1


def test_append_errors_in_kafkas_words():
    follower = single_node()
    with pytest.raises(NotLeaderException, match="Append failed because the replica is not the current leader"):
        follower.client.append(["x"], 0)
    leader = single_voter_leader()
    with pytest.raises(NotLeaderException,
                       match="Append failed because the given epoch 0 is stale. Current leader epoch = 1"):
        leader.client.append(["x"], 0)
    with pytest.raises(ValueError, match="Attempt to append from epoch 2 which is larger than the current epoch 1"):
        leader.client.append(["x"], 2)
    assert NotLeaderException("m").java_class == "org.apache.kafka.raft.errors.NotLeaderException"


def test_resign_errors():
    node = single_node(stored=ElectionState(3, leader_id=2, voters=frozenset({1, 2, 3})))
    with pytest.raises(ValueError, match="invalid negative epoch -1"):
        node.client.resign(-1)
    with pytest.raises(ValueError, match="Attempt to resign from epoch 4 which is larger than the current epoch 3"):
        node.client.resign(4)
    with pytest.raises(ValueError, match="Cannot resign from epoch 3 since we are not the leader"):
        node.client.resign(3)
    node.client.resign(2)        # an epoch already over: nothing to do


def test_single_voter_restart_resumes_leadership_in_a_new_epoch():
    log = single_voter_leader().client.log
    log.flush()
    node = single_node(local=1, voters=(1,), log=log.reopen(),
                       stored=ElectionState(1, leader_id=1, voters=frozenset({1})))
    assert (node.client.role, node.client.epoch) == ("Leader", 3)     # Resigned 1 -> Unattached 2 -> 3
    assert [b.epoch for b in node.client.log.batches] == [1, 3]


def test_shutdown_of_a_follower_is_immediate():
    node = single_node(stored=ElectionState(2, leader_id=2, voters=frozenset({1, 2, 3})))
    done = []
    node.client.shutdown(on_complete=done.append)
    assert done == [False] and node.client.stopped
    assert node.client.handle_request(Envelope(2, 1, DescribeQuorumRequest(), correlation_id=1))
    assert node.drain()[0] == []          # a stopped client answers nothing


def test_shutdown_times_out_without_a_new_leader():
    node = single_node()
    done = []
    node.client.shutdown(timeout_ms=300, on_complete=done.append)
    node.poll(START_MS + 299)
    assert done == []
    node.poll(START_MS + 300)
    assert done == [True]


@pytest.mark.parametrize("seed", range(10))
def test_real_timing_profiles(seed):
    """The teaching profile elects within a second; Kafka's defaults within a few."""
    from minikafka.common.timing import KAFKA, TEACHING
    teaching = Simulation(seed, voters=(1001, 1002, 1003), observers=(1,), timing=TEACHING)
    assert teaching.run_until(teaching.has_stable_leader, 1000)
    kafka = Simulation(seed, voters=(1001, 1002, 1003), timing=KAFKA)
    assert kafka.run_until(kafka.has_stable_leader, 5000)
    assert kafka.client(1001).fetch_max_wait_ms == 500        # KafkaRaftClient.MAX_FETCH_WAIT_MS
