"""Feature templates (text tables, compiled once) and the compiled hashed-feature extractor.

>>> table = default_table("covington-nm")        # or compile_table(text, "covington-nm"),
>>>                                              # or table_from_file(path, "covington-nm")
>>> out_t, out_l = new_outputs(table.program)
>>> words = word_matrix(vocabularies.encode(sentence), vocabularies)
>>> extract(system_id, state, table.program, words, out_t, out_l)
"""

from arcwise.features.extract import extract, new_outputs
from arcwise.features.templates import (
    FeatureProgram,
    FeatureTable,
    compile_table,
    default_table,
    default_text,
    table_from_file,
)
from arcwise.features.words import WORD_COLUMNS, batch_matrix, word_matrix

__all__ = [
    "WORD_COLUMNS",
    "batch_matrix",
    "word_matrix",
    "FeatureProgram",
    "FeatureTable",
    "compile_table",
    "default_table",
    "default_text",
    "extract",
    "table_from_file",
    "new_outputs",
]
