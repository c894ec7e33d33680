"""The app container: one app directory's settings, content model, database and services,
wired together (`load_app`), with its start-up (schema sync, roles, the app's `bootstrap`)
and shut-down. The front-ends (the HTTP server in folio.http, the CLI) are built on it; it
imports neither.

The app's `src/index.py` sees this object: `register(app)` runs at the end of wiring (it may
add policies and route settings to `app.hooks` or replace `app.mailer`), `bootstrap(app)`
after start-up."""

from __future__ import annotations

import inspect
import logging
from pathlib import Path

from folio.auth.access import AccessControl
from folio.auth.jwt import JwtCodec
from folio.auth.mail import LogMailer, Mailer
from folio.auth.permissions import RoleTable, catalogue
from folio.auth.ratelimit import Limiters, RateLimiter, load_store_settings
from folio.auth.settings import load_auth_settings
from folio.broadcast import (
    ACCESS,
    WEBHOOKS,
    Broadcaster,
    BroadcastSettings,
    broadcaster_for,
)
from folio.config import Settings, load_settings
from folio.content.accounts.admins import AdminService
from folio.content.accounts.tokens import TokenService
from folio.content.accounts.users import UserService
from folio.content.documents import DocumentService
from folio.content.files import FileService
from folio.content.signing import UrlSigner
from folio.content.sql.layout import build_layout
from folio.content.sql.sharing import sync_sharing
from folio.errors import ConfigError
from folio.extensions import GraphQLPlugin
from folio.feed import Feed, FeedSettings, feed_for
from folio.files.providers import Provider, provider_for
from folio.hooks import code_error, load_hooks, load_index, resolve_routes
from folio.redis_client import redis_url
from folio.schema.loader import load_registry
from folio.schema.model import Registry
from folio.startup import file_problem
from folio.store.availability import check_ready
from folio.store.database import Database, connection_problem, open_database
from folio.store.sync import sync_schema
from folio.webhooks import WebhookService

log = logging.getLogger("folio")

# the admin panel's setting that the polling change broadcaster writes and reads
CHANGES_KEY = "folio.changes"


