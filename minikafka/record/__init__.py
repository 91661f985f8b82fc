"""Record batches: the bytes Kafka clients send and brokers store (RecordBatch v2).

Layout of this package:

* ``record_batch``     the 61-byte batch header, CRC32C, shallow iteration, broker-side stamping
* ``default_record``   the records inside a batch (decode, and the validation walk)
* ``memory_records``   building batches for the broker's own logs; decoding batches for lessons
* ``compression_type`` codec ids and the broker's choice of codec
* ``byte_utils``       zig-zag varints
"""
