#!/usr/bin/env Rscript
# make_loss_golden.R -- rpart fits with a loss matrix (parms = list(loss = L)), the golden files
# of rootwise's CARTClassifier(loss=...) (tests/test_rpart_loss.py).
#
# Usage: Rscript tools/rpart/make_loss_golden.R [--out DIR]
#   --out DIR   output directory (default: <repo>/tests/golden/rpart/loss)
#
# Needs R with rpart 4.1.19 and jsonlite (tools/rpart/install_r.sh). Writes, per table,
#   DIR/data/<table>.csv   the table as fitted (empty cell = NA; common.R's conventions)
#   DIR/data/<table>.folds one fold id (1..10) per CSV data row
#   DIR/<table>.json       the fit: loss matrix, priors, nodes, rows, CV cp table
# and DIR/manifest.json. Deterministic: the same R/rpart versions give byte-identical files.
#
# With a loss matrix rpart (Therneau & Atkinson, the rpart vignette §4; Breiman et al. 1984,
# §4.4) splits with the altered priors pi'_i ~ pi_i sum_j L[i, j], labels each node with the
# class of least expected loss, and reports its risk (frame$dev) and the cp table in loss units.
# L[i, j] is the cost of predicting class j for a row of class i (rows: truth), classes in
# level order (code-point order, as rootwise's classes_).
#
# The control makes no stopping rule of its own (minsplit = 2, minbucket = 1), so the test does
# not depend on whether a stopping rule counts rows or weight (the altered priors change every
# row's weight in the split search). infert stops at depth 3: below, its nodes of a few rows
# have splits of equal improvement (a categorical and a numeric test isolating one row), which
# rpart and rootwise break by round-off.

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
i_out <- match("--out", args)
out_dir <- if (is.na(i_out)) file.path(repo_dir, "tests", "golden", "rpart", "loss") else args[i_out + 1L]
data_dir <- file.path(out_dir, "data")
dir.create(data_dir, recursive = TRUE, showWarnings = FALSE)

## ------------------------------------------------------------------ tables ----
# rpart::stagec, the vignette's classification example (missing cells in eet, g2, gleason)
make_stagec <- function() {
  e <- new.env()
  utils::data("stagec", package = "rpart", envir = e)
  s <- e$stagec
  data.frame(progstat = ifelse(s$pgstat == 1L, "Prog", "No"), age = s$age,
             eet = s$eet, g2 = s$g2, grade = s$grade, gleason = s$gleason,
             ploidy = as.character(s$ploidy))
}

# rpart::kyphosis (81 children after spinal surgery; the vignette's first example)
make_kyphosis <- function() {
  e <- new.env()
  utils::data("kyphosis", package = "rpart", envir = e)
  k <- e$kyphosis
  data.frame(Kyphosis = as.character(k$Kyphosis), Age = k$Age, Number = k$Number,
             Start = k$Start)
}

# datasets::iris: three classes, so the loss matrix is not symmetric in any sense
make_iris <- function() {
  d <- datasets::iris
  data.frame(Species = as.character(d$Species), Sepal.Length = d$Sepal.Length,
             Sepal.Width = d$Sepal.Width, Petal.Length = d$Petal.Length,
             Petal.Width = d$Petal.Width)
}

# datasets::infert (infertility after abortion, a matched case-control study): a categorical
# column (education), no missing cell; the stratum ids are left out
make_infert <- function() {
  d <- datasets::infert
  data.frame(status = ifelse(d$case == 1, "case", "control"),
             education = as.character(d$education), age = d$age, parity = d$parity,
             induced = d$induced, spontaneous = d$spontaneous)
}

# loss matrices by rows (truth) in class-level order
tables <- list(
  list(name = "stagec", make = make_stagec, target = "progstat", categorical = "ploidy",
       fold_seed = 4105L, loss = rbind(c(0, 1), c(3, 0)),
       source = "R package rpart, data(stagec); pgstat recoded No/Prog, pgtime dropped"),
  list(name = "kyphosis", make = make_kyphosis, target = "Kyphosis", categorical = character(0),
       fold_seed = 4201L, loss = rbind(c(0, 1), c(4, 0)),
       source = "R package rpart, data(kyphosis)"),
  list(name = "infert", make = make_infert, target = "status", categorical = "education",
       fold_seed = 4203L, loss = rbind(c(0, 3), c(1, 0)), maxdepth = 3L,
       source = "R base package datasets::infert; case recoded case/control, stratum ids dropped"),
  list(name = "iris", make = make_iris, target = "Species", categorical = character(0),
       fold_seed = 4202L, loss = rbind(c(0, 1, 2), c(1, 0, 5), c(2, 1, 0)),
       source = "R base package datasets::iris")
)

## ---------------------------------------------------------------- extraction ----
split_rows <- function(fit) {
  ff <- fit$frame
  internal <- ff$var != "<leaf>"
  first <- 1L + c(0L, cumsum(internal + ff$ncompete + ff$nsurrogate))[seq_len(nrow(ff))]
  first[!internal] <- NA_integer_
  first
}

