from kafka.protocol.parser import KafkaProtocol

from minikafka.network.codec import decode_request, encode_response, request_class
from minikafka.server.kafka_apis import dispatch
from minikafka.network.request_context import RequestContext


def answer(request):
    client = KafkaProtocol(client_id="adminclient-1")
    client.send_request(request)
    decoded = decode_request(bytes(client.send_bytes())[4:])
    ctx = RequestContext("c", "h", "PLAINTEXT", decoded.api_key, decoded.api_version,
                         decoded.correlation_id, decoded.client_id)
    [(_, response)] = client.receive_bytes(encode_response(decoded, dispatch(ctx, decoded, None)))
    return response


def test_describe_acls_without_an_authorizer():
    response = answer(request_class(29)[3](resource_type_filter=1, pattern_type_filter=1,
                                           operation=1, permission_type=1))
    assert (response.error_code, response.error_message) == (54, "No Authorizer is configured on the broker")
    assert response.resources == []


def test_create_acls_answers_every_creation():
    cls = request_class(30)
    creation = cls.AclCreation(resource_type=2, resource_name="t", resource_pattern_type=3,
                               principal="User:alice", host="*", operation=3, permission_type=3)
    response = answer(cls[3](creations=[creation, creation]))
    assert [(r.error_code, r.error_message) for r in response.results] == \
        [(54, "No Authorizer is configured.")] * 2


def test_delete_acls_answers_every_filter():
    cls = request_class(31)
    acl_filter = cls.DeleteAclsFilter(resource_type_filter=1, pattern_type_filter=1,
                                      operation=1, permission_type=1)
    response = answer(cls[2](filters=[acl_filter]))
    assert [(r.error_code, r.error_message, r.matching_acls) for r in response.filter_results] == \
        [(54, "No Authorizer is configured.", [])]
