"""The hostile-request suite: real `folio serve` processes on SQLite and PostgreSQL, fed
requests built to exhaust CPU, memory, descriptors or the database's limits, each case
judged on the server's status codes, CPU seconds and resident memory (`scripts/hostile`).
Not a pytest suite: its files are not named `test_*`, so pytest does not collect them."""