primary_record <- function(fit, k, levels_of) {
  sp <- fit$splits
  var <- rownames(sp)[k]
  ncat <- sp[k, "ncat"]
  rec <- list(variable = var, improve = unname(sp[k, "improve"]))
  if (abs(ncat) == 1) {
    rec$type <- "numeric"
    rec$threshold <- unname(sp[k, "index"])
    rec$direction <- if (ncat < 0) "<" else ">="     # the rows that go to the left child
  } else {
    rec$type <- "categorical"
    rec$csplit <- as.integer(fit$csplit[as.integer(sp[k, "index"]), seq_len(ncat)])
    rec$levels_left <- I(levels_of[[var]][rec$csplit == 1L])
  }
  rec
}

extract_nodes <- function(fit, levels_of) {
  ff <- fit$frame
  nodes <- as.integer(rownames(ff))
  first <- split_rows(fit)
  ylev <- attr(fit, "ylevels")
  nclass <- length(ylev)
  lapply(seq_len(nrow(ff)), function(i) {
    y2 <- ff$yval2[i, ]
    rec <- list(node = nodes[i], is_leaf = ff$var[i] == "<leaf>", n = ff$n[i],
                dev = ff$dev[i], yval_label = ylev[ff$yval[i]],
                class_counts = I(unname(y2[1L + seq_len(nclass)])),
                complexity = ff$complexity[i])
    rec["primary"] <- list(NULL)
    if (!rec$is_leaf) rec$primary <- primary_record(fit, first[i], levels_of)
    rec
  })
}

cptable_list <- function(cpt) {
  lapply(seq_len(nrow(cpt)), function(i) as.list(setNames(unname(cpt[i, ]), colnames(cpt))))
}

json_write <- function(x, path) {
  txt <- toJSON(x, auto_unbox = TRUE, digits = NA, na = "null", null = "null",
                pretty = 1, matrix = "rowmajor")
  writeLines(enc2utf8(txt), path, useBytes = TRUE)
}

## ---------------------------------------------------------------------- main ----
manifest <- list()
for (spec in tables) {
  csv_path <- file.path(data_dir, paste0(spec$name, ".csv"))
  write_table_csv(spec$make(), csv_path)
  df <- type_columns(read_table_csv(csv_path), spec$target, "class", spec$categorical)
  levels_of <- lapply(Filter(is.factor, df), levels)
  folds <- make_folds(nrow(df), spec$fold_seed)
  writeLines(as.character(folds), file.path(data_dir, paste0(spec$name, ".folds")))

  ctrl_args <- list(minsplit = 2L, minbucket = 1L, cp = 0, maxcompete = 0L, maxsurrogate = 5L,
                    usesurrogate = 2L, surrogatestyle = 0L,
                    maxdepth = if (is.null(spec$maxdepth)) 30L else spec$maxdepth)
  parms <- list(loss = spec$loss)
  fml <- target_formula(spec$target)
  fit <- rpart(fml, data = df, method = "class", parms = parms,
               control = do.call(rpart.control, c(ctrl_args, list(xval = folds))))
  stopifnot(is.null(fit$na.action))                  # every row is fitted
  ylev <- attr(fit, "ylevels")
  nodes <- as.integer(rownames(fit$frame))
  columns <- lapply(names(df), function(nm) {
    c(list(name = nm, type = if (is.factor(df[[nm]])) "categorical" else "numeric"),
      if (is.factor(df[[nm]])) list(levels = I(levels(df[[nm]]))) else list())
  })
  gold <- list(
    table = spec$name, source = spec$source,
    csv = paste0("data/", spec$name, ".csv"), folds_file = paste0("data/", spec$name, ".folds"),
    generated_by = "tools/rpart/make_loss_golden.R", r_version = R.version.string,
    rpart_version = as.character(packageVersion("rpart")),
    target = spec$target, columns = columns, class_levels = I(ylev),
    loss = spec$loss, prior = unname(fit$parms$prior),
    control = ctrl_args,
    nodes = extract_nodes(fit, levels_of),
    rows = list(
      leaf_node_fit = nodes[fit$where],
      prob = unname(predict(fit, type = "prob")),
      class = as.character(predict(fit, type = "class"))
    ),
    cv = list(fold_ids = folds, cptable = cptable_list(fit$cptable))
  )
  json_write(gold, file.path(out_dir, paste0(spec$name, ".json")))
  cat(sprintf("%-9s n=%d nodes=%d root risk=%g cp rows=%d\n", spec$name, nrow(df),
              nrow(fit$frame), fit$frame$dev[1L], nrow(fit$cptable)))
  manifest[[length(manifest) + 1L]] <- list(table = spec$name, golden = paste0(spec$name, ".json"))
}
json_write(list(generated_by = "tools/rpart/make_loss_golden.R", r_version = R.version.string,
                rpart_version = as.character(packageVersion("rpart")), tables = manifest),
           file.path(out_dir, "manifest.json"))
