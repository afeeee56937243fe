// The CSV module's public surface: the streaming upload validator and the record decoder.

export { CsvScanner } from "./scanner.ts";
export { MAX_BLANK_RUN_BYTES, MAX_BLANK_RUN_SWITCHES } from "./blank-run.ts";
export type { CsvLimits, CsvMode, CsvStats } from "./types.ts";
export { CsvError, type CsvErrorCode, type CsvErrorJson, type CsvLimitName } from "./csv-error.ts";
export { isHeaderRow } from "./header-match.ts";
export { CsvRecordDecoder, parseCsvRecords } from "./records.ts";
