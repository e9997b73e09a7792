"""Compaction beside loads: the rewrite's rowid mapping (:mod:`.rowid_map`) and the deletes
committed during a compaction carried over onto the files it wrote (:mod:`.carry_over`)."""
