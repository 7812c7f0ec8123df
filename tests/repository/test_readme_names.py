"""Every name the README and the docs pages give in code exists: a page that names a module,
a function, a file, a flag, a config key or a make target that is not there fails here.

What is read: the inline code spans (`...`, also across a line break; not a MyST role's
target, {doc}`...`), the commands of the ```bash blocks (continued lines joined) and of the
```console blocks (the lines after a `$ ` prompt); the ```python blocks only for their
imports, which name the short forms the prose uses (`solver`, `elo`). The docs pages are
every docs/**/*.md but the generated ones (docs/api/, docs/reference/, docs/_build/);
tests/repository/test_docs.py runs their python blocks. What each kind of span must be:

- a dotted name whose first part is one of our modules (`runs.restore_network(workdir)`,
  `solvers.connect_four.move_scores`): the README leaves out `alphazero_jax.` and parent
  packages, so the first part is tried as a name the README's Python imports,
  `alphazero_jax.<first>`, `<first>`, `experiments.<first>` and every module of ours whose
  last part it is; the rest is walked attribute by attribute (call arguments dropped). A
  function or class that a plain module only imports does not count (name where it is
  defined); a package's re-exports do (they are its public face). Other dotted spans
  (`elo.png`, `config.json`, `az:pretrained`) are not names of ours and are left alone.
  Modules under `experiments/` are read, not imported: importing one defines its absl
  flags, and two entry points define the same flag names.
- `config.<key>` and `--config.<key>=...`: a key of a game preset's config.
- a path (`connect_four`, `data/random_play/`): exists, from the
  repository's root or from a package folder (the layout table names paths inside
  `alphazero_jax/`); `<placeholders>` match anything. `SKIPPED_PATHS` lists what is made at
  run time or lies outside the repository.
- `python -m experiments.<entry> --flag=...`: the entry point exists and defines every flag
  (read from the `DEFINE_*` calls that run when it is imported: its own and those of the
  modules it imports at the top, plus absl's own); `--no<flag>` for a boolean;
  `--config.<key>` a key of the config that `--config=<file>[:<preset>]` names
  (`--config.<key>`, a placeholder, names none).
- an installed program (`alphazero-train --workdir=...`, pyproject.toml's
  `[project.scripts]`): its flags, as for the module its function is in; a program whose
  function is in a package runs one of its public modules, named first
  (`alphazero-judge agents --agents=...`): the module exists and defines the flags.
- a flag on its own (`--opening_moves=0`): some entry point defines it.
- `make <target> VAR=...`: the Makefile defines the target and the variable; `*_ARGS`
  holds flags of the entry point that the target's recipe runs, checked as above.
- a Markdown link to a file: the file exists (from the page's folder), or the docs build
  writes it from one that does (docs/_ext/generated.py's ``source_of``: the notebooks).
"""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
import inspect
import pathlib
import re
import shlex
import tomllib
import types
from typing import NamedTuple

import pytest
from game_names import DEFAULT

from alphazero_jax import configs

ROOT = pathlib.Path(__file__).parents[2]
README = ROOT / "README.md"
MAKEFILE = ROOT / "Makefile"
DOCS = ROOT / "docs"
# Folders of docs/ whose pages the build writes: they name what the code says.
# docs/reference/ is committed, but written from the package by `make reference`.
GENERATED_DOCS = ("_build", "reference", "api")
PACKAGES = ("alphazero_jax", "experiments")

# Paths a span may give that need not exist in the repository, with the reason.
SKIPPED_PATHS = {
    "runs/": "run directories, written by training and evaluation",
    "checkpoints/": "inside a run directory",
    "tensorboard/": "inside a run directory",
    "<run>/": "a placeholder for a run directory",
    "~/": "the user's home (the compilation cache), outside the repository",
    "$XDG_CACHE_HOME/": "the user's cache, outside the repository",
    "OWNER/": "a placeholder for the repository's GitHub owner",
    "elo/": "a TensorBoard tag group, not a file",
    "perfect_play/": "a TensorBoard tag group, not a file",
    "/": "an absolute path (a device file, an HTTP route), outside the repository",
}
# The last part of a dotted span that makes it a file name (`elo.png`), not a Python name.
FILE_SUFFIXES = {"png", "json", "jsonl", "csv", "py", "ipynb", "md", "labels", "txt", "npz"}
DOTTED = re.compile(r"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)(\(.*\))?")
PATH = re.compile(r"[\w.~$<>*-]*(?:/[\w.<>*-]*)+")


