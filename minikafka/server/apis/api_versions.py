"""The ApiVersions handler: the first request on every client connection (KIP-35, KIP-511).

Theory of operation
-------------------
The answer is a pure function of the broker's advertised table, its
supported feature ranges and the cluster's finalized feature levels:

* a version the broker does not know (a newer client) is answered in the v0
  format with UNSUPPORTED_VERSION and a single entry, the ApiVersions range
  itself, so the client retries at the highest version both know;
* v3+ requests whose ``client_software_name``/``client_software_version`` do
  not match Kafka's pattern get INVALID_REQUEST, at the request's version;
* otherwise: error 0, every advertised ``(api_key, min, max)`` in key order,
  ``throttle_time_ms`` 0, and from v3 on the feature fields: supported
  features (without those whose minimum is 0 when the request is below v4,
  KAFKA-17492), the finalized features epoch, the finalized levels (level 0
  left out) and ``zk_migration_ready`` false (there is no ZooKeeper in 4.x).

What the handler needs of the broker (`ApiVersionsBroker`): ``finalized_features()``,
a `FinalizedFeatures` read from the broker's metadata image.

Mirrors ``KafkaApis.handleApiVersionsRequest``, ``ApiVersionsRequest.getErrorResponse``
and ``ApiVersionsResponse.Builder``.  Simplified: feature entries are listed by
name (Kafka lists them in ``HashMap`` order).
"""

from __future__ import annotations

from typing import Any, Mapping, Protocol

from minikafka.common.errors import Errors
from minikafka.network.api_keys import API_VERSIONS
from minikafka.network.api_versions import (ADVERTISED_API_VERSIONS, FinalizedFeatures,
                                            supported_feature_keys)
from minikafka.network.codec import response_class
from minikafka.network.request_context import RequestContext, is_valid_client_software

ApiVersionsResponse = response_class(API_VERSIONS)


class ApiVersionsBroker(Protocol):
    def finalized_features(self) -> FinalizedFeatures:
        """The feature levels of the broker's metadata image, with the offset they were read at."""
        ...


def handle_api_versions(ctx: RequestContext, request: Any, broker: ApiVersionsBroker,
                        advertised: Mapping[int, tuple[int, int]] = ADVERTISED_API_VERSIONS) -> Any:
    """Answer an ApiVersions request (``request`` is kafka-python's ApiVersionsRequest)."""
    low, high = advertised[API_VERSIONS]
    if not low <= ctx.api_version <= high:
        return unsupported_version_response(low, high)
    if ctx.api_version >= 3 and not is_valid_client_software(request.client_software_name,
                                                             request.client_software_version):
        return ApiVersionsResponse(error_code=Errors.INVALID_REQUEST.code, throttle_time_ms=0)
    return api_versions_response(ctx.api_version, broker.finalized_features(), advertised)


def unsupported_version_response(low: int, high: int) -> Any:
    """The v0-format answer to an ApiVersions version the broker does not know."""
    entry = ApiVersionsResponse.ApiVersion(api_key=API_VERSIONS, min_version=low, max_version=high)
    return ApiVersionsResponse(error_code=Errors.UNSUPPORTED_VERSION.code, api_keys=[entry])


def api_versions_response(version: int, features: FinalizedFeatures,
                          advertised: Mapping[int, tuple[int, int]] = ADVERTISED_API_VERSIONS) -> Any:
    """The successful ApiVersions response for a request of ``version``."""
    api_keys = [ApiVersionsResponse.ApiVersion(api_key=key, min_version=low, max_version=high)
                for key, (low, high) in sorted(advertised.items())]
    if version < 3:
        return ApiVersionsResponse(error_code=0, api_keys=api_keys, throttle_time_ms=0)
    supported = [ApiVersionsResponse.SupportedFeatureKey(name=name, min_version=low, max_version=high)
                 for name, low, high in supported_feature_keys(version)]
    finalized = [ApiVersionsResponse.FinalizedFeatureKey(name=name, max_version_level=level,
                                                         min_version_level=level)
                 for name, level in features.finalized_keys()]
    return ApiVersionsResponse(error_code=0, api_keys=api_keys, throttle_time_ms=0,
                               supported_features=supported,
                               finalized_features_epoch=features.epoch,
                               finalized_features=finalized, zk_migration_ready=False)
