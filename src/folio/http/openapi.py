"""The OpenAPI 3.1 description of the HTTP API, made from the models at start-up: every
content-type route with its parameters (in the bracket syntax, as deep objects), bodies and
answers, the upload, users-permissions and i18n routes, the error envelope and the security
scheme (an API token or a users-permissions JWT as a bearer token).

Served at `GET /openapi.json` outside production (`plugins.documentation.enabled` decides
otherwise). Documents and inputs are described as they are answered and accepted: fields
that only populate brings are optional, values that may be empty are nullable."""

from __future__ import annotations

from typing import Any

from folio import __version__
from folio.http import openapi_examples as examples
from folio.http.admin.openapi import add_admin_api
from folio.http.openapi_events import event_stream_paths, stream_schemas
from folio.schema.builtins import FILE_UID
from folio.schema.model import Attribute, Component, ContentType, Registry, Schema

JSON = "application/json"
ERROR_REF = {"$ref": "#/components/responses/Error"}
BEARER: list[dict[str, list[str]]] = [
    {"bearerAuth": []},
    {},
]  # a token, or none (what the public role may do)


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    if "$ref" in schema or "anyOf" in schema:
        return {"anyOf": [schema, {"type": "null"}]}
    kind = schema.get("type")
    if isinstance(kind, str):
        out = {**schema, "type": [kind, "null"]}
        if "enum" in out:
            out["enum"] = [*out["enum"], None]
        return out
    return schema


def schema_name(schema: Schema) -> str:
    """`Article`, `UploadFile`, `ComponentSharedSeo`."""
    if isinstance(schema, Component):
        category, _, name = schema.uid.partition(".")
        return "Component" + _pascal(category) + _pascal(name)
    assert isinstance(schema, ContentType)
    prefix = ""
    if schema.uid.startswith("plugin::"):
        prefix = _pascal(schema.uid.split("::", 1)[1].split(".", 1)[0])
    return prefix + _pascal(schema.singular)


def _pascal(text: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in text.replace("_", "-").split("-") if p)


def _scalar(attr: Attribute, output: bool) -> dict[str, Any]:
    """A scalar attribute's values, as answered (`output`) or as accepted."""
    t = attr.type
    out: dict[str, Any]
    if t in ("string", "text", "richtext", "email", "uid", "password"):
        out = {"type": "string"}
        if t == "email":
            out["format"] = "email"
        if attr.max_length is not None:
            out["maxLength"] = attr.max_length
        elif t in ("string", "email", "uid"):
            out["maxLength"] = 255
        if attr.min_length is not None and not output:
            out["minLength"] = attr.min_length
    elif t == "enumeration":
        out = {"type": "string", "enum": list(attr.enum)}
    elif t == "integer":
        out = {"type": "integer"}
    elif t == "biginteger":
        out = {"type": "string", "pattern": "^-?[0-9]+$"} if output else {}
        if not output:
            out = {"anyOf": [{"type": "integer"}, {"type": "string", "pattern": "^-?[0-9]+$"}]}
    elif t in ("float", "decimal"):
        out = {"type": "number"}
    elif t == "boolean":
        out = {"type": "boolean"}
    elif t == "date":
        out = {"type": "string", "format": "date"}
    elif t in ("datetime", "timestamp"):
        out = {"type": "string", "format": "date-time"}
    elif t == "time":
        out = {"type": "string", "pattern": "^[0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]{1,3})?)?$"}
    elif t == "blocks":
        out = {"type": "array", "items": {"type": "object"}}
    else:  # json: any JSON value
        out = {}
    if t in ("integer", "float", "decimal") and not output:
        if attr.minimum is not None:
            out["minimum"] = attr.minimum
        if attr.maximum is not None:
            out["maximum"] = attr.maximum
    return out


RELATION_ENTRY = {
    "anyOf": [
        {"type": "string", "description": "a documentId"},
        {"type": "integer", "description": "a numeric id"},
        {
            "type": "object",
            "properties": {
                "documentId": {"type": "string"},
                "id": {"type": "integer"},
                "locale": {"type": "string"},
                "status": {"type": "string", "enum": ["draft", "published"]},
                "position": {"type": "object"},
            },
        },
    ]
}


