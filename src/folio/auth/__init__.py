"""Principals and the authorization check every content request goes through."""
