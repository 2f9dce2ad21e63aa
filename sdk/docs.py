"""``/docs`` of every service, served from the package: FastAPI's own page loads Swagger UI
from a CDN and its favicon from the web, so offline (a laptop on a train, a lab without
internet) it stays blank. The assets come from fastapi-offline, which ships Swagger UI 5
(its licence in the package); nothing the page loads leaves the service. ``/redoc`` is
not served: ReDoc fetches its logo from its vendor's CDN whatever it is told.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import fastapi_offline
from fastapi.openapi.docs import get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

from sdk.service_app import ServiceApp

__all__ = ["DOCS_ASSETS", "DOCS_STATIC", "service_app"]

DOCS_ASSETS = Path(fastapi_offline.__file__).resolve().parent / "static"
"""swagger-ui-bundle.js, swagger-ui.css and favicon.png (among others)."""
DOCS_STATIC = "/docs-static"
"""Where a service serves them."""
_SWAGGER_PARAMETERS = {"validatorUrl": None}
"""No validator badge: Swagger UI would fetch it from validator.swagger.io."""


def service_app(**options: Any) -> ServiceApp:
    """``ServiceApp(**options)`` (a FastAPI app, ``sdk.service_app``) with ``/docs`` and
    ``/docs/oauth2-redirect`` answered from ``DOCS_ASSETS`` under ``DOCS_STATIC`` (and no
    ``/redoc``)."""
    app = ServiceApp(**{**options, "docs_url": None, "redoc_url": None})
    app.mount(DOCS_STATIC, StaticFiles(directory=DOCS_ASSETS), name="docs-static")
    openapi_url = app.openapi_url or "/openapi.json"
    redirect_url = app.swagger_ui_oauth2_redirect_url or "/docs/oauth2-redirect"
    favicon = f"{DOCS_STATIC}/favicon.png"

    @app.get("/docs", include_in_schema=False)
    async def swagger() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=openapi_url,
            title=f"{app.title}: API",
            swagger_js_url=f"{DOCS_STATIC}/swagger-ui-bundle.js",
            swagger_css_url=f"{DOCS_STATIC}/swagger-ui.css",
            swagger_favicon_url=favicon,
            oauth2_redirect_url=redirect_url,
            swagger_ui_parameters=_SWAGGER_PARAMETERS,
        )

    @app.get(redirect_url, include_in_schema=False)
    async def oauth2_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    return app
