"""Sphinx configuration of voxelworld's API reference: ``scripts/docs`` builds it (HTML, warnings as errors) and
``tests/test_docs_build.py`` checks that it builds without a warning.

The reference is made from the package's docstrings (numpydoc form, autodoc: each wing's page lists its
``__all__``, ``docs/api/``); the guides and format specs beside this file are Markdown, read by myst-parser.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))  # the clone's package, whichever voxelworld is installed

import voxelworld  # noqa: E402

project = "voxelworld"
author = "the voxelworld authors"
copyright = "the voxelworld authors, MIT licence"
release = version = voxelworld.__version__

extensions = [
    "sphinx.ext.autodoc",
    "numpydoc",
    "myst_parser",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]

# autodoc: a wing's page documents the names of its package's __all__, in that order, with their members.
# Inherited members listed (ChunkMesher's methods live in the parts it is made of), except those of Python's own
# bases.
_PYTHON_BASES = ("object,BaseException,Exception,ValueError,TypeError,RuntimeError,dict,tuple,list,Mapping,"
                 "MutableMapping,NamedTuple,Enum,IntEnum,str,int,float")
autodoc_default_options = {"members": True, "undoc-members": True, "member-order": "bysource",
                           "inherited-members": _PYTHON_BASES}
autodoc_typehints = "none"  # the signature shows the annotations; numpydoc's sections say the rest
autoclass_content = "both"

# numpydoc: render the Parameters / Returns / Examples sections; no method tables (autodoc lists the methods).
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = False

# myst-parser: the guides' in-page links (#heading) resolve to their headings.
myst_heading_anchors = 3
# The protocol spec's JSON examples stand for messages with placeholders (``[x, y, z]``, ``[...]``): Pygments
# cannot lex them as strict JSON and draws them in its relaxed mode, which is what they need.
suppress_warnings = ["misc.highlighting_failure"]

html_theme = "alabaster"
html_title = f"voxelworld {release}"
