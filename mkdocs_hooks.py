"""MkDocs hooks: the site is the repository seen through ``docs/``.

- ``docs/X`` is the site's ``X``, and the README is its home page (``index.md``).
- A repository file that a page links to (a study's report, figure or explorer page, an
  experiment's README, a config, a script) joins the site at its repository path, and so does the
  rest of that study's ``results/<study>/`` folder (what its explorer page links to). Links are
  written as they work on GitHub (relative to the file's place in the repository); this hook
  rewrites them to the site's places, so that ``mkdocs build --strict`` fails on a broken one.
- ``api/cli.md`` is generated at build time from every command's live ``--help``.
"""

from __future__ import annotations

import contextlib
import io
import os
import posixpath
import re
import sys
from importlib.metadata import distribution
from pathlib import Path

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent
# a Markdown link or image: [text](target "title"); text may hold one level of brackets or backticks
LINK = re.compile(r"(!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\()(<[^>]+>|[^)\s]+)((?:\s+\"[^\"]*\")?\))")
SKIP = ("http://", "https://", "mailto:", "file:", "#", "/")
CLI_PAGE = "api/cli.md"
REPO_FILES: dict[str, str] = {}  # site src_uri -> the file's path in the repository


def site_path(repo_path: str) -> str:
    """The site's src_uri of a repository file: docs/X -> X, README.md -> index.md, else itself."""
    if repo_path == "README.md":
        return "index.md"
    return repo_path[len("docs/"):] if repo_path.startswith("docs/") else repo_path


def repo_path(src_uri: str) -> str:
    return REPO_FILES.get(src_uri, f"docs/{src_uri}")


def _targets(markdown: str, page_repo: str):
    """(link match, target repository path, anchor) of every relative link outside code blocks."""
    chunks = re.split(r"(^```.*?^```)", markdown, flags=re.M | re.S)
    for i, chunk in enumerate(chunks):
        if i % 2:
            continue
        for m in LINK.finditer(chunk):
            target = m.group(2).strip("<>")
            if target.startswith(SKIP) or ":" in target.split("/")[0]:
                continue
            path, _, anchor = target.partition("#")
            yield m, posixpath.normpath(posixpath.join(posixpath.dirname(page_repo), path)), anchor


def rewrite_links(markdown: str, page_repo: str, page_site: str) -> str:
    """Links written relative to ``page_repo`` in the repository, rewritten relative to ``page_site``."""
    chunks = re.split(r"(^```.*?^```)", markdown, flags=re.M | re.S)

    def one(m):
        target = m.group(2).strip("<>")
        if target.startswith(SKIP) or ":" in target.split("/")[0]:
            return m.group(0)
        path, hash_, anchor = target.partition("#")
        resolved = posixpath.normpath(posixpath.join(posixpath.dirname(page_repo), path))
        new = posixpath.relpath(site_path(resolved), posixpath.dirname(page_site) or ".")
        return f"{m.group(1)}{new}{hash_}{anchor}{m.group(3)}"

    return "".join(chunk if i % 2 else LINK.sub(one, chunk) for i, chunk in enumerate(chunks))


def _add(files: Files, config, repo: str) -> File | None:
    src = site_path(repo)
    if files.get_file_from_path(src) is not None:
        return None
    f = File.generated(config, src, abs_src_path=str(ROOT / repo))
    files.append(f)
    REPO_FILES[src] = repo
    return f


def on_files(files: Files, config) -> Files:
    REPO_FILES.clear()
    _add(files, config, "README.md")
    todo = [f for f in files if f.src_uri.endswith(".md")]
    seen_studies = set()
    while todo:
        page = todo.pop()
        page_repo = repo_path(page.src_uri)
        text = page.content_string
        for _, target, _ in _targets(text, page_repo):
            if target.startswith(("..", "docs/")) or not (ROOT / target).is_file():
                continue  # outside the repository, already a page, or missing: strict mode names it
            new = _add(files, config, target)
            if new is not None and target.endswith(".md"):
                todo.append(new)
            parts = target.split("/")
            if parts[0] == "results" and len(parts) > 2 and parts[1] not in seen_studies:
                seen_studies.add(parts[1])  # the explorer page links to the study's figures and tables
                for extra in sorted((ROOT / "results" / parts[1]).rglob("*")):
                    if extra.is_file() and "parts" not in extra.parts and not extra.name.endswith(".md"):
                        _add(files, config, extra.relative_to(ROOT).as_posix())
    return files


def on_page_markdown(markdown: str, page, config, files) -> str:
    if page.file.src_uri == CLI_PAGE:
        markdown = cli_page(markdown)
    return rewrite_links(markdown, repo_path(page.file.src_uri), page.file.src_uri)


def _help(entry) -> str:
    """What ``<command> --help`` prints: the entry point called in this process with that argv (a
    subprocess per command would cost ~1.5 CPU-s each, mostly importing covstudy)."""
    out = io.StringIO()
    saved = sys.argv, os.environ.get("COLUMNS")
    sys.argv, os.environ["COLUMNS"] = [entry.name, "--help"], "100"  # argparse wraps at COLUMNS
    code = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            try:
                entry.load()()
            except SystemExit as exit:
                code = exit.code or 0
    finally:
        sys.argv = saved[0]
        if saved[1] is None:
            os.environ.pop("COLUMNS")
        else:
            os.environ["COLUMNS"] = saved[1]
    if code != 0:
        raise RuntimeError(f"{entry.name} --help failed ({code}): {out.getvalue()[-500:]}")
    return out.getvalue().rstrip()


def cli_page(intro: str) -> str:
    """The command-line reference: its page's text, then every console script of covstudy with its
    live ``--help``."""
    entries = sorted(distribution("covstudy").entry_points.select(group="console_scripts"), key=lambda e: e.name)
    helps = [_help(e) for e in entries]
    lines = [intro.rstrip("\n"), ""]
    for entry, text in zip(entries, helps):
        lines += [f"## `{entry.name}`", "", f"`{entry.value}`", "", "```text", f"$ {entry.name} --help", text, "```", ""]
    return "\n".join(lines)
