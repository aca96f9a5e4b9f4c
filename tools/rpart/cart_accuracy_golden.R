#!/usr/bin/env Rscript
# cart_accuracy_golden.R -- rpart's 10-fold cross-validated accuracy on the Weka
# example files of tests/golden/j48, with rpart's DEFAULT settings and each
# training fold's tree pruned at the 1-SE cp of its own cptable.  The baseline
# for issue 4 item 8 (benchmarks/cart_accuracy.py prints the table from the
# JSON this writes, so the benchmark needs no R).
#
# Usage (from the repository root):
#   Rscript tools/rpart/cart_accuracy_golden.R [--datasets vote,iris,...]
#           [--inner-seed N] [--extra-seeds S] [--json OUT]
#
#   --datasets     comma-separated golden names (default: the ten of issue 4 item 8)
#   --inner-seed   base seed of the inner cross-validation (default 20240607)
#   --extra-seeds  also refit every outer fold with S more inner seeds,
#                  set.seed(inner_seed + 100 s + k) for s = 1..S, and store only
#                  the 1-SE correct counts (seed sensitivity; default 4)
#   --json         output (default tests/golden/rpart/cart_accuracy.json)
#
# Data: tests/golden/j48/data/<name>.csv (empty cell = missing; nothing else is).
# Column kinds and level orders come from the golden file's "attributes":
# nominal columns become factors with the ARFF's declared levels (the order
# tools/weka/arff_reader.py gives the pandas categoricals), numeric columns
# doubles.  The class is a factor with the declared class values that occur
# in the file (glass declares one class no row has).
#
# Protocol, for each outer fold k = 0..9 (the golden "cv.folds", the same
# folds J48, scikit-learn and rootwise are scored on):
#   train = rows with fold != k (file order), test = rows with fold == k
#   set.seed(inner_seed + k) with R's Mersenne-Twister / Inversion / Rejection
#   fit   = rpart(class ~ ., train, method = "class") with rpart.control()
#           defaults: minsplit 20, minbucket 7, cp 0.01, maxcompete 4,
#           maxsurrogate 5, usesurrogate 2, surrogatestyle 0, xval 10,
#           maxdepth 30.  xval = 10 draws rpart's own random groups
#           (sample(rep(1:10, length.out = n))), hence the seed.
#   prune = prune(fit, cp = CP of the 1-SE row): the first (fewest splits)
#           row with xerror <= xerror + xstd at the first minimum
#           (one_se_row() in common.R; tools/rpart/README.md semantics 12)
#   score = predict(pruned, test, type = "class") -- predict.rpart routing.
# Also stored per fold, for the investigation in benchmarks/README.md: the
# same fit pruned at the minimum-xerror row ("min") and not pruned beyond
# cp = 0.01 ("grown"), the cptable, and rpart's inner CV groups as one
# character per training row, in file order: "0".."9" for groups 1..10, "-"
# for a row na.rpart dropped.

a <- commandArgs(trailingOnly = FALSE)
tool_dir <- dirname(normalizePath(sub("^--file=", "", a[grep("^--file=", a)][1L])))
source(file.path(tool_dir, "common.R"))
root <- normalizePath(file.path(tool_dir, "..", ".."))

args <- commandArgs(trailingOnly = TRUE)
get_opt <- function(name, default = NULL) {
  i <- match(name, args)
  if (is.na(i)) return(default)
  if (i == length(args)) stop("missing value for ", name)
  args[i + 1L]
}
default_sets <- c("vote", "soybean", "breast-cancer", "credit-g", "labor",
                  "iris", "diabetes", "glass", "ionosphere", "segment-challenge")
datasets <- strsplit(get_opt("--datasets", paste(default_sets, collapse = ",")), ",")[[1L]]
inner_seed <- as.integer(get_opt("--inner-seed", "20240607"))
extra_seeds <- as.integer(get_opt("--extra-seeds", "4"))
out <- get_opt("--json", file.path(root, "tests", "golden", "rpart", "cart_accuracy.json"))
golden_dir <- file.path(root, "tests", "golden", "j48")

n_leaves <- function(fit) sum(fit$frame$var == "<leaf>")

load_golden_table <- function(name) {
  g <- fromJSON(file.path(golden_dir, paste0(name, ".json")), simplifyVector = FALSE)
  raw <- read_table_csv(file.path(golden_dir, g$csv_file))
  df <- raw
  cats <- character(0)
  for (att in g$attributes) {
    nm <- att$name
    if (!(nm %in% names(raw))) stop("column '", nm, "' not in ", g$csv_file)
    if (nm == g$class_attribute) {
      levs <- unlist(att$values)
      df[[nm]] <- factor(raw[[nm]], levels = levs[levs %in% raw[[nm]]])
    } else if (att$kind == "nominal") {
      df[[nm]] <- factor(raw[[nm]], levels = unlist(att$values))
      if (any(is.na(df[[nm]]) & !is.na(raw[[nm]]))) stop("undeclared level in ", nm)
      cats <- c(cats, nm)
    } else {
      v <- suppressWarnings(as.numeric(raw[[nm]]))
      if (any(is.na(v) & !is.na(raw[[nm]]))) stop("non-numeric value in ", nm)
      df[[nm]] <- v
    }
  }
  folds <- as.integer(unlist(g$cv$folds))
  if (length(folds) != nrow(df)) stop("fold vector length differs from the CSV in ", name)
  list(g = g, df = df, folds = folds, categorical = cats)
}

fit_fold <- function(train, fml, seed) {
  seed_rng(seed)
  rpart(fml, data = train, method = "class", control = rpart.control())
}

