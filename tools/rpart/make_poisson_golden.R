#!/usr/bin/env Rscript
# make_poisson_golden.R -- rpart's method = "poisson" trees on two real count tables, the
# golden data of tests/test_regression_criteria.py (CARTRegressor(criterion = "poisson")).
#
# Usage: Rscript tools/rpart/make_poisson_golden.R   (needs rpart 4.1.19 and jsonlite)
# Writes tests/golden/rpart/data/{quakes,solder_balance}.csv and tests/golden/rpart/poisson.json.
#
# rpart's Poisson split search uses the unshrunk rates (poisson.c: "The search for a split does
# not use the Bayes estimate"); parms = list(shrink = 0) makes the node rates the plain means
# too, so the tree is the half-deviance tree scikit-learn and rootwise grow, as long as no
# chosen split leaves a side without events (rpart allows one, they do not) and no split gains
# nothing (rpart needs a positive improvement). No xval, competitors or surrogates.
script_path <- function() {
  a <- commandArgs(trailingOnly = FALSE)
  normalizePath(sub("^--file=", "", a[grep("^--file=", a)])[1L])
}
repo_dir <- normalizePath(file.path(dirname(script_path()), "..", ".."))
out_dir <- file.path(repo_dir, "tests", "golden", "rpart")
suppressPackageStartupMessages({ library(rpart); library(jsonlite) })

settings <- list(cp = 0, minsplit = 20L, minbucket = 7L, maxdepth = 3L)
ctl <- rpart.control(cp = settings$cp, minsplit = settings$minsplit,
                     minbucket = settings$minbucket, maxdepth = settings$maxdepth,
                     maxcompete = 0, maxsurrogate = 0, xval = 0)

# every node in rpart's numbering (children of k: 2k, 2k + 1), its split as the left son takes it
nodes_of <- function(fit, data) {
  fr <- fit$frame
  k <- 0L
  lapply(seq_len(nrow(fr)), function(i) {
    v <- as.character(fr$var[i])
    e <- list(node = as.integer(rownames(fr)[i]), var = v, n = fr$n[i], rate = fr$yval[i],
              deviance = fr$dev[i])
    if (v != "<leaf>") {
      k <<- k + 1L
      ncat <- fit$splits[k, "ncat"]
      if (abs(ncat) == 1) {
        e$threshold <- unname(fit$splits[k, "index"])
        e$left_is_below <- ncat == -1
      } else {
        side <- fit$csplit[fit$splits[k, "index"], ]
        e$left_levels <- I(levels(data[[v]])[side == 1])  # a list even of one level
        e$right_levels <- I(levels(data[[v]])[side == 3])
      }
    }
    e
  })
}

tables <- list(
  quakes = list(data = datasets::quakes[, c("lat", "long", "depth", "mag", "stations")],
                target = "stations"),
  solder_balance = list(data = rpart::solder.balance, target = "skips"))
golden <- list(rpart_version = as.character(packageVersion("rpart")),
               r_version = R.version.string, settings = settings, tables = list())
for (name in names(tables)) {
  t <- tables[[name]]
  csv <- file.path("data", paste0(name, ".csv"))
  write.csv(t$data, file.path(out_dir, csv), row.names = FALSE)
  fit <- rpart(as.formula(paste(t$target, "~ .")), data = t$data, method = "poisson",
               parms = list(shrink = 0), control = ctl)
  golden$tables[[name]] <- list(csv = csv, target = t$target,
                                categorical = names(t$data)[sapply(t$data, is.factor)],
                                nodes = nodes_of(fit, t$data))
}
writeLines(toJSON(golden, auto_unbox = TRUE, digits = NA, pretty = TRUE),
           file.path(out_dir, "poisson.json"))
