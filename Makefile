# The two commands of the README: each sets everything up first (idempotent, quick the second time).
.PHONY: setup demo test test-java test-other-lines test-wheel jars python-api

# Known gap of the Spark 4 lines (README, "Compatibility"): the default line skips it, Spark 3.5
# runs it. A key rename read by the scan lookup (key index off) trips Iceberg's filter binding on
# time travel.
SPARK4_GAPS = tests/procedures/test_sequence_table_renames.py
# What the other lines run within CI's time: the tests of what differs by line (the CALL bridge,
# argument binding, Spark statements on Doris tables, which upsert, delete and aggregate through the
# JVM engine, session settings, the format("doris") streaming sink's progress metrics), and the keyed
# loads that reach each line's Iceberg writers and readers: deletion vectors, v2 position deletes,
# rows read by position for partial and aggregate loads, tombstones, compaction. The rest of
# test_keyed_loads.py is Python logic the default line proves. Spark 3.5 also runs the gap above,
# the bad-input catalogue (its errors come from Spark 3.5's own exception classes), the loopback
# listeners, its own entry points, local-cluster masters and the spark-sql door; 4.0 shares 4.1's
# Spark 4 exception classes, listeners and launcher, so the default line's run covers those. The
# CLI's output is Python over spark.sql, the same on every line: the default line proves it.
KEYED = tests/procedures/test_keyed_loads.py
# UPDATE ... FROM: what each line parses its own way (Spark 4's injected parser, Spark 3.5's
# DorisCallParser): the statement, WITH before it, EXPLAIN and parse errors, and statements passed
# through untouched. Its refusals and load rules are Python the default line proves.
UPDATE_FROM = tests/procedures/test_update_from.py
UPDATE_FROM_LINE_TESTS = $(UPDATE_FROM)::test_doris_complex_update_and_update_by_alias \
	$(UPDATE_FROM)::test_a_cte_before_a_plain_update_runs_it_as_doris_does \
	$(UPDATE_FROM)::test_explain_and_parse_errors_point_at_the_statement $(UPDATE_FROM)::test_other_statements_reach_spark_untouched
LINE_TESTS = tests/entry/test_call_bridge.py tests/procedures/test_argument_values.py tests/procedures/test_spark_statements.py \
	tests/procedures/test_merge_into.py $(UPDATE_FROM_LINE_TESTS) \
	$(KEYED)::test_upserts_replace_rows_with_deletion_vectors_only $(KEYED)::test_format_v2_tables_get_position_delete_files \
	$(KEYED)::test_partial_column_update $(KEYED)::test_aggregate_table_merges_each_load $(KEYED)::test_sequence_delete_tombstones \
	$(KEYED)::test_compact_drops_deleted_rows_and_keeps_young_tombstones \
	tests/spark_session/test_session_defaults.py \
	tests/streaming/test_doris_format_sink.py::test_a_strict_mode_batch_reports_its_filtered_row_which_goes_to_error_rows
SPARK35_TESTS = $(SPARK4_GAPS) $(LINE_TESTS) tests/procedures/test_bad_inputs.py tests/spark_session/test_loopback_listeners.py \
	tests/packaging/test_session_entry_points.py tests/packaging/test_local_cluster.py tests/doors/test_spark_sql.py

setup:
	./scripts/setup.sh

# The main job: an end-to-end pipeline on the embedded default catalog.
demo:
	./scripts/setup.sh
	.venv/bin/python examples/pipeline.py

# Everything CI proves: the JVM module's own tests on every Spark line, the whole suite on the
# default line (real Spark, real Iceberg, real SQLite and PostgreSQL catalogs) but its known gaps,
# then the gaps and the line-sensitive tests on Spark 3.5 and 4.0. Each pytest runs in two worker
# processes (one Spark session each; tests/conftest.py says why), test files kept whole.
WORKERS = -n 2 --dist loadfile

test:
	./scripts/setup.sh --test
	$(MAKE) test-java
	.venv/bin/python -m pytest $(WORKERS) --durations=30 $(addprefix --ignore=,$(SPARK4_GAPS))
	$(MAKE) test-other-lines

test-java:
	for profile in spark-4.1 spark-4.0 spark-3.5; do \
	  mvn -q -B -f jvm/pom.xml -P $$profile test || exit 1; \
	done

test-other-lines:
	.venv-spark40/bin/python -m pytest $(WORKERS) -m spark $(LINE_TESTS)
	.venv-spark35/bin/python -m pytest $(WORKERS) $(SPARK35_TESTS)

# Builds the wheel and sdist, installs the wheel in fresh virtualenvs (PySpark 4.1 and 3.5) without
# javac or Maven on PATH and runs a unique-key load from another folder (not part of `make test`).
test-wheel:
	./scripts/setup.sh --test
	ICEBERG_DORIS_WHEEL_TEST=1 .venv/bin/python -m pytest tests/packaging/test_wheel.py

jars:
	.venv/bin/python -m iceberg_doris.spark_session.prefetch

# Rewrites iceberg_doris/doris.py (every procedure as a Python function) from the procedure registry,
# after a procedure, parameter, default or doc changed; tests/procedures/test_python_api.py checks it.
python-api:
	.venv/bin/python -m iceberg_doris.procedures.render_python_api
