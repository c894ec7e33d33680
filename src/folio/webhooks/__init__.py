"""Webhooks: the events of committed writes posted to receivers over HTTP, signed, in
order, retried, recorded, and never lost (see delivery.py).

    model.py     what a webhook is, and the checks of its fields
    settings.py  config/webhooks.json and server.webhooks
    signing.py   the signature header
    http.py      the HTTP/1.1 client that posts
    sender.py    one attempt: its request and its outcome
    service.py   the webhooks (configured and the admin API's), records, tests, redeliveries
    delivery.py  the worker of a serving process"""

from folio.webhooks.model import Webhook
from folio.webhooks.service import WebhookService
from folio.webhooks.signing import sign, verify

__all__ = ["Webhook", "WebhookService", "sign", "verify"]
