#!/usr/bin/env bash
# Install what the rpart tooling needs on Debian bookworm (as root):
# R 4.2.2, rpart 4.1.19, jsonlite 1.8.4.  Only needed to REGENERATE or VERIFY
# the golden files; the Python tests read the committed files and need no R.
# Retries while another apt/dpkg process holds the lock.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
pkgs=(r-base-core r-cran-rpart r-cran-jsonlite)
for attempt in $(seq 1 30); do
  if apt-get update -qq && apt-get install -y -qq --no-install-recommends "${pkgs[@]}"; then
    Rscript -e 'cat("rpart", format(packageVersion("rpart")), "jsonlite", format(packageVersion("jsonlite")), "\n")'
    exit 0
  fi
  echo "apt busy or failed (attempt $attempt); retrying in 20 s" >&2
  sleep 20
done
echo "could not install ${pkgs[*]}" >&2
exit 1
