"""Command line: rootwise fit | predict | show | explain (public API only)."""


def main(argv=None) -> int:
    raise NotImplementedError
