"""The API reference of the book (``book/api``), linked both ways with the chapters.

Loaded by ``rkm_book.py``; ``book/_tools/api_pages.py`` writes the pages from :func:`api_entries`.

* **What is public.** Every name in ``rkmlearn.__all__`` and in the ``__all__`` of every module
  of the package whose dotted name has no part starting with ``_``. Each top-level module
  (``rkmlearn.kernels``, ``rkmlearn.models``, ...) has a page; an object is documented once, under
  the first name :func:`api_entries` meets (the top-level module's own ``__all__`` first, then its
  submodules'), and the other names are aliases of it.
* **One entry per object.** ``autoclass``/``autofunction`` blocks in the chapters render a
  docstring where the text derives it; outside ``book/api`` they are made ``:no-index:``, so the
  object's one entry (the target of every cross-reference) is its API page.
* **Chapter -> API.** On every other page, the first inline-code mention of a public name
  (``KPCA``, ``rkmlearn.KPCA``, ``TensorMultiViewRKM(...)``, ``fit_kernels()``) links to its entry.
* **API -> chapter.** Under each entry, "Used in" lists the chapters that mention the object,
  each linked to that first mention.
"""
from __future__ import annotations

import hashlib
import importlib
import inspect
import pkgutil
import re
import sys

from docutils import nodes
from sphinx import addnodes

PACKAGE = "rkmlearn"
API_DIR = "book/api"
#: the name of a public object in inline code: ``KPCA``, ``rkmlearn.models.KPCA``, ``f()``, ``C(x=1)``
MENTION = re.compile(r"^([A-Za-z_][\w.]*?)(?:\(.*\))?$", flags=re.S)


def _public(name: str) -> bool:
    return not any(part.startswith("_") for part in name.split(".")[1:])


def public_modules(with_all: bool = True) -> list:
    """Every public module of the package (that declares ``__all__``, unless ``with_all`` is
    false), imported, in walk order."""
    package = importlib.import_module(PACKAGE)
    found = [package]
    for info in pkgutil.walk_packages(package.__path__, PACKAGE + "."):
        if not _public(info.name):
            continue
        module = importlib.import_module(info.name)
        if hasattr(module, "__all__") or not with_all:
            found.append(module)
    return found


def kind_of(obj) -> str:
    if inspect.ismodule(obj):
        return "module"
    if inspect.isclass(obj):
        return "class"
    if callable(obj):
        return "function"
    return "data"


def public_object(module, name: str):
    """``from module import name``: the object, also where a submodule of the same name shadows
    it once imported (``rkmlearn.grading.check``, the module of the function ``check``, which a
    package that imports its names lazily leaves in its namespace)."""
    obj = getattr(module, name)
    if inspect.ismodule(obj) and obj.__name__ == f"{module.__name__}.{name}" \
            and name in getattr(module, "__all__", ()) and hasattr(obj, name):
        return getattr(obj, name)
    return obj


def documented_name(module, name: str, obj) -> str:
    """The name an entry documents ``obj`` under: ``module.name``, unless autodoc would import
    a submodule by that name (then where the object is defined)."""
    dotted = f"{module.__name__}.{name}"
    if dotted in sys.modules and sys.modules[dotted] is not obj and hasattr(obj, "__qualname__"):
        return f"{obj.__module__}.{obj.__qualname__}"
    return dotted


def api_entries() -> dict[str, dict[str, list[tuple[str, str]]]]:
    """{page module: {section module: [(documented name, kind)]}}: every public object once.

    A page per top-level module (and one for the package itself: what only it exports). Within a
    page, the module's own ``__all__`` comes first, then each submodule's objects not met before.
    """
    modules = public_modules()  # a section (its docstring) for every module with __all__
    seen: set[int] = set()
    pages: dict[str, dict[str, list[tuple[str, str]]]] = {}
    tops = [m for m in modules if m.__name__.count(".") == 1]
    ordered = [m for top in tops for m in modules
               if m.__name__ == top.__name__ or m.__name__.startswith(top.__name__ + ".")]
    ordered.append(modules[0])  # the package's own __all__ last: mostly aliases by then
    for module in ordered:
        page = ".".join(module.__name__.split(".")[:2])
        section = pages.setdefault(page, {}).setdefault(module.__name__, [])
        for name in getattr(module, "__all__", ()):
            obj = public_object(module, name)
            if kind_of(obj) == "module" or id(obj) in seen:
                continue
            seen.add(id(obj))
            section.append((documented_name(module, name, obj), kind_of(obj)))
    return pages


