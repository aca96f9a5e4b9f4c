"""Make the README's pictures: docs/*.png.

    .venv/bin/python examples/make_pictures.py

Needs the test extra (matplotlib with the plot extra's CJK font, playwright), and for the report's
screenshot Debian's chromium with a CJK font for its Chinese labels (fonts-noto-cjk); .ci/run
installs both. The plots need no system font: plot_tree falls back to the packaged Noto Sans CJK.
"""

from __future__ import annotations

import pathlib
import tempfile

import matplotlib

matplotlib.use("Agg")

import rootwise  # noqa: E402
from rootwise import datasets  # noqa: E402

DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-gpu"]


def plots() -> None:
    X, y = datasets.load_watermelon_2_0(return_X_y=True)
    ax = rootwise.plot_tree(rootwise.ID3Classifier().fit(X, y))
    ax.figure.savefig(DOCS / "plot_watermelon_id3.png", dpi=110)

    X, y = datasets.load_watermelon_2_0_alpha(return_X_y=True)
    ax = rootwise.plot_tree(rootwise.C45Classifier(pruning=None).fit(X, y))
    ax.figure.savefig(DOCS / "plot_watermelon_c45.png", dpi=110)

    X, y = datasets.load_loan_default(return_X_y=True)
    # show_missing="all": the loan table has no missing cell, but the picture shows surrogates
    ax = rootwise.plot_tree(rootwise.CARTClassifier(pruning=None).fit(X, y), show_missing="all")
    ax.figure.savefig(DOCS / "plot_loan_cart.png", dpi=110)

    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    model = rootwise.CARTClassifier(random_state=0).fit(X, y)
    ax = model.plot_cp()
    ax.figure.savefig(DOCS / "plot_cp_breast_cancer.png", dpi=100)


def report_screenshot() -> None:
    from playwright.sync_api import sync_playwright

    X, y = datasets.load_watermelon_2_0(return_X_y=True)
    page_html = rootwise.export_html(rootwise.ID3Classifier().fit(X, y), X, y,
                                     title="Watermelon 2.0, ID3")
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        path = pathlib.Path(tmp) / "report.html"
        path.write_text(page_html, encoding="utf-8")
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1360, "height": 780})
        page.goto(path.as_uri())
        page.click('g.rw-node[data-node="0"]')  # the root: its path, distribution and table
        page.screenshot(path=str(DOCS / "report_watermelon.png"))
        browser.close()


if __name__ == "__main__":
    DOCS.mkdir(exist_ok=True)
    plots()
    report_screenshot()
    print("wrote", ", ".join(sorted(p.name for p in DOCS.glob("*.png"))))
