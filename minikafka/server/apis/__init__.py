"""The broker's request handlers, one module per API family; `minikafka.server.kafka_apis` routes to them."""