def public_names() -> dict[str, str]:
    """{name as a chapter may write it: documented name}: full and short names, unambiguous."""
    documented = {}
    for sections in api_entries().values():
        for entries in sections.values():
            for name, _ in entries:
                module, _, attribute = name.rpartition(".")
                documented[id(getattr(importlib.import_module(module), attribute))] = name
    names, short = {}, {}
    for module in public_modules():
        for attribute in module.__all__:
            target = documented.get(id(public_object(module, attribute)))
            if target is None:
                continue
            names[f"{module.__name__}.{attribute}"] = target
            short.setdefault(attribute, set()).add(target)
    for attribute, targets in short.items():
        if len(targets) == 1 and len(attribute) >= 3:
            names.setdefault(attribute, next(iter(targets)))
    return names


# ---------------------------------------------------------------------------------------------
# Build time
# ---------------------------------------------------------------------------------------------
def _no_index_outside_api(app):
    """``auto*`` directives outside book/api are ``:no-index:`` (the API page holds the entry)."""
    from docutils.parsers.rst import directives as registry
    from sphinx.ext.autodoc.directive import AutodocDirective

    class ChapterAutodoc(AutodocDirective):
        def run(self):
            if not self.env.docname.startswith(API_DIR + "/"):
                self.options.setdefault("no-index", None)
            return super().run()

    for name in list(registry._directives):  # the auto* directives autodoc registered
        if name.startswith("auto") and registry._directives[name] is AutodocDirective:
            app.add_directive(name, ChapterAutodoc, override=True)
    for name in ("autoclass", "autofunction", "automethod", "autodata", "automodule",
                 "autoattribute", "autoexception", "autoproperty"):
        app.add_directive(name, ChapterAutodoc, override=True)


def _uses(env) -> dict:
    if not hasattr(env, "rkm_api_uses"):
        env.rkm_api_uses = {}  # {documented name: {docname: node id}}
    return env.rkm_api_uses


def link_first_mentions(app, doctree):
    """On a page outside book/api, link each public object's first inline-code mention."""
    env = app.env
    docname = env.docname
    if docname.startswith(API_DIR + "/"):
        return
    names = app.rkm_public_names
    linked = set()
    for literal in list(doctree.findall(nodes.literal)):
        match = MENTION.match(literal.astext().strip())
        target = names.get(match.group(1)) if match else None
        if target is None or target in linked:
            continue
        parent = literal.parent
        if isinstance(parent, (nodes.reference, addnodes.pending_xref, nodes.title,
                               addnodes.desc_signature)) or literal.traverse(nodes.reference):
            continue
        inside = parent
        while inside is not None and not isinstance(inside, (nodes.title, addnodes.desc,
                                                                 nodes.reference)):
            inside = inside.parent
        if inside is not None:
            continue
        linked.add(target)
        anchor = f"rkm-use-{target.replace('.', '-').lower()}"
        xref = addnodes.pending_xref("", refdomain="py", reftype="obj", reftarget=target,
                                     refexplicit=True, refwarn=True, refdoc=docname)
        literal["ids"].append(anchor)  # the reference that replaces the xref keeps its content
        parent.replace(literal, xref)
        xref += literal
        _uses(env).setdefault(target, {})[docname] = anchor


def _purge(app, env, docname):
    for uses in _uses(env).values():
        uses.pop(docname, None)


def _merge(app, env, docnames, other):
    for target, uses in _uses(other).items():
        _uses(env).setdefault(target, {}).update(
            {doc: anchor for doc, anchor in uses.items() if doc in docnames})


def _chapter_title(env, docname) -> str:
    number = env.toc_secnumbers.get(docname, {}).get("")
    title = env.titles[docname].astext()
    return f"Chapter {'.'.join(map(str, number))}, {title}" if number else title


