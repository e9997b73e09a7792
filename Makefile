# The two commands of the README: each sets everything up first (idempotent, quick the second time).
.PHONY: setup demo test test-wheel jars

setup:
	./scripts/setup.sh

# The main job: an end-to-end pipeline on the embedded default catalog.
demo:
	./scripts/setup.sh
	.venv/bin/python examples/pipeline.py

# The whole test suite (real Spark, real Iceberg, real SQLite and PostgreSQL catalogs).
test:
	./scripts/setup.sh --test
	.venv/bin/python -m pytest --durations=30

# Builds the wheel and sdist, installs the wheel in a fresh virtualenv without javac/jarjar on PATH
# and runs a unique-key load from another folder (~7 minutes; not part of `make test`).
test-wheel:
	./scripts/setup.sh --test
	ICEBERG_DORIS_WHEEL_TEST=1 .venv/bin/python -m pytest tests/packaging/test_wheel.py

jars:
	.venv/bin/python -c "from iceberg_doris.catalog.runtime_jars import main; main()"
