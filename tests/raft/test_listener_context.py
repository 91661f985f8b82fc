"""ListenerContext: committed batches in order and once; leader changes when news."""

from minikafka.raft.listener_context import ListenerContext
from minikafka.raft.quorum_state import LeaderAndEpoch
from minikafka.raft.replicated_log import MemoryReplicatedLog


class Recorder:
    def __init__(self):
        self.commits, self.leaders = [], []

    def handle_commit(self, batch):
        self.commits.append(batch.base_offset)

    def handle_leader_change(self, leader):
        self.leaders.append(leader)


def make_log():
    log = MemoryReplicatedLog()
    for i in range(4):
        log.append_as_leader([f"r{i}", f"s{i}"], 1, now=0)    # batches at 0, 2, 4, 6
    return log


def test_delivers_whole_batches_below_the_high_watermark_once():
    recorder, log = Recorder(), make_log()
    context = ListenerContext(recorder, 0)
    context.deliver_committed(log, 3)          # offset 3 is not committed, so batch 2-3 waits
    assert recorder.commits == [0]
    context.deliver_committed(log, 6)
    assert recorder.commits == [0, 2, 4]
    context.deliver_committed(log, 6)
    assert recorder.commits == [0, 2, 4]
    context.deliver_committed(log, 100)
    assert recorder.commits == [0, 2, 4, 6] and context.next_offset == 8


def test_leader_change_fires_on_news_only():
    recorder = Recorder()
    context = ListenerContext(recorder, 0)
    context.maybe_fire_leader_change(LeaderAndEpoch(None, 1))
    context.maybe_fire_leader_change(LeaderAndEpoch(None, 1))
    context.maybe_fire_leader_change(LeaderAndEpoch(2, 1))
    context.maybe_fire_leader_change(LeaderAndEpoch(None, 1))   # not news: older knowledge
    assert recorder.leaders == [LeaderAndEpoch(None, 1), LeaderAndEpoch(2, 1)]


def test_local_leadership_waits_until_the_epoch_start_was_consumed():
    recorder, log = Recorder(), make_log()
    context = ListenerContext(recorder, 0)
    context.maybe_fire_leader_change(LeaderAndEpoch(1, 2), epoch_start_offset=6)
    assert recorder.leaders == []
    context.deliver_committed(log, 8)
    context.maybe_fire_leader_change(LeaderAndEpoch(1, 2), epoch_start_offset=6)
    assert recorder.leaders == [LeaderAndEpoch(1, 2)]
