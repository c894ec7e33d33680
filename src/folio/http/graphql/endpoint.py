"""The GraphQL endpoint: `POST` (JSON `{query, variables, operationName}`) and `GET`
(`?query=&variables=&operationName=`, queries only) at `graphql.config.endpoint`.

Each request is authenticated once (an invalid credential is refused before GraphQL runs,
in the REST error envelope); documents are parsed and validated once per text (bounded
cache), within the document limits (`limits`), with the depth limit and, where it is off,
the introspection ban as validation rules; an operation's estimated cost is checked with
its variables before it runs, and its answer's size as it is written (`cost`).
Errors answer in the reference's shape: request errors (syntax, validation, limits,
variables) with HTTP 400, resolver errors with HTTP 200 beside the data; in production
without graphql-core's "Did you mean" suggestions."""

from __future__ import annotations

import inspect
import logging
import re
import warnings
from asyncio import gather
from collections.abc import Hashable
from time import perf_counter
from typing import TYPE_CHECKING, Any

import orjson
from graphql import (
    DocumentNode,
    ExecutionResult,
    FieldNode,
    GraphQLEnumType,
    GraphQLError,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLScalarType,
    GraphQLSchema,
    OperationDefinitionNode,
    OperationType,
    validate,
)
from graphql.error import GraphQLSyntaxError, located_error
from graphql.execution import ExecutionContext
from graphql.pyutils import Path, Undefined
from starlette.requests import Request
from starlette.responses import Response

from folio.caches import BoundedCache
from folio.config import environment
from folio.errors import (
    FolioError,
    ForbiddenError,
    MethodNotAllowedError,
    NotFoundError,
    PolicyError,
    ServiceUnavailableError,
)
from folio.errors import SyntaxError as SyntaxError_
from folio.http.graphql import extend
from folio.http.graphql.cost import CEILING, Costs, bounded_json
from folio.http.graphql.limits import (
    depth_errors,
    document_errors,
    introspection_errors,
    parsed,
    variables_error,
    without_suggestions,
)
from folio.http.graphql.resolvers import Context, Resolvers
from folio.http.graphql.sandbox import Sandbox
from folio.http.graphql.schema import GraphQLSettings, SchemaBuilder
from folio.http.responses import with_retry_after
from folio.http.rest.content import read_json

if TYPE_CHECKING:
    from folio.app import Folio

log = logging.getLogger("folio")

JSON_TYPE = "application/json; charset=utf-8"
# parsed documents kept at most (besides the entry count of `cacheSize`)
DOCUMENT_CACHE_BYTES = 64 * 1024 * 1024


def _json(body: Any, status: int = 200) -> Response:
    return Response(orjson.dumps(body), status, media_type=JSON_TYPE)


class Prepared:
    """A parsed and validated document (with its operations' cost structure), or the
    errors that refuse it."""

    __slots__ = ("costs", "document", "errors", "operations")

    def __init__(
        self,
        document: DocumentNode | None,
        errors: list[dict[str, Any]] | None,
        costs: Costs | None = None,
    ) -> None:
        self.document = document
        self.errors = errors
        self.costs = costs
        self.operations: dict[str | None, OperationDefinitionNode] = {}
        if document is not None:
            for node in document.definitions:
                if isinstance(node, OperationDefinitionNode):
                    self.operations[node.name.value if node.name else None] = node


_QUOTED = re.compile(r"'((?:[^'\\]|\\.)*)'")


def quoted(message: str) -> str:
    """graphql-core's messages as the reference's library words them: names in double
    quotes, null for None."""
    message = _QUOTED.sub(lambda m: '"' + m.group(1) + '"', message)
    return message.replace("value None", "value null").replace("to be None.", "to be null.")


def _located(
    error: GraphQLError,
    code: str,
    extra: dict[str, Any] | None = None,
    quote: bool = False,
    hide: bool = False,
) -> dict[str, Any]:
    """A request error; `hide`: without suggestions of the schema's names."""
    message = quoted(error.message) if quote else error.message
    out: dict[str, Any] = {"message": without_suggestions(message) if hide else message}
    if error.locations:
        out["locations"] = [{"line": loc.line, "column": loc.column} for loc in error.locations]
    out["extensions"] = {"code": code, **(extra or {})}
    return out


