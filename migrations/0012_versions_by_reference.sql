-- Versions store their header (columns) and properties by reference, once per distinct value
-- (SPEC B7): a dataset appended to every minute no longer copies a header of up to 1 MiB into
-- every version row. New rows are keyed `sha256-<hex of the JSON>`; rows carried over from
-- before take the id of the first version that had them. Readers use the `version_records` view.
CREATE TABLE headers (
  id TEXT PRIMARY KEY,
  columns TEXT NOT NULL
);

CREATE TABLE property_sets (
  id TEXT PRIMARY KEY,
  properties TEXT NOT NULL
);

INSERT INTO headers (id, columns) SELECT 'v1-' || MIN(id), columns FROM versions GROUP BY columns;
INSERT INTO property_sets (id, properties) SELECT 'v1-' || MIN(id), properties FROM versions GROUP BY properties;

ALTER TABLE versions ADD COLUMN header_id TEXT REFERENCES headers(id);
ALTER TABLE versions ADD COLUMN properties_id TEXT REFERENCES property_sets(id);

UPDATE versions SET
  header_id = (SELECT h.id FROM headers h WHERE h.columns = versions.columns),
  properties_id = (SELECT p.id FROM property_sets p WHERE p.properties = versions.properties);

ALTER TABLE versions DROP COLUMN columns;
ALTER TABLE versions DROP COLUMN properties;

CREATE VIEW version_records AS
SELECT v.*, h.columns AS columns, p.properties AS properties
FROM versions v
JOIN headers h ON h.id = v.header_id
JOIN property_sets p ON p.id = v.properties_id;
