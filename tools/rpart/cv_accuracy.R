#!/usr/bin/env Rscript
# cv_accuracy.R -- rpart's K-fold cross-validated accuracy with DEFAULT
# rpart settings, each training fold's tree pruned by the 1-SE rule, on given
# CSV files with given fold vectors.  Baseline for the issue-4 accuracy table.
#
# Usage:
#   Rscript tools/rpart/cv_accuracy.R --csv FILE --target COL --folds FILE
#           [--method class|anova] [--categorical a,b,...] [--inner-seed N]
#           [--name LABEL] [--json OUT]
#   Rscript tools/rpart/cv_accuracy.R --manifest tests/golden/rpart/manifest.json
#           [--inner-seed N] [--json OUT]
#
#   --csv        UTF-8 CSV, header row, empty cell = missing (tools/rpart/README.md)
#   --target     target column; every other column is a predictor
#   --folds      one integer fold id per CSV data row (ids 1..K, K >= 2)
#   --method     default: class if the target has a non-numeric value, else anova
#   --categorical  predictor columns to read as factors; default: the columns
#                with a non-numeric value.  Levels are sorted by code point.
#   --manifest   run on every table of a golden manifest (column types and
#                fold files are taken from the golden JSON files)
#   --inner-seed seed for the inner 10-fold CV that picks the 1-SE cp
#                (default 20240607; see below)
#   --json       also write the results as JSON to OUT
#
# Protocol, for each outer fold k:
#   train = rows with fold != k (rows with a missing target are left out,
#           as na.rpart would drop them anyway); test = rows with fold == k
#           and a non-missing target.
#   fit   = rpart(target ~ ., train, method) with rpart.control() defaults
#           (minsplit 20, minbucket 7, cp 0.01, maxcompete 4, maxsurrogate 5,
#           usesurrogate 2, surrogatestyle 0, maxdepth 30) except that the
#           inner 10-fold CV uses a fixed fold vector instead of rpart's
#           random one: make_folds(n_train, inner_seed + k) from common.R.
#   prune = prune(fit, cp = CP of the 1-SE row of fit$cptable): the first
#           row whose xerror <= min(xerror) + xstd at the first minimum.
#           (A root-only fit has no xerror column and stays a root.)
#   score = predict(pruned, test) -- predict.rpart, i.e. rows missing every
#           surrogate follow the child with the larger n.
# Reports pooled accuracy (class) or pooled MSE/RMSE/MAE/R^2 (anova) over
# all test rows, plus per-fold figures.

a <- commandArgs(trailingOnly = FALSE)
tool_dir <- dirname(normalizePath(sub("^--file=", "", a[grep("^--file=", a)][1L])))
source(file.path(tool_dir, "common.R"))

args <- commandArgs(trailingOnly = TRUE)
get_opt <- function(name, default = NULL) {
  i <- match(name, args)
  if (is.na(i)) return(default)
  if (i == length(args)) stop("missing value for ", name)
  args[i + 1L]
}
inner_seed <- as.integer(get_opt("--inner-seed", "20240607"))

