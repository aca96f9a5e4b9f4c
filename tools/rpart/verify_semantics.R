#!/usr/bin/env Rscript
# verify_semantics.R -- check, against the installed rpart, every statement
# that tools/rpart/README.md makes about rpart's semantics.
#
# Usage: Rscript tools/rpart/verify_semantics.R [--golden DIR]
#
# For every table in DIR/manifest.json (default tests/golden/rpart) it refits
# the tree exactly as make_rpart_golden.R did and then recomputes, with plain R
# code that does not call rpart, what the README says rpart does:
#   routing (primary -> surrogates in order -> majority), node counts,
#   primary split choice/improve/threshold/direction/tie-breaks,
#   surrogate choice/agree/adj/threshold/level assignment/order,
#   variable importance, the 1-SE rule, and the cross-validated xerror/xstd
#   (recomputed from per-fold refits pruned at rescaled cps).
# It also re-reads the golden JSON and checks it still equals a fresh fit,
# and runs a few stand-alone experiments (weights vs minsplit/minbucket,
# cp = 0 vs cp = -1, the categorical-surrogate ">= 2 disagreements" quirk).
# Prints one line per check and exits non-zero if any check fails.

script_path <- function() {
  a <- commandArgs(trailingOnly = FALSE)
  normalizePath(sub("^--file=", "", a[grep("^--file=", a)][1L]))
}
tool_dir <- dirname(script_path())
repo_dir <- normalizePath(file.path(tool_dir, "..", ".."))
source(file.path(tool_dir, "common.R"))
args <- commandArgs(trailingOnly = TRUE)
golden_dir <- if ("--golden" %in% args) args[match("--golden", args) + 1L] else
  file.path(repo_dir, "tests", "golden", "rpart")

LEFT <- -1L; RIGHT <- 1L
n_fail <- 0L
report <- function(table, what, ok, detail = "") {
  if (!isTRUE(ok)) n_fail <<- n_fail + 1L
  cat(sprintf("[%s] %-22s %s%s\n", if (isTRUE(ok)) "PASS" else "FAIL", table, what,
              if (nzchar(detail)) paste0("  (", detail, ")") else ""))
}
close_to <- function(a, b, tol = 1e-9) all(abs(a - b) <= tol * pmax(1, abs(a), abs(b)))

## ------------------------------------------------------------ data ----
load_table <- function(g) {
  raw <- read_table_csv(file.path(golden_dir, g$csv))
  for (col in g$columns) {
    nm <- col$name
    raw[[nm]] <- if (col$type == "categorical") factor(raw[[nm]], levels = unlist(col$levels))
                 else as.numeric(raw[[nm]])
  }
  raw
}

control_of <- function(g, xval = 0L) {
  c0 <- g$control
  rpart.control(minsplit = c0$minsplit, minbucket = c0$minbucket, cp = c0$cp,
                maxcompete = c0$maxcompete, maxsurrogate = c0$maxsurrogate,
                usesurrogate = c0$usesurrogate, surrogatestyle = c0$surrogatestyle,
                maxdepth = c0$maxdepth, xval = xval)
}

## ------------------------------------------- split bookkeeping (tree) ----
split_rows <- function(fit) {
  ff <- fit$frame
  internal <- ff$var != "<leaf>"
  first <- 1L + c(0L, cumsum(internal + ff$ncompete + ff$nsurrogate))[seq_len(nrow(ff))]
  lapply(seq_len(nrow(ff)), function(i) {
    if (!internal[i]) return(NULL)
    list(primary = first[i], surrogates = first[i] + ff$ncompete[i] + seq_len(ff$nsurrogate[i]))
  })
}

# direction (LEFT/RIGHT/0) a stored split gives to value(s) x; 0 = no direction
split_dir <- function(fit, k, x) {
  ncat <- fit$splits[k, "ncat"]; idx <- fit$splits[k, "index"]
  out <- rep(0L, length(x))
  ok <- !is.na(x)
  if (abs(ncat) == 1) {
    xv <- as.numeric(x[ok])
    out[ok] <- ifelse(xv < idx, as.integer(ncat), -as.integer(ncat))
  } else {
    code <- fit$csplit[idx, as.integer(x[ok])] - 2L   # -1 left, 0 none, +1 right
    out[ok] <- as.integer(code)
  }
  out
}

