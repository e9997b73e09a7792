package io.icebergdoris.keyindex;

/** Where a probed file's entry came from. */
enum EntrySource {
  CACHED,
  READ,
  BUILT
}
