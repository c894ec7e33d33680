"""Moving content in and out: the reference's transfer archive (`archive`, its encryption
in `encryption`), the check of its schemas against the app's models (`schemas`), the import
(`importer`, its links in `linking`, its report in `report`) and the export (`exporter`,
`export_schemas`)."""
