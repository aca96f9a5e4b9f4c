#!/usr/bin/env Rscript
# regression_tables.R -- rpart's bundled regression examples as CSV, for the
# regression part of benchmarks/cart_accuracy.py (which must run without R).
#
# Usage (from the repository root):
#   Rscript tools/rpart/regression_tables.R [--out-dir tests/golden/rpart/data]
#
# Writes <name>.csv (common.R's CSV conventions: empty cell = missing) and
# regression_tables.json (per table: target, and each column's kind --
# "numeric", "nominal" or "ordered" -- with a factor's levels in R's order):
#
#   car.test.frame  Mileage ~ .   rpart::car.test.frame, 60 cars (rows with a
#                                 missing Mileage: none)
#   cu.summary      Price ~ .     rpart::cu.summary, 117 cars; Reliability is an
#                                 ordered factor, Mileage has missing cells
#   car90           Price ~ .     rpart::car90 without Rim, Tires and Model2 and
#                                 Price in thousands, the rows with a Price: the
#                                 anova example of rpart's vignette ("Consumer
#                                 Report Auto Data", longintro §8)

a <- commandArgs(trailingOnly = FALSE)
tool_dir <- dirname(normalizePath(sub("^--file=", "", a[grep("^--file=", a)][1L])))
source(file.path(tool_dir, "common.R"))
root <- normalizePath(file.path(tool_dir, "..", ".."))
args <- commandArgs(trailingOnly = TRUE)
i <- match("--out-dir", args)
out_dir <- if (is.na(i)) file.path(root, "tests", "golden", "rpart", "data") else args[i + 1L]

data(car.test.frame, package = "rpart", envir = environment())
data(cu.summary, package = "rpart", envir = environment())
data(car90, package = "rpart", envir = environment())
cars <- car90[, setdiff(names(car90), c("Rim", "Tires", "Model2"))]
cars$Price <- cars$Price / 1000
cars <- cars[!is.na(cars$Price), ]

tables <- list(
  list(name = "car.test.frame", target = "Mileage", df = car.test.frame[!is.na(car.test.frame$Mileage), ]),
  list(name = "cu.summary", target = "Price", df = cu.summary[!is.na(cu.summary$Price), ]),
  list(name = "car90", target = "Price", df = cars))

spec <- lapply(tables, function(t) {
  df <- t$df
  rownames(df) <- NULL
  write_table_csv(df, file.path(out_dir, paste0(t$name, ".csv")))
  columns <- lapply(names(df), function(nm) {
    v <- df[[nm]]
    if (is.ordered(v)) list(name = nm, kind = "ordered", levels = I(levels(v)))
    else if (is.factor(v)) list(name = nm, kind = "nominal", levels = I(levels(v)))
    else list(name = nm, kind = "numeric")
  })
  cat(sprintf("%-16s %4d rows, %2d predictors, target %s\n", t$name, nrow(df), ncol(df) - 1L, t$target))
  list(name = t$name, csv = paste0(t$name, ".csv"), target = t$target, rows = nrow(df),
       columns = columns)
})
writeLines(toJSON(list(generated_by = "tools/rpart/regression_tables.R",
                       rpart_version = as.character(packageVersion("rpart")),
                       tables = spec), auto_unbox = TRUE, pretty = 1),
           file.path(out_dir, "regression_tables.json"))
