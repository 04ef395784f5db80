"""axe-core in the browser tests: injected from the npm package (``npm install``, package.json),
never downloaded while a test runs.

``LERNPFAD_AXE`` names axe.min.js; by default it is ``node_modules/axe-core/axe.min.js`` in the
checkout. The pages' Content-Security-Policy forbids inline scripts, and Playwright injects the
file as one: contexts that run axe are opened with ``bypass_csp=True``.
"""

from __future__ import annotations

import os
from pathlib import Path

from django.conf import settings
from playwright.sync_api import Page

from tests.conftest import _missing

AXE_JS = Path(
    os.environ.get("LERNPFAD_AXE")
    or Path(settings.BASE_DIR) / "node_modules" / "axe-core" / "axe.min.js"
)
# What fails a test: axe's two highest impacts. Moderate and minor findings are reported only.
FAILING_IMPACTS = ("serious", "critical")


def axe_path() -> Path:
    """The axe-core script; a missing one is a skip (a failure under CI's service gate)."""
    if not AXE_JS.exists():
        _missing(f"needs axe-core at {AXE_JS} (npm install)")
    return AXE_JS


def axe_violations(page: Page) -> list[dict]:
    """The page's serious and critical axe violations (WCAG 2.x A and AA rules and axe's best
    practices), each as ``{"id", "impact", "help", "targets"}``."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(axe_path()))
    results = page.evaluate(
        """async () => {
            const r = await axe.run(document, {resultTypes: ["violations"]});
            return r.violations.map(v => ({
                id: v.id, impact: v.impact, help: v.help,
                targets: v.nodes.slice(0, 5).map(n => n.target.join(" ")),
            }));
        }"""
    )
    return [v for v in results if v["impact"] in FAILING_IMPACTS]


class AxeAudit:
    """Collects the violations of every page a journey visits; ``assert_clean`` fails with all
    of them at once, page by page."""

    def __init__(self) -> None:
        self.found: dict[str, list[dict]] = {}
        self.pages: list[str] = []

    def __call__(self, page: Page, name: str) -> None:
        self.pages.append(name)
        violations = axe_violations(page)
        if violations:
            self.found[f"{name} ({page.url})"] = violations

    def assert_clean(self) -> None:
        assert not self.found, "axe-core found serious or critical violations:\n" + "\n".join(
            f"{where}: {v['impact']} {v['id']} – {v['help']} – {v['targets']}"
            for where, violations in self.found.items()
            for v in violations
        )
