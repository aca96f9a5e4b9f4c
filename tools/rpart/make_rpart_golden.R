#!/usr/bin/env Rscript
# make_rpart_golden.R -- regenerate the rpart golden files used by rootwise's
# CART tests (issue 4: surrogate splits + cost-complexity pruning).
#
# Usage (from anywhere):
#   Rscript tools/rpart/make_rpart_golden.R [--out DIR] [--watermelon CSV]
#
#   --out DIR         output directory (default: <repo>/tests/golden/rpart)
#   --watermelon CSV  source of watermelon 2.0 alpha (default: the first of
#                     <repo>/../shared/data, /work/shared/data,
#                     <repo>/rootwise/datasets/data that has the file)
#
# Needs R with rpart 4.1.19 and jsonlite (Debian bookworm: r-base-core,
# r-cran-rpart, r-cran-jsonlite; see tools/rpart/install_r.sh).
# Writes:
#   DIR/data/<table>.csv        the table exactly as fitted (empty cell = NA)
#   DIR/data/<table>.folds      one fold id (1..10) per CSV data row
#   DIR/<table>.json            the golden rpart output for that table
#   DIR/manifest.json           list of tables + versions
# Everything is deterministic: re-running on the same R/rpart versions gives
# byte-identical files.  See tools/rpart/README.md for the JSON layout and the
# rpart semantics the golden data pins down.

## ---------------------------------------------------------------- paths ----
script_path <- function() {
  a <- commandArgs(trailingOnly = FALSE)
  f <- sub("^--file=", "", a[grep("^--file=", a)])
  if (length(f) == 0L) stop("run this file with Rscript")
  normalizePath(f[1L])
}
tool_dir <- dirname(script_path())
repo_dir <- normalizePath(file.path(tool_dir, "..", ".."))
source(file.path(tool_dir, "common.R"))

args <- commandArgs(trailingOnly = TRUE)
get_opt <- function(name, default) {
  i <- match(name, args)
  if (is.na(i)) return(default)
  if (i == length(args)) stop("missing value for ", name)
  args[i + 1L]
}
out_dir <- get_opt("--out", file.path(repo_dir, "tests", "golden", "rpart"))
data_dir <- file.path(out_dir, "data")
dir.create(data_dir, recursive = TRUE, showWarnings = FALSE)

wm_default <- c(file.path(repo_dir, "..", "shared", "data", "watermelon_2.0_alpha.csv"),
                "/work/shared/data/watermelon_2.0_alpha.csv",
                file.path(repo_dir, "rootwise", "datasets", "data", "watermelon_2.0_alpha.csv"))
wm_source <- get_opt("--watermelon", wm_default[file.exists(wm_default)][1L])
if (is.na(wm_source) || !file.exists(wm_source)) stop("watermelon_2.0_alpha.csv not found")

EXPECTED_RPART <- "4.1.19"
rpart_version <- as.character(packageVersion("rpart"))
if (rpart_version != EXPECTED_RPART)
  warning("rpart ", rpart_version, " found, golden files document ", EXPECTED_RPART)

## ---------------------------------------------------- table generators ----
make_watermelon <- function() {
  raw <- read_table_csv(wm_source)
  raw[["编号"]] <- NULL                       # row id, not a predictor
  raw[, c("好瓜", setdiff(names(raw), "好瓜"))]
}