class Folio:
    """One app: its settings, models, database and services."""

    def __init__(self, settings: Settings, registry: Registry, db: Database) -> None:
        self.settings = settings
        self.registry = registry
        self.db = db
        self.documents = DocumentService(registry, db, settings)
        self.files = FileService(self.documents)
        # after-commit subscribers of this process's writes: `app.events.on(name, fn)`
        self.events = self.documents.events
        # the realtime feed (SSE): runs while it has subscribers (config/api: realtime)
        self.feed: Feed = feed_for(
            self.documents, FeedSettings.read(settings), db.listen if db.notifies else None
        )
        self.auth_settings = auth = load_auth_settings(settings)
        self.actions = catalogue(registry)
        self.roles = RoleTable(settings.app_dir, self.actions)
        self.jwt = JwtCodec(auth.jwt_secret, auth.jwt_expires_in)
        self.mailer: Mailer = LogMailer()
        # the rate limiters and where they count (config/server: rateLimit, REDIS_URL); the
        # users' counts sign-in, sign-up and the password routes (config/plugins:
        # users-permissions ratelimit), through REST and GraphQL alike
        self.limiters = Limiters(load_store_settings(settings))
        self.rate_limiter: RateLimiter = self.limiters.limiter("users", auth.ratelimit)
        self.users = UserService(
            self.documents, auth, self.roles, self.jwt, self.mailer, self.rate_limiter
        )
        self.tokens = TokenService(self.documents, auth.token_salt, self.actions)
        self.access = AccessControl(
            self.roles, self.users, self.tokens, self.jwt, auth.cache_seconds
        )
        # where uploaded files go (config/plugins: upload.config.provider)
        self.storage: Provider = provider_for(settings.raw.get("plugins", {}), settings.app_dir)
        # a private bucket's files are shown through pre-signed URLs in every answer: the
        # document service's and the file records' (content/signing.py)
        if self.storage.private:
            signer = UrlSigner(registry, self.storage)
            self.documents.use(signer.middleware)
            self.files.signer = signer
        self.hooks = load_hooks(settings.app_dir, registry)
        # what the app changes in its GraphQL schema (from `register`)
        self.graphql = GraphQLPlugin()
        self.index = load_index(settings.app_dir)
        register = getattr(self.index, "register", None)
        if callable(register):
            try:
                register(self)
            except ConfigError:
                raise
            except Exception as exc:  # the app's code: one line naming where, not a trace
                index = settings.app_dir / "src" / "index.py"
                raise code_error(exc, index, "src/index.py: register") from None
        self.users.mailer = self.mailer
        # the admin panel's administrators, their sessions and the panel's settings
        self.admins = AdminService(self.documents, settings, self.mailer)
        # config/webhooks.json and the admin API's webhooks; a serving process delivers
        # them (`webhooks.start_worker`, in the HTTP server's lifespan)
        self.webhooks = WebhookService(self.documents, settings)
        # changes of configuration held in the database, told to every process and host
        # (config/server: broadcast; folio.broadcast), and the caches they drop
        self.broadcast = self._broadcaster()
        self.broadcast.on(ACCESS, self.access.forget)
        self.broadcast.on(WEBHOOKS, self.webhooks.reload)
        self.tokens.on_change.append(lambda: self.broadcast.publish(ACCESS))
        self.users.on_change.append(lambda: self.broadcast.publish(ACCESS))
        self.webhooks.on_change.append(lambda: self.broadcast.publish(WEBHOOKS))
        # resolved after `register`, which may add to the hooks; an unknown name stops the
        # app from loading rather than failing its first request
        self.routes = resolve_routes(self.hooks, self.actions, self)

    def _broadcaster(self) -> Broadcaster:
        server = self.settings.raw.get("server", {})
        # the polling carrier's row: a panel setting, which every database has
        row = (
            lambda: self.admins.get_setting(CHANGES_KEY),
            lambda token: self.admins.put_setting(CHANGES_KEY, token),
        )
        url, _ = redis_url(self.settings)
        return broadcaster_for(BroadcastSettings.read(server), self.db, row, url)

    def plugin(self, name: str) -> GraphQLPlugin:
        """A plugin's services, where the reference's app code looks them up
        (`app.plugin("graphql").service("extension")`)."""
        if name == "graphql":
            return self.graphql
        raise ConfigError(f"there is no plugin {name!r}")

    async def start(self, bootstrap: bool = True) -> None:
        try:
            await self.db.start()
        except Exception as exc:
            # a database that cannot be used stops start-up with one line, not a trace
            problem = connection_problem(
                exc, self.settings.database_url, self.settings.database_from
            )
            if problem is None:
                raise
            raise problem from exc
        dialect = self.db.dialect
        changes = await self.db.write(sync_schema(dialect, build_layout(self.registry, dialect)))
        changes += await self.db.write(
            sync_sharing(self.registry, self.db.dialect, self.settings.default_locale)
        )
        for change in changes:
            log.info("schema: %s", change)
        await self.users.sync_roles()
        hook = getattr(self.index, "bootstrap", None)
        if bootstrap and callable(hook):
            result = hook(self)
            if inspect.isawaitable(result):
                await result

    async def close(self) -> None:
        await self.broadcast.close()
        await self.webhooks.close()
        await self.feed.close()
        await self.storage.close()
        await self.limiters.close()
        await self.db.close()

    async def ready(self) -> None:
        """Raises ServiceUnavailableError unless the database answers (store.availability)."""
        await check_ready(self.db)


def load_app(app_dir: Path | str, database_url: str | None = None) -> Folio:
    """Reads the app directory; raises ConfigError on a bad model or configuration
    (EnvironmentProblem for a file it may not read)."""
    try:
        settings = load_settings(Path(app_dir))
        if database_url:
            settings.database_url = database_url
        registry = load_registry(settings.app_dir)
        db = open_database(settings.database_url, str(settings.app_dir), settings.database_pool)
        return Folio(settings, registry, db)
    except OSError as exc:
        raise file_problem(exc, Path(app_dir).resolve()) from exc
