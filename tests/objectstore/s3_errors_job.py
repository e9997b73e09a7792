"""What a user sees when the S3 server refuses the credentials of a session's first table access.

Run by ``test_s3_lifecycle.py`` as ``python s3_errors_job.py HOME BUCKET OUT.json`` with the
standard AWS variables naming the test's server and a secret it does not accept. Writes the
message of the error to OUT.json.
"""

from __future__ import annotations

import json
import os
import sys

import iceberg_doris
from iceberg_doris import doris
from iceberg_doris.errors import DorisError


def main(home: str, bucket: str, out: str) -> None:
    messages: dict[str, str] = {}
    spark = iceberg_doris.session(home=home, warehouse=f"s3://{bucket}/wh", progress=False)
    spark.sql("CREATE NAMESPACE lc")
    try:  # the table's first metadata file is the first request under the wrong secret
        doris.create_table(spark, ddl="CREATE TABLE lc.t (k BIGINT NOT NULL, v BIGINT) UNIQUE KEY(k) "
                           "DISTRIBUTED BY HASH(k) BUCKETS 1")
    except DorisError as error:
        messages["create_table"] = f"{type(error).__name__}: {error}"
    with open(out, "w") as handle:
        json.dump(messages, handle)
    spark.stop()


if __name__ == "__main__":
    main(*sys.argv[1:4])
    os._exit(0)
