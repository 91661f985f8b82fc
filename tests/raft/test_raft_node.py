"""RaftNode (minikafka/raft/raft_node.py): hosting, named timers, expiring a timer, appends."""

import random

import pytest

from minikafka.raft import MemoryQuorumStateStore, MemoryReplicatedLog, NotLeaderException
from minikafka.raft.messages import VoteRequest
from minikafka.raft.raft_node import (BEGIN_QUORUM_EPOCH, CHECK_QUORUM, ELECTION_BACKOFF,
                                      ELECTION_TIMEOUT, FETCH_TIMEOUT, FETCH_WAIT, RETRY_BACKOFF,
                                      CommittedRecords, RaftNode)
from tests.raft.harness import CLUSTER_ID, START_MS, TIMING, Simulation, single_node


def stable_leader(seed: int = 3) -> tuple[Simulation, int]:
    sim = Simulation(seed)
    assert sim.run_until(sim.has_stable_leader, 5000)
    return sim, sim.leader()


def test_a_fresh_voter_waits_for_its_election_timeout():
    node = single_node()
    timers = node.timers()
    assert list(timers) == [ELECTION_TIMEOUT]
    election_ms = TIMING.ms("controller.quorum.election.timeout.ms")
    assert node.now + election_ms <= timers[ELECTION_TIMEOUT] < node.now + 2 * election_ms
    assert node.describe_deadline(timers[ELECTION_TIMEOUT]) == ELECTION_TIMEOUT
    assert node.describe_deadline(node.now) == RETRY_BACKOFF    # nothing raft-named is due then


def test_expire_timer_makes_an_unattached_voter_ask_for_pre_votes_now():
    node = single_node()
    assert node.expire_timer() == ELECTION_TIMEOUT
    assert node.client.role == "Prospective" and node.client.epoch == 0
    out, _ = node.drain()
    asked = sorted(e.dst for e in out if isinstance(e.body, VoteRequest) and e.body.pre_vote)
    assert asked == [2, 3]


def test_leader_and_follower_timers_and_the_leader_refuses_to_expire():
    sim, leader = stable_leader()
    leader_node = sim.nodes[leader]
    assert {CHECK_QUORUM, BEGIN_QUORUM_EPOCH} <= set(leader_node.timers())
    assert set(leader_node.timers()) <= {CHECK_QUORUM, BEGIN_QUORUM_EPOCH, FETCH_WAIT,
                                         "append linger"}
    follower = next(n for i, n in sim.nodes.items() if i != leader)
    assert list(follower.timers()) == [FETCH_TIMEOUT]
    with pytest.raises(ValueError, match="is Leader in epoch .*no election or fetch timer"):
        leader_node.expire_timer()


def test_expire_timer_on_a_follower_starts_a_pre_vote_in_the_same_epoch():
    sim, leader = stable_leader()
    follower_id = next(i for i in sim.nodes if i != leader)
    follower = sim.nodes[follower_id]
    epoch = follower.client.epoch
    follower.now = sim.now
    assert follower.expire_timer() == FETCH_TIMEOUT
    assert follower.client.role == "Prospective" and follower.client.epoch == epoch


def test_expire_timer_ends_a_candidates_backoff():
    node = single_node()
    node.expire_timer()
    node.client.quorum.transition_to_candidate(node.now)      # as if the pre-vote had passed
    state = node.client.quorum.state
    state.start_backing_off(node.now, 500)
    assert list(node.timers()) == [ELECTION_BACKOFF]
    assert node.expire_timer() == ELECTION_BACKOFF
    assert node.client.role == "Prospective"                  # backoff over: pre-vote again


def test_append_goes_to_the_leaders_raft_client_only():
    sim, leader = stable_leader()
    node = sim.nodes[leader]
    node.now = sim.now
    end = sim.logs[leader].end_offset
    assert node.append("a", "b") == end + 1
    follower = next(n for i, n in sim.nodes.items() if i != leader)
    with pytest.raises(NotLeaderException, match="not the current leader"):
        follower.append("c")


def test_a_lone_voter_commits_and_its_default_listener_keeps_the_batches():
    node = RaftNode(1, random.Random(1), {1: "CONTROLLER://localhost:9093"},
                    MemoryReplicatedLog(), MemoryQuorumStateStore(), TIMING, CLUSTER_ID)
    node.start(START_MS)
    assert isinstance(node.listener, CommittedRecords)
    assert node.client.role == "Leader"                      # the only voter elects itself
    node.append("a")
    node.poll(START_MS + TIMING.ms("controller.quorum.append.linger.ms"))
    assert [r for b in node.listener.batches if not b.is_control for r in b.records] == ["a"]
    assert node.listener.leader_changes[-1].leader_id == 1
