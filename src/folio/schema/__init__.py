"""Content-type and component models: loading, validation, attribute kinds, registry."""