def add_used_in(app, doctree, docname):
    """Under each entry of an API page, the chapters that mention the object, linked."""
    if not docname.startswith(API_DIR + "/"):
        return
    env, builder = app.env, app.builder
    order = {doc: i for i, doc in enumerate(_reading_order(env))}
    for desc in list(doctree.findall(addnodes.desc)):
        signature = next(iter(desc.findall(addnodes.desc_signature)), None)
        if signature is None or not signature.get("ids"):
            continue
        uses = _uses(env).get(signature["ids"][0], {})
        if not uses:
            continue
        paragraph = nodes.paragraph(classes=["rkm-used-in"])
        paragraph += nodes.strong(text="Used in: ")
        for i, doc in enumerate(sorted(uses, key=lambda d: order.get(d, len(order)))):
            if i:
                paragraph += nodes.Text("; ")
            if builder.name == "singlehtml":
                uri = "#" + uses[doc]
            else:
                uri = builder.get_relative_uri(docname, doc) + "#" + uses[doc]
            paragraph += nodes.reference("", _chapter_title(env, doc), internal=True, refuri=uri)
        content = next(iter(desc.findall(addnodes.desc_content)), None)
        (content if content is not None else desc).insert(0, paragraph)


def quiet_private_references(app, domain, node):
    """A docstring may name a helper that exists but is not public (``rkmlearn.widgets.snap``):
    the book has no entry to link, and that is no error. A name that does not exist still is."""
    target = node.get("reftarget", "")
    if domain.name != "py" or not target.startswith(PACKAGE + "."):
        return None
    return True if target not in app.rkm_public_names and _exists(target) else None


def _exists(target: str) -> bool:
    """``package.name`` is importable, or ``name`` is defined in one of the package's private
    modules (``rkmlearn.widgets.snap``: ``rkmlearn.widgets._base.snap``)."""
    from rkm_book import _resolve  # book/_ext is on the path

    try:
        _resolve(target)
        return True
    except (ImportError, AttributeError):
        pass
    package, _, name = target.rpartition(".")
    try:
        module = importlib.import_module(package)
    except ImportError:
        return False
    return any(hasattr(importlib.import_module(f"{package}.{info.name}"), name)
               for info in pkgutil.iter_modules(getattr(module, "__path__", []))
               if info.name.startswith("_"))


def _reading_order(env) -> list[str]:
    """The documents in the order of the book (the root, then its toctree, depth first)."""
    order, stack = [], [env.config.root_doc]
    while stack:
        doc = stack.pop(0)
        if doc in order:
            continue
        order.append(doc)
        stack[0:0] = env.toctree_includes.get(doc, [])
    return order


def _names(app):
    app.rkm_public_names = public_names()


def _outdated_when_the_api_moves(app, env, added, changed, removed):
    """Every page is read again when a public object moves (a module renamed): a page's links to
    the API are made when it is read, and an unchanged page would keep links to the old place."""
    digest = hashlib.sha256(repr(sorted(app.rkm_public_names.items())).encode()).hexdigest()
    if getattr(env, "rkm_api_digest", digest) == digest:
        env.rkm_api_digest = digest
        return []
    env.rkm_api_digest = digest
    return sorted(env.found_docs - set(added) - set(changed) - set(removed))


def skip_foreign_members(app, what, name, obj, skip, options):
    """A class's members are its own: not the methods scikit-learn generates on every estimator
    (``set_fit_request``, ``set_output``, ...), whose docstrings point into sklearn's docs."""
    module = getattr(inspect.unwrap(obj), "__module__", None) if callable(obj) else None
    if what == "class" and module is not None and not module.startswith(PACKAGE):
        return True
    return None


#: ``n_features_in_`` in a docstring's prose is an rst reference to a target "n_features_in"
TRAILING_UNDERSCORE = re.compile(r"(?<![\w`\\])([A-Za-z]\w*)_(?![\w`])")