# (b) 300 rows, 3 numeric + 2 categorical predictors, 3 classes.  x1, x2 and
# c1 are noisy views of the same latent z1 (so they are each other's
# surrogates); x3 and c2 are views of z2.  Each predictor has ~15% missing
# cells, 6 rows keep only one predictor (to reach the "go with the majority"
# rule) and 1 row has every predictor missing (na.rpart drops it).
make_synth_class <- function() {
  n <- 300L
  seed_rng(20240601)
  z1 <- rnorm(n); z2 <- rnorm(n)
  x1 <- round(10 + 3 * z1 + rnorm(n, sd = 0.5), 3)
  x2 <- round(5 + 2 * z1 + rnorm(n, sd = 1.0), 3)
  x3 <- round(2 * z2 + rnorm(n, sd = 1.0), 1)           # 1 decimal: ties
  c1 <- cut(z1 + rnorm(n, sd = 0.5), c(-Inf, -0.7, 0, 0.7, Inf),
            labels = c("d", "c", "b", "a"))               # order != alphabetical
  c2 <- cut(z2 + rnorm(n, sd = 0.7), c(-Inf, -0.5, 0.5, Inf),
            labels = c("red", "green", "blue"))
  score <- z1 + 0.8 * z2 + rnorm(n, sd = 0.6)
  y <- ifelse(score < -0.5, "A", ifelse(score > 0.7, "C", "B"))
  df <- data.frame(y = y, x1 = x1, x2 = x2, x3 = x3,
                   c1 = as.character(c1), c2 = as.character(c2))
  preds <- c("x1", "x2", "x3", "c1", "c2")
  for (p in preds) df[[p]][runif(n) < 0.15] <- NA
  only_one <- c(11L, 57L, 103L, 149L, 211L, 262L)
  keep_col <- preds[c(1L, 2L, 3L, 4L, 5L, 3L)]
  for (i in seq_along(only_one))
    for (p in setdiff(preds, keep_col[i])) df[[p]][only_one[i]] <- NA
  df[["x1"]][only_one[1L]] <- 7.5                         # make sure it is present
  df[["x2"]][only_one[2L]] <- 4.25
  df[["x3"]][only_one[3L]] <- 0.3
  df[["c1"]][only_one[4L]] <- "b"
  df[["c2"]][only_one[5L]] <- "green"
  df[["x3"]][only_one[6L]] <- -1.2
  for (p in preds) df[[p]][287L] <- NA                    # all predictors missing
  df
}

# (c) 240 rows, regression.  x1/x2/c1 carry the latent z (surrogates for each
# other), x3 is an integer 1..10 with many ties, c2 a binary factor.  ~15%
# missing per predictor, 3 rows with a missing target (dropped by na.rpart but
# still predicted from newdata), 4 rows with a single predictor present.
make_synth_reg <- function() {
  n <- 240L
  seed_rng(20240602)
  z <- rnorm(n)
  x1 <- round(5 + 2 * z + rnorm(n, sd = 0.5), 2)
  x2 <- round(0.8 * x1 + rnorm(n, sd = 0.7), 2)
  x3 <- sample.int(10L, n, replace = TRUE)
  c1 <- cut(z + rnorm(n, sd = 0.6), c(-Inf, -1, -0.3, 0.3, 1, Inf),
            labels = c("t", "s", "r", "q", "p"))
  c2 <- ifelse(runif(n) < 0.4, "yes", "no")
  y <- round(3 * z + 2 * (c2 == "yes") + 0.3 * x3 + rnorm(n), 3)
  df <- data.frame(y = y, x1 = x1, x2 = x2, x3 = as.numeric(x3),
                   c1 = as.character(c1), c2 = c2)
  preds <- c("x1", "x2", "x3", "c1", "c2")
  for (p in preds) df[[p]][runif(n) < 0.15] <- NA
  df[["y"]][c(19L, 120L, 233L)] <- NA
  only_one <- c(7L, 66L, 150L, 201L)
  keep_col <- c("x1", "x3", "c1", "c2")
  fill <- list(x1 = 9.1, x3 = 4, c1 = "q", c2 = "yes")
  for (i in seq_along(only_one)) {
    for (p in setdiff(preds, keep_col[i])) df[[p]][only_one[i]] <- NA
    df[[keep_col[i]]][only_one[i]] <- fill[[keep_col[i]]]
  }
  df
}

# (d1) base R datasets::airquality, Ozone ~ everything.  37 rows have a missing
# Ozone (dropped from the fit), Solar.R has 7 NAs (5 of them in fitted rows).
make_airquality <- function() {
  aq <- datasets::airquality
  data.frame(Ozone = aq$Ozone, Solar.R = aq$Solar.R, Wind = aq$Wind,
             Temp = aq$Temp, Month = aq$Month, Day = aq$Day)
}

