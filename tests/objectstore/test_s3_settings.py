"""Where an s3:// session's settings come from: the standard AWS variables, never a credential."""

from __future__ import annotations

import pytest

from iceberg_doris.lake.settings import CatalogSettings
from iceberg_doris.spark_session.s3_conf import S3A_EXCLUDES, pyspark_hadoop_version, s3_jars, s3_spark_conf
from iceberg_doris.spark_session.spark_lines import SUPPORTED

AWS = ("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in AWS:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_an_s3_compatible_endpoint_from_the_environment_means_path_style_and_a_signing_region(aws, tmp_path) -> None:
    aws.setenv("AWS_ENDPOINT_URL", "http://fallback:1")
    aws.setenv("AWS_ENDPOINT_URL_S3", "http://store.local:9000")
    aws.setenv("AWS_ACCESS_KEY_ID", "key-id")
    aws.setenv("AWS_SECRET_ACCESS_KEY", "the-secret")
    settings = CatalogSettings.resolve(home=tmp_path, warehouse="s3://lake/wh")
    conf = s3_spark_conf(settings.name, settings.s3, hadoop_version="3.4.2")
    assert conf["spark.sql.catalog.iceberg.io-impl"] == "org.apache.iceberg.aws.s3.S3FileIO"
    assert conf["spark.sql.catalog.iceberg.s3.endpoint"] == conf["spark.hadoop.fs.s3a.endpoint"] == "http://store.local:9000"
    assert conf["spark.sql.catalog.iceberg.s3.path-style-access"] == conf["spark.hadoop.fs.s3a.path.style.access"] == "true"
    assert conf["spark.sql.catalog.iceberg.client.region"] == conf["spark.hadoop.fs.s3a.endpoint.region"] == "us-east-1"
    assert conf["spark.hadoop.fs.s3a.connection.ssl.enabled"] == "false"
    # Credentials stay with each SDK's default chain: nothing we write holds them.
    assert not any(value in ("key-id", "the-secret") for value in conf.values())
    properties = settings.pyiceberg_properties()
    assert {k: properties[k] for k in ("s3.endpoint", "s3.region", "s3.force-virtual-addressing")} == {
        "s3.endpoint": "http://store.local:9000", "s3.region": "us-east-1", "s3.force-virtual-addressing": "false",
    }
    assert "the-secret" not in repr(settings) and "the-secret" not in str(properties)


def test_aws_s3_itself_keeps_virtual_hosts_and_the_region_of_the_environment(aws, tmp_path) -> None:
    aws.setenv("AWS_DEFAULT_REGION", "eu-west-1")
    settings = CatalogSettings.resolve(home=tmp_path, warehouse="s3a://lake/wh")
    conf = s3_spark_conf(settings.name, settings.s3, hadoop_version="3.4.2")
    assert "spark.sql.catalog.iceberg.s3.endpoint" not in conf and "spark.hadoop.fs.s3a.endpoint" not in conf
    assert conf["spark.hadoop.fs.s3a.path.style.access"] == "false"
    assert conf["spark.sql.catalog.iceberg.client.region"] == "eu-west-1"
    assert settings.s3.describe() == "AWS S3 (eu-west-1)"


def test_other_warehouses_get_no_s3_settings(aws, tmp_path) -> None:
    aws.setenv("AWS_ENDPOINT_URL_S3", "http://store.local:9000")
    settings = CatalogSettings.resolve(home=tmp_path)
    assert settings.s3 is None
    assert not any(key.startswith("s3.") for key in settings.pyiceberg_properties())


def test_the_s3_jars_follow_the_line_and_the_hadoop_of_pyspark() -> None:
    line = SUPPORTED[0]
    jars = s3_jars(line, hadoop="3.4.2")
    assert jars.packages[:2] == (f"org.apache.iceberg:iceberg-aws-bundle:{line.iceberg}", "org.apache.hadoop:hadoop-aws:3.4.2")
    assert jars.excludes == S3A_EXCLUDES and "software.amazon.awssdk:bundle" in jars.excludes
    # Hadoop 3.3's s3a is on the AWS SDK v1: hadoop-aws brings its own, nothing is left out.
    assert s3_jars(line, hadoop="3.3.4").excludes == ()
    assert pyspark_hadoop_version().count(".") == 2