# Direction of every row at node position i: primary, then the surrogates in
# order; 0 where all of them are missing.  Also returns which split row did it.
directions <- function(fit, sr_i, d, rows) {
  k <- sr_i$primary
  dir <- split_dir(fit, k, d[[rownames(fit$splits)[k]]][rows])
  used <- rep(0L, length(rows)); used[dir != 0L] <- k
  for (ks in sr_i$surrogates) {
    todo <- dir == 0L
    if (!any(todo)) break
    dd <- split_dir(fit, ks, d[[rownames(fit$splits)[ks]]][rows[todo]])
    used[which(todo)[dd != 0L]] <- ks
    dir[todo] <- dd
  }
  list(dir = dir, used = used)
}

# Route the rows of d down the tree.  majority = "fit": rows missing the
# primary and every surrogate follow the side to which the primary split sent
# more of the TRAINING rows (d_train) present on the primary variable;
# "predict": they follow the child with the larger frame n.  Ties: the row
# stays in the node.
route <- function(fit, d, majority, d_train = d) {
  ff <- fit$frame
  nodes <- as.integer(rownames(ff))
  sr <- split_rows(fit)
  at <- rep(1L, nrow(d)); at_tr <- rep(1L, nrow(d_train))
  members <- list(); routed_by <- list()
  for (i in seq_len(nrow(ff))) {
    nd <- nodes[i]
    rows <- which(at == nd); rows_tr <- which(at_tr == nd)
    members[[as.character(nd)]] <- rows
    if (is.null(sr[[i]])) next
    k <- sr[[i]]$primary
    if (majority == "fit") {
      pd <- split_dir(fit, k, d_train[[rownames(fit$splits)[k]]][rows_tr])
      nl <- sum(pd == LEFT); nr <- sum(pd == RIGHT)
    } else {
      nl <- ff$n[nodes == 2L * nd]; nr <- ff$n[nodes == 2L * nd + 1L]
    }
    maj <- if (nl > nr) LEFT else if (nr > nl) RIGHT else 0L
    r <- directions(fit, sr[[i]], d, rows)
    dir <- r$dir; dir[dir == 0L] <- maj
    routed_by[[as.character(nd)]] <- r$used
    at[rows[dir == LEFT]] <- 2L * nd
    at[rows[dir == RIGHT]] <- 2L * nd + 1L
    rt <- directions(fit, sr[[i]], d_train, rows_tr)
    dt <- rt$dir; dt[dt == 0L] <- maj
    at_tr[rows_tr[dt == LEFT]] <- 2L * nd
    at_tr[rows_tr[dt == RIGHT]] <- 2L * nd + 1L
  }
  list(at = at, members = members, routed_by = routed_by)
}

## -------------------------------------------- impurity / improvement ----
n_gini <- function(cnt) { n <- sum(cnt); if (n == 0) 0 else n - sum(cnt^2) / n }
ss <- function(y) if (length(y) == 0L) 0 else sum((y - mean(y))^2)