# (d2) rpart::stagec, the classification example of the longintro vignette
# (progstat ~ age + eet + g2 + grade + gleason + ploidy).  NAs in eet (2),
# g2 (7), gleason (3).  NOTE: in the CSV ploidy is re-read with alphabetical
# levels (aneuploid, diploid, tetraploid); the vignette's factor order is
# diploid, tetraploid, aneuploid.
make_stagec <- function() {
  e <- new.env()
  utils::data("stagec", package = "rpart", envir = e)
  s <- e$stagec
  data.frame(progstat = ifelse(s$pgstat == 1L, "Prog", "No"), age = s$age,
             eet = s$eet, g2 = s$g2, grade = s$grade, gleason = s$gleason,
             ploidy = as.character(s$ploidy))
}

## ------------------------------------------------------- table specs ----
tables <- list(
  list(name = "watermelon_2.0_alpha", make = make_watermelon, target = "好瓜",
       method = "class", categorical = c("色泽", "根蒂", "敲声", "纹理", "脐部", "触感"),
       minsplit = 2L, minbucket = 1L, fold_seed = 4101L,
       source = "shared/data/watermelon_2.0_alpha.csv (Zhou, Machine Learning, table 4.4) without the 编号 id column"),
  list(name = "synth_class_mixed", make = make_synth_class, target = "y",
       method = "class", categorical = c("c1", "c2"),
       minsplit = 20L, minbucket = 7L, fold_seed = 4102L,
       source = "synthetic, make_synth_class() in tools/rpart/make_rpart_golden.R"),
  list(name = "synth_regression", make = make_synth_reg, target = "y",
       method = "anova", categorical = c("c1", "c2"),
       minsplit = 20L, minbucket = 7L, fold_seed = 4103L,
       source = "synthetic, make_synth_reg() in tools/rpart/make_rpart_golden.R"),
  list(name = "airquality", make = make_airquality, target = "Ozone",
       method = "anova", categorical = character(0),
       minsplit = 20L, minbucket = 7L, fold_seed = 4104L,
       source = "R base package datasets::airquality"),
  list(name = "stagec", make = make_stagec, target = "progstat",
       method = "class", categorical = c("ploidy"),
       minsplit = 20L, minbucket = 7L, fold_seed = 4105L,
       source = "R package rpart, data(stagec); pgstat recoded No/Prog, pgtime dropped")
)

## ---------------------------------------------------- tree extraction ----
bq <- function(x) paste0("`", x, "`")

# Which frame row / splits row belongs to which node (same bookkeeping as
# rpart:::importance and rpart:::pred.rpart).
split_index <- function(fit) {
  ff <- fit$frame
  internal <- ff$var != "<leaf>"
  first <- 1L + c(0L, cumsum(internal + ff$ncompete + ff$nsurrogate))[seq_len(nrow(ff))]
  first[!internal] <- NA_integer_
  first
}

split_record <- function(fit, k, role, levels_of) {
  sp <- fit$splits
  var <- rownames(sp)[k]
  ncat <- sp[k, "ncat"]
  rec <- list(variable = var, role = role, count = unname(sp[k, "count"]),
              ncat = unname(ncat))
  if (role == "primary") {
    rec$improve <- unname(sp[k, "improve"])
  } else {
    rec$agree <- unname(sp[k, "improve"])     # rpart stores agreement in 'improve'
    rec$adj <- unname(sp[k, "adj"])
  }
  if (abs(ncat) == 1) {
    rec$type <- "numeric"
    rec$threshold <- unname(sp[k, "index"])
    # ncat = -1: rows with x < threshold go left; ncat = +1: x < threshold go right
    rec$left_when <- if (ncat < 0) "x < threshold" else "x >= threshold"
    rec$direction <- if (ncat < 0) "<" else ">="
  } else {
    rec$type <- "categorical"
    row <- as.integer(sp[k, "index"])
    code <- fit$csplit[row, seq_len(ncat)]
    lv <- levels_of[[var]]
    rec$csplit_row <- row
    rec$csplit <- as.integer(code)           # 1 = left, 3 = right, 2 = no direction
    rec$levels_left <- I(lv[code == 1L])
    rec$levels_right <- I(lv[code == 3L])
    rec$levels_none <- I(lv[code == 2L])
  }
  rec
}

