"""Plain-text view of a fitted tree."""


def export_text(model, *, decimals: int = 3) -> str:
    """Readable indented tree with Unicode names and class counts at the leaves."""
    raise NotImplementedError
