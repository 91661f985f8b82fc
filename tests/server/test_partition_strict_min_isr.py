"""Partition: the high watermark under min.insync.replicas (KIP-966's strict min ISR, Kafka 3.7+).

With ELR the rule always holds (see tests/sim/test_eligible_leader_replicas.py); on a
cluster without ELR it follows `STRICT_MIN_ISR_HIGH_WATERMARK` until the lessons move to it.
"""

import pytest

from minikafka.common.errors import Errors
from minikafka.server import partition as partition_module
from tests.sim.test_eligible_leader_replicas import NO_ELR, log_of, make, produce, wait


@pytest.mark.parametrize("strict, high_watermark", [(False, 2), (True, 1)])
def test_an_acks_1_record_under_min_isr_is_committed_only_without_the_strict_rule(monkeypatch, strict,
                                                                                 high_watermark):
    monkeypatch.setattr(partition_module, "STRICT_MIN_ISR_HIGH_WATERMARK", strict)
    cluster, check = make(features=NO_ELR)
    try:
        assert produce(cluster, 1, -1, b"a").error is Errors.NONE
        cluster.shutdown(3)
        cluster.shutdown(2)
        wait(cluster, check, lambda: cluster.isr("fo", 0) == [1])
        assert produce(cluster, 1, 1, b"b").error is Errors.NONE
        cluster.run_for(2000, check)
        assert (log_of(cluster, 1).log_end_offset, log_of(cluster, 1).high_watermark) == (2, high_watermark)
    finally:
        cluster.stop()