node_ancestors <- function(node) {
  out <- integer(0)
  while (node >= 1L) { out <- c(out, node); node <- node %/% 2L }
  out
}

extract_tree <- function(fit, df, used, spec, levels_of) {
  ff <- fit$frame
  nodes <- as.integer(rownames(ff))
  first <- split_index(fit)
  leaf_of_row <- nodes[fit$where]              # fit-time leaf node per fitted row
  ylev <- attr(fit, "ylevels")
  nclass <- length(ylev)
  xvars <- setdiff(names(df), spec$target)
  out <- vector("list", nrow(ff))
  for (i in seq_len(nrow(ff))) {
    nd <- nodes[i]
    rec <- list(node = nd, parent = if (nd == 1L) NULL else nd %/% 2L,
                depth = as.integer(floor(log2(nd) + 1e-9)),
                is_leaf = ff$var[i] == "<leaf>", var = as.character(ff$var[i]),
                n = ff$n[i], wt = ff$wt[i], dev = ff$dev[i], yval = ff$yval[i],
                complexity = ff$complexity[i], ncompete = ff$ncompete[i],
                nsurrogate = ff$nsurrogate[i])
    if (spec$method == "class") {
      y2 <- ff$yval2[i, ]
      rec$yval_label <- ylev[ff$yval[i]]
      rec$class_counts <- I(unname(y2[1L + seq_len(nclass)]))
      rec$class_probs <- I(unname(y2[1L + nclass + seq_len(nclass)]))
      rec$nodeprob <- unname(y2[2L + 2L * nclass])
    }
    rec["primary"] <- list(NULL)
    rec$surrogates <- I(list())
    if (!rec$is_leaf) {
      k <- first[i]
      rec$primary <- split_record(fit, k, "primary", levels_of)
      ks <- k + ff$ncompete[i] + seq_len(ff$nsurrogate[i])
      rec$surrogates <- lapply(ks, function(j) split_record(fit, j, "surrogate", levels_of))
      # Derived (not an rpart field): the "go with the majority" side.
      # fit time = side with more (weighted) rows sent by the primary split
      # among rows whose primary variable is present (surrogate.c);
      # predict time = child with larger frame n (pred_rpart.c).
      in_node <- vapply(leaf_of_row, function(l) nd %in% node_ancestors(l), logical(1))
      pv <- rec$primary$variable
      x <- df[[pv]][used][in_node]
      present <- !is.na(x)
      if (rec$primary$type == "numeric") {
        goes_left <- if (rec$primary$direction == "<") x < rec$primary$threshold
                     else x >= rec$primary$threshold
      } else {
        code <- rec$primary$csplit[as.integer(x)]
        goes_left <- code == 1L
        present <- present & code != 2L
      }
      nl <- sum(goes_left[present]); nr <- sum(!goes_left[present])
      rec$primary_present_left <- nl
      rec$primary_present_right <- nr
      rec$majority_fit <- if (nl > nr) "left" else if (nr > nl) "right" else "none"
      nL <- ff$n[nodes == 2L * nd]; nR <- ff$n[nodes == 2L * nd + 1L]
      rec$majority_predict <- if (nL > nR) "left" else if (nR > nL) "right" else "none"
    }
    out[[i]] <- rec
  }
  out
}

raw_splits <- function(fit) {
  if (is.null(fit$splits)) return(NULL)
  list(rownames = I(rownames(fit$splits)), columns = I(colnames(fit$splits)),
       data = unname(fit$splits))
}

cptable_list <- function(cpt) {
  lapply(seq_len(nrow(cpt)), function(i) as.list(setNames(unname(cpt[i, ]), colnames(cpt))))
}

