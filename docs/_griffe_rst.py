"""A griffe extension for the API reference: the docstrings are written in a light
reStructuredText (simple tables, ``::`` literal blocks, ``:mod:`x``` roles, definition
lists); this turns those few constructs into Markdown before mkdocstrings renders them,
so tables and code keep their layout on the site. Nothing else is changed.
"""
from __future__ import annotations

import re

import griffe

_ROLE = re.compile(r":(?:mod|class|func|meth|attr|data|obj|exc):`~?([^`]+)`")
_BORDER = re.compile(r"^\s*=+(\s+=+)+\s*$")
_TERM = re.compile(r"^[A-Z][\w ,()/-]*$")


def rst_to_markdown(text: str) -> str:
    lines = _ROLE.sub(r"``\1``", text).split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if _BORDER.match(line):                      # a simple table: keep it verbatim
            block = [line]
            i += 1
            while i < len(lines):
                block.append(lines[i])
                i += 1
                if _BORDER.match(block[-1]) and (i == len(lines) or not lines[i].strip()):
                    if sum(bool(_BORDER.match(b)) for b in block) >= 2:
                        break
            out += ["", "```text", *block, "```", ""]
            continue
        if line.rstrip().endswith("::") and i + 1 < len(lines) and not lines[i + 1].strip():
            j = i + 2                                # a literal block after "::"
            block = []
            while j < len(lines) and (not lines[j].strip() or lines[j].startswith("    ")):
                block.append(lines[j][4:])
                j += 1
            while block and not block[-1].strip():
                block.pop()
            if block:
                head = line.rstrip()[:-1]
                out += [head if not head.endswith(" :") else head[:-2] + ":", "",
                        "```python", *block, "```", ""]
                i = j
                continue
        if (_TERM.match(line) and i + 1 < len(lines) and lines[i + 1].startswith("    ")
                and not lines[i + 1].startswith("     ")):
            out += [f"**{line.strip()}**", ""]       # a definition-list term
            i += 1
            while i < len(lines) and (lines[i].startswith("    ") or not lines[i].strip()):
                if not lines[i].strip() and i + 1 < len(lines) \
                        and not lines[i + 1].startswith("    "):
                    break
                out.append(lines[i][4:])
                i += 1
            out.append("")
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


class RstToMarkdown(griffe.Extension):
    def on_instance(self, *, obj, **kwargs) -> None:
        if obj.docstring is not None:
            obj.docstring.value = rst_to_markdown(obj.docstring.value)