# rpart's primary-split search for one variable on the rows of a node.
# Returns improve (as stored by rpart), threshold or left-level set, ncat.
best_primary <- function(x, y, method, K, edge, node_ss) {
  ok <- !is.na(x)
  x <- x[ok]; y <- y[ok]
  if (length(x) == 0L) return(NULL)
  score <- function(left) {
    if (method == "class") {
      cl <- tabulate(y[left], K); cr <- tabulate(y[!left], K)
      n_gini(cl + cr) - n_gini(cl) - n_gini(cr)
    } else ss(y) - ss(y[left]) - ss(y[!left])
  }
  goes_left_first <- function(left) {          # TRUE: 'left' group goes left
    if (method == "class") {
      pl <- tabulate(y[left], K) / sum(left); pr <- tabulate(y[!left], K) / sum(!left)
      sum(pl * (0:(K - 1))) < sum(pr * (0:(K - 1)))
    } else mean(y[left]) < mean(y[!left])
  }
  best <- 0; res <- NULL
  if (is.numeric(x) && !is.factor(x)) {
    u <- sort(unique(x))
    if (length(u) < 2L) return(NULL)
    for (j in seq_len(length(u) - 1L)) {
      left <- x <= u[j]
      if (sum(left) < edge || sum(!left) < edge) next
      s <- score(left)
      if (s > best * (1 + 1e-12) + 1e-300) {
        best <- s
        res <- list(threshold = (u[j] + u[j + 1L]) / 2,
                    ncat = if (goes_left_first(left)) -1 else 1)
      }
    }
  } else {
    lv_codes <- as.integer(x)
    nlev <- nlevels(x)
    cnt <- tabulate(lv_codes, nlev)
    present <- which(cnt > 0L)
    if (length(present) < 2L) return(NULL)
    evaluate <- function(left_set) {
      left <- lv_codes %in% left_set
      if (sum(left) < edge || sum(!left) < edge) return(NULL)
      list(s = score(left), left = left)
    }
    try_set <- function(left_set) {
      e <- evaluate(left_set)
      if (!is.null(e) && e$s > best * (1 + 1e-12) + 1e-300) {
        best <<- e$s
        lr <- if (goes_left_first(e$left)) left_set else setdiff(present, left_set)
        code <- rep(2L, nlev); code[present] <- 3L; code[lr] <- 1L
        res <<- list(csplit = code, ncat = nlev)
      }
    }
    if (method == "anova" || K == 2L) {
      # order by mean y / proportion of the first class, stable in level order
      key <- vapply(present, function(l) {
        if (method == "anova") mean(y[lv_codes == l]) else mean(y[lv_codes == l] == 1L)
      }, numeric(1))
      ord <- present[order(key, seq_along(key))]
      for (m in seq_len(length(ord) - 1L)) try_set(ord[seq_len(m)])
    } else {
      # classic Gray code over the present levels, last level never moves
      g <- rep(0L, nlev); g[present] <- 1L
      side <- rep(RIGHT, nlev)
      repeat {
        moved <- NA_integer_
        for (i in seq_len(nlev - 1L)) {
          if (g[i] == 1L) { g[i] <- 2L; moved <- i; break }
          else if (g[i] == 2L) g[i] <- 1L
        }
        if (is.na(moved)) break
        side[moved] <- -side[moved]
        left_set <- intersect(which(side == LEFT), present)
        if (length(left_set) > 0L && length(left_set) < length(present)) try_set(left_set)
      }
    }
  }
  if (is.null(res)) return(NULL)
  res$improve <- if (method == "class") best else best / node_ss
  res$count <- length(x)
  res
}