one_se <- function(cpt) {
  imin <- which.min(cpt[, "xerror"])
  row <- one_se_row(cpt)
  list(rule = "first row (fewest splits) with xerror <= min(xerror) + xstd at the first minimum",
       min_index = imin - 1L, min_xerror = unname(cpt[imin, "xerror"]),
       xstd_at_min = unname(cpt[imin, "xstd"]),
       threshold = unname(cpt[imin, "xerror"] + cpt[imin, "xstd"]),
       index = row - 1L, cp = unname(cpt[row, "CP"]), nsplit = unname(cpt[row, "nsplit"]))
}

predictions <- function(fit, newdata, method, ylev) {
  if (method == "class") {
    p <- predict(fit, newdata = newdata, type = "prob")
    list(prob = unname(p), class = as.character(predict(fit, newdata = newdata, type = "class")))
  } else {
    list(value = unname(predict(fit, newdata = newdata, type = "vector")))
  }
}

predict_nodes <- function(fit, newdata) {
  Terms <- delete.response(fit$terms)
  mf <- model.frame(Terms, newdata, na.action = na.pass, xlev = attr(fit, "xlevels"))
  idx <- rpart:::pred.rpart(fit, rpart:::rpart.matrix(mf))
  as.integer(rownames(fit$frame))[idx]
}

## --------------------------------------------------------------- main ----
json_write <- function(x, path) {
  txt <- toJSON(x, auto_unbox = TRUE, digits = NA, na = "null", null = "null",
                pretty = 1, matrix = "rowmajor")
  writeLines(enc2utf8(txt), path, useBytes = TRUE)
}