class Span(NamedTuple):
    """A code span of the README: its first line (1-based), its text, and whether it is a
    command line of a ```bash block."""

    line: int
    text: str
    fenced: bool


# Reading the Markdown.


def code_spans(markdown: str) -> tuple[list[Span], list[Span]]:
    """The inline spans and the bash blocks' commands of ``markdown``, and its python
    blocks (each a span from its first line)."""
    spans, python, prose = [], [], []
    lines = markdown.splitlines()
    fence, block, start = None, [], 0
    for number, line in enumerate(lines, 1):
        opening = re.match(r"\s*```(\w*)", line)
        if fence is None and opening:
            fence, block, start = opening.group(1), [], number + 1
            prose.append("")
        elif fence is not None and line.strip().startswith("```"):
            if fence == "python":
                python.append(Span(start, "\n".join(block), fenced=True))
            elif fence in ("bash", "sh", "shell"):
                spans += _commands(block, start)
            elif fence == "console":
                spans += _prompted_commands(block, start)
            fence = None
            prose.append("")
        elif fence is not None:
            block.append(line)
            prose.append("")
        else:
            prose.append(line)
    text = "\n".join(prose)
    for found in re.finditer(r"(`+)((?:(?!\n\s*\n).)+?)\1", text, re.S):
        if text[: found.start()].endswith("}"):
            continue  # a MyST role's target ({doc}`page`), not code
        line = text.count("\n", 0, found.start()) + 1
        spans.append(Span(line, " ".join(found.group(2).split()), fenced=False))
    return spans, python


def _commands(block: list[str], start: int) -> list[Span]:
    """The logical lines of a shell block, continued lines joined."""
    commands, pending, first = [], "", start
    for number, line in enumerate(block, start):
        if not pending:
            first = number
        pending += line.rstrip()
        if pending.endswith("\\"):
            pending = pending[:-1] + " "
            continue
        if pending.strip():
            commands.append(Span(first, " ".join(pending.split()), fenced=True))
        pending = ""
    return commands


def _prompted_commands(block: list[str], start: int) -> list[Span]:
    """The commands of a console block: the lines after a ``$ `` prompt (with their
    continuation lines); the others are output."""
    commands, command = [], []
    for number, line in enumerate(block, start):
        if command and command[-1][1].rstrip().endswith("\\"):
            command.append((number, line))
            continue
        if command:
            commands += _commands([text for _, text in command], command[0][0])
            command = []
        if line.lstrip().startswith("$ "):
            command = [(number, line.lstrip()[2:])]
    if command:
        commands += _commands([text for _, text in command], command[0][0])
    return commands


def markdown_links(markdown: str) -> list[tuple[int, str]]:
    """``(line, target)`` of the links to files of the repository (no URL, no anchor)."""
    links = []
    for number, line in enumerate(markdown.splitlines(), 1):
        for target in re.findall(r"\]\(([^)\s]+)\)", line):
            path = target.split("#")[0]
            if path and "://" not in path and not path.startswith("mailto:"):
                links.append((number, path))
    return links


# The repository's modules, read from the tree.


@functools.cache
def module_files() -> dict[str, pathlib.Path]:
    """``dotted name -> file`` of every module and package of ours."""
    modules = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            if all(part.isidentifier() for part in parts):
                modules[".".join(parts)] = path
    return modules


@functools.cache
def _tree(path: pathlib.Path) -> ast.Module:
    return ast.parse(path.read_text(), filename=str(path))