# rpart's surrogate search for one variable: y = primary direction (0 = primary
# missing).  tl/tr = rows the primary sends left/right (the agreement
# denominator under surrogatestyle = 0).
best_surrogate <- function(x, ydir, tl, tr) {
  if (is.factor(x)) {
    nlev <- nlevels(x)
    ok <- !is.na(x) & ydir != 0L
    lc <- tabulate(as.integer(x[ok & ydir == LEFT]), nlev)
    rc <- tabulate(as.integer(x[ok & ydir == RIGHT]), nlev)
    defdir <- if (sum(lc) > sum(rc)) LEFT else RIGHT
    code <- rep(2L, nlev); agree <- 0; disagree <- 0
    for (l in seq_len(nlev)) {
      if (lc[l] == 0 && rc[l] == 0) next
      if (lc[l] < rc[l] || (lc[l] == rc[l] && defdir == RIGHT)) {
        code[l] <- 3L; agree <- agree + rc[l]; disagree <- disagree + lc[l]
      } else {
        code[l] <- 1L; agree <- agree + lc[l]; disagree <- disagree + rc[l]
      }
    }
    if (!(disagree > 1 && agree > 1)) return(NULL)
    res <- list(csplit = code, ncat = nlev)
  } else {
    ok <- !is.na(x)
    o <- order(x[ok]); xs <- x[ok][o]; ys <- ydir[ok][o]
    ll <- sum(ys == LEFT); rl <- sum(ys == RIGHT); lr <- 0; rr <- 0
    agree <- max(ll, rl); found <- FALSE
    lastx <- xs[1L]; i <- 1L
    while ((ll + rl) >= 2 && i <= length(xs)) {
      if ((lr + rr) >= 2 && xs[i] != lastx) {
        if ((ll + rr) > agree) {
          agree <- ll + rr; found <- TRUE; res <- list(threshold = (xs[i] + lastx) / 2, ncat = 1)
        } else if ((lr + rl) > agree) {
          agree <- lr + rl; found <- TRUE; res <- list(threshold = (xs[i] + lastx) / 2, ncat = -1)
        }
      }
      if (ys[i] == LEFT) { ll <- ll - 1; lr <- lr + 1 }
      if (ys[i] == RIGHT) { rl <- rl - 1; rr <- rr + 1 }
      lastx <- xs[i]; i <- i + 1L
    }
    if (!found) return(NULL)
  }
  tot <- tl + tr; maj <- max(tl, tr) / tot
  res$agree <- agree / tot
  res$adj <- (res$agree - maj) / (1 - maj)
  if (res$adj <= 1e-10) return(NULL)
  res
}

same_split <- function(fit, k, mine) {
  sp <- fit$splits[k, ]
  if (is.null(mine$csplit)) {
    sp[["ncat"]] == mine$ncat && sp[["index"]] == mine$threshold
  } else {
    identical(as.integer(fit$csplit[sp[["index"]], seq_len(sp[["ncat"]])]), as.integer(mine$csplit))
  }
}

