-- Every version has a Table Schema (SPEC C2), stored once per distinct schema and referenced by
-- `sha256-<hex of the JSON>`, as headers are (0012). `declared_schema_id` names the publisher's
-- own declaration, which a later replacement of the content keeps. Versions written before this
-- migration have no stored schema: readers describe their columns as text.
CREATE TABLE table_schemas (
  id TEXT PRIMARY KEY,
  schema TEXT NOT NULL
);

ALTER TABLE versions ADD COLUMN schema_id TEXT REFERENCES table_schemas(id);
ALTER TABLE versions ADD COLUMN declared_schema_id TEXT REFERENCES table_schemas(id);

DROP VIEW version_records;
CREATE VIEW version_records AS
SELECT v.*, h.columns AS columns, p.properties AS properties, s.schema AS table_schema, d.schema AS declared_schema
FROM versions v
JOIN headers h ON h.id = v.header_id
JOIN property_sets p ON p.id = v.properties_id
LEFT JOIN table_schemas s ON s.id = v.schema_id
LEFT JOIN table_schemas d ON d.id = v.declared_schema_id;