def escape_docstring(app, what, name, obj, options, lines):
    """Docstrings as their authors meant them: ``name_`` outside backticks is a name, and the
    docstring of a constant is its own comment, not the docstring of its type (dict, str)."""
    if what in ("data", "attribute") and obj is not None and lines \
            and isinstance(type(obj).__doc__, str) \
            and type(obj).__doc__.strip().startswith(lines[0].strip()):
        lines[:] = []
        return
    # a sentence in an Attributes section ("Others as :class:`X`.") is not an attribute name:
    # napoleon made it ":ivar Others as ...:", a broken field; it stays a sentence
    for i, line in enumerate(lines):
        sentence = re.match(r"^:ivar ([^:]*\s[^:]*(?::\w+:`[^`]*`[^:]*)*):\s*$", line)
        if sentence:
            lines[i:i + 1] = ["", sentence.group(1), ""]
    # a field list (napoleon's output) followed by unindented text needs a blank line between
    for i in range(len(lines) - 1, 0, -1):
        before, after = lines[i - 1], lines[i]
        if after.strip() and not after.startswith((" ", ":")) and before.strip() \
                and (before.startswith(":") or before.startswith(" ")) \
                and any(l.startswith(":") for l in lines[max(0, i - 30):i]):
            lines.insert(i, "")
    for i, line in enumerate(lines):
        parts = re.split(r"(`+[^`]*`+)", line)  # odd parts: ``literals`` and `roles`
        lines[i] = "".join(TRAILING_UNDERSCORE.sub(r"\1\\_", part) if k % 2 == 0 else part
                           for k, part in enumerate(parts))


#: a numpydoc parameter line with no type: "learning_rate, max_iter, tol :"
UNTYPED = re.compile(r"^(\s*[A-Za-z_*][\w*]*(?:\s*,\s*[A-Za-z_*][\w*]*)*)\s*:\s*$")


def untyped_parameters(app, what, name, obj, options, lines):
    """Before napoleon: ``a, b :`` (names, no type) as ``a, b`` (napoleon read the empty type
    as a field list that ends without a blank line), a list of names wrapped over two lines
    (``a, b,`` then ``c :``) joined first."""
    for i in range(len(lines) - 2, -1, -1):
        if re.match(r"^[A-Za-z_*][\w*]*(\s*,\s*[A-Za-z_*][\w*]*)*\s*,\s*$", lines[i]) \
                and UNTYPED.match(lines[i + 1]):
            lines[i:i + 2] = [lines[i].rstrip() + " " + lines[i + 1].strip()]
    for i, line in enumerate(lines):
        match = UNTYPED.match(line)
        if match and i + 1 < len(lines) and lines[i + 1].startswith(match.group(1)[:len(
                match.group(1)) - len(match.group(1).lstrip())] + " "):
            lines[i] = match.group(1)


def resolve_aliases(app, env, node, contnode):
    """A cross-reference by another public name of an object (``rkmlearn.KPCA``, ``Ladder``,
    ``rkmlearn.MultiViewKPCA.fit``) resolves to its one entry (``rkmlearn.models.KPCA``)."""
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "").lstrip("~.")
    names = app.rkm_public_names
    parts = target.split(".")
    for cut in range(len(parts), 0, -1):
        head = ".".join(parts[:cut])
        if head in names:
            documented = ".".join([names[head], *parts[cut:]])
            break
    else:
        return None
    domain = env.get_domain("py")
    found = domain.objects.get(documented)
    if found is None:
        return None
    from sphinx.util.nodes import make_refnode

    return make_refnode(app.builder, node["refdoc"], found.docname, found.node_id, contnode,
                        documented)


def setup(app):
    app.connect("builder-inited", _no_index_outside_api)
    app.connect("builder-inited", _names)
    app.connect("env-get-outdated", _outdated_when_the_api_moves)
    app.connect("doctree-read", link_first_mentions)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("doctree-resolved", add_used_in)
    app.connect("autodoc-skip-member", skip_foreign_members)
    app.connect("autodoc-process-docstring", untyped_parameters, priority=400)  # before napoleon
    app.connect("autodoc-process-docstring", escape_docstring, priority=600)  # after napoleon
    app.connect("missing-reference", resolve_aliases)
    app.connect("warn-missing-reference", quiet_private_references)