## ---------------------------------------------------------- checks ----
check_table <- function(entry) {
  gpath <- file.path(golden_dir, entry$golden)
  g <- fromJSON(gpath, simplifyVector = FALSE)
  tb <- g$table
  df <- load_table(g)
  fml <- as.formula(g$formula)
  fit <- rpart(fml, data = df, method = g$method, control = control_of(g))
  used <- setdiff(seq_len(nrow(df)), unlist(g$rows_dropped_by_na_rpart) + 1L)
  d <- df[used, , drop = FALSE]
  xvars <- setdiff(names(df), g$target)
  ff <- fit$frame
  nodes <- as.integer(rownames(ff))
  sr <- split_rows(fit)

  # 0. golden JSON == fresh fit
  gn <- g$nodes
  report(tb, "golden nodes equal a fresh fit",
         length(gn) == nrow(ff) &&
           all(vapply(seq_along(gn), function(i) gn[[i]]$node == nodes[i] &&
                        gn[[i]]$var == as.character(ff$var[i]) &&
                        close_to(gn[[i]]$dev, ff$dev[i]) && gn[[i]]$n == ff$n[i], logical(1))))

  # 0b. level order = distinct values sorted by code point
  rawc <- read_table_csv(file.path(golden_dir, g$csv))
  cats <- Filter(function(c) c$type == "categorical", g$columns)
  report(tb, "factor levels = distinct CSV values sorted by code point",
         all(vapply(cats, function(c) identical(unlist(c$levels), sorted_levels(rawc[[c$name]])), logical(1))))

  # 1. na.rpart drops rows with missing y or all predictors missing
  ymiss <- is.na(df[[g$target]])
  xall <- rowSums(is.na(df[xvars])) == length(xvars)
  report(tb, "na.rpart drops rows with y missing or every x missing",
         identical(sort(which(ymiss | xall)), sort(as.integer(unlist(g$rows_dropped_by_na_rpart)) + 1L)))

  # 2. fit-time routing: primary, surrogates in order, then majority by
  #    primary-present counts; compare with fit$where
  rf <- route(fit, d, "fit")
  report(tb, "fit-time routing reproduces fit$where", identical(rf$at, nodes[fit$where]))
  # 3. predict-time routing: majority = child with larger n
  rp <- route(fit, df, "predict")
  report(tb, "predict(newdata) routing (majority by child n)",
         identical(rp$at, as.integer(unlist(g$rows$leaf_node_newdata))))
  # 4. node n = rows reaching the node
  report(tb, "frame$n = number of rows routed into the node",
         all(vapply(seq_along(nodes), function(i) length(rf$members[[as.character(nodes[i])]]) == ff$n[i], logical(1))))

  y <- if (g$method == "class") as.integer(d[[g$target]]) else d[[g$target]]
  K <- if (g$method == "class") nlevels(d[[g$target]]) else 0L
  edge <- g$control$minbucket
  bad_primary <- character(0); bad_sur <- character(0); bad_count <- character(0)
  ties <- 0L
  for (i in seq_along(nodes)) {
    if (is.null(sr[[i]])) next
    nd <- nodes[i]
    rows <- rf$members[[as.character(nd)]]
    node_ss <- if (g$method == "anova") ss(y[rows]) else NA
    k <- sr[[i]]$primary
    cand <- lapply(xvars, function(v) best_primary(d[[v]][rows], y[rows], g$method, K, edge, node_ss))
    imp <- vapply(cand, function(c) if (is.null(c)) -Inf else c$improve, numeric(1))
    pv <- rownames(fit$splits)[k]
    stored <- fit$splits[k, "improve"]
    best <- max(imp)
    first_best <- which(imp >= best - 1e-9 * abs(best))[1L]
    mine <- cand[[match(pv, xvars)]]
    ok <- !is.null(mine) && close_to(mine$improve, stored) && close_to(best, stored) &&
      xvars[first_best] == pv && same_split(fit, k, mine) &&
      fit$splits[k, "count"] == sum(!is.na(d[[pv]][rows]))
    if (sum(imp >= best - 1e-9 * abs(best)) > 1L) ties <- ties + 1L
    if (!ok) bad_primary <- c(bad_primary, as.character(nd))

    # surrogates
    pdir <- split_dir(fit, k, d[[pv]][rows])
    tl <- sum(pdir == LEFT); tr <- sum(pdir == RIGHT)
    sc <- list()
    for (v in setdiff(xvars, pv)) {
      s <- best_surrogate(d[[v]][rows], pdir, tl, tr)
      if (!is.null(s)) { s$var <- v; sc[[length(sc) + 1L]] <- s }
    }
    if (length(sc)) {
      ag <- vapply(sc, `[[`, numeric(1), "agree")
      sc <- sc[order(-ag, seq_along(ag))]
      sc <- sc[seq_len(min(length(sc), g$control$maxsurrogate))]
    }
    ks <- sr[[i]]$surrogates
    ok <- length(ks) == length(sc)
    if (ok) for (j in seq_along(ks)) {
      kk <- ks[j]
      ok <- ok && rownames(fit$splits)[kk] == sc[[j]]$var &&
        close_to(fit$splits[kk, "improve"], sc[[j]]$agree) &&
        close_to(fit$splits[kk, "adj"], sc[[j]]$adj) && same_split(fit, kk, sc[[j]])
    }
    if (!ok) bad_sur <- c(bad_sur, as.character(nd))
    # counts of rows routed by each surrogate
    used_by <- rf$routed_by[[as.character(nd)]]
    cnt_ok <- all(vapply(ks, function(kk) fit$splits[kk, "count"] == sum(used_by == kk), logical(1)))
    if (!cnt_ok) bad_count <- c(bad_count, as.character(nd))
  }
  report(tb, "primary split = best improve over variables (ties -> first column), rpart's search",
         length(bad_primary) == 0L,
         if (length(bad_primary)) paste("nodes", paste(bad_primary, collapse = ",")) else
           sprintf("%d internal nodes, %d with tied best improve", sum(!vapply(sr, is.null, logical(1))), ties))
  report(tb, "surrogates: variables, order, agree, adj, threshold/levels",
         length(bad_sur) == 0L, if (length(bad_sur)) paste("nodes", paste(bad_sur, collapse = ",")) else "")
  report(tb, "surrogate 'count' = rows routed by that surrogate",
         length(bad_count) == 0L, if (length(bad_count)) paste("nodes", paste(bad_count, collapse = ",")) else "")

  # 5. minsplit: every internal node has n >= minsplit
  report(tb, "internal nodes have n >= minsplit",
         all(ff$n[ff$var != "<leaf>"] >= g$control$minsplit))

  # 6. variable importance
  imp <- list()
  for (i in seq_along(nodes)) {
    if (is.null(sr[[i]])) next
    k <- sr[[i]]$primary
    base <- fit$splits[k, "improve"] * (if (g$method == "anova") ff$dev[i] else 1)
    add <- function(v, x) imp[[v]] <<- (if (is.null(imp[[v]])) 0 else imp[[v]]) + x
    add(rownames(fit$splits)[k], base)
    for (kk in sr[[i]]$surrogates) add(rownames(fit$splits)[kk], base * fit$splits[kk, "adj"])
  }
  vi <- fit$variable.importance
  report(tb, "variable.importance = sum improve(*dev for anova) + improve*adj over surrogates",
         setequal(names(imp), names(vi)) && close_to(unlist(imp)[names(vi)], unname(vi)))

  # 7. cross-validation: recompute xerror/xstd from fold refits
  folds <- as.integer(unlist(g$cv$fold_ids))[used]
  cpt <- do.call(rbind, lapply(g$cv$cptable, unlist))
  root_risk <- ff$dev[1L]
  cps <- cpt[, "CP"] * root_risk                        # absolute
  cpj <- c(10 * cps[1L], sqrt(cps[-length(cps)] * cps[-1L]))
  err <- matrix(0, nrow(d), length(cpj))
  n_predict_rule_diff <- 0L
  for (f in sort(unique(folds))) {
    tr_rows <- which(folds != f); te_rows <- which(folds == f)
    ff_fit <- rpart(fml, data = d[tr_rows, , drop = FALSE], method = g$method,
                    control = control_of(g))
    scale <- length(tr_rows) / nrow(d)                  # fold weight / total weight
    for (j in seq_along(cpj)) {
      pr <- prune(ff_fit, cp = cpj[j] * scale / ff_fit$frame$dev[1L])
      # held-out rows use the FIT-time majority rule (xval.c -> rundown.c ->
      # branch.c), not predict.rpart's child-n rule
      at <- route(pr, d[te_rows, , drop = FALSE], "fit", d[tr_rows, , drop = FALSE])$at
      p <- pr$frame$yval[match(at, as.integer(rownames(pr$frame)))]
      err[te_rows, j] <- if (g$method == "class") as.numeric(p != y[te_rows]) else (y[te_rows] - p)^2
      pp <- predict(pr, newdata = d[te_rows, , drop = FALSE], type = "vector")
      n_predict_rule_diff <- n_predict_rule_diff + sum(pp != p)
    }
  }
  xerr <- colSums(err) / root_risk
  xstd <- sqrt(colSums(err^2) - colSums(err)^2 / nrow(d)) / root_risk
  report(tb, "xerror/xstd = fold refits pruned at sqrt(CP_i*CP_{i+1})*root_risk*(n_train/n)",
         close_to(xerr, cpt[, "xerror"], 1e-7) && close_to(xstd, cpt[, "xstd"], 1e-7),
         sprintf("max |dxerror| = %.2g; held-out predictions where predict()'s majority rule would differ: %d",
                 max(abs(xerr - cpt[, "xerror"])), n_predict_rule_diff))

  # 8. 1-SE rule
  imin <- which.min(cpt[, "xerror"])
  row <- min(which(cpt[, "xerror"] <= cpt[imin, "xerror"] + cpt[imin, "xstd"]))
  report(tb, "1-SE row/cp", row == g$cv$one_se$index + 1L && cpt[row, "CP"] == g$cv$one_se$cp)
}

