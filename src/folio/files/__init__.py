"""Uploaded files: storage providers and image formats."""