def _import_time_nodes(tree: ast.Module):
    """Every node that runs when the module is imported (not inside a function)."""
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def _imported_modules(name: str) -> set[str]:
    """The modules of ours that importing ``name`` imports at once (its packages too)."""
    seen, todo = set(), [name]
    while todo:
        current = todo.pop()
        if current in seen or current not in module_files():
            continue
        seen.add(current)
        parts = current.split(".")
        todo += [".".join(parts[:end]) for end in range(1, len(parts))]
        for node in _import_time_nodes(_tree(module_files()[current])):
            if isinstance(node, ast.Import):
                todo += [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                todo += [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
    return seen


def _defined_flags(module: str) -> dict[str, str]:
    """``flag -> kind`` (``bool``, ``config`` or ``value``) of the ``DEFINE_*`` calls that
    importing ``module`` runs, also those inside a function of ours that it calls then
    (``common.define_rounds(3)``: a flag several entry points share, defined once)."""
    defined = {}
    for node in _import_time_nodes(_tree(module_files()[module])):
        if not isinstance(node, ast.Call):
            continue
        if _is_config_flag_define(node):  # alphazero_jax/cli/config_flag.py's define
            names = [a.value for a in node.args[:1] if isinstance(a, ast.Constant)]
            defined[(names or ["config"])[0]] = "config"
            continue
        definer = _flag_definer(module, node)
        if definer is None:
            defined |= _define_calls(module, [node])
        else:
            defined |= _define_calls(module, _calls_in(definer), _bound(definer, node))
    return defined


def _bound(definer: ast.FunctionDef, node: ast.Call) -> dict[str, ast.expr]:
    """``parameter -> argument`` of the call ``node`` of ``definer``: a definer may name its
    flag from a parameter (``common.define_old_name("run", "workdir")``)."""
    parameters = [argument.arg for argument in definer.args.args]
    bound = dict(zip(parameters, node.args))
    return bound | {keyword.arg: keyword.value for keyword in node.keywords if keyword.arg}


def _module_aliases(module: str) -> dict[str, str]:
    """``name -> module of ours`` of the imports that run when ``module`` is imported."""
    aliases = {}
    for node in _import_time_nodes(_tree(module_files()[module])):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                aliases[alias.asname or alias.name] = alias.name
    return {name: found for name, found in aliases.items() if found in module_files()}


def _flag_definer(module: str, node: ast.Call) -> ast.FunctionDef | None:
    """The function of ours that ``node`` (``alias.function(...)``) calls, if it is one
    that calls ``DEFINE_*``."""
    func = node.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)):
        return None
    imported = _module_aliases(module).get(func.value.id)
    if imported is None:
        return None
    for definition in _tree(module_files()[imported]).body:
        if isinstance(definition, ast.FunctionDef) and definition.name == func.attr:
            calls = _calls_in(definition)
            return (
                definition if any(_function_name(c).startswith("DEFINE") for c in calls) else None
            )
    return None


def _calls_in(function: ast.FunctionDef) -> list[ast.Call]:
    return [node for node in ast.walk(function) if isinstance(node, ast.Call)]


def _function_name(node: ast.Call) -> str:
    function = node.func.attr if isinstance(node.func, ast.Attribute) else None
    return function or (node.func.id if isinstance(node.func, ast.Name) else "")


def _define_calls(
    module: str, calls: list[ast.Call], bound: dict[str, ast.expr] | None = None
) -> dict[str, str]:
    """``flag -> kind`` of the ``DEFINE_*`` calls among ``calls``, a name that is a
    parameter of the function they are in read from ``bound`` (``_bound``)."""
    defined = {}
    for node in calls:
        function = _function_name(node)
        if not function.startswith("DEFINE"):
            continue
        arguments = node.args[:1] + [k.value for k in node.keywords if k.arg == "name"]
        if arguments and isinstance(arguments[0], ast.Name) and arguments[0].id in (bound or {}):
            arguments[0] = bound[arguments[0].id]
        if not arguments or not isinstance(arguments[0], ast.Constant):
            raise AssertionError(
                f"{module}:{node.lineno}: {function}'s flag name is not a string literal; "
                "teach tests/repository/test_readme_names.py to read it"
            )
        kind = "bool" if function in ("DEFINE_bool", "DEFINE_boolean") else "value"
        defined[arguments[0].value] = "config" if function.startswith("DEFINE_config") else kind
    return defined


def _is_config_flag_define(node: ast.Call) -> bool:
    """Whether ``node`` is ``config_flag.define(...)``."""
    func = node.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr == "define"
        and isinstance(func.value, ast.Name)
        and func.value.id == "config_flag"
    )


@functools.cache
def absl_flags() -> dict[str, str]:
    """The flags absl itself defines for every program (``--verbosity``, ``--helpfull``)."""
    from absl import app, flags, logging  # noqa: F401  (they define the flags)

    defined = {"flagfile": "value", "undefok": "value"}
    defined |= dict.fromkeys(("help", "helpshort", "helpfull", "helpxml"), "bool")
    for module, module_flags in flags.FLAGS.flags_by_module_dict().items():
        if module.startswith("absl."):
            for flag in module_flags:
                for name in filter(None, (flag.name, flag.short_name)):
                    defined[name] = "bool" if flag.boolean else "value"
    return defined


