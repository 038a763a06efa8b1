"""The web table's style sheets are plain CSS every browser reads: no rule nested in another.

A rule nested in a style rule (`:root { ... [hidden] { ... } }`) works only where CSS nesting
does; elsewhere the rule is dropped (`[hidden]` then stops hiding the staff panel, the
notices) and, worse, takes the declarations after it down with it.
"""

import os
import re

from host.web.server import STATIC


def nested_rules(css):
    """(selector, inside) for every block opened inside a style rule (not inside an at-rule
    such as @media or @keyframes, whose blocks are rules by design)."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    stack, found, start = [], [], 0
    for i, ch in enumerate(css):
        if ch == "{":
            head = css[start:i].split(";")[-1].strip()
            if stack and not stack[-1].startswith("@") and \
                    not (len(stack) > 1 and stack[-2].startswith("@keyframes")):
                found.append((head, stack[-1]))
            stack.append(head)
            start = i + 1
        elif ch == "}":
            if stack:
                stack.pop()
            start = i + 1
    return found


def test_the_checker_finds_a_rule_nested_in_root():
    assert nested_rules(":root { --a: 1px;\n[hidden] { display: none; }\n --b: 2px; }") == \
        [("[hidden]", ":root")]
    assert nested_rules("@media (max-width: 600px) { .a { x: 1 } }\n"
                        "@keyframes glow { from { a: 1 } to { a: 2 } }") == []


def test_no_style_sheet_nests_a_rule_in_another():
    sheets = sorted(f for f in os.listdir(STATIC) if f.endswith(".css"))
    assert "style.css" in sheets
    for name in sheets:
        with open(os.path.join(STATIC, name), encoding="utf-8") as f:
            assert nested_rules(f.read()) == [], name

