# common.R -- helpers shared by the rpart tooling scripts in tools/rpart/.
# Sourced by make_rpart_golden.R, verify_semantics.R and cv_accuracy.R; not
# meant to be run on its own.

suppressPackageStartupMessages({
  library(rpart)
  library(jsonlite)
})
invisible(Sys.setlocale("LC_ALL", "C.UTF-8"))
options(stringsAsFactors = FALSE, warn = 1)

# All random numbers come from R's Mersenne-Twister with inversion normals and
# rejection sampling, seeded explicitly, so results do not depend on the
# caller's RNG state or on R's default RNG kind.
seed_rng <- function(seed) {
  RNGkind(kind = "Mersenne-Twister", normal.kind = "Inversion", sample.kind = "Rejection")
  set.seed(seed)
}

# Level order used everywhere: the distinct non-missing strings sorted by
# Unicode code point (radix sort = C-locale byte order, which for UTF-8 is
# code point order).  Python's sorted() on str gives the same order.
sorted_levels <- function(x) sort(unique(x[!is.na(x)]), method = "radix")

# CSV conventions: UTF-8, header row, comma separated, no quoting, an empty
# cell is a missing value and nothing else is.
read_table_csv <- function(path) {
  read.csv(path, check.names = FALSE, colClasses = "character",
           na.strings = "", encoding = "UTF-8", fileEncoding = "UTF-8")
}

# Numbers are written with as.character() (at most 15 significant digits);
# fits always use the values read back from the CSV.
write_table_csv <- function(df, path) {
  out <- df
  for (nm in names(out)) {
    v <- out[[nm]]
    if (is.factor(v)) v <- as.character(v)
    if (is.numeric(v)) v <- ifelse(is.na(v), NA, as.character(v))
    out[[nm]] <- v
  }
  write.table(out, path, sep = ",", row.names = FALSE, col.names = TRUE,
              quote = FALSE, na = "", fileEncoding = "UTF-8", eol = "\n")
}

# Deterministic balanced k-fold ids: a seeded permutation puts row perm[j] in
# fold ((j - 1) mod k) + 1.
make_folds <- function(n, seed, k = 10L) {
  seed_rng(seed)
  perm <- sample.int(n)
  folds <- integer(n)
  folds[perm] <- ((seq_len(n) - 1L) %% k) + 1L
  folds
}

read_folds <- function(path) {
  f <- as.integer(readLines(path, warn = FALSE))
  if (anyNA(f)) stop("non-integer fold id in ", path)
  f
}

# Type the all-character frame: categorical columns become factors with
# sorted_levels(), the others numeric.  'categorical' names the categorical
# columns; the target is categorical iff method == "class".
type_columns <- function(raw, target, method, categorical) {
  df <- raw
  for (nm in names(df)) {
    if (nm %in% categorical || (nm == target && method == "class")) {
      df[[nm]] <- factor(df[[nm]], levels = sorted_levels(df[[nm]]))
    } else {
      v <- suppressWarnings(as.numeric(df[[nm]]))
      if (any(is.na(v) & !is.na(df[[nm]])))
        stop("column '", nm, "' has non-numeric values; declare it categorical")
      df[[nm]] <- v
    }
  }
  df
}

# Columns whose non-missing values do not all parse as numbers.
guess_categorical <- function(raw) {
  names(raw)[vapply(raw, function(v) {
    v <- v[!is.na(v)]
    any(is.na(suppressWarnings(as.numeric(v))))
  }, logical(1))]
}

# Formula 'target ~ .' with backticks, so non-ASCII names work.
target_formula <- function(target) as.formula(paste0("`", target, "` ~ ."))

# The 1-SE rule on an rpart cptable: the first (fewest splits) row whose
# xerror is <= min(xerror) + xstd at the (first) minimum.
one_se_row <- function(cpt) {
  if (!("xerror" %in% colnames(cpt))) return(1L)
  imin <- which.min(cpt[, "xerror"])
  min(which(cpt[, "xerror"] <= cpt[imin, "xerror"] + cpt[imin, "xstd"]))
}
