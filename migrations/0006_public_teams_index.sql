-- The catalog's team filter lists the teams that have public datasets (src/storage/catalog-db.ts).
-- Without this index that query reads every dataset row; with it, it walks only the public
-- entries, already in team order, and never touches the table.
CREATE INDEX datasets_visibility_team ON datasets (visibility, team_id);