# ---------------------------------------------------------------------- execution
class _Leaf:
    """A field read straight out of a loaded document: a scalar (`serialize`) or an
    object (`object_type`: a to-one relation, media or component)."""

    __slots__ = ("nullable", "object_type", "return_type", "serialize")

    def __init__(
        self,
        return_type: Any,
        nullable: bool,
        serialize: Any = None,
        object_type: GraphQLObjectType | None = None,
    ) -> None:
        self.return_type = return_type
        self.nullable = nullable
        self.serialize = serialize
        self.object_type = object_type


def _leaves(kind: GraphQLObjectType) -> dict[str, _Leaf]:
    """The fields of an object type read straight out of a loaded document (no arguments,
    no resolver of their own), worked out once and kept on the type."""
    found: dict[str, _Leaf] | None = kind.extensions.get("folio_leaves")
    if found is None:
        leaves: dict[str, _Leaf] = {}
        for name, field in kind.fields.items():
            # a field with a resolver qualifies when the resolver reads a loaded document's
            # key (`dict_key`) and only loads when the document does not hold it
            key = getattr(field.resolve, "dict_key", None)
            if (field.resolve is not None and key != name) or field.args:
                continue
            inner = field.type
            nullable = not isinstance(inner, GraphQLNonNull)
            if not nullable:
                inner = inner.of_type
            if isinstance(inner, GraphQLScalarType | GraphQLEnumType):
                leaves[name] = _Leaf(field.type, nullable, serialize=inner.serialize)
            elif isinstance(inner, GraphQLObjectType) and inner.is_type_of is None:
                leaves[name] = _Leaf(field.type, nullable, object_type=inner)
        found = kind.extensions["folio_leaves"] = leaves
    return found


class Execution(ExecutionContext):
    """graphql-core's execution, with the scalar fields of loaded documents completed
    directly (they are most of a response): a value the field's type cannot carry, or a
    null in a non-null field, takes the usual path and its error."""

    def execute_fields(
        self,
        parent_type: GraphQLObjectType,
        source_value: Any,
        path: Any,
        fields: dict[str, list[FieldNode]],
    ) -> Any:
        # (the root value is no document: its fields all take the usual path)
        leaves = _leaves(parent_type) if isinstance(source_value, dict) else {}
        results: dict[str, Any] = {}
        pending: list[str] = []
        try:
            self._fields(parent_type, source_value, path, fields, leaves, results, pending)
        except Exception:
            # a non-null field failed: the fields already started will not be awaited
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # dropped on purpose
                for name in pending:
                    started = results[name]
                    if inspect.iscoroutine(started):
                        started.close()
            raise
        if not pending:
            return results

        async def gathered() -> dict[str, Any]:
            done = await gather(*(results[name] for name in pending))
            results.update(zip(pending, done, strict=True))
            return results

        return gathered()

    def _fields(
        self,
        parent_type: GraphQLObjectType,
        source_value: Any,
        path: Any,
        fields: dict[str, list[FieldNode]],
        leaves: dict[str, _Leaf],
        results: dict[str, Any],
        pending: list[str],
    ) -> None:
        is_awaitable = self.is_awaitable
        for response_name, field_nodes in fields.items():
            leaf = leaves.get(field_nodes[0].name.value)
            if leaf is not None and (
                leaf.object_type is None or field_nodes[0].name.value in source_value
            ):
                value = source_value.get(field_nodes[0].name.value)
                if value is None:
                    if leaf.nullable:
                        results[response_name] = None
                        continue
                elif leaf.object_type is not None:
                    if isinstance(value, dict):
                        field_path = Path(path, response_name, parent_type.name)
                        result = self._object(leaf, field_nodes, field_path, value)
                        results[response_name] = result
                        if is_awaitable(result):
                            pending.append(response_name)
                        continue
                else:
                    try:
                        out = leaf.serialize(value)
                    except Exception:
                        out = None
                    if out is not None and out is not Undefined:
                        results[response_name] = out
                        continue
            result = self.execute_field(
                parent_type, source_value, field_nodes, Path(path, response_name, parent_type.name)
            )
            if result is not Undefined:
                results[response_name] = result
                if is_awaitable(result):
                    pending.append(response_name)

    def _object(
        self, leaf: _Leaf, field_nodes: list[FieldNode], path: Path, value: dict[str, Any]
    ) -> Any:
        """A loaded object's fields, with the error handling of a resolved field."""
        assert leaf.object_type is not None
        try:
            sub = self.collect_subfields(leaf.object_type, field_nodes)
            completed = self.execute_fields(leaf.object_type, value, path, sub)
        except Exception as raw:
            self.handle_field_error(
                located_error(raw, field_nodes, path.as_list()), leaf.return_type
            )
            return None
        if not self.is_awaitable(completed):
            return completed

        async def awaited() -> Any:
            try:
                return await completed
            except Exception as raw:
                self.handle_field_error(
                    located_error(raw, field_nodes, path.as_list()), leaf.return_type
                )
                return None

        return awaited()


