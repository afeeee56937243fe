-- The length a resumable upload's client announced (draft-ietf-httpbis-resumable-upload-15
-- §4.1.3: `Upload-Length`, or `Content-Length` with `Upload-Complete: ?1`), in bytes as sent;
-- NULL until one is known. Once known, the offset may not pass it and every later indication
-- must agree with it.
ALTER TABLE uploads ADD COLUMN upload_length INTEGER;
