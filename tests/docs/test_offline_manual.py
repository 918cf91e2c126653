"""The manual read from disk: `site/index.html` opened as a file searches with no network (the browser test of it
is in tests/web/test_browser_pages.py)."""

from __future__ import annotations

import re

import yaml
from helpers.cli import REPO


class _Loader(yaml.SafeLoader):
    """mkdocs.yml with its `!relative` tag read as plain text."""


_Loader.add_multi_constructor("!", lambda loader, suffix, node: None)


def mkdocs_config() -> dict:
    return yaml.load((REPO / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_Loader)


def test_the_offline_plugin_is_on_and_its_worker_shim_is_in_the_repository():
    config = mkdocs_config()
    plugins = [next(iter(plugin)) if isinstance(plugin, dict) else plugin for plugin in config["plugins"]]
    assert "offline" in plugins and "search" in plugins
    # The plugin adds unpkg.com's iframe-worker unless a polyfill already names it: ours, from docs/.
    (shim,) = [script for script in config["extra"]["polyfills"] if "iframe-worker" in script]
    assert not re.match(r"\w+://", shim)
    assert "postMessage" in (REPO / "docs" / shim).read_text(encoding="utf-8")
