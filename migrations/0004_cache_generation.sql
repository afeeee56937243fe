-- A counter that changes on every write to any dataset, so cached public lists can be keyed
-- by it: a write makes every older cached list unreachable (SPEC B6). Triggers keep it exact
-- without any write path having to remember it.
CREATE TABLE catalog_state (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  generation INTEGER NOT NULL
);
INSERT INTO catalog_state (id, generation) VALUES (1, 0);

CREATE TRIGGER catalog_generation_on_version AFTER INSERT ON versions
BEGIN
  UPDATE catalog_state SET generation = generation + 1 WHERE id = 1;
END;

CREATE TRIGGER catalog_generation_on_delete AFTER DELETE ON datasets
BEGIN
  UPDATE catalog_state SET generation = generation + 1 WHERE id = 1;
END;
