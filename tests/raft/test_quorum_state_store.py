"""The quorum-state file, byte for byte as Kafka 4.x writes it for a static quorum."""

import pytest

from minikafka.raft.quorum_state_store import (ElectionState, FileQuorumStateStore,
                                               MemoryQuorumStateStore, UncheckedIOException,
                                               java_hash_set_order)

VOTERS = frozenset({1001, 1002, 1003})


def test_golden_fresh_node(tmp_path):
    store = FileQuorumStateStore.in_partition_dir(tmp_path / "__cluster_metadata-0")
    store.write_election_state(ElectionState(0, voters=frozenset({1, 2, 3})))
    assert (tmp_path / "__cluster_metadata-0" / "quorum-state").read_bytes() == (
        b'{"clusterId":"","leaderId":-1,"leaderEpoch":0,"votedId":-1,"appliedOffset":0,'
        b'"currentVoters":[{"voterId":1},{"voterId":2},{"voterId":3}],"data_version":0}')


def test_golden_elected_leader(tmp_path):
    store = FileQuorumStateStore(tmp_path / "quorum-state")
    store.write_election_state(ElectionState(3, leader_id=1002, voters=VOTERS))
    assert store.path.read_text() == (
        '{"clusterId":"","leaderId":1002,"leaderEpoch":3,"votedId":-1,"appliedOffset":0,'
        '"currentVoters":[{"voterId":1001},{"voterId":1002},{"voterId":1003}],"data_version":0}')


def test_golden_follower_that_voted(tmp_path):
    store = FileQuorumStateStore(tmp_path / "quorum-state")
    store.write_election_state(ElectionState(7, leader_id=1003, voted_id=1003, voters=VOTERS))
    assert '"leaderId":1003,"leaderEpoch":7,"votedId":1003,' in store.path.read_text()


def test_no_trailing_newline_and_no_leftover_temp_file(tmp_path):
    store = FileQuorumStateStore(tmp_path / "quorum-state")
    store.write_election_state(ElectionState(1, voted_id=1001, voters=VOTERS))
    assert not store.path.read_text().endswith("\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["quorum-state"]


def test_round_trip(tmp_path):
    store = FileQuorumStateStore(tmp_path / "quorum-state")
    state = ElectionState(9, leader_id=None, voted_id=1002, voters=VOTERS)
    store.write_election_state(state)
    assert FileQuorumStateStore(tmp_path / "quorum-state").read_election_state() == state


def test_missing_file_reads_as_none_and_clear_removes_it(tmp_path):
    store = FileQuorumStateStore(tmp_path / "quorum-state")
    assert store.read_election_state() is None
    store.write_election_state(ElectionState(1, voters=VOTERS))
    store.clear()
    assert not store.path.exists()


def test_reads_a_version_1_file(tmp_path):
    path = tmp_path / "quorum-state"
    path.write_text('{"leaderId":-1,"leaderEpoch":2,"votedId":1,'
                    '"votedDirectoryId":"J8aAPcfLQt2bqs1JT_rMgQ","data_version":1}')
    assert FileQuorumStateStore(path).read_election_state() == ElectionState(2, None, 1, frozenset())


@pytest.mark.parametrize("content, cause", [
    ("", "File ended prematurely."),
    ("[1, 2]", "is not an object node"),
    ('{"leaderId":1}', "does not have data_version field"),
    ("{not json", "Expecting property name"),
])
def test_unreadable_files_fail_in_kafkas_words(tmp_path, content, cause):
    path = tmp_path / "quorum-state"
    path.write_text(content)
    with pytest.raises(UncheckedIOException,
                       match=f"Error while reading the Quorum status from the file {path}") as info:
        FileQuorumStateStore(path).read_election_state()
    assert cause in str(info.value.__cause__)


def test_unsupported_data_version_keeps_kafkas_format_slip(tmp_path):
    path = tmp_path / "quorum-state"
    path.write_text('{"leaderEpoch":1,"data_version":2}')
    with pytest.raises(RuntimeError,
                       match=r"data_version \(2\) is not within the min \(0\) and max \(\$d\) supported"):
        FileQuorumStateStore(path).read_election_state()


def test_java_hash_set_order():
    assert java_hash_set_order({1003, 1001, 1002}) == [1001, 1002, 1003]
    assert java_hash_set_order({5, 17, 33}) == [17, 33, 5]      # buckets 1, 1, 5 of 16
    assert java_hash_set_order(set(range(20, 0, -1))) == list(range(1, 21))   # table grew to 32


def test_memory_store_keeps_history():
    store = MemoryQuorumStateStore()
    store.write_election_state(ElectionState(1, voted_id=2))
    store.write_election_state(ElectionState(1, leader_id=2, voted_id=2))
    assert store.read_election_state().leader_id == 2
    assert [s.voted_id for s in store.history] == [2, 2]
    store.clear()
    assert store.read_election_state() is None


def test_election_state_text():
    assert str(ElectionState(2, 1, None, frozenset({2, 1}))) == \
        "Election(epoch=2, leaderId=1, votedId=-1, voters=[1, 2])"


def test_the_file_lives_in_the_nodes_log_directory_and_survives_its_power_loss(tmp_path):
    from minikafka.storage.log_directory import InMemoryLogDirectory
    disk = InMemoryLogDirectory()
    store = FileQuorumStateStore.in_partition_dir(tmp_path / "__cluster_metadata-0", disk)
    store.write_election_state(ElectionState(4, leader_id=1001, voters=VOTERS))
    assert not (tmp_path / "__cluster_metadata-0").exists()          # nothing on the machine
    assert disk.list_dir(str(tmp_path / "__cluster_metadata-0")) == ["quorum-state"]
    disk.lose_power()                                                # written durably (tmp, flush, rename)
    assert store.read_election_state() == ElectionState(4, leader_id=1001, voters=VOTERS)
