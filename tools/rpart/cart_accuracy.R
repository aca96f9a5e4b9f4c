#!/usr/bin/env Rscript
# cart_accuracy.R -- rpart's 1-SE trees scored on given outer folds, for
# benchmarks/cart_accuracy.py (which writes the spec, runs this script with
# --peers and stores the result, so the benchmark itself needs no R).
#
# Usage:
#   Rscript tools/rpart/cart_accuracy.R --spec SPEC.json --json OUT.json
#
# SPEC.json: {"seed_base": S, "datasets": [{"name", "csv", "target", "method"
# ("class" or "anova"), "columns": [{"name", "kind" ("numeric", "nominal",
# "ordered"), "levels"}], "folds": [[fold id per CSV row] per repetition]}]}.
# The CSV follows common.R's conventions (empty cell = missing, nothing else).
# Nominal columns become factors with the given levels (ordered factors for
# "ordered"); a class target keeps the given levels that occur in the file.
#
# For repetition r and fold k: train = rows with fold != k (file order), test =
# rows with fold == k; seed_rng(S + 10 r + k) (rpart draws its inner groups at
# random); fit = rpart(target ~ ., method, control = rpart.control()), the
# defaults: minsplit 20, minbucket 7, cp 0.01, maxcompete 4, maxsurrogate 5,
# usesurrogate 2, surrogatestyle 0, xval 10, maxdepth 30; pruned at the CP of
# the 1-SE row (the first row with xerror <= min xerror + its xstd, one_se_row()
# in common.R); predict(type = "class") or the fitted mean for the test rows.
# OUT.json: per data set and repetition, every row's prediction and each fold
# tree's leaf count.

a <- commandArgs(trailingOnly = FALSE)
tool_dir <- dirname(normalizePath(sub("^--file=", "", a[grep("^--file=", a)][1L])))
source(file.path(tool_dir, "common.R"))

args <- commandArgs(trailingOnly = TRUE)
get_opt <- function(name) {
  i <- match(name, args)
  if (is.na(i) || i == length(args)) stop("usage: cart_accuracy.R --spec SPEC.json --json OUT.json")
  args[i + 1L]
}
spec <- fromJSON(get_opt("--spec"), simplifyVector = FALSE)
out <- get_opt("--json")

typed_frame <- function(d) {
  raw <- read_table_csv(d$csv)
  df <- raw
  for (col in d$columns) {
    nm <- col$name
    if (!(nm %in% names(raw))) stop("column '", nm, "' not in ", d$csv)
    if (col$kind == "numeric") {
      v <- suppressWarnings(as.numeric(raw[[nm]]))
      if (any(is.na(v) & !is.na(raw[[nm]]))) stop("non-numeric value in ", nm)
      df[[nm]] <- v
    } else {
      levs <- unlist(col$levels)
      if (nm == d$target) levs <- levs[levs %in% raw[[nm]]]
      df[[nm]] <- factor(raw[[nm]], levels = levs, ordered = col$kind == "ordered")
      if (any(is.na(df[[nm]]) & !is.na(raw[[nm]]))) stop("undeclared level in ", nm)
    }
  }
  df[, vapply(d$columns, `[[`, "", "name"), drop = FALSE]
}

n_leaves <- function(fit) sum(fit$frame$var == "<leaf>")

run_dataset <- function(d) {
  df <- typed_frame(d)
  target <- d$target
  fml <- target_formula(target)
  started <- proc.time()[["elapsed"]]
  repeats <- lapply(seq_along(d$folds), function(r) {
    folds <- as.integer(unlist(d$folds[[r]]))
    if (length(folds) != nrow(df)) stop("fold vector length differs from the CSV in ", d$name)
    pred <- if (d$method == "class") rep(NA_character_, nrow(df)) else rep(NA_real_, nrow(df))
    leaves <- integer(0)
    for (k in sort(unique(folds))) {
      train <- df[folds != k, , drop = FALSE]
      test <- df[folds == k, , drop = FALSE]
      if (d$method == "class") train[[target]] <- droplevels(train[[target]])
      seed_rng(spec$seed_base + 10L * (r - 1L) + k)
      fit <- rpart(fml, data = train, method = d$method, control = rpart.control())
      pruned <- prune(fit, cp = fit$cptable[one_se_row(fit$cptable), "CP"])
      pred[folds == k] <- if (d$method == "class")
        as.character(predict(pruned, newdata = test, type = "class"))
      else unname(predict(pruned, newdata = test))
      leaves <- c(leaves, n_leaves(pruned))
    }
    list(predictions = pred, leaves = I(leaves))
  })
  cat(sprintf("%-18s %4d rows, %d repetitions  [%.1f s]\n", d$name, nrow(df), length(repeats),
              proc.time()[["elapsed"]] - started))
  list(name = d$name, repeats = repeats)
}

if (as.character(packageVersion("rpart")) != "4.1.19")
  warning("rpart ", packageVersion("rpart"), " is not the reference 4.1.19")
txt <- toJSON(list(
  generated_by = "tools/rpart/cart_accuracy.R",
  r_version = R.version.string,
  rpart_version = as.character(packageVersion("rpart")),
  seed_base = spec$seed_base,
  datasets = lapply(spec$datasets, run_dataset)),
  auto_unbox = TRUE, digits = NA, na = "null", null = "null")
writeLines(enc2utf8(txt), out, useBytes = TRUE)
cat("wrote", out, "\n")
