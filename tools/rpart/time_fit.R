# time_fit.R -- time rpart() on a table written by benchmarks/peers.py (benchmarks/engine.py's peer).
#
#   Rscript tools/rpart/time_fit.R DIR MODE REPS SEED
#
# DIR holds manifest.tsv and one little-endian binary file per column (float64 for numbers,
# NaN = missing; int32 category codes, -1 = missing); its first line is
# "n_train <tab> n_test <tab> class|anova".  The first n_train rows are the training rows, the
# rest the held-out rows.  Reading the files is not timed.
#
# MODE "exact":   rpart(cp = 0, xval = 0, minsplit = 2, minbucket = 1, maxcompete = 0), the
#                 fully grown tree with rpart's default 5 surrogates (usesurrogate = 2).
# MODE "default": rpart() with every control at its default (xval = 10, cp = 0.01, minsplit 20,
#                 minbucket 7, maxcompete 4, maxsurrogate 5); set.seed(SEED) before each fit,
#                 since the CV groups are random.
#
# Each of REPS fits is timed with system.time() (a gc() first, not counted).  Prints one
# "key value ..." line per fact: "start R" (flushed) as fit R begins, "time ELAPSED CPU" per
# fit; then "leaves", "depth" and "score" (held-out accuracy, or R^2 for anova) of the fitted
# tree; in MODE default also those of the tree pruned at the 1-SE row of its cptable (what
# rootwise's default "cv-1se" keeps), outside the timing.  Base R and rpart only.

suppressPackageStartupMessages(library(rpart))

args <- commandArgs(trailingOnly = TRUE)
if (length(args) != 4) stop("usage: Rscript time_fit.R DIR MODE REPS SEED")
dir <- args[1]
mode <- args[2]
reps <- as.integer(args[3])
seed <- as.integer(args[4])
if (!(mode %in% c("exact", "default"))) stop("MODE must be exact or default")

read_table_bin <- function(dir) {
  lines <- readLines(file.path(dir, "manifest.tsv"))
  head <- strsplit(lines[1], "\t")[[1]]
  n <- as.integer(head[1]) + as.integer(head[2])
  cols <- list()
  for (line in lines[-1]) {
    f <- strsplit(line, "\t")[[1]]  # name, kind (num / cat / class), number of levels
    path <- file.path(dir, paste0(f[1], ".bin"))
    con <- file(path, "rb")
    if (f[2] == "num") {
      v <- readBin(con, "double", n, size = 8, endian = "little")
      v[is.nan(v)] <- NA_real_
    } else {
      codes <- readBin(con, "integer", n, size = 4, endian = "little")
      k <- as.integer(f[3])
      v <- factor(ifelse(codes < 0L, NA_integer_, codes), levels = seq.int(0L, k - 1L))
    }
    close(con)
    cols[[f[1]]] <- v
  }
  list(data = as.data.frame(cols), n_train = as.integer(head[1]), method = head[3])
}

tab <- read_table_bin(dir)
train <- tab$data[seq_len(tab$n_train), , drop = FALSE]
test <- tab$data[-seq_len(tab$n_train), , drop = FALSE]
method <- tab$method

control <- if (mode == "exact") {
  rpart.control(cp = 0, xval = 0, minsplit = 2, minbucket = 1, maxcompete = 0)
} else {
  rpart.control()
}

fit <- NULL
for (r in seq_len(reps)) {
  set.seed(seed)
  cat("start", r, "\n")  # the caller's per-fit time limit runs from here: reading is not counted
  flush(stdout())
  t <- system.time(fit <- rpart(y ~ ., data = train, method = method, control = control))
  cat("time", t[["elapsed"]], t[["user.self"]] + t[["sys.self"]], "\n")
}

describe <- function(fit, label) {
  leaves <- sum(fit$frame$var == "<leaf>")
  # node numbers: the root is 1, children of k are 2k and 2k + 1, so depth = floor(log2(id))
  depth <- max(floor(log2(as.numeric(rownames(fit$frame)))))
  if (method == "class") {
    score <- mean(predict(fit, test, type = "class") == test$y)
  } else {
    pred <- predict(fit, test)
    score <- 1 - sum((test$y - pred)^2) / sum((test$y - mean(test$y))^2)
  }
  cat(paste0(label, "leaves"), leaves, "\n")
  cat(paste0(label, "depth"), depth, "\n")
  cat(paste0(label, "score"), format(score, digits = 6), "\n")
}

describe(fit, "")
if (mode == "default") {
  cpt <- fit$cptable
  imin <- which.min(cpt[, "xerror"])
  row <- min(which(cpt[, "xerror"] <= cpt[imin, "xerror"] + cpt[imin, "xstd"]))
  describe(prune(fit, cp = cpt[row, "CP"]), "pruned_1se_")
}
