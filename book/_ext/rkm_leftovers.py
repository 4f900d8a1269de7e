"""No build leftovers on any page: role text, stray index paragraphs, numbered docstrings.

Loaded by ``rkm_book.py``. These fixes act on every page's doctree, so they hold for any
chapter, whatever its cells say:

* **Role text in code.** A listing (``rkm-source``), a starter file (``literalinclude``) or a
  cell output is literal text: a docstring's ``:eq:`eq-label```, ``:func:`name``` or a MyST
  ``{index}`term``` in it would reach the page as typed. In every literal block and every text
  node outside mathematics, an equation role becomes the equation's number as the book prints it,
  "(4.2)", and any other role its title ("name", "term"; ``~a.b.c`` gives "c").
* **Stray index paragraphs.** ``{index}`RKM classifier``` alone on a line makes a paragraph
  whose only text is the role's title, a stray line under a heading. Such a paragraph is
  dissolved: its index entries and targets move to the start of the next block (so the general
  index still points there) and the visible title goes.
"""
from __future__ import annotations

import re

from docutils import nodes
from sphinx import addnodes

#: ``:eq:`x```, ``:py:func:`~a.b```, ``{index}`a <b>```, ``{eq}`x```: one role with its content
ROLE = re.compile(r"(?::(?:[A-Za-z][\w-]*:)?([A-Za-z][\w-]*):|\{([A-Za-z][\w:-]*)\})`([^`\n]+)`")


def equation_number(env, label: str) -> str | None:
    """The number the book prints for the equation labelled ``label`` ("4.2"), or None."""
    found = env.get_domain("math").equations.get(label)
    if found is None:
        return None
    docname, number = found
    numbers = env.toc_fignumbers.get(docname, {}).get("displaymath", {})
    figure = numbers.get(f"equation-{label}")
    return ".".join(map(str, figure)) if figure else str(number)


def role_text(env, name: str, content: str) -> str:
    """What a reader should see for the role ``name`` with ``content``."""
    name = name.split(":")[-1]
    title = re.match(r"^(.*?)\s*<([^<>]+)>$", content, flags=re.S)
    target = title.group(2) if title else content
    if name in ("eq", "numref") and not title:
        number = equation_number(env, target.strip())
        if number is not None:
            return f"({number})"
    if title:
        return title.group(1)
    target = target.strip().lstrip("!")
    return target.rsplit(".", 1)[-1] if target.startswith("~") else target


def replace_roles(env, text: str) -> str:
    return ROLE.sub(lambda m: role_text(env, m.group(1) or m.group(2), m.group(3)), text)


def _in_math(node) -> bool:
    while node is not None:
        if isinstance(node, (nodes.math, nodes.math_block, nodes.raw)):
            return True
        node = node.parent
    return False


def remove_role_text(app, doctree, docname):
    """Replace role text in literal blocks and text nodes by what the role would show."""
    env = app.env
    for block in list(doctree.findall(nodes.literal_block)):
        text = block.astext()
        if not ROLE.search(text):
            continue
        new = replace_roles(env, text)
        # the HTML writer highlights ``rawsource`` when it equals the text (a plain block)
        if block.rawsource == text:
            block.rawsource = new
        block.children = []
        block += nodes.Text(new)
    for text in list(doctree.findall(nodes.Text)):
        if ROLE.search(text.astext()) and not _in_math(text.parent) \
                and not isinstance(text.parent, nodes.literal_block):
            text.parent.replace(text, nodes.Text(replace_roles(env, text.astext())))


def _only_index(paragraph: nodes.paragraph) -> bool:
    """The paragraph holds index roles and nothing else (their titles, whitespace)."""
    seen_index, expect_title = False, False
    for child in paragraph.children:
        if isinstance(child, addnodes.index):
            seen_index, expect_title = True, False
        elif isinstance(child, nodes.target) and not child.children:
            expect_title = seen_index
        elif isinstance(child, nodes.Text):
            if child.astext().strip() and not expect_title:
                return False
            if child.astext().strip():
                expect_title = False
        else:
            return False
    return seen_index


def dissolve_index_paragraphs(app, doctree):
    """Move the entries of an index-only paragraph to the next block; drop its visible titles."""
    for paragraph in list(doctree.findall(nodes.paragraph)):
        if not _only_index(paragraph):
            continue
        keep = [c for c in paragraph.children if isinstance(c, (addnodes.index, nodes.target))]
        parent = paragraph.parent
        position = parent.index(paragraph)
        following = [n for n in parent.children[position + 1:] if isinstance(n, nodes.Element)]
        host = following[0] if following else None
        while host is not None and not isinstance(host, nodes.TextElement) and host.children \
                and isinstance(host.children[0], nodes.Element):
            host = host.children[0]  # the first paragraph of the next section or list
        for node in keep:
            node.parent = None
        if isinstance(host, nodes.TextElement):
            host[0:0] = keep
        else:
            parent[position:position] = keep
        parent.remove(paragraph)


def setup(app):
    app.connect("doctree-read", dissolve_index_paragraphs)
    app.connect("doctree-resolved", remove_role_text)
