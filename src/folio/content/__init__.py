"""The document core shared by REST and GraphQL: query specs, SQL planning, validation,
serialization and the document service."""
