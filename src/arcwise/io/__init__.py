"""Reading and writing treebanks (CoNLL-U, CoNLL-X), atomically."""