## ------------------------------------------------ stand-alone checks ----
experiments <- function() {
  # weights do not enter minsplit/minbucket (they count rows)
  seed <- 7L
  RNGkind("Mersenne-Twister", "Inversion", "Rejection"); set.seed(seed)
  n <- 60
  x <- round(runif(n) * 10, 2); z <- round(x + rnorm(n), 2)
  y <- factor(ifelse(x + rnorm(n, sd = 2) > 5, "b", "a"))
  d <- data.frame(y, x, z)
  ctl <- rpart.control(minsplit = 20, minbucket = 7, cp = 0, xval = 0, maxcompete = 0)
  f1 <- rpart(y ~ x + z, d, control = ctl)
  f2 <- rpart(y ~ x + z, d, weights = rep(5, n), control = ctl)
  f3 <- rpart(y ~ x + z, d, weights = rep(0.2, n), control = ctl)
  same <- function(a, b) identical(rownames(a$frame), rownames(b$frame)) &&
    identical(a$splits[, "index"], b$splits[, "index"])
  report("experiment", "case weights x5 and x0.2 give the same tree (minsplit/minbucket count rows)",
         same(f1, f2) && same(f1, f3))
  report("experiment", "class improve scales with weights (weighted Gini, n-units)",
         close_to(f2$splits[1, "improve"], 5 * f1$splits[1, "improve"]))

  # cp = 0 removes splits whose subtree does not lower the risk at all
  # 8 a / 2 b; the best Gini split gives {6 a} and {2 a, 2 b}: both children
  # predict 'a', so the misclassification risk does not drop (complexity 0)
  d0 <- data.frame(y = factor(c("a", "a", "a", "a", "a", "a", "b", "a", "b", "a")), x = 1:10)
  ctl0 <- rpart.control(minsplit = 2, minbucket = 1, maxdepth = 1, cp = 0, xval = 0)
  f0 <- rpart(y ~ x, d0, control = ctl0)
  ctl0$cp <- -1
  fm <- rpart(y ~ x, d0, control = ctl0)
  report("experiment", "cp=0 collapses a split with zero risk reduction; cp=-1 keeps it",
         nrow(f0$frame) == 1L && nrow(fm$frame) == 3L && fm$frame$complexity[1L] == 0,
         sprintf("%d vs %d nodes", nrow(f0$frame), nrow(fm$frame)))

  # categorical surrogate needs >= 2 agreeing and >= 2 disagreeing rows
  set.seed(1)
  n <- 100
  a <- factor(sample(c("p", "q", "r"), n, TRUE))
  yy <- factor(ifelse(a == "p", "Y", ifelse(runif(n) < 0.2, "Y", "N")))
  dup <- a
  one_off <- a; one_off[which(a == "q")[1L]] <- "p"
  two_off <- a; two_off[which(a == "q")[1:2]] <- "p"
  xnum <- as.numeric(a == "p")
  dd <- data.frame(yy, a = dup, one_off, two_off, xnum)
  fit <- rpart(yy ~ a + one_off + two_off + xnum, dd,
               control = rpart.control(maxdepth = 1, cp = 0, xval = 0, maxcompete = 0))
  sur <- rownames(fit$splits)[-1L]
  report("experiment", "categorical surrogate with 0 or 1 disagreement is dropped, 2 kept; numeric copy kept",
         rownames(fit$splits)[1L] == "a" && !("one_off" %in% sur) && ("two_off" %in% sur) && ("xnum" %in% sur),
         paste("surrogates:", paste(sur, collapse = ",")))
}

manifest <- fromJSON(file.path(golden_dir, "manifest.json"), simplifyVector = FALSE)
cat("rpart", as.character(packageVersion("rpart")), "/", R.version.string, "\n")
for (entry in manifest$tables) check_table(entry)
experiments()
cat(if (n_fail == 0L) "all checks passed\n" else sprintf("%d check(s) FAILED\n", n_fail))
quit(status = if (n_fail == 0L) 0L else 1L)
