"""The domain error hierarchy. The HTTP edge maps each error to the response envelope
`{data: null, error: {status, name, message, details}}`."""

from __future__ import annotations

from typing import Any


class FolioError(Exception):
    """An error a client can see: it carries its HTTP status, name, message and details."""

    status = 500
    name = "ApplicationError"

    def __init__(self, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details: dict[str, Any] = details if details is not None else {}

    def to_error(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "name": self.name,
            "message": self.message,
            "details": self.details,
        }


class ApplicationError(FolioError):
    status = 400
    name = "ApplicationError"


class ValidationError(FolioError):
    status = 400
    name = "ValidationError"


class SyntaxError(FolioError):
    status = 400
    name = "SyntaxError"


class PaginationError(FolioError):
    status = 400
    name = "PaginationError"


class NotFoundError(FolioError):
    status = 404
    name = "NotFoundError"

    def __init__(self, message: str = "Not Found", details: dict[str, Any] | None = None) -> None:
        super().__init__(message, details)


class MethodNotAllowedError(FolioError):
    status = 405
    name = "MethodNotAllowedError"

    def __init__(
        self, message: str = "Method Not Allowed", details: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message, details)


class ForbiddenError(FolioError):
    status = 403
    name = "ForbiddenError"

    def __init__(self, message: str = "Forbidden", details: dict[str, Any] | None = None) -> None:
        super().__init__(message, details)


class UnauthorizedError(FolioError):
    status = 401
    name = "UnauthorizedError"

    def __init__(
        self, message: str = "Missing or invalid credentials", details: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message, details)


class PolicyError(FolioError):
    """A route policy refused the request."""

    status = 403
    name = "PolicyError"

    def __init__(
        self, message: str = "Policy Failed", details: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message, details)


class RateLimitError(FolioError):
    status = 429
    name = "RateLimitError"

    def __init__(
        self,
        message: str = "Too many requests, please try again later.",
        details: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message, details)


class PayloadTooLargeError(FolioError):
    status = 413
    name = "PayloadTooLargeError"


class ServiceUnavailableError(FolioError):
    status = 503
    name = "ServiceUnavailableError"
    # seconds to wait before trying again (the answer's `Retry-After`), when known
    retry_after: int | None = None


class InternalError(FolioError):
    status = 500
    name = "InternalServerError"

    def __init__(
        self, message: str = "Internal Server Error", details: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message, details)


class _Absent:
    """The value of a field problem about a value that was not given at all."""

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()


class FieldError:
    """One problem with one input path, as listed in `details.errors`. As the reference's,
    an entry about a value that was never given (`name must be defined.`, `identifier is a
    required field`) has no `value`: an entry made without one shows none. List indexes in
    its path are strings (`["links", "0", "url"]`)."""

    __slots__ = ("message", "path", "value")

    def __init__(self, path: list[str | int], message: str, value: Any = ABSENT) -> None:
        self.path = path
        self.message = message
        self.value = value

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "path": [str(p) for p in self.path],
            "message": self.message,
            "name": "ValidationError",
        }
        if self.value is not ABSENT:
            out["value"] = self.value
        return out


def validation_failed(errors: list[FieldError]) -> ValidationError:
    """Builds the error for a list of field problems; the message follows the reference
    (the single problem's message, or a count when there are several)."""
    message = errors[0].message if len(errors) == 1 else f"{len(errors)} errors occurred"
    return ValidationError(message, {"errors": [e.to_dict() for e in errors]})


class ConfigError(Exception):
    """A problem in the app's models or configuration that stops start-up."""


class SchemaSyncError(ConfigError):
    """A database schema change that would lose data."""


def invalid_key(key: str, path: str | None, param: str, source: str = "query") -> ValidationError:
    """A query names a field, operator or option that does not exist or may not be used
    there. `path`: the dotted path of the field it sits under."""
    message = f"Invalid key {key}" + (f" at {path}" if path and path != key else "")
    return ValidationError(message, {"key": key, "path": path, "source": source, "param": param})


# Written keys that are attributes of every document but not writable: the reference names
# them as their own path. `id` and `documentId` get no path, other unknown keys a null one.
SYSTEM_KEYS = frozenset(
    {"createdAt", "updatedAt", "publishedAt", "createdBy", "updatedBy", "localizations", "locale"}
)


def invalid_body_key(key: str, path: str | None) -> ValidationError:
    """A written `data` holds a key its model does not have (`path`: the dotted attribute
    path of the component or relation it sits in, None at the top), worded and detailed
    as the reference does: `Invalid key nope at seo`."""
    details: dict[str, Any] = {"key": key}
    if path is not None:
        details["path"] = path
    elif key in SYSTEM_KEYS:
        details["path"] = key
    elif key not in ("id", "documentId"):
        details["path"] = None
    details["source"] = "body"
    message = f"Invalid key {key}" + (f" at {path}" if path is not None else "")
    return ValidationError(message, details)


def invalid_value(
    param: str, path: list[str], value: Any, reason: str, source: str = "query"
) -> ValidationError:
    """A query's value does not fit where it is given (`path`: the keys inside `param`)."""
    name = param + "".join(f"[{p}]" for p in path)
    shown = f'"{value}"' if isinstance(value, str) else repr(value)
    return ValidationError(
        f"Invalid value {shown} for {name}: {reason}",
        {
            "key": path[-1] if path else "",
            "path": ".".join(path),
            "source": source,
            "param": param,
            "value": value,
        },
    )
