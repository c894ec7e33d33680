"""The users-and-permissions records kept as documents: users (sign-up, sign-in, account
routes) and API tokens. Their own statements are in `content.sql.accounts`."""