@functools.cache
def entry_flags(module: str) -> dict[str, str]:
    """``flag -> kind`` of everything ``python -m <module>`` accepts."""
    defined = dict(absl_flags())
    for imported in sorted(_imported_modules(module)):
        defined |= _defined_flags(imported)
    return defined


@functools.cache
def console_scripts() -> dict[str, str]:
    """``program -> module`` of the programs the package installs (``[project.scripts]``)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return {name: target.partition(":")[0] for name, target in project["scripts"].items()}


@functools.cache
def entry_points() -> tuple[str, ...]:
    """The modules of ours that run as programs."""
    return tuple(
        sorted(
            name
            for name, path in module_files().items()
            if name.startswith("experiments.") and "__main__" in path.read_text()
        )
    )


# Configs.


@functools.cache
def load_config(game: str, preset: str | None):
    """The ConfigDict of ``configs.get_config(game, preset)`` (``auto`` read as ``gpu``: the
    keys are the same, and it needs no look at the devices)."""
    preset = "gpu" if preset in (None, "auto") else preset
    return configs.get_config(game, preset)


def has_key(config, dotted: str) -> bool:
    """Whether ``config`` holds the key ``a.b.c``."""
    for part in dotted.split("."):
        try:
            config = config[part]
        except (KeyError, TypeError, AttributeError):
            return False
    return True


@functools.cache
def preset_configs() -> tuple:
    """The default preset of every game (of pgx's, the cheapest: their presets are alike)."""
    return tuple(load_config(game, None) for game in DEFAULT)


# Dotted names.


def python_imports(python_blocks: list[Span]) -> list[tuple[int, str, str]]:
    """``(line, short name, dotted name)`` of what the README's Python blocks import from
    our packages (``from alphazero_jax.solvers import connect_four as solver``)."""
    imports = []
    for block in python_blocks:
        for node in ast.walk(ast.parse(block.text)):
            line = block.line + getattr(node, "lineno", 1) - 1
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    imports.append(
                        (line, alias.asname or alias.name, f"{node.module}.{alias.name}")
                    )
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    imports.append((line, alias.asname or alias.name.split(".")[0], alias.name))
    return sorted(i for i in imports if i[2].split(".")[0] in PACKAGES)


def candidates(first: str, aliases: dict[str, str]) -> list[str]:
    """What the first part of a dotted name of the README may stand for."""
    found = [f"alphazero_jax.{first}", first, f"experiments.{first}"]
    found += sorted(name for name in module_files() if name.endswith(f".{first}"))
    found = [name for name in found if name in module_files()]
    return list(dict.fromkeys([aliases[first], *found] if first in aliases else found))


def resolve(dotted: str, aliases: dict[str, str]) -> str | None:
    """None when ``dotted`` names something of ours; else why not."""
    first, _, rest = dotted.partition(".")
    tried = candidates(first, aliases)
    reasons = []
    for base in tried:
        reason = _walk(f"{base}.{rest}")
        if reason is None:
            return None
        reasons.append(reason)
    return "; ".join(reasons)


def _walk(dotted: str) -> str | None:
    """Imports the longest module prefix of ``dotted`` and walks the rest as attributes."""
    parts = dotted.split(".")
    end = max(i for i in range(1, len(parts) + 1) if ".".join(parts[:i]) in module_files())
    module, names = ".".join(parts[:end]), parts[end:]
    if module.split(".")[0] == "experiments" or module.startswith("alphazero_jax.cli"):
        return _walk_source(module, names)  # importing them defines flags, once a process
    owner, where = importlib.import_module(module), module
    for name in names:
        if not hasattr(owner, name):
            return f"{where} has no {name!r}"
        value = getattr(owner, name)
        if _only_imported(owner, value):
            home = getattr(value, "__module__", None) or value.__name__
            return f"{where} only imports {name!r} (from {home}); name it there"
        owner, where = value, f"{where}.{name}"
    return None


def _only_imported(owner: object, value: object) -> bool:
    """Whether a plain module (not a package) holds ``value`` only by importing it."""
    if not isinstance(owner, types.ModuleType) or hasattr(owner, "__path__"):
        return False
    if not (inspect.isfunction(value) or inspect.isclass(value) or inspect.ismodule(value)):
        return False  # a constant: where it comes from cannot be told
    home = value.__name__ if inspect.ismodule(value) else value.__module__
    return home != owner.__name__ and not home.startswith(f"{owner.__name__}.")


def _walk_source(module: str, names: list[str]) -> str | None:
    """Looks ``names`` up in the source of an ``experiments`` module, without importing it:
    a top-level function, class or assignment, then names in a class's body."""
    body, where = _tree(module_files()[module]).body, module
    for name in names:
        defined = {}
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                defined[node.name] = node
            for target in getattr(node, "targets", [getattr(node, "target", None)]):
                if isinstance(target, ast.Name):
                    defined[target.id] = node
        if name not in defined:
            return f"{where} defines no {name!r}"
        body = defined[name].body if isinstance(defined[name], ast.ClassDef) else []
        where = f"{where}.{name}"
    return None


# Commands.


@functools.cache
def makefile(text: str) -> tuple[set[str], dict[str, str], dict[str, str]]:
    """The Makefile's targets, its variables (each with the text of its value) and each
    target's recipe (lines joined)."""
    joined = re.sub(r"\\\n\s*", " ", text)
    targets, variables, recipes, current = set(), {}, {}, None
    for line in joined.splitlines():
        rule = re.match(r"([A-Za-z0-9_.-]+(?:\s+[A-Za-z0-9_.-]+)*)\s*:(?!=)(.*)", line)
        variable = re.match(r"([A-Za-z_]\w*)\s*[?:+]?=(.*)", line)
        if rule:
            names = rule.group(1).split()
            if names == [".PHONY"]:
                targets |= set(rule.group(2).split())
            else:
                targets |= set(names)
                current = names[0]
        elif variable:
            variables[variable.group(1)] = variable.group(2).strip()
            current = None
        elif line.startswith("\t") and current:
            recipes[current] = recipes.get(current, "") + line.strip() + "\n"
        elif line.strip() and not line.startswith("#"):
            current = None
    targets.discard(".PHONY")
    return targets, variables, recipes


def check_command(span: Span, make_text: str) -> list[str]:
    """What a ``python -m`` or ``make`` command names that does not exist."""
    try:
        words = shlex.split(span.text, comments=True)
    except ValueError as error:
        return [f"cannot split the command ({error})"]
    if len(words) >= 3 and re.search(r"python3?$", words[0]) and words[1] == "-m":
        return check_entry(words[2], words[3:])
    if words and words[0] in console_scripts():
        return check_program(words[0], words[1:])
    if words[:1] == ["make"]:
        return check_make(words[1:], make_text)
    return []


def subcommands(module: str) -> tuple[str, ...]:
    """The subcommands of a program whose function is in a package (``alphazero-judge``:
    ``agents``, ``checkpoints``, ...): its public modules; none for a plain module."""
    path = module_files().get(module)
    if path is None or path.name != "__init__.py":
        return ()
    parts = [name.rpartition(".") for name in module_files()]
    return tuple(sorted(last for parent, _, last in parts if parent == module and last[0] != "_"))


def check_program(program: str, arguments: list[str]) -> list[str]:
    """An installed program with its arguments: its subcommand, if it has them and one is
    named first, and the flags."""
    module, commands = console_scripts()[program], subcommands(console_scripts()[program])
    if not commands or not arguments or arguments[0].startswith("-") or "<" in arguments[0]:
        return check_entry(module, arguments, program=program)
    if arguments[0] not in commands:
        return [f"{program} has no subcommand {arguments[0]!r} (it has {', '.join(commands)})"]
    named = f"{program} {arguments[0]}"
    return check_entry(f"{module}.{arguments[0]}", arguments[1:], program=named)


def _accepts(defined: dict[str, str], name: str) -> bool:
    """Whether ``--name`` is one of ``defined``, or ``--no<flag>`` of a boolean flag."""
    return name in defined or (name.startswith("no") and defined.get(name[2:]) == "bool")


def check_entry(module: str, arguments: list[str], *, program: str | None = None) -> list[str]:
    """``python -m module *arguments`` (or the installed ``program`` whose function is in
    ``module``): the entry point and each of its flags."""
    if program is None and module not in entry_points():
        return [f"no entry point {module!r} (a module of experiments/ run as __main__)"]
    defined, problems, config = entry_flags(module), [], None
    module = program or module  # as the page names it
    for word in arguments:
        name, _, value = word[2:].partition("=")
        if not word.startswith("--"):
            continue
        if name == "config" and defined.get("config") == "config":
            game, _, preset = value.partition(":")
            if game in configs.available():
                try:
                    config = load_config(game, preset or None)
                except ValueError as error:  # an unknown preset
                    problems.append(f"{module}: --config={value}: {error}")
            elif value != "..." and "<" not in value:  # not a placeholder
                problems.append(f"{module}: --config names no game with presets {game!r}")
        elif name.startswith("config.") and "<" in name:
            continue  # a placeholder: --config.<key>=<value>
        elif name.startswith("config.") and defined.get("config") == "config":
            # Without a config file (`--config=...`), keys are checked against every preset.
            candidates = [config] if config is not None else preset_configs()
            if not any(has_key(c, name[len("config.") :]) for c in candidates):
                problems.append(f"{module}: --{name} is no key of the config")
        elif not _accepts(defined, name):
            problems.append(f"{module} defines no flag --{name}")
    return problems


def check_make(words: list[str], make_text: str) -> list[str]:
    """``make target VAR=value``: the target, the variables and the flags in ``*_ARGS``."""
    targets, variables, recipes = makefile(make_text)
    problems, wanted = [], [w for w in words if "=" not in w and not w.startswith("-")]
    problems += [f"the Makefile has no target {t!r}" for t in wanted if t not in targets]
    given = {}
    for word in words:
        variable, equals, value = word.partition("=")
        if not equals:
            continue
        if variable not in variables:
            problems.append(f"the Makefile has no variable {variable}")
            continue
        users = [t for t in wanted if f"$({variable})" in recipes.get(t, "")]
        if variable.endswith("_ARGS") and not users:
            problems.append(f"no target of {wanted} passes $({variable}) on")
        given[variable] = value
    # Every variable the command sets, and the Makefile's plain defaults for the others
    # (``GAME ?= connect_four``; not those computed by ``$(shell ...)``).
    values = {k: v for k, v in variables.items() if "$(" not in v} | given
    for target in wanted:
        recipe = recipes.get(target, "")
        if not any(f"$({variable})" in recipe for variable in given):
            continue
        for variable, value in values.items():
            recipe = recipe.replace(f"$({variable})", value)
        found = re.search(r"python -m (\S+)([^\n]*)", recipe)
        if found:
            arguments = shlex.split(re.sub(r"\$\(\w+\)", "", found.group(2)))
            problems += check_entry(found.group(1), arguments)
    return problems


# Spans of other kinds.


@functools.cache
def all_flags() -> dict[str, str]:
    """Every flag some entry point or installed program (or its subcommand) accepts."""
    modules = list(entry_points())
    for module in console_scripts().values():
        modules += [module, *(f"{module}.{command}" for command in subcommands(module))]
    flags = {}
    for module in modules:
        flags |= entry_flags(module)
    return flags


def check_flags(text: str) -> list[str]:
    """A flag on its own (``--opening_moves=0``): some entry point defines it."""
    problems = []
    for word in text.split():
        name = word[2:].partition("=")[0]
        if not word.startswith("--") or name in ("", "config"):
            continue
        if name.startswith("config.") and "<" in name:
            continue  # a placeholder: --config.<key>=<value>
        if name.startswith("config."):
            if not any(has_key(c, name[len("config.") :]) for c in preset_configs()):
                problems.append(f"--{name} is no key of any game's config")
        elif not _accepts(all_flags(), name):
            problems.append(f"no entry point defines --{name}")
    return problems


def check_path(text: str) -> list[str]:
    """A path of the repository exists (from its root or a package folder)."""
    if any(text.startswith(prefix) for prefix in SKIPPED_PATHS):
        return []
    pattern = "/".join("*" if "<" in p or p == "..." else p for p in text.split("/"))
    bases = [ROOT, *(p.parent for p in module_files().values() if p.name == "__init__.py")]
    if any(next(base.glob(pattern.rstrip("/")), None) for base in bases):
        return []
    return [f"no file or folder {text!r} in the repository (nor in a package folder)"]


def check_span(span: Span, aliases: dict[str, str], make_text: str) -> list[str]:
    """What ``span`` names that does not exist (nothing for a span that names nothing of
    ours)."""
    text = span.text
    if span.fenced or text.startswith("make ") or re.search(r"python -m ", text):
        return check_command(span, make_text)
    if text.split(" ", 1)[0] in console_scripts():
        return check_command(span, make_text)
    if text.startswith("--"):
        return check_flags(text)
    dotted = DOTTED.fullmatch(text)
    if dotted and dotted.group(1).rsplit(".", 1)[-1] not in FILE_SUFFIXES:
        name = dotted.group(1)
        if name.startswith("config."):
            keys = name[len("config.") :]
            found = any(has_key(c, keys) for c in preset_configs())
            return [] if found else [f"{name} is no key of any game's config"]
        if not candidates(name.split(".")[0], aliases):
            return []  # not a name of ours
        reason = resolve(name, aliases)
        return [] if reason is None else [f"{name}: {reason}"]
    if PATH.fullmatch(text) and "/" in text:
        return check_path(text)
    return []


@functools.cache
def _generated_docs():
    """docs/_ext/generated.py, read without Sphinx: what the docs build writes."""
    spec = importlib.util.spec_from_file_location("generated", DOCS / "_ext" / "generated.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def link_exists(target: pathlib.Path) -> bool:
    """Whether a linked file exists, or the docs build writes it from one that does."""
    return target.exists() or _generated_docs().source_of(target).exists()


def check_readme(
    markdown: str, make_text: str, name: str = "README.md", base: pathlib.Path = ROOT
) -> list[str]:
    """Every problem of ``markdown``: ``<name>:<line>: `<span>`: <what is missing>`` (and
    the python blocks' imports from our packages); links are read from ``base``."""
    spans, python = code_spans(markdown)
    imports = python_imports(python)
    aliases = {short: dotted for _, short, dotted in imports}
    problems = []
    for line, _, dotted in imports:
        reason = _walk(dotted)
        if reason is not None:
            problems.append(f"{name}:{line}: a python block imports {dotted}: {reason}")
    for span in sorted(spans):
        for problem in check_span(span, aliases, make_text):
            problems.append(f"{name}:{span.line}: `{span.text}`: {problem}")
    for line, target in markdown_links(markdown):
        if not link_exists(base / target):
            problems.append(f"{name}:{line}: link ({target}): no such file")
    return problems


def docs_pages() -> list[pathlib.Path]:
    """The Markdown pages of docs/ that people write (not the generated ones)."""
    return sorted(
        path for path in DOCS.rglob("*.md") if path.relative_to(DOCS).parts[0] not in GENERATED_DOCS
    )


# The tests.


def test_readme__names_only_what_exists():
    problems = check_readme(README.read_text(), MAKEFILE.read_text())
    assert not problems, "The README names what does not exist:\n" + "\n".join(problems)


@pytest.mark.parametrize("page", docs_pages(), ids=lambda page: str(page.relative_to(DOCS)))
def test_docs_page__names_only_what_exists(page):
    name = str(page.relative_to(ROOT))
    problems = check_readme(page.read_text(), MAKEFILE.read_text(), name, base=page.parent)
    assert not problems, f"{name} names what does not exist:\n" + "\n".join(problems)


MADE_UP = """\
Intro naming `runs.restore_network(workdir)` and `solvers.connect_four.move_scores`,
`alphazero_jax.games.no_such_game` and `runs.no_such_function(workdir)`; `elo.png`.
`train.restore_network(workdir)` loads a network.

```bash
make train TRAIN_ARGS="--config.search.num_simulations=64"
make no_such_target
.venv/bin/python -m experiments.evaluate --game=connect_four \\
    --no_such_flag=1 --games=2
```

`make play PLAY_ARGS="--human=second --colour=red"`, `--opening_moves=0`, `--no_such=1`,
`python -m experiments.no_such_entry`, `notebooks/play.ipynb`, `notebooks/missing.ipynb`,
`--config.evaluation.every=0`, `config.no_such.key`,
`make train TRAIN_ARGS="--config.search.no_such_key=1"`.

```python
from alphazero_jax.evaluation import arena, no_such_module
```
"""


def test_check_readme__reports_each_made_up_name():
    problems = check_readme(MADE_UP, MAKEFILE.read_text())
    expected = [
        ("README.md:2:", "alphazero_jax.games.no_such_game", "no_such_game"),
        ("README.md:2:", "runs.no_such_function", "no 'no_such_function'"),
        ("README.md:3:", "train.restore_network", "restore_network"),
        ("README.md:7:", "make no_such_target", "no target 'no_such_target'"),
        ("README.md:8:", "experiments.evaluate", "no flag --no_such_flag"),
        ("README.md:12:", "--colour=red", "no flag --colour"),
        ("README.md:12:", "--no_such=1", "no entry point defines --no_such"),
        ("README.md:13:", "experiments.no_such_entry", "no entry point"),
        ("README.md:13:", "notebooks/missing.ipynb", "no file or folder"),
        ("README.md:14:", "config.no_such.key", "no key"),
        ("README.md:15:", "no_such_key", "--config.search.no_such_key is no key"),
        ("README.md:18:", "no_such_module", "has no 'no_such_module'"),
    ]
    for where, span, what in expected:
        assert [p for p in problems if p.startswith(where) and span in p and what in p], (
            f"not reported: {where} {span} ({what}); reported:\n" + "\n".join(problems)
        )
    assert len(problems) == len(expected), "\n".join(problems)


def test_check_make__substitutes_every_variable_given_and_the_plain_defaults():
    make_text = MAKEFILE.read_text()
    assert not check_make(["agent", "GAME=connect_four", "RECIPE=long"], make_text)
    assert not check_make(["agent", "GAME=othello"], make_text)
    [problem] = check_make(["agent", "GAME=othello", "RECIPE=long"], make_text)
    assert "--config=othello:long" in problem and "Unknown preset" in problem
    [problem] = check_make(["agent", "RECIPE=no_such_recipe"], make_text)  # GAME's default
    assert "--config=connect_four:no_such_recipe" in problem


MADE_UP_DOCS = """\
A role's target is not code: {doc}`tutorials/no_such_page`.

```console
$ alphazero-train --config=connect_four:cpu --workdir=runs/c4 --no_such_flag=1
output line --not_a_flag
$ .venv/bin/python -m experiments.play \\
    --no_such_either=2
$ make no_such_target
```

`alphazero-play --game=connect_four --colour=red`, `--config.<key>=<value>`.
[a notebook](tutorials/play.ipynb), [a missing one](tutorials/missing.ipynb)
`alphazero-judge agents --workdir=a`, `alphazero-judge nope`, `alphazero-judge curves --workdir=a`,
`alphazero-judge <judgment> --help`, `alphazero-judge`.
"""


def test_check_readme__reads_console_blocks_programs_roles_and_docs_links():
    problems = check_readme(MADE_UP_DOCS, MAKEFILE.read_text(), "page.md", base=DOCS)
    expected = [
        ("page.md:4:", "alphazero-train", "no flag --no_such_flag"),
        ("page.md:6:", "experiments.play", "no flag --no_such_either"),
        ("page.md:8:", "make no_such_target", "no target 'no_such_target'"),
        ("page.md:11:", "alphazero-play", "no flag --colour"),
        ("page.md:12:", "tutorials/missing.ipynb", "no such file"),
        (
            "page.md:13:",
            "alphazero-judge agents",
            "alphazero-judge agents defines no flag --workdir",
        ),
        ("page.md:13:", "alphazero-judge nope", "no subcommand 'nope' (it has agents, "),
    ]
    for where, span, what in expected:
        assert [p for p in problems if p.startswith(where) and span in p and what in p], (
            f"not reported: {where} {span} ({what}); reported:\n" + "\n".join(problems)
        )
    assert len(problems) == len(expected), "\n".join(problems)


@pytest.mark.parametrize(
    "module, flag",
    [
        ("experiments.train", "workdir"),  # its own
        ("experiments.train", "compilation_cache_dir"),  # an imported module's
        ("experiments.serve", "nocompilation_cache"),  # a boolean's negation
        ("experiments.play", "verbosity"),  # absl's
        ("experiments.export_agent", "run"),  # an old name (common.define_old_name)
    ],
)
def test_entry_flags__include_imported_negated_and_absl_flags(module, flag):
    assert check_entry(module, [f"--{flag}=1"]) == []
