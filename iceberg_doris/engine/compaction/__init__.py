"""Compaction beside loads: the order-keeping rewrite and its per-file mapping
(:mod:`.ordered_rewrite`), the scan rewrite's row pairing for files it cannot copy
(:mod:`.rowid_map`), and the deletes committed during a compaction carried over onto the files it
wrote (:mod:`.carry_over`)."""
