-- Drafts (SPEC B3). A version's `visibility` column already records whether the dataset was
-- public when that version was written; such versions are readable by anyone whenever the
-- dataset is public. A version written while private is a draft, readable by its team only,
-- until a publishing write sends `"history": "public"`: that write sets `history_public` on
-- every earlier version in the same D1 batch that commits it. Nothing ever clears it.
ALTER TABLE versions ADD COLUMN history_public INTEGER NOT NULL DEFAULT 0;
