"""Pre-pruning and post-pruning judged on a validation set (Zhou 2016, §4.3), the textbook's example.

Watermelon 2.0 is split as in the watermelon book (Zhou 2016, §4.3, table 4.2): training rows
编号 1, 2, 3, 6, 7, 10, 14, 15, 16, 17 (5 是, 5 否), validation rows 4, 5, 8, 9, 11, 12, 13
(3 是, 4 否). ID3 grows the tree with information gain. The script prints two readings.

1. rootwise's documented rules, the columns in the table's order. At the root 色泽 and 脐部 tie
   for the largest gain (0.275, identical branch counts); ties go to the lowest column: 色泽.
   Unpruned: 2/7 right on the validation rows. Pre-pruning: splitting the root leaves the
   accuracy at 4/7, so the root stays a leaf (4/7). Post-pruning: bottom-up, nodes 8, 2, 1 and
   the root become leaves (2/7 -> 3/7 -> 3/7 -> 4/7 -> 4/7), a single leaf again.

2. The book's trees: the same rows with 脐部 moved to the first column, so that the tie at the
   root goes to 脐部 as in the book. Unpruned 3/7 (the book: 42.9%), pre-pruned 5/7 (71.4%),
   post-pruned 5/7 (71.4%).

What still differs from the book, and why:

* Class ties. Several nodes hold as many 是 as 否 rows (the root among them: 5 / 5). rootwise
  gives a tie to the first class of ``classes_``, the sorted labels, and '否' sorts before '是';
  the book labels these nodes 是 (好瓜). So the root as a leaf scores 4/7 here and 3/7 in the
  book; the 稍凹 leaf of the pre-pruned tree, the empty branches 根蒂=硬挺 and 纹理=模糊 and the
  色泽=乌黑 leaf of the post-pruned tree say 否 where the book says 是. The empty branches see no
  validation row, and the two tied leaves see rows 8 (是) and 9 (否), one right either way; so
  the trees' accuracies are the book's, and only the root as a leaf differs. Renaming 否 to 非
  (which sorts after 是) sends the ties to 是, and rootwise then prints the book's three trees
  exactly (section 3 below).

* Ties in post-pruning. The seed prunes a subtree when it "does not raise" validation accuracy
  (``prune_on_tie=True``, the default); the book's figure keeps the subtree on a tie (the book
  says it does so for the drawing's sake). ``prune_on_tie=False`` gives the book's figure; the
  default prunes the two tied subtrees under 稍凹 as well (same accuracy, 3 leaves).

* Visiting order. rootwise visits the internal nodes from the highest id down (children before
  parents, the 稍凹 subtree before 凹陷); the book takes 凹陷 before 稍凹. The decisions do not
  depend on the order here (the subtrees share no validation rows), only the whole-tree
  accuracies printed at each step.

Run:  .venv/bin/python examples/pruning_watermelon.py
"""

from __future__ import annotations

import rootwise
from rootwise import ID3Classifier, datasets, pruning_report

TRAIN_IDS = [1, 2, 3, 6, 7, 10, 14, 15, 16, 17]
VAL_IDS = [4, 5, 8, 9, 11, 12, 13]
TABLE_ORDER = ["色泽", "根蒂", "敲声", "纹理", "脐部", "触感"]
BOOK_ORDER = ["脐部", "色泽", "根蒂", "敲声", "纹理", "触感"]


def split(columns, rename_no=None):
    df = datasets.load_watermelon_2_0()
    y = df["好瓜"] if rename_no is None else df["好瓜"].replace({"否": rename_no})
    train, val = df["编号"].isin(TRAIN_IDS), df["编号"].isin(VAL_IDS)
    return df.loc[train, columns], y[train], df.loc[val, columns], y[val]


def accuracy(model, X, y) -> str:
    right = int((model.predict(X) == y.to_numpy()).sum())
    return f"{right}/{len(y)} = {right / len(y):.3f}"


def show(title, model, X_val, y_val, report=True):
    print(f"--- {title}: validation accuracy {accuracy(model, X_val, y_val)}, "
          f"{model.get_n_leaves()} leaves\n")
    print(rootwise.export_text(model, node_ids=True))
    if report and model.pruning_steps_ is not None:
        print(pruning_report(model))


def three_trees(columns, rename_no=None, keep_ties_after=False):
    X, y, Xv, yv = split(columns, rename_no)
    show("unpruned", ID3Classifier().fit(X, y), Xv, yv)
    show("pre-pruned (Zhou 2016, §4.3.1)",
         ID3Classifier(pruning="pre").fit(X, y, X_val=Xv, y_val=yv), Xv, yv)
    show("post-pruned (reduced-error, Zhou 2016, §4.3.2), ties prune",
         ID3Classifier(pruning="reduced-error").fit(X, y, X_val=Xv, y_val=yv), Xv, yv)
    show("post-pruned, ties keep the subtree (prune_on_tie=False)",
         ID3Classifier(pruning="reduced-error", prune_on_tie=False).fit(X, y, X_val=Xv, y_val=yv),
         Xv, yv)
    if keep_ties_after:
        show("pre-pruned, ties split (prune_on_tie=False)",
             ID3Classifier(pruning="pre", prune_on_tie=False).fit(X, y, X_val=Xv, y_val=yv), Xv, yv)


def main():
    X, y, _, _ = split(TABLE_ORDER)
    table = rootwise.explain(X, y, ID3Classifier())
    print("Watermelon 2.0, training rows", TRAIN_IDS, "- validation rows", VAL_IDS)
    print("\nInformation gain at the root (training rows):\n")
    print(table[["attribute", "gain", "chosen"]].round(3).to_string(index=False))
    print("\n色泽 and 脐部 tie at 0.275; the lowest column wins.\n")

    print("=" * 100)
    print("1. rootwise's rules, columns in the table's order (色泽 at the root)")
    print("=" * 100 + "\n")
    three_trees(TABLE_ORDER, keep_ties_after=True)

    print("=" * 100)
    print("2. The book's trees: 脐部 moved to the first column, so the root's tie goes to 脐部")
    print("   (the book: unpruned 42.9% = 3/7, pre-pruned 71.4% = 5/7, post-pruned 71.4% = 5/7)")
    print("   Class ties still go to 否 (sorted labels); the book gives them to 是.")
    print("=" * 100 + "\n")
    three_trees(BOOK_ORDER)

    print("=" * 100)
    print("3. The book's labels too: 否 renamed 非 (sorts after 是), so class ties go to 是;")
    print("   these are the book's figures 4.5, 4.6 and 4.7.")
    print("=" * 100 + "\n")
    X, y, Xv, yv = split(BOOK_ORDER, rename_no="非")
    show("figure 4.5, unpruned", ID3Classifier().fit(X, y), Xv, yv)
    show("figure 4.6, pre-pruned", ID3Classifier(pruning="pre").fit(X, y, X_val=Xv, y_val=yv), Xv, yv)
    show("figure 4.7, post-pruned keeping ties",
         ID3Classifier(pruning="reduced-error", prune_on_tie=False).fit(X, y, X_val=Xv, y_val=yv),
         Xv, yv)


if __name__ == "__main__":
    main()
