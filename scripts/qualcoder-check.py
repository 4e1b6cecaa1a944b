#!/usr/bin/env python3
"""
Does QualCoder read a Colloquy REFI-QDA export as Colloquy meant it? (issue 38; outside `npm test`)

Runs QualCoder's own importer (qualcoder/refi.py, RefiImport.import_project) headless on a .qdpx:
its Qt GUI, dialogs and colour helpers are replaced by stand-ins, and its SQLite schema is read
from the CREATE TABLE statements in its own __main__.py, so its code runs unchanged. Nothing of
QualCoder is kept in this repository: give the path of a QualCoder checkout (e.g. a snapshot of
github.com/ccbogel/QualCoder unpacked into /tmp).

Prints what QualCoder stored: the coders (code_text.owner) and their codings, codings it dropped
as duplicates, and whether each stored coding selects the words our export says it codes (its
positions, read by Python string slicing: code points).

    python3 scripts/qualcoder-check.py <qualcoder-checkout> <export.qdpx>
"""

import ast
import builtins
import collections
import os
import sqlite3
import sys
import tempfile
import types
import xml.etree.ElementTree as ET
import zipfile


def usage() -> None:
    print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
    sys.exit(2)


def package_dir(checkout: str) -> str:
    for candidate in (os.path.join(checkout, "src", "qualcoder"), os.path.join(checkout, "qualcoder")):
        if os.path.isfile(os.path.join(candidate, "refi.py")):
            return candidate
    sys.exit(f"{checkout}: no src/qualcoder/refi.py (a QualCoder checkout was expected)")


def stub_gui(qualcoder: str) -> None:
    """Stand-ins for what refi.py imports beyond the standard library (PyQt6 and GUI helpers)."""

    class AnyAttribute(type):
        def __getattr__(cls, name):
            return Anything()

    class Anything(metaclass=AnyAttribute):
        """Accepts any call and attribute, on the class and its instances: dialogs, progress bars, enums."""

        def __init__(self, *args, **kwargs):
            pass

        def __getattr__(self, name):
            return Anything()

        def __call__(self, *args, **kwargs):
            return Anything()

    def module(name: str, **attributes) -> types.ModuleType:
        m = types.ModuleType(name)
        m.__dict__.update(attributes)
        sys.modules[name] = m
        return m

    class FileDialog(Anything):
        """The open-file dialog: answers with the file given on the command line."""

        chosen = ""

        @staticmethod
        def getOpenFileName(*args, **kwargs):
            return FileDialog.chosen, True

    qt_widgets = module("PyQt6.QtWidgets", QDialog=Anything, QProgressDialog=Anything, QFileDialog=FileDialog)
    qt_core = module("PyQt6.QtCore", Qt=Anything())
    module("PyQt6", QtWidgets=qt_widgets, QtCore=qt_core)
    package = module("qualcoder")
    package.__path__ = [qualcoder]
    module("qualcoder.color_selector", colors=["#F5F5F5"] * 120, color_matcher=lambda color: color)
    gui = module("qualcoder.GUI")
    gui.__path__ = []
    module("qualcoder.GUI.ui_dialog_refi_export_endings", Ui_Dialog_refi_export_line_endings=Anything)
    module("qualcoder.helpers", Message=Anything)
    builtins._ = lambda text: text  # gettext, installed by QualCoder's main window


def qualcoder_schema(qualcoder: str) -> list[str]:
    """QualCoder's CREATE TABLE statements, read from its __main__.py (not copied here)."""
    tree = ast.parse(open(os.path.join(qualcoder, "__main__.py"), encoding="utf-8").read())
    statements = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("CREATE TABLE "):
            name = node.value.split()[2].split("(")[0]
            if name not in {s.split()[2].split("(")[0] for s in statements}:
                statements.append(node.value)
    return statements


def main() -> None:
    if len(sys.argv) != 3:
        usage()
    checkout, qdpx = sys.argv[1], os.path.abspath(sys.argv[2])
    qualcoder = package_dir(checkout)
    stub_gui(qualcoder)
    sys.path.insert(0, os.path.dirname(qualcoder))
    import importlib

    refi = importlib.import_module("qualcoder.refi")

    work = tempfile.mkdtemp(prefix="qualcoder-check-")
    os.makedirs(os.path.join(work, "documents"))
    conn = sqlite3.connect(":memory:")
    for statement in qualcoder_schema(qualcoder):
        conn.execute(statement)
    copy = os.path.join(work, os.path.basename(qdpx))
    with open(qdpx, "rb") as src, open(copy, "wb") as dst:
        dst.write(src.read())

    log: list[str] = []
    app = types.SimpleNamespace(
        conn=conn,
        settings={"directory": work, "codername": "default", "ai_enable": "False"},
        project_path=work,
        ai_models=None,
        write_config_ini=lambda *args: None,
    )
    textedit = types.SimpleNamespace(append=lambda text: log.append(str(text)))
    # RefiImport asks for the file in a dialog, then imports it into the open project (our database).
    sys.modules["PyQt6.QtWidgets"].QFileDialog.chosen = copy
    refi.RefiImport(app, textedit, "qdpx")

    # What our export says: (user name, start, end) -> the selected words.
    with zipfile.ZipFile(qdpx) as z:
        ns = {"q": "urn:QDA-XML:project:1.0"}
        root = ET.fromstring(z.read("project.qde"))
        users = {u.get("guid"): u.get("name") for u in root.iterfind("q:Users/q:User", ns)}
        expected = collections.Counter()
        for source in root.iterfind("q:Sources/q:TextSource", ns):
            text = z.read("sources/" + source.get("plainTextPath").split("://", 1)[1]).decode("utf-8")
            for sel in source.iterfind("q:PlainTextSelection", ns):
                start, end = int(sel.get("startPosition")), int(sel.get("endPosition"))
                for coding in sel.iterfind("q:Coding", ns):
                    expected[(source.get("name"), users.get(coding.get("creatingUser")), start, end, text[start:end])] += 1

    rows = conn.execute(
        "select s.name, ct.owner, ct.pos0, ct.pos1, ct.seltext, cn.name from code_text ct join source s on s.id = ct.fid left join code_name cn on cn.cid = ct.cid"
    ).fetchall()
    stored = collections.Counter((name, owner, pos0, pos1, seltext) for name, owner, pos0, pos1, seltext, _code in rows)
    dropped = [line for line in log if "Duplicated text coding" in line]
    by_owner = collections.Counter(owner for _, owner, *_ in rows)
    exported_by_user = collections.Counter(user for (_, user, *_rest), n in expected.items() for _ in range(n))
    matching = sum(min(n, expected[key]) for key, n in stored.items())

    print(f"QualCoder {os.path.basename(os.path.normpath(checkout))}: RefiImport.import_project on {os.path.basename(qdpx)}")
    print(f"  sources: {conn.execute('select count(*) from source').fetchone()[0]}; codes: {conn.execute('select count(*) from code_name').fetchone()[0]}")
    print(f"  codings in the export: {sum(expected.values())}; stored by QualCoder: {len(rows)}; dropped as duplicates: {len(dropped)}")
    print("  coders (export -> QualCoder):")
    for user in sorted(set(exported_by_user) | set(by_owner), key=str):
        print(f"    {user}: {exported_by_user.get(user, 0)} -> {by_owner.get(user, 0)}")
    print(f"  positions: {matching} of {len(rows)} stored codings select exactly the words, coder and range the export gave them")
    if dropped:
        print(f"  first dropped: {dropped[0]}")


if __name__ == "__main__":
    main()