async def _run(execution: ExecutionContext) -> ExecutionResult:
    """The operation run (graphql-core's `execute` after its context is built)."""
    errors = execution.errors
    try:
        data: Any = execution.execute_operation(execution.operation, None)
        if execution.is_awaitable(data):
            data = await data
    except GraphQLError as error:
        errors.append(error)
        return execution.build_response(None, errors)
    return execution.build_response(data, errors)


# ---------------------------------------------------------------------- errors
CODES = {
    "ValidationError": "BAD_USER_INPUT",
    "ForbiddenError": "FORBIDDEN",
    "PolicyError": "FORBIDDEN",
    "UnauthorizedError": "UNAUTHENTICATED",
}


def error_code(exc: FolioError) -> str:
    """The reference's codes, without its vendor prefix for its own error kinds
    (`PaginationError` -> PAGINATION_ERROR)."""
    found = CODES.get(exc.name)
    if found is not None:
        return found
    return re.sub(r"(?<!^)(?=[A-Z])", "_", exc.name).upper()


def field_error(error: GraphQLError) -> dict[str, Any]:
    """A resolver's error, as the reference reports it beside the data."""
    original = error.original_error
    out: dict[str, Any] = {"message": error.message}
    if error.path is not None:
        out["path"] = list(error.path)
    if isinstance(original, FolioError):
        if isinstance(original, ForbiddenError | PolicyError):
            message = original.message if original.message != "Forbidden" else "Forbidden access"
        else:
            message = original.message
        out["message"] = message
        out["extensions"] = {
            "code": error_code(original),
            "error": {"name": original.name, "message": message, "details": original.details},
        }
        return out
    if original is not None:
        log.error("unhandled error in a GraphQL resolver", exc_info=original)
        out["message"] = "Internal Server Error"
        out["extensions"] = {"code": "INTERNAL_SERVER_ERROR"}
        return out
    if error.locations:
        out["locations"] = [{"line": loc.line, "column": loc.column} for loc in error.locations]
    out["extensions"] = {"code": "INTERNAL_SERVER_ERROR"}
    return out