manifest <- list()
for (spec in tables) {
  csv_path <- file.path(data_dir, paste0(spec$name, ".csv"))
  write_table_csv(spec$make(), csv_path)
  raw <- read_table_csv(csv_path)
  df <- type_columns(raw, spec$target, spec$method, spec$categorical)
  levels_of <- lapply(Filter(is.factor, df), levels)
  n_csv <- nrow(df)
  folds <- make_folds(n_csv, spec$fold_seed)
  writeLines(as.character(folds), file.path(data_dir, paste0(spec$name, ".folds")))

  fml <- target_formula(spec$target)
  ctrl_args <- list(minsplit = spec$minsplit, minbucket = spec$minbucket, cp = 0,
                    maxcompete = 0L, maxsurrogate = 5L, usesurrogate = 2L,
                    surrogatestyle = 0L, maxdepth = 30L)
  ctrl0 <- do.call(rpart.control, c(ctrl_args, list(xval = 0L)))
  fit <- rpart(fml, data = df, method = spec$method, control = ctrl0)
  ctrl_cv <- do.call(rpart.control, c(ctrl_args, list(xval = folds)))
  fit_cv <- rpart(fml, data = df, method = spec$method, control = ctrl_cv)
  stopifnot(identical(fit$frame, fit_cv$frame), identical(fit$splits, fit_cv$splits),
            isTRUE(all.equal(fit$cptable, fit_cv$cptable[, 1:3, drop = FALSE])))

  dropped <- if (is.null(fit$na.action)) integer(0) else sort(as.integer(fit$na.action))
  used <- setdiff(seq_len(n_csv), dropped)
  stopifnot(length(fit$where) == length(used), setequal(folds[used], 1:10))
  ylev <- attr(fit, "ylevels")
  nodes <- as.integer(rownames(fit$frame))

  # per-CSV-row arrays (NULL/NA for rows rpart dropped)
  leaf_fit <- rep(NA_integer_, n_csv); leaf_fit[used] <- nodes[fit$where]
  pf <- predict(fit, type = if (spec$method == "class") "prob" else "vector")
  if (spec$method == "class") {
    prob_fit <- vector("list", n_csv)
    for (j in seq_along(used)) prob_fit[[used[j]]] <- unname(pf[j, ])
    class_fit <- rep(NA_character_, n_csv)
    class_fit[used] <- as.character(predict(fit, type = "class"))
    pred_fit <- list(prob = prob_fit, class = class_fit)
  } else {
    val_fit <- rep(NA_real_, n_csv); val_fit[used] <- unname(pf)
    pred_fit <- list(value = val_fit)
  }
  pred_new <- predictions(fit, df, spec$method, ylev)
  leaf_new <- predict_nodes(fit, df)

  cpt_cv <- fit_cv$cptable
  sel <- one_se(cpt_cv)
  pruned <- prune(fit_cv, cp = sel$cp)
  n_pruned_splits <- sum(pruned$frame$var != "<leaf>")
  stopifnot(n_pruned_splits == sel$nsplit)
  pruned_leaf_fit <- rep(NA_integer_, n_csv)
  pruned_leaf_fit[used] <- as.integer(rownames(pruned$frame))[pruned$where]

  vi <- fit$variable.importance
  columns <- lapply(names(df), function(nm) {
    c(list(name = nm, role = if (nm == spec$target) "target" else "predictor",
           type = if (is.factor(df[[nm]])) "categorical" else "numeric"),
      if (is.factor(df[[nm]])) list(levels = I(levels(df[[nm]]))) else list(),
      list(n_missing = sum(is.na(df[[nm]]))))
  })

  gold <- list(
    table = spec$name,
    source = spec$source,
    csv = paste0("data/", spec$name, ".csv"),
    folds_file = paste0("data/", spec$name, ".folds"),
    generated_by = "tools/rpart/make_rpart_golden.R",
    r_version = R.version.string,
    rpart_version = rpart_version,
    method = spec$method,
    target = spec$target,
    formula = paste(bq(spec$target), "~ ."),
    columns = columns,
    level_order = "categorical levels sorted by Unicode code point (R: sort(method='radix'); Python: sorted())",
    class_levels = if (spec$method == "class") I(ylev) else NULL,
    control = c(ctrl_args, list(xval = 0L)),
    n_rows_csv = n_csv,
    n_rows_fitted = length(used),
    rows_dropped_by_na_rpart = I(dropped - 1L),
    nodes = extract_tree(fit, df, used, spec, levels_of),
    splits_raw = raw_splits(fit),
    csplit_raw = if (is.null(fit$csplit)) NULL else unname(fit$csplit),
    cptable = cptable_list(fit$cptable),
    variable_importance = lapply(seq_along(vi), function(i) list(variable = names(vi)[i], importance = unname(vi[i]))),
    rows = list(
      note = "one entry per CSV data row, in file order (entry i, 0-based, is file line i + 2); null where na.rpart dropped the row",
      leaf_node_fit = leaf_fit,
      pred_fit = pred_fit,
      leaf_node_newdata = leaf_new,
      pred_newdata = pred_new
    ),
    cv = list(
      fold_ids = folds,
      note = "fit refit with control$xval = fold_ids (one id per CSV row; rows dropped by na.rpart are removed by rpart itself)",
      cptable = cptable_list(cpt_cv),
      one_se = sel,
      pruned = list(cp = sel$cp, nsplit = n_pruned_splits,
                    nodes = I(as.integer(rownames(pruned$frame))),
                    var = I(as.character(pruned$frame$var)),
                    yval = I(pruned$frame$yval),
                    leaf_node_fit = pruned_leaf_fit)
    )
  )
  json_path <- file.path(out_dir, paste0(spec$name, ".json"))
  json_write(gold, json_path)
  root <- gold$nodes[[1L]]
  cat(sprintf("%-22s n=%d fitted=%d nodes=%d root=%s surrogates=%d 1-SE cptable row %d (nsplit %d)\n",
              spec$name, n_csv, length(used), nrow(fit$frame), root$var,
              length(root$surrogates), sel$index + 1L, sel$nsplit))
  manifest[[length(manifest) + 1L]] <- list(table = spec$name, method = spec$method,
                                            target = spec$target, csv = gold$csv,
                                            folds = gold$folds_file,
                                            golden = paste0(spec$name, ".json"))
}

json_write(list(generated_by = "tools/rpart/make_rpart_golden.R",
                r_version = R.version.string, rpart_version = rpart_version,
                jsonlite_version = as.character(packageVersion("jsonlite")),
                tables = manifest),
           file.path(out_dir, "manifest.json"))
