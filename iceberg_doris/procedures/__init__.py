"""The ``doris.*`` procedures (the design card's ``procedures/``): one module per procedure.

``CALL doris.swap_temp_partition(...)`` is ``procedures/swap_temp_partition.py`` is
``SwapTempPartitionProcedure``. Importing this package registers every procedure; the Python
entry points are in :mod:`iceberg_doris.doris`; ``CALL doris.*`` reaches them through
:mod:`iceberg_doris.entry.bridge`.
"""

# Importing each procedure module registers it.
from iceberg_doris.procedures import (  # noqa: F401
    add_partition,
    add_temp_partition,
    auto_compact,
    changes,

    check,
    cleanup,
    compact,
    create_table,
    delete,
    describe,
    drop_partition,
    drop_temp_partition,
    enable_feature,
    help,
    insert_overwrite,
    load,
    recover_partition,
    rename_partition,
    replace_partition,
    replace_table,
    run_dynamic_partition,
    set_properties,
    show_partitions,
    swap_temp_partition,
    truncate,
)
from iceberg_doris.procedures.invocation import run_procedure
from iceberg_doris.procedures.registry import OutputColumn, Parameter, Procedure, all_procedures, get_procedure

__all__ = [
    "OutputColumn",
    "Parameter",
    "Procedure",
    "all_procedures",
    "get_procedure",
    "run_procedure",
]
