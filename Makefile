# The two commands of the README: each sets everything up first (idempotent, quick the second time).
.PHONY: setup demo test jars

setup:
	./scripts/setup.sh

# The main job: an end-to-end pipeline on the embedded default catalog.
demo:
	./scripts/setup.sh
	.venv/bin/python examples/pipeline.py

# The whole test suite (real Spark, real Iceberg, real SQLite and PostgreSQL catalogs).
test:
	./scripts/setup.sh --test
	.venv/bin/python -m pytest

jars:
	.venv/bin/python -c "from iceberg_doris.catalog.runtime_jars import main; main()"
