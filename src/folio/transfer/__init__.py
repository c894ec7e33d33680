"""Moving content in and out: the reference's transfer archive (`archive`), the check of
its schemas against the app's models (`schemas`), the import (`importer`) and the export
(`exporter`)."""
