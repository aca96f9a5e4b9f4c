"""Stage 1 of the pipeline: user input -> what the engine reads.

    tables   DataFrames, arrays and lists of rows; column names
    values   the cells of one column (missing markers, numbers)
    codes    a categorical column -> integer codes, factorised once (no per-cell work)
    schema   column kinds and categories, learnt at fit
    encode   a table -> one float64 matrix (category codes, NaN = missing)
    target   class labels -> codes, regression targets, sample weights
    files    data files (CSV, TSV, ARFF, Parquet) -> a DataFrame, for the command line and users
    delimited  CSV / TSV: missing markers, the separator, numbers of another decimal convention
    compressed .gz, .bz2, .xz, .zip, .tar: the decompressed bytes of a data file
"""