cv_accuracy <- function(name, csv, target, folds, method = NULL, categorical = NULL) {
  raw <- read_table_csv(csv)
  if (!(target %in% names(raw))) stop("target '", target, "' not in ", csv)
  if (length(folds) != nrow(raw)) stop("fold vector has ", length(folds),
                                       " entries, CSV has ", nrow(raw), " rows")
  if (is.null(method)) {
    t <- raw[[target]][!is.na(raw[[target]])]
    method <- if (any(is.na(suppressWarnings(as.numeric(t))))) "class" else "anova"
  }
  if (is.null(categorical)) categorical <- setdiff(guess_categorical(raw), target)
  df <- type_columns(raw, target, method, categorical)
  fml <- target_formula(target)
  has_y <- !is.na(df[[target]])
  per_fold <- list()
  pred_all <- if (method == "class") rep(NA_character_, nrow(df)) else rep(NA_real_, nrow(df))
  for (k in sort(unique(folds))) {
    tr <- which(folds != k & has_y); te <- which(folds == k & has_y)
    if (length(te) == 0L) next
    train <- df[tr, , drop = FALSE]
    inner <- make_folds(nrow(train), inner_seed + k)
    fit <- rpart(fml, data = train, method = method, control = rpart.control(xval = inner))
    row <- one_se_row(fit$cptable)
    cp <- fit$cptable[row, "CP"]
    pruned <- prune(fit, cp = cp)
    test <- df[te, , drop = FALSE]
    y <- test[[target]]
    if (method == "class") {
      p <- as.character(predict(pruned, newdata = test, type = "class"))
      stat <- list(correct = sum(p == as.character(y)), accuracy = mean(p == as.character(y)))
    } else {
      p <- unname(predict(pruned, newdata = test, type = "vector"))
      stat <- list(mse = mean((y - p)^2), mae = mean(abs(y - p)))
    }
    pred_all[te] <- p
    per_fold[[length(per_fold) + 1L]] <- c(list(fold = k, n_train = length(tr), n_test = length(te),
                                                cp_1se = unname(cp), nsplit = unname(fit$cptable[row, "nsplit"])),
                                           stat)
  }
  scored <- which(has_y & !is.na(pred_all))
  y <- df[[target]][scored]; p <- pred_all[scored]
  overall <- if (method == "class") {
    list(n_scored = length(scored), correct = sum(p == as.character(y)),
         accuracy = mean(p == as.character(y)),
         mean_fold_accuracy = mean(vapply(per_fold, `[[`, numeric(1), "accuracy")))
  } else {
    sse <- sum((y - p)^2)
    list(n_scored = length(scored), mse = sse / length(y), rmse = sqrt(sse / length(y)),
         mae = mean(abs(y - p)), r2 = 1 - sse / sum((y - mean(y))^2))
  }
  list(table = name, csv = csv, target = target, method = method,
       categorical = I(categorical), n_rows = nrow(df), n_folds = length(per_fold),
       overall = overall, folds = per_fold, predictions = pred_all)
}

results <- list()
manifest_path <- get_opt("--manifest")
if (!is.null(manifest_path)) {
  gdir <- dirname(normalizePath(manifest_path))
  man <- fromJSON(manifest_path, simplifyVector = FALSE)
  for (e in man$tables) {
    g <- fromJSON(file.path(gdir, e$golden), simplifyVector = FALSE)
    cats <- vapply(Filter(function(c) c$role == "predictor" && c$type == "categorical", g$columns),
                   `[[`, character(1), "name")
    results[[length(results) + 1L]] <- cv_accuracy(
      g$table, file.path(gdir, g$csv), g$target, read_folds(file.path(gdir, g$folds_file)),
      method = g$method, categorical = cats)
  }
} else {
  csv <- get_opt("--csv"); target <- get_opt("--target"); fpath <- get_opt("--folds")
  if (is.null(csv) || is.null(target) || is.null(fpath))
    stop("need --csv, --target and --folds (or --manifest)")
  cats <- get_opt("--categorical")
  results[[1L]] <- cv_accuracy(get_opt("--name", basename(csv)), csv, target, read_folds(fpath),
                               method = get_opt("--method"),
                               categorical = if (is.null(cats)) NULL else strsplit(cats, ",")[[1L]])
}

for (r in results) {
  o <- r$overall
  if (r$method == "class") {
    cat(sprintf("%-22s class  %d-fold  accuracy %.4f (%d/%d)  mean fold acc %.4f  1-SE nsplit per fold: %s\n",
                r$table, r$n_folds, o$accuracy, o$correct, o$n_scored, o$mean_fold_accuracy,
                paste(vapply(r$folds, function(f) f$nsplit, numeric(1)), collapse = ",")))
  } else {
    cat(sprintf("%-22s anova  %d-fold  RMSE %.4f  MAE %.4f  R2 %.4f (n=%d)  1-SE nsplit per fold: %s\n",
                r$table, r$n_folds, o$rmse, o$mae, o$r2, o$n_scored,
                paste(vapply(r$folds, function(f) f$nsplit, numeric(1)), collapse = ",")))
  }
}

out <- get_opt("--json")
if (!is.null(out)) {
  rel <- function(p) sub(paste0("^", normalizePath(dirname(out)), "/"), "", normalizePath(p))
  for (i in seq_along(results)) results[[i]]$csv <- rel(results[[i]]$csv)
  txt <- toJSON(list(generated_by = "tools/rpart/cv_accuracy.R",
                     r_version = R.version.string,
                     rpart_version = as.character(packageVersion("rpart")),
                     settings = "rpart.control() defaults; inner CV folds make_folds(n_train, inner_seed + k); prune at the 1-SE row's CP; predict.rpart on the held-out fold",
                     inner_seed = inner_seed, results = results),
                auto_unbox = TRUE, digits = NA, na = "null", null = "null", pretty = 1)
  writeLines(enc2utf8(txt), out, useBytes = TRUE)
}
