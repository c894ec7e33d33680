"""The admin front-end: the HTTP API under `/admin/api/` that the admin panel uses (accounts
and sessions, the Content Manager, the media library), the older key-protected routes
(`/admin/api-tokens`, `/admin/webhooks`), and the panel itself (`/admin`), whose built
assets live in `app/` (built from the repository's `admin/` folder)."""