class GraphQLEndpoint:
    def __init__(self, folio: Folio, settings: GraphQLSettings | None = None) -> None:
        self.folio = folio
        self.settings = settings or GraphQLSettings.read(
            folio.settings.raw.get("plugins", {}), environment() == "production"
        )
        self.resolvers = Resolvers(folio, self.settings)
        self.builder = SchemaBuilder(
            folio.registry,
            self.resolvers,
            self.settings,
            folio.settings.locale_codes,
            folio.graphql.extension,
        )
        found = extend.gather(folio)
        schema = extend.extended(self.builder.build(), found)
        # None: nothing to serve (`shadowCRUD: false` and no extension)
        self.schema: GraphQLSchema | None = schema
        if schema is not None:
            extend.secured(schema, found.config, folio)
        self.resolvers.bind(self.builder.owners)
        self._documents: BoundedCache[Prepared] = BoundedCache(
            self.settings.cache_size, DOCUMENT_CACHE_BYTES
        )
        self.sandbox = Sandbox(self.path) if self.settings.sandbox else None

    @property
    def path(self) -> str:
        return self.settings.endpoint

    # ------------------------------------------------------------------ documents
    def prepare(self, text: str) -> Prepared:
        """Parsed and validated once per text (least recently used dropped first)."""
        found = self._documents.get(text)
        if found is not None:
            return found
        found = self._prepare(text)
        if self.settings.cache_size:
            # a parsed and validated document takes tens of times its text
            self._documents.put(text, found, 200 + 40 * len(text))
        return found

    def _prepare(self, text: str) -> Prepared:
        code = "GRAPHQL_VALIDATION_FAILED"
        hide = self.settings.production
        document = parsed(text, self.settings)
        if isinstance(document, GraphQLSyntaxError):
            return Prepared(None, [_located(document, "GRAPHQL_PARSE_FAILED", hide=hide)])
        if isinstance(document, GraphQLError):
            return Prepared(None, [_located(document, code)])
        # bounded before graphql-core's rules, which compare selections pairwise
        errors = document_errors(document, self.settings)
        if errors:
            return Prepared(None, [_located(e, code) for e in errors])
        assert self.schema is not None
        errors = validate(self.schema, document)
        if errors:
            return Prepared(None, [_located(e, code, quote=True, hide=hide) for e in errors])
        errors = depth_errors(document, self.settings.depth_limit)
        if errors:
            return Prepared(None, [_located(e, code) for e in errors])
        if not self.settings.introspection:
            errors = introspection_errors(document)
            if errors:
                extra = {"validationErrorCode": "INTROSPECTION_DISABLED"}
                return Prepared(None, [_located(e, code, extra) for e in errors])
        return Prepared(document, None, Costs(self.schema, document, self.resolvers.list_limits))

    # ------------------------------------------------------------------ HTTP
    async def asset(self, request: Request) -> Response:
        """The sandbox's files."""
        if self.sandbox is None:
            raise NotFoundError()
        return self.sandbox.asset(request)

    async def handle(self, request: Request) -> Response:
        started = perf_counter()
        if self.sandbox is not None and Sandbox.wanted(request):
            return self.sandbox.page_response()
        if request.method == "POST":
            try:
                body = await read_json(request, self.folio.settings.max_body_bytes)
            except SyntaxError_ as exc:
                # a GraphQL client reads `errors`, whatever went wrong
                return self._bad_request(exc.message)
            if isinstance(body, list):
                return self._bad_request("Operation batching disabled.")
            if not isinstance(body, dict) or not body:
                return self._bad_request(
                    "POST body missing, invalid Content-Type, or JSON object has no keys."
                )
            query = body.get("query")
            variables = body.get("variables")
            operation = body.get("operationName")
        elif request.method in ("GET", "HEAD"):
            params = request.query_params
            query = params.get("query")
            operation = params.get("operationName")
            raw = params.get("variables")
            try:
                variables = orjson.loads(raw) if raw else None
            except orjson.JSONDecodeError:
                return self._bad_request("Variables are invalid JSON.")
        else:
            raise MethodNotAllowedError()
        if query is not None and not isinstance(query, str):
            return self._bad_request("GraphQL queries must be strings.")
        if not isinstance(query, str) or not query.strip():
            return self._bad_request(
                "GraphQL operations must contain a non-empty `query` or a `persistedQuery` "
                "extension."
            )
        if variables is not None and not isinstance(variables, dict):
            return self._bad_request(
                "`variables` in a POST body should be provided as an object"
                + (
                    ", not a recursively JSON-encoded string."
                    if isinstance(variables, str)
                    else "."
                )
            )
        if operation is not None and not isinstance(operation, str):
            return self._bad_request("`operationName` in a POST body must be a string if provided.")
        if variables:
            problem = variables_error(variables, self.settings.max_nesting)
            if problem is not None:
                return self._bad_request(problem, "BAD_USER_INPUT")
        # an invalid credential is refused before the operation runs (REST envelope)
        principal = await self.folio.access.principal(request.scope)
        prepared = self.prepare(query)
        prepared_at = perf_counter()
        if prepared.errors is not None:
            return _json({"errors": prepared.errors}, 400)
        operation_node = self._operation(prepared, operation)
        if isinstance(operation_node, Response):
            return operation_node
        if request.method != "POST" and operation_node.operation != OperationType.QUERY:
            return _json(
                {
                    "errors": [
                        {
                            "message": "GET requests only support query operations, not "
                            f"{operation_node.operation.value} operations",
                            "extensions": {"code": "BAD_REQUEST"},
                        }
                    ]
                },
                405,
            )
        key: tuple[Hashable, ...] = (
            "graphql",
            query,
            operation,
            orjson.dumps(variables, option=orjson.OPT_SORT_KEYS) if variables else b"",
        )
        context = Context(request, principal, self.folio, key)
        assert prepared.document is not None and prepared.costs is not None
        assert self.schema is not None
        execution = Execution.build(
            self.schema,
            prepared.document,
            context_value=context,
            raw_variable_values=variables,
            operation_name=operation,
        )
        if isinstance(execution, list):  # the variables do not fit their types
            return self._result(ExecutionResult(None, execution))
        cost = prepared.costs.of(operation_node, execution.variable_values)
        if cost > self.settings.max_cost:
            shown = str(cost) if cost < CEILING else f"at least {CEILING}"
            return self._bad_request(
                f"The query's estimated cost is {shown} (objects its answer could hold), more "
                f"than the maximum of {self.settings.max_cost} (graphql.config.maxCost)",
                "GRAPHQL_VALIDATION_FAILED",
            )
        result = await _run(execution)
        if not self.settings.tracing:
            return self._result(result)
        done = perf_counter()
        timing = {
            "parseValidateMs": round((prepared_at - started) * 1000, 3),
            "executeMs": round((done - prepared_at) * 1000, 3),
            "totalMs": round((done - started) * 1000, 3),
        }
        return self._result(result, {"timing": timing})

    def _operation(
        self, prepared: Prepared, name: str | None
    ) -> OperationDefinitionNode | Response:
        if name is not None:
            found = prepared.operations.get(name)
            if found is None:
                return self._bad_request(
                    f'Unknown operation named "{name}".', "OPERATION_RESOLUTION_FAILURE"
                )
            return found
        if len(prepared.operations) != 1:
            return self._bad_request(
                "Must provide operation name if query contains multiple operations.",
                "OPERATION_RESOLUTION_FAILURE",
            )
        return next(iter(prepared.operations.values()))

    def _result(
        self, result: ExecutionResult, extensions: dict[str, Any] | None = None
    ) -> Response:
        if result.errors and result.data is None and all(e.path is None for e in result.errors):
            # the variables do not fit their types: a request error
            hide = self.settings.production
            errors = [_located(e, "BAD_USER_INPUT", quote=True, hide=hide) for e in result.errors]
            return _json({"errors": errors}, 400)
        body: dict[str, Any] = {}
        if result.errors:
            body["errors"] = [field_error(e) for e in result.errors]
        body["data"] = result.data
        if extensions:
            body["extensions"] = extensions
        limit = self.settings.max_response_bytes
        encoded = bounded_json(body, limit)
        if encoded is None:
            return self._bad_request(
                f"The answer is larger than the maximum of {limit} bytes "
                "(graphql.config.maxResponseBytes)",
                "RESPONSE_TOO_LARGE",
            )
        outage = next(
            (
                e.original_error
                for e in result.errors or ()
                if isinstance(e.original_error, ServiceUnavailableError)
            ),
            None,
        )
        if outage is None:
            return Response(encoded, 200, media_type=JSON_TYPE)
        # the database is away: said with the status (and when to come back) that clients
        # and proxies act on, the errors in the body as ever
        return with_retry_after(Response(encoded, outage.status, media_type=JSON_TYPE), outage)

    @staticmethod
    def _bad_request(message: str, code: str = "BAD_REQUEST") -> Response:
        return _json({"errors": [{"message": message, "extensions": {"code": code}}]}, 400)
