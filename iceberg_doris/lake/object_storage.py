"""Where an ``s3://`` warehouse's objects are served, from the places every AWS client reads.

Tables on S3 or an S3-compatible store (MinIO, Ceph, SeaweedFS, S3Proxy, ...) need an endpoint,
a region and credentials. The endpoint and region come from the AWS SDKs' own environment
variables (``AWS_ENDPOINT_URL_S3``, then ``AWS_ENDPOINT_URL``; ``AWS_REGION``, then
``AWS_DEFAULT_REGION``); credentials are never read here: each engine's AWS SDK finds them in its
default chain (``AWS_ACCESS_KEY_ID``/``AWS_SECRET_ACCESS_KEY``, ``AWS_PROFILE`` and the shared
credentials file, instance roles), so no secret is ever part of a setting we write.

A custom endpoint means an S3-compatible server: requests use path-style addressing
(``http://host/bucket/key``), which they all serve, and the region defaults to ``us-east-1``
(the SDKs need one to sign with). Spark's ``conf`` and pyiceberg's own properties override both.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from urllib.parse import urlsplit

S3_SCHEMES = ("s3", "s3a")
ENDPOINT_ENVS = ("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL")
REGION_ENVS = ("AWS_REGION", "AWS_DEFAULT_REGION")
COMPATIBLE_STORE_REGION = "us-east-1"


@dataclass(frozen=True)
class S3Location:
    """How to reach the S3 service of a warehouse: endpoint (None: AWS's own), region (None: the
    SDK's chain decides), path-style addressing."""

    endpoint: str | None
    region: str | None
    path_style: bool

    @classmethod
    def from_environment(cls) -> "S3Location":
        endpoint = _first_env(ENDPOINT_ENVS)
        region = _first_env(REGION_ENVS)
        if endpoint is not None and region is None:
            region = COMPATIBLE_STORE_REGION
        return cls(endpoint=endpoint, region=region, path_style=endpoint is not None)

    def describe(self) -> str:
        """The endpoint in words, for messages (no credential is part of it)."""
        return self.endpoint or f"AWS S3{f' ({self.region})' if self.region else ''}"

    def pyiceberg_properties(self) -> dict[str, str]:
        """pyiceberg's S3 settings: its FileIO (pyarrow's S3 filesystem) takes credentials from the
        same default chain."""
        properties: dict[str, str] = {}
        if self.endpoint is not None:
            properties["s3.endpoint"] = self.endpoint
            properties["s3.force-virtual-addressing"] = str(not self.path_style).lower()
        if self.region is not None:
            properties["s3.region"] = self.region
        return properties


def is_s3(uri: str) -> bool:
    """Whether a warehouse or file URI is on S3 (``s3://``, ``s3a://``)."""
    return urlsplit(uri).scheme.lower() in S3_SCHEMES


def _first_env(names: tuple[str, ...]) -> str | None:
    for name in names:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    return None
