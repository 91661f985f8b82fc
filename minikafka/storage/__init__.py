"""The storage layer: partition logs on disk, as a Kafka 4.x broker lays them out.

Layout of this package (one module per Kafka class):

* ``log_manager``        LogManager: every log in one log dir, checkpoints, retention timers, clean shutdown
* ``unified_log``        UnifiedLog: one partition replica's log over its LocalLog (offsets, high watermark,
                         appends, reads, truncation, retention)
    ``log_append``       ... the checks of its append path (leader / follower / KRaft leader), as functions
    ``log_retention``    LogRetention: which segments retention deletes (retention.ms, retention.bytes, log start)
* ``log_loader``         LogLoader: loading a partition directory, crash recovery
* ``local_log``          LocalLog and ``log_segments`` LogSegments: the chain of segments
* ``log_segment``        LogSegment: one .log file and its two indexes; ``file_records`` FileRecords: the .log
* ``offset_index``, ``time_index``, ``abstract_index``: the .index and .timeindex files
* ``log_validator``      LogValidator: checks on produced batches, offset assignment
* ``leader_epoch_file_cache``: epochs and their start offsets (leader-epoch-checkpoint)
* ``producer_state_manager``, ``producer_append_info``, ``producer_state_entry``: idempotent producers
* ``checkpoint_file``, ``partition_metadata_file``, ``clean_shutdown_file_handler``, ``meta_properties``:
  the small text files of a data directory
* ``log_file_utils``     file and directory names; ``fetch_data_info``, ``log_append_info``: results
* ``log_config``         LogConfig: the typed topic settings storage reads
"""
