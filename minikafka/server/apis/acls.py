"""DescribeAcls, CreateAcls and DeleteAcls on a broker without an authorizer.

Theory of operation
-------------------
The sandbox, like a Kafka broker with no ``authorizer.class.name``, has no
ACLs.  Kafka still serves the three ACL APIs and answers every one of them
with SECURITY_DISABLED (54), so ``kafka-acls.sh`` and admin clients print a
clear "Security features are disabled" error instead of failing to connect:

* DescribeAcls: a top-level error, message "No Authorizer is configured on
  the broker", no resources;
* CreateAcls: one result per requested creation, each SECURITY_DISABLED with
  "No Authorizer is configured.";
* DeleteAcls: one filter result per filter, likewise, with no matching ACLs.

In KRaft mode CreateAcls and DeleteAcls are forwarded to the controller, which
gives the same answers; the sandbox answers on the broker directly (the
outcome is identical).

Mirrors ``kafka.server.AclApis`` with ``authorizerPlugin == None``.
"""

from __future__ import annotations

from typing import Any

from minikafka.common.errors import Errors
from minikafka.network.api_keys import CREATE_ACLS, DELETE_ACLS, DESCRIBE_ACLS
from minikafka.network.codec import response_class
from minikafka.network.request_context import RequestContext

NO_AUTHORIZER_ON_BROKER = "No Authorizer is configured on the broker"
NO_AUTHORIZER = "No Authorizer is configured."

_SECURITY_DISABLED = Errors.SECURITY_DISABLED.code


def handle_describe_acls(ctx: RequestContext, request: Any, broker: object) -> Any:
    cls = response_class(DESCRIBE_ACLS)
    return cls(throttle_time_ms=0, error_code=_SECURITY_DISABLED,
               error_message=NO_AUTHORIZER_ON_BROKER, resources=[])


def handle_create_acls(ctx: RequestContext, request: Any, broker: object) -> Any:
    cls = response_class(CREATE_ACLS)
    results = [cls.AclCreationResult(error_code=_SECURITY_DISABLED, error_message=NO_AUTHORIZER)
               for _ in request.creations]
    return cls(throttle_time_ms=0, results=results)


def handle_delete_acls(ctx: RequestContext, request: Any, broker: object) -> Any:
    cls = response_class(DELETE_ACLS)
    results = [cls.DeleteAclsFilterResult(error_code=_SECURITY_DISABLED, error_message=NO_AUTHORIZER,
                                          matching_acls=[])
               for _ in request.filters]
    return cls(throttle_time_ms=0, filter_results=results)
