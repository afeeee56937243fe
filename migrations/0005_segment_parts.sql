-- The independently decodable parts of a segment object (README "Storage layout"): where each
-- starts in the object and how many data rows it holds, so the rows endpoint reads one part
-- with a range read. A segment without part rows is one part covering the whole object.
CREATE TABLE segment_parts (
  segment_key TEXT NOT NULL REFERENCES segments(key),
  part INTEGER NOT NULL,
  compressed_offset INTEGER NOT NULL,
  compressed_bytes INTEGER NOT NULL,
  raw_bytes INTEGER NOT NULL,
  row_count INTEGER NOT NULL,
  PRIMARY KEY (segment_key, part)
);
