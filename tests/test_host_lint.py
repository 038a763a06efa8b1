"""The host keeps each game in its own package (docs/adding-a-game.md): outside
host/games/<name>/ and the registry (host/games/__init__.py) no module names a game, in code or
in a string, nor imports a game's engine or package; and no module reaches into another's
private names (`module._name`, `obj._name` defined elsewhere, `from m import _name`). An AST
scan: docstrings and comments may name games (they explain), code may not."""

import ast
import os
import re

from mpy import REPO

from host import games
from shared_rules import games as engines

HOST = os.path.join(REPO, "host")
REGISTRY = os.path.join(HOST, "games", "__init__.py")


def game_names():
    return sorted(set(games.names()) | set(engines.names()) | {"fairytale"})


def host_modules():
    for root, _dirs, files in os.walk(HOST):
        for name in sorted(files):
            if name.endswith(".py"):
                yield os.path.join(root, name)


def owner(path):
    """The game whose package `path` is in, or None."""
    rel = os.path.relpath(path, os.path.join(HOST, "games")).split(os.sep)
    return rel[0] if len(rel) > 1 and not rel[0].startswith("..") else None


def docstrings(tree):
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def names_a_game(path, source, names):
    """(line, what) for each place the module's code names one of `names`."""
    tree = ast.parse(source, path)
    docs = docstrings(tree)
    # In a string, a game's name as code writes it (lower case: "storybook", "heroes-card:");
    # a sentence may say "Battle Royale" or "the Heroes win". In an identifier, anywhere.
    word = re.compile(r"(?<![a-z])(%s)(?![a-z])" % "|".join(map(re.escape, names)))
    found = []
    for node in ast.walk(tree):
        text = None
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                id(node) not in docs:
            if word.search(node.value):
                found.append((node.lineno, node.value))
            continue
        elif isinstance(node, ast.Name):
            text = node.id
        elif isinstance(node, ast.Attribute):
            text = node.attr
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            text = node.name
        elif isinstance(node, ast.arg):
            text = node.arg
        elif isinstance(node, ast.alias):
            text = node.name + " " + (node.asname or "")
        elif isinstance(node, ast.ImportFrom):
            text = node.module or ""
        if text and word.search(text.lower()):
            found.append((getattr(node, "lineno", 0), text))
    return found


def defined_here(tree):
    """Every private name the module itself defines or assigns (functions, classes,
    attributes set on any object, names)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            out.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.add(node.id)
        elif isinstance(node, ast.arg):
            out.add(node.arg)
    return out


def private_reaches(path, source):
    tree = ast.parse(source, path)
    mine = defined_here(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    found.append((node.lineno, "from %s import %s" % (node.module, alias.name)))
        elif isinstance(node, ast.Attribute):
            attr = node.attr
            if not attr.startswith("_") or attr.startswith("__"):
                continue
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                continue
            if attr not in mine:
                found.append((node.lineno, ast.unparse(node)))
    return found


def test_no_module_outside_a_games_package_names_a_game():
    names = game_names()
    bad = []
    for path in host_modules():
        if path == REGISTRY:
            continue
        mine = owner(path)
        others = [n for n in names if n != mine]
        with open(path) as f:
            source = f.read()
        for line, what in names_a_game(path, source, others):
            bad.append("%s:%d %s" % (os.path.relpath(path, REPO), line, what))
    assert not bad, "a game named outside its package:\n" + "\n".join(bad)


def test_no_module_reaches_into_another_modules_private_names():
    bad = []
    for path in host_modules():
        with open(path) as f:
            source = f.read()
        for line, what in private_reaches(path, source):
            bad.append("%s:%d %s" % (os.path.relpath(path, REPO), line, what))
    assert not bad, "private names reached across modules:\n" + "\n".join(bad)


def test_the_scan_finds_what_it_must(tmp_path):
    """The lint itself: a game's name in code, an engine import and a private reach are
    found; a docstring naming a game and a private name of the module's own are not."""
    source = ('"""Storybook is named here, in a docstring: fine."""\n'
              "from shared_rules import storybook\n"
              "x = 'royale'\n"
              "def f(session):\n    return session._tile_of_scene(1) + storybook._edge(2)\n"
              "class A:\n    def _mine(self):\n        return 1\n"
              "def g(a):\n    return a._mine()\n")
    assert sorted(w for _, w in names_a_game("m.py", source, ["storybook", "royale"])) == [
        "royale", "storybook", "storybook "]
    assert "Battle Royale wins" not in [w for _, w in names_a_game(
        "m.py", "x = 'Battle Royale wins'\n", ["royale"])]
    assert sorted(w for _, w in private_reaches("m.py", source)) == [
        "session._tile_of_scene", "storybook._edge"]
