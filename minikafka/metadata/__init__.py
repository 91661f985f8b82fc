"""KRaft metadata: the records of ``__cluster_metadata`` and the image they build.

* `records`: one frozen dataclass per metadata record type (Kafka's names,
  API keys, versions and defaults), each with ``to_json()``;
* `serde`: the bytes Kafka stores for a record (``serialize``/``deserialize``);
* `image`: the immutable `MetadataImage` every node holds;
* `delta`: `MetadataDelta`, which replays records and applies them to an image;
  `topics_delta`: `TopicsDelta.local_changes` for a broker's ReplicaManager;
* `describe`: one-line sentences for lessons that print the log.
"""

from minikafka.metadata.delta import MetadataDelta, replay_all
from minikafka.metadata.image import EMPTY_IMAGE, MetadataImage, MetadataProvenance

__all__ = ["MetadataDelta", "MetadataImage", "MetadataProvenance", "EMPTY_IMAGE", "replay_all"]
