"""The pages' Jinja2 templates (`templates/`), autoescaping on: every page module renders through this one."""

from __future__ import annotations

from pathlib import Path

from starlette.templating import Jinja2Templates

templates = Jinja2Templates(directory=Path(__file__).parent / "templates")
