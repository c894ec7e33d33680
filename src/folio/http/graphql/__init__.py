"""The GraphQL front-end: a schema generated from the models over the document service."""
