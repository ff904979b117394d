"""Sphinx configuration of cudalite's documentation site (``nox -s docs``).

The pages are the Markdown files of this folder (MyST); the API reference is made by
autodoc from the installed packages' docstrings (NumPy style, through napoleon).  The
build runs with warnings as errors, and ``sphinx-build -b doctest`` runs the
examples marked as doctests (GPU-less ones; GPU examples are plain code blocks).
"""

project = "cudalite"
author = "the cudalite developers"
copyright = "2026, the cudalite developers"
release = version = "0.1.0"

extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx.ext.doctest"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "requirements.txt"]
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence"]
napoleon_numpy_docstring = True
napoleon_google_docstring = False
autodoc_member_order = "bysource"
autodoc_typehints = "none"
html_theme = "alabaster"
html_title = "cudalite"
# Links to files outside docs/ (the packages' sources, benchmarks/, constraints/) are
# links to the repository, not to pages of this site.
myst_url_schemes = ["http", "https", "mailto"]
suppress_warnings = []
