"""The HTTP edge: the ASGI app, routing, errors, and the REST content API."""
