"""``ProducerIdControlManager``: hands out blocks of producer ids.

Theory of operation
-------------------
Idempotent and transactional producers need cluster-unique producer ids.
Brokers do not invent them: a broker asks the controller for a block with
AllocateProducerIds, then serves InitProducerId requests from that block.
The controller gives out blocks of 1000 consecutive ids, starting at 0, and
records each allocation as a ``ProducerIdsRecord`` whose ``next_producer_id``
is the first id of the *next* block, so after a failover the new controller
continues where the old one stopped and no id is ever handed out twice.

Mirrors ``org.apache.kafka.controller.ProducerIdControlManager`` and
``ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE`` (Kafka 4.x), with its error text.
"""

from __future__ import annotations

from minikafka.common.errors import UnknownServerException
from minikafka.controller.cluster_control_manager import ClusterControlManager
from minikafka.controller.controller_result import ControllerResult
from minikafka.controller.requests import AllocateProducerIdsRequest, AllocateProducerIdsResponse
from minikafka.metadata.image import MetadataImage
from minikafka.metadata.records import ProducerIdsRecord

PRODUCER_ID_BLOCK_SIZE = 1000
_MAX_LONG = 2**63 - 1


class ProducerIdControlManager:
    @staticmethod
    def generate_next_producer_id(image: MetadataImage, request: AllocateProducerIdsRequest
                                  ) -> ControllerResult[AllocateProducerIdsResponse]:
        ClusterControlManager.check_broker_epoch(image, request.broker_id, request.broker_epoch)
        first = max(0, image.producer_ids.next_producer_id)   # -1 in a new cluster: start at 0
        if first > _MAX_LONG - PRODUCER_ID_BLOCK_SIZE:
            raise UnknownServerException("Exhausted all producerIds as the next block's end producerId "
                                         "has exceeded the int64 type limit")
        record = ProducerIdsRecord(broker_id=request.broker_id, broker_epoch=request.broker_epoch,
                                   next_producer_id=first + PRODUCER_ID_BLOCK_SIZE)
        response = AllocateProducerIdsResponse(producer_id_start=first, producer_id_len=PRODUCER_ID_BLOCK_SIZE)
        return ControllerResult((record,), response)