class OpenApiBuilder:
    def __init__(
        self,
        registry: Registry,
        locales: list[str],
        graphql_path: str | None,
        realtime: bool = True,
    ) -> None:
        self.registry = registry
        self.locales = locales
        self.graphql_path = graphql_path
        self.realtime = realtime  # the event streams are served (openapi_events)
        self.schemas: dict[str, Any] = {}

    # ------------------------------------------------------------------ schemas
    def _document(self, schema: Schema) -> str:
        """The schema of a document (or component) as answered; made once per model."""
        name = schema_name(schema)
        if name in self.schemas:
            return name
        self.schemas[name] = {}  # placeholder: models refer to each other
        # a create's answer carries no `id` (as the spec says), every other answer does
        props: dict[str, Any] = {"id": {"type": "integer"}}
        required: list[str] = []
        if isinstance(schema, ContentType):
            props["documentId"] = {"type": "string"}
            required.append("documentId")
        for attr in schema.attributes.values():
            if attr.is_hidden:
                continue
            if attr.kind.scalar:
                props[attr.name] = _nullable(_scalar(attr, output=True))
            elif attr.type == "relation" and attr.target in self.registry.content_types:
                target = _ref(self._document(self.registry.content_types[attr.target]))
                props[attr.name] = {
                    "anyOf": [
                        target,
                        {"type": "array", "items": target},
                        {"type": "null"},
                        {"type": "object", "properties": {"count": {"type": "integer"}}},
                    ]
                }
            elif attr.type == "media":
                file = _ref(self._document(self.registry.content_types["plugin::upload.file"]))
                props[attr.name] = (
                    {"type": "array", "items": file} if attr.multiple else _nullable(file)
                )
            elif attr.type == "component" and attr.component in self.registry.components:
                comp = _ref(self._document(self.registry.components[attr.component]))
                props[attr.name] = (
                    {"type": "array", "items": comp} if attr.repeatable else _nullable(comp)
                )
            elif attr.type == "dynamiczone":
                props[attr.name] = {"type": "array", "items": {"type": "object"}}
        if isinstance(schema, ContentType):
            for stamp in ("createdAt", "updatedAt", "publishedAt"):
                props[stamp] = {"type": ["string", "null"], "format": "date-time"}
            if schema.localized:
                props["locale"] = {"type": ["string", "null"]}
                props["localizations"] = {"type": "array", "items": {"type": "object"}}
        if isinstance(schema, Component):
            props["__component"] = {"type": "string"}
        self.schemas[name] = {
            "type": "object",
            "properties": props,
            "required": required,
            "additionalProperties": True,
        }
        return name

    def _input(self, schema: Schema) -> str:
        """The schema of `data` in a write."""
        name = schema_name(schema) + "Input"
        if name in self.schemas:
            return name
        self.schemas[name] = {}
        props: dict[str, Any] = {}
        for attr in schema.attributes.values():
            if attr.kind.scalar:
                props[attr.name] = _nullable(_scalar(attr, output=False))
            elif attr.type == "relation":
                props[attr.name] = {
                    "anyOf": [
                        RELATION_ENTRY,
                        {"type": "array", "items": RELATION_ENTRY},
                        {
                            "type": "object",
                            "properties": {
                                k: {"type": "array", "items": RELATION_ENTRY}
                                for k in ("connect", "disconnect", "set")
                            },
                        },
                        {"type": "null"},
                    ]
                }
            elif attr.type == "media":
                one = {"anyOf": [{"type": "integer"}, {"type": "string"}]}
                props[attr.name] = _nullable(
                    {"anyOf": [one, {"type": "array", "items": one}]} if attr.multiple else one
                )
            elif attr.type == "component" and attr.component in self.registry.components:
                comp = _ref(self._input(self.registry.components[attr.component]))
                props[attr.name] = _nullable(
                    {"type": "array", "items": comp} if attr.repeatable else comp
                )
            elif attr.type == "dynamiczone":
                props[attr.name] = {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "__component": {"type": "string", "enum": list(attr.components)}
                        },
                        "required": ["__component"],
                    },
                }
        if isinstance(schema, Component):
            props["id"] = {"type": "integer", "description": "update this component in place"}
        self.schemas[name] = {"type": "object", "properties": props}
        return name

    # ------------------------------------------------------------------ parameters
    def _read_params(self, ct: ContentType, many: bool) -> list[dict[str, Any]]:
        fields, *listing = examples.read_parameters(ct, many)
        params: list[dict[str, Any]] = [fields, {"$ref": "#/components/parameters/populate"}]
        if ct.localized:
            params.append({"$ref": "#/components/parameters/locale"})
        if ct.draft_and_publish:
            params.append({"$ref": "#/components/parameters/status"})
        if many:
            params += [*listing, {"$ref": "#/components/parameters/pagination"}]
        return params

    @staticmethod
    def _answer(schema: dict[str, Any], description: str) -> dict[str, Any]:
        return {"description": description, "content": {JSON: {"schema": schema}}}

    def _one(self, ct: ContentType) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {"data": _ref(self._document(ct)), "meta": {"type": "object"}},
            "required": ["data", "meta"],
        }

    def _content_paths(self, ct: ContentType) -> dict[str, Any]:
        name = schema_name(ct)
        tag = [ct.display_name]
        summary = examples.summaries(ct)

        def body(verb: str) -> dict[str, Any]:
            example = examples.example_data(ct, self.registry, verb)
            return {
                "required": True,
                "content": {
                    JSON: {
                        "schema": {
                            "type": "object",
                            "properties": {"data": _ref(self._input(ct))},
                            "required": ["data"],
                        },
                        "example": {"data": example},
                    }
                },
            }

        errors = {"400": ERROR_REF, "401": ERROR_REF, "403": ERROR_REF}
        write_params = [
            examples.read_parameters(ct, False)[0],
            {"$ref": "#/components/parameters/populate"},
            *([{"$ref": "#/components/parameters/locale"}] if ct.localized else []),
            *([{"$ref": "#/components/parameters/status"}] if ct.draft_and_publish else []),
        ]
        deleting = {
            "summary": summary["delete"],
            "operationId": f"delete{name}",
            "tags": tag,
            "parameters": [{"$ref": "#/components/parameters/locale"}] if ct.localized else [],
            "responses": {"204": {"description": "Deleted"}, "404": ERROR_REF, **errors},
        }
        if ct.is_single:
            return {
                f"/api/{ct.singular}": {
                    "get": {
                        "summary": summary["get"],
                        "operationId": f"get{name}",
                        "tags": tag,
                        "parameters": self._read_params(ct, False),
                        "responses": {
                            "200": self._answer(self._one(ct), "The document"),
                            "404": ERROR_REF,
                            **errors,
                        },
                    },
                    "put": {
                        "summary": summary["put"],
                        "operationId": f"put{name}",
                        "tags": tag,
                        "parameters": write_params,
                        "requestBody": body("written"),
                        "responses": {
                            "200": self._answer(self._one(ct), "Written"),
                            "413": ERROR_REF,
                            **errors,
                        },
                    },
                    "delete": deleting,
                }
            }
        listed = {
            "type": "object",
            "properties": {
                "data": {"type": "array", "items": _ref(self._document(ct))},
                "meta": {
                    "type": "object",
                    "properties": {"pagination": _ref("Pagination")},
                },
            },
            "required": ["data", "meta"],
        }
        document_id = {
            "name": "documentId",
            "in": "path",
            "required": True,
            "schema": {"type": "string"},
        }
        return {
            f"/api/{ct.plural}": {
                "get": {
                    "summary": summary["list"],
                    "operationId": f"list{name}",
                    "tags": tag,
                    "parameters": self._read_params(ct, True),
                    "responses": {"200": self._answer(listed, "A page"), **errors},
                },
                "post": {
                    "summary": summary["post"],
                    "operationId": f"create{name}",
                    "tags": tag,
                    "parameters": write_params,
                    "requestBody": body("written"),
                    "responses": {
                        "201": self._answer(self._one(ct), "Created"),
                        "413": ERROR_REF,
                        **errors,
                    },
                },
            },
            f"/api/{ct.plural}/{{documentId}}": {
                "parameters": [document_id],
                "get": {
                    "summary": summary["get"],
                    "operationId": f"get{name}",
                    "tags": tag,
                    "parameters": self._read_params(ct, False),
                    "responses": {
                        "200": self._answer(self._one(ct), "The document"),
                        "404": ERROR_REF,
                        **errors,
                    },
                },
                "put": {
                    "summary": summary["put"],
                    "operationId": f"update{name}",
                    "tags": tag,
                    "parameters": write_params,
                    "requestBody": body("updated"),
                    "responses": {
                        "200": self._answer(self._one(ct), "Updated"),
                        "404": ERROR_REF,
                        "413": ERROR_REF,
                        **errors,
                    },
                },
                "delete": deleting,
            },
        }

    def _plugin_paths(self) -> dict[str, Any]:
        file = _ref(self._document(self.registry.content_types["plugin::upload.file"]))
        errors = {"400": ERROR_REF, "401": ERROR_REF, "403": ERROR_REF}
        file_id = {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}
        user = {"type": "object", "additionalProperties": True}
        auth = {
            "type": "object",
            "properties": {"jwt": {"type": "string"}, "user": user},
        }

        def body(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
            schema = {"type": "object", "properties": props, "required": required}
            return {"required": True, "content": {JSON: {"schema": schema}}}

        # the account actions are counted: too many attempts (429), or a shared counter
        # that cannot be reached when limits are set to fail closed (503)
        limited = {"429": ERROR_REF, "503": ERROR_REF}

        def post(
            op: str, summary: str, payload: dict[str, Any], answer: dict[str, Any]
        ) -> dict[str, Any]:
            return {
                "post": {
                    "summary": summary,
                    "operationId": op,
                    "tags": ["Users & permissions"],
                    "requestBody": payload,
                    "responses": {
                        "200": self._answer(answer, "Done"),
                        **limited,
                        **errors,
                    },
                }
            }

        string = {"type": "string"}
        ok = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
        return {
            "/api/upload": {
                "post": {
                    "summary": "Upload files (or, with `id`, update a file's information)",
                    "operationId": "upload",
                    "tags": ["Upload"],
                    "parameters": [{"name": "id", "in": "query", "schema": {"type": "integer"}}],
                    "requestBody": {
                        "required": True,
                        "content": {
                            "multipart/form-data": {
                                "schema": {
                                    "type": "object",
                                    "properties": {
                                        "files": {
                                            "type": "array",
                                            "items": {"type": "string", "format": "binary"},
                                        },
                                        "fileInfo": string,
                                        "ref": string,
                                        "refId": string,
                                        "field": string,
                                    },
                                }
                            }
                        },
                    },
                    "responses": {
                        "201": self._answer({"type": "array", "items": file}, "Stored"),
                        "200": self._answer(file, "Updated"),
                        "404": ERROR_REF,
                        "413": ERROR_REF,
                        **errors,
                    },
                }
            },
            "/api/upload/files": {
                "get": {
                    "summary": "List files",
                    "operationId": "listFiles",
                    "tags": ["Upload"],
                    "parameters": [
                        {"$ref": "#/components/parameters/filters"},
                        {"$ref": "#/components/parameters/sort"},
                    ],
                    "responses": {
                        "200": self._answer({"type": "array", "items": file}, "Files"),
                        **errors,
                    },
                }
            },
            "/api/upload/files/{id}": {
                "parameters": [file_id],
                "get": {
                    "summary": "One file",
                    "operationId": "getFile",
                    "tags": ["Upload"],
                    "responses": {
                        "200": self._answer(file, "The file"),
                        "404": ERROR_REF,
                        **errors,
                    },
                },
                "delete": {
                    "summary": "Delete a file",
                    "operationId": "deleteFile",
                    "tags": ["Upload"],
                    "responses": {"200": self._answer(file, "Deleted"), "404": ERROR_REF, **errors},
                },
            },
            "/api/auth/local": post(
                "signIn",
                "Sign in with an email or username and a password",
                body({"identifier": string, "password": string}, ["identifier", "password"]),
                auth,
            ),
            "/api/auth/local/register": post(
                "register",
                "Sign up",
                body(
                    {
                        "username": string,
                        "email": {"type": "string", "format": "email"},
                        "password": string,
                    },
                    ["username", "email", "password"],
                ),
                auth,
            ),
            "/api/auth/forgot-password": post(
                "forgotPassword", "Mail a reset code", body({"email": string}, ["email"]), ok
            ),
            "/api/auth/reset-password": post(
                "resetPassword",
                "Set a new password with a reset code",
                body(
                    {"code": string, "password": string, "passwordConfirmation": string},
                    ["code", "password", "passwordConfirmation"],
                ),
                auth,
            ),
            "/api/auth/change-password": post(
                "changePassword",
                "Change the signed-in user's password",
                body(
                    {"currentPassword": string, "password": string, "passwordConfirmation": string},
                    ["currentPassword", "password", "passwordConfirmation"],
                ),
                auth,
            ),
            "/api/auth/send-email-confirmation": post(
                "sendEmailConfirmation",
                "Mail the confirmation link again",
                body({"email": string}, ["email"]),
                {"type": "object"},
            ),
            "/api/auth/email-confirmation": {
                "get": {
                    "summary": "Confirm an email address with the code mailed to it",
                    "operationId": "emailConfirmation",
                    "tags": ["Users & permissions"],
                    "parameters": [
                        {"name": "confirmation", "in": "query", "required": True, "schema": string}
                    ],
                    "responses": {
                        "302": {"description": "To the app's confirmation redirection"},
                        **limited,
                        **errors,
                    },
                }
            },
            "/api/users/me": {
                "get": {
                    "summary": "The signed-in user",
                    "operationId": "me",
                    "tags": ["Users & permissions"],
                    "responses": {"200": self._answer(user, "The user"), **errors},
                }
            },
            "/api/users/count": {
                "get": {
                    "summary": "How many users",
                    "operationId": "countUsers",
                    "tags": ["Users & permissions"],
                    "responses": {"200": self._answer({"type": "integer"}, "Count"), **errors},
                }
            },
            "/api/i18n/locales": {
                "get": {
                    "summary": "The configured locales",
                    "operationId": "listLocales",
                    "tags": ["Internationalization"],
                    "responses": {
                        "200": self._answer(
                            {"type": "array", "items": {"type": "object"}}, "Locales"
                        ),
                        **errors,
                    },
                }
            },
        }

    # ------------------------------------------------------------------ document
    def build(self) -> dict[str, Any]:
        paths: dict[str, Any] = {}
        for ct in self.registry.content_types.values():
            if ct.uid.startswith("api::"):
                paths.update(self._content_paths(ct))
        paths.update(self._plugin_paths())
        if self.realtime:
            paths.update(event_stream_paths(self.registry, schema_name))
            self.schemas.update(stream_schemas())
        self.schemas["Pagination"] = {
            "type": "object",
            "properties": {
                k: {"type": "integer"}
                for k in ("page", "pageSize", "pageCount", "total", "start", "limit")
            },
        }
        self.schemas["Error"] = {
            "type": "object",
            "properties": {
                "data": {"type": "null"},
                "error": {
                    "type": "object",
                    "properties": {
                        "status": {"type": "integer"},
                        "name": {"type": "string"},
                        "message": {"type": "string"},
                        "details": {"type": "object"},
                    },
                    "required": ["status", "name", "message", "details"],
                },
            },
            "required": ["data", "error"],
        }
        deep = {"style": "deepObject", "explode": True}
        document = {
            "openapi": "3.1.0",
            "info": {
                "title": "Folio content API",
                "version": __version__,
                "description": "REST routes generated from the app's models, in the syntax of "
                "the Strapi 5 content API."
                + (f" GraphQL is served at {self.graphql_path}." if self.graphql_path else ""),
            },
            "security": BEARER,
            "paths": paths,
            "components": {
                "securitySchemes": {
                    "bearerAuth": {
                        "type": "http",
                        "scheme": "bearer",
                        "description": "An API token, or the JWT of a users-permissions user",
                    }
                },
                "schemas": self.schemas,
                "responses": {
                    "Error": {
                        "description": "The error envelope",
                        "content": {JSON: {"schema": _ref("Error")}},
                    }
                },
                "parameters": {
                    "populate": {
                        "name": "populate",
                        "in": "query",
                        "description": "relations, media and components to answer: * for all "
                        "of them one level deep, or written as populate[0]=category, "
                        "populate[category][fields][0]=name",
                        "schema": {"type": "string"},
                        "example": "*",
                    },
                    "filters": {
                        **examples.read_parameters(self.registry.content_types[FILE_UID], True)[1],
                    },
                    "sort": {
                        **examples.read_parameters(self.registry.content_types[FILE_UID], True)[2],
                    },
                    "pagination": {
                        "name": "pagination",
                        "in": "query",
                        "description": "pagination[page] and pagination[pageSize], or "
                        "pagination[start] and pagination[limit]",
                        **deep,
                        "example": {"page": 1, "pageSize": 10},
                        "schema": {
                            "type": "object",
                            "properties": {
                                "page": {"type": "integer", "minimum": 1},
                                "pageSize": {"type": "integer", "minimum": 1},
                                "start": {"type": "integer", "minimum": 0},
                                "limit": {"type": "integer"},
                                "withCount": {"type": "boolean"},
                            },
                        },
                    },
                    "locale": {
                        "name": "locale",
                        "in": "query",
                        "schema": {"type": "string", "enum": [*self.locales, "*"]},
                    },
                    "status": {
                        "name": "status",
                        "in": "query",
                        "schema": {"type": "string", "enum": ["draft", "published"]},
                    },
                },
            },
        }
        # the admin panel's API (its own security scheme: the admin session)
        add_admin_api(document, self.registry, self.locales)
        return document
