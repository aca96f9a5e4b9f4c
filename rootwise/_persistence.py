"""Versioned JSON model files: save / load, exact round trip, no code execution on load."""


def save(model, path) -> None:
    raise NotImplementedError


def load(path):
    raise NotImplementedError
