# The two commands of the README: each sets everything up first (idempotent, quick the second time).
.PHONY: setup demo test test-java test-other-lines test-wheel jars

# The Spark-running tests of the other supported lines (the default line, .venv, runs everything).
OTHER_LINES = .venv-spark35 .venv-spark40

setup:
	./scripts/setup.sh

# The main job: an end-to-end pipeline on the embedded default catalog.
demo:
	./scripts/setup.sh
	.venv/bin/python examples/pipeline.py

# Everything CI proves: the JVM module's own tests on every Spark line, the whole suite on the
# default line (real Spark, real Iceberg, real SQLite and PostgreSQL catalogs), then the tests that
# run Spark on every other supported line.
test:
	./scripts/setup.sh --test
	$(MAKE) test-java
	.venv/bin/python -m pytest --durations=30
	$(MAKE) test-other-lines

test-java:
	for profile in spark-4.1 spark-4.0 spark-3.5; do \
	  mvn -q -B -f jvm/pom.xml -P $$profile test || exit 1; \
	done

test-other-lines:
	for venv in $(OTHER_LINES); do \
	  echo "== Spark-running tests on $$($$venv/bin/python -c 'import pyspark; print("PySpark", pyspark.__version__)')"; \
	  $$venv/bin/python -m pytest -m spark $(OTHER_LINE_TESTS) || exit 1; \
	done

# Builds the wheel and sdist, installs the wheel in fresh virtualenvs (PySpark 4.1 and 3.5) without
# javac or Maven on PATH and runs a unique-key load from another folder (not part of `make test`).
test-wheel:
	./scripts/setup.sh --test
	ICEBERG_DORIS_WHEEL_TEST=1 .venv/bin/python -m pytest tests/packaging/test_wheel.py

jars:
	.venv/bin/python -m iceberg_doris.catalog.prefetch