# The inner groups rpart drew in fit_fold(): the same seed and the same call as
# rpart's own "xgroups <- sample(rep(1L:xval, length.out = nobs), nobs)", where
# nobs counts the rows na.rpart keeps (a row with every predictor missing is
# dropped: vote has one).  Dropped rows get group 0.  Checked by refitting with
# the groups as an explicit xval vector, so the stored groups are exactly the
# ones rpart used (benchmarks/cart_accuracy.py --diagnose reuses them).
inner_groups <- function(train, fml, seed, fit, target) {
  kept <- rowSums(!is.na(train[, setdiff(names(train), target), drop = FALSE])) > 0
  seed_rng(seed)
  groups <- integer(nrow(train))
  groups[kept] <- sample(rep(1L:10L, length.out = sum(kept)), sum(kept), replace = FALSE)
  again <- rpart(fml, data = train, method = "class", control = rpart.control(xval = groups))
  if (!isTRUE(all.equal(fit$cptable, again$cptable, tolerance = 0)))
    stop("inner groups do not reproduce rpart's cptable")
  groups
}

run_dataset <- function(name) {
  t <- load_golden_table(name)
  df <- t$df; folds <- t$folds; target <- t$g$class_attribute
  fml <- target_formula(target)
  pred <- rep(NA_character_, nrow(df))
  per_fold <- list()
  extra <- matrix(0L, nrow = extra_seeds, ncol = 10L)
  started <- proc.time()[["elapsed"]]
  for (k in 0:9) {
    tr <- which(folds != k); te <- which(folds == k)
    train <- df[tr, , drop = FALSE]
    train[[target]] <- droplevels(train[[target]])
    test <- df[te, , drop = FALSE]
    truth <- as.character(test[[target]])
    fit <- fit_fold(train, fml, inner_seed + k)
    groups <- inner_groups(train, fml, inner_seed + k, fit, target)
    cpt <- fit$cptable
    row <- one_se_row(cpt)
    row_min <- if ("xerror" %in% colnames(cpt)) which.min(cpt[, "xerror"]) else 1L
    pruned <- prune(fit, cp = cpt[row, "CP"])
    pruned_min <- prune(fit, cp = cpt[row_min, "CP"])
    p <- as.character(predict(pruned, newdata = test, type = "class"))
    p_min <- as.character(predict(pruned_min, newdata = test, type = "class"))
    p_grown <- as.character(predict(fit, newdata = test, type = "class"))
    pred[te] <- p
    per_fold[[k + 1L]] <- list(
      fold = k, n_train = length(tr), n_test = length(te),
      correct = sum(p == truth), leaves = n_leaves(pruned),
      cp_1se = unname(cpt[row, "CP"]), nsplit_1se = unname(cpt[row, "nsplit"]),
      correct_min = sum(p_min == truth), leaves_min = n_leaves(pruned_min),
      correct_grown = sum(p_grown == truth), leaves_grown = n_leaves(fit),
      cptable = lapply(seq_len(nrow(cpt)), function(i) as.list(cpt[i, ])),
      inner_groups = paste(ifelse(groups == 0L, "-", groups - 1L), collapse = ""))
    for (s in seq_len(extra_seeds)) {
      fs <- fit_fold(train, fml, inner_seed + 100L * s + k)
      ps <- prune(fs, cp = fs$cptable[one_se_row(fs$cptable), "CP"])
      extra[s, k + 1L] <- sum(as.character(predict(ps, newdata = test, type = "class")) == truth)
    }
  }
  correct <- sum(vapply(per_fold, `[[`, numeric(1), "correct"))
  cat(sprintf("%-18s rows %4d  rpart 1-SE accuracy %.4f (%d)  mean leaves %.1f  [%.1f s]\n",
              name, nrow(df), correct / nrow(df), as.integer(correct),
              mean(vapply(per_fold, `[[`, numeric(1), "leaves")),
              proc.time()[["elapsed"]] - started))
  list(dataset = name, golden = paste0("tests/golden/j48/", name, ".json"),
       csv = paste0("tests/golden/j48/", t$g$csv_file), n_rows = nrow(df),
       target = target, class_levels = I(levels(df[[target]])),
       categorical = I(t$categorical),
       correct = as.integer(correct), total = nrow(df), accuracy = correct / nrow(df),
       folds = per_fold,
       extra_seeds = lapply(seq_len(extra_seeds), function(s)
         list(inner_seed_base = inner_seed + 100L * s, fold_correct = I(as.integer(extra[s, ])),
              correct = sum(extra[s, ]))),
       predictions = pred)
}

if (as.character(packageVersion("rpart")) != "4.1.19")
  warning("rpart ", packageVersion("rpart"), " is not the reference 4.1.19")
results <- lapply(datasets, run_dataset)
txt <- toJSON(list(
  generated_by = "tools/rpart/cart_accuracy_golden.R",
  r_version = R.version.string,
  rpart_version = as.character(packageVersion("rpart")),
  settings = paste("rpart(class ~ ., method = 'class', control = rpart.control()) defaults",
                   "(minsplit 20, minbucket 7, cp 0.01, maxsurrogate 5, usesurrogate 2, xval 10);",
                   "set.seed(inner_seed + k) before the fit of outer fold k (k = 0..9), RNG",
                   "Mersenne-Twister/Inversion/Rejection; pruned at the CP of the 1-SE row;",
                   "predict(type = 'class') on the held-out fold; outer folds = cv.folds of the",
                   "J48 golden file"),
  inner_seed = inner_seed,
  datasets = results), auto_unbox = TRUE, digits = NA, na = "null", null = "null", pretty = 1)
writeLines(enc2utf8(txt), out, useBytes = TRUE)
cat("wrote", out, "\n")
