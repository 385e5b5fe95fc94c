"""mkdocs hook: repository files outside ``docs/`` that a page links to with a relative
``../`` path (the notebooks) are published with the site under ``_repo/`` and the link
is rewritten to that copy. The Markdown stays the same on GitHub, in a clone and on the
site, and a link to a file that does not exist is still reported (``--strict`` fails).
Markdown files outside ``docs/`` are not published: a link to one stays broken on the
site, so ``mkdocs build --strict`` reports it.
"""
from __future__ import annotations

import os
import re

from mkdocs.structure.files import File

#: an inline link or image target starting with ../ (the anchor, if any, is group 3)
LINK = re.compile(r"(\]\()(\.\./[^)#\s]+)(#[^)\s]*)?(\))")
PREFIX = "_repo"


def _outside_target(config, page_src: str, target: str) -> str | None:
    """The repository-relative path of a non-Markdown file outside docs_dir, else None."""
    root = os.path.dirname(os.path.abspath(config.config_file_path))
    docs = os.path.abspath(config.docs_dir)
    path = os.path.normpath(os.path.join(os.path.dirname(page_src), target))
    inside_repo = path.startswith(root + os.sep)
    inside_docs = path.startswith(docs + os.sep)
    if not inside_repo or inside_docs or path.endswith(".md") or not os.path.isfile(path):
        return None
    return os.path.relpath(path, root).replace(os.sep, "/")


def on_files(files, config):
    for page in list(files.documentation_pages()):
        with open(page.abs_src_path, encoding="utf-8") as f:
            text = f.read()
        for m in LINK.finditer(text):
            rel = _outside_target(config, page.abs_src_path, m.group(2))
            uri = f"{PREFIX}/{rel}"
            if rel is not None and files.get_file_from_path(uri) is None:
                root = os.path.dirname(os.path.abspath(config.config_file_path))
                files.append(File.generated(config, uri,
                                            abs_src_path=os.path.join(root, rel)))
    return files


def on_page_markdown(markdown, page, config, files):
    src = page.file.abs_src_path
    docs = os.path.abspath(config.docs_dir)

    def rewrite(m):
        rel = _outside_target(config, src, m.group(2))
        if rel is None:
            return m.group(0)
        copy = os.path.relpath(os.path.join(docs, PREFIX, rel), os.path.dirname(src))
        return f"{m.group(1)}{copy.replace(os.sep, '/')}{m.group(3) or ''}{m.group(4)}"

    return LINK.sub(rewrite, markdown)
