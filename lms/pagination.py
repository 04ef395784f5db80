"""Page-number pagination with relative ``next``/``previous`` links and a ``next_page`` number,
so clients behind a proxy or generated from the schema can follow them.
"""

from __future__ import annotations

from typing import Any

from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response
from rest_framework.utils.urls import remove_query_param, replace_query_param

from lms.errors import InvalidInput
from lms.query import blank_parameter_message


class RelativePageNumberPagination(PageNumberPagination):
    def get_page_number(self, request, paginator):
        # DRF reads "?page=" as page 1; the schema's page is an integer.
        if request.query_params.get(self.page_query_param) == "":
            raise InvalidInput(
                blank_parameter_message(self.page_query_param),
                code="invalid_query",
                detail={self.page_query_param: [blank_parameter_message(self.page_query_param)]},
            )
        return super().get_page_number(request, paginator)

    def _path(self) -> str:
        return self.request.get_full_path()

    def get_next_link(self) -> str | None:
        if not self.page.has_next():
            return None
        return replace_query_param(
            self._path(), self.page_query_param, self.page.next_page_number()
        )

    def get_previous_link(self) -> str | None:
        if not self.page.has_previous():
            return None
        number = self.page.previous_page_number()
        if number == 1:
            return remove_query_param(self._path(), self.page_query_param)
        return replace_query_param(self._path(), self.page_query_param, number)

    def get_paginated_response(self, data: Any) -> Response:
        return Response(
            {
                "count": self.page.paginator.count,
                "next": self.get_next_link(),
                "previous": self.get_previous_link(),
                "next_page": self.page.next_page_number() if self.page.has_next() else None,
                "results": data,
            }
        )

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        link = {"type": "string", "format": "uri-reference", "nullable": True}
        return {
            "type": "object",
            "required": ["count", "next", "previous", "next_page", "results"],
            "properties": {
                "count": {"type": "integer", "example": 123},
                "next": {
                    **link,
                    "description": "The next page, relative to the server; null on the last.",
                    "example": f"/api/v1/modules/?{self.page_query_param}=4",
                },
                "previous": {
                    **link,
                    "description": "The previous page, relative to the server; null on the first.",
                    "example": f"/api/v1/modules/?{self.page_query_param}=2",
                },
                "next_page": {
                    "type": "integer",
                    "nullable": True,
                    "description": f"Pass as `{self.page_query_param}` for the next page; "
                    "null on the last.",
                    "example": 4,
                },
                "results": schema,
            },
        }
