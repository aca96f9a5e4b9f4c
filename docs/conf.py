"""Sphinx configuration of rootwise's documentation (``make docs``).

Pages are Markdown (myst-parser); the API reference is autodoc over the installed package, so it
is the docstrings the objects carry. Nothing is fetched: no intersphinx, no remote images, the
builtin theme.
"""

import rootwise

project = "rootwise"
author = "the rootwise authors"
release = rootwise.__version__
version = release

extensions = ["myst_parser", "sphinx.ext.autodoc"]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build"]

# GitHub-style anchors (#side-by-side-j48-...) for the headings of levels 1-4, so pages can link
# into each other's sections and the build checks those links
myst_heading_anchors = 4
myst_enable_extensions = ["dollarmath"]

autodoc_default_options = {"members": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
# the estimators' parameters are described in their class docstrings (scikit-learn's convention)
autoclass_content = "class"

html_theme = "alabaster"
html_title = f"rootwise {release}"
html_static_path: list[str] = []


def _verbatim(app, what, name, obj, options, lines):
    """Show each docstring as written: they are plain text with formulas (``|D^v|``, ``w * r_v``,
    aligned parameter lists), not reStructuredText, so they are set as a literal block rather
    than parsed (which would read ``|D|`` as a substitution and indents as block quotes)."""
    if any(line.strip() for line in lines):
        lines[:] = ["::", ""] + ["    " + line for line in lines] + [""]


def setup(app):
    app.connect("autodoc-process-docstring", _verbatim)
