// What every cell of a Parquet file written by src/columnar/parquet must read back as, computed
// from castCell independently of the encoder, and the two readers (DuckDB, hyparquet) normalised
// to one text form per cell so a test compares them with the expectation directly.
import { writeFileSync } from "node:fs";
import { type DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";
import { parquetMetadata, parquetReadObjects } from "hyparquet";
import type { ColumnKind } from "../../../src/columnar/parquet/index.ts";
import { castCell } from "../../../src/schema/cast.ts";
import type { Field, TableSchema } from "../../../src/schema/table-schema.ts";

export type Norm = string | null;

function numberText(value: number): string {
  return Object.is(value, -0) ? "-0" : String(value);
}

function days(y: number, m: number, d: number): number {
  const date = new Date(0);
  date.setUTCFullYear(y, m - 1, d);
  return Math.round(date.getTime() / 86_400_000);
}

const DATETIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})?$/i;
const TIME = /^(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?$/;

function micros(fraction: string | undefined): bigint {
  return BigInt((fraction ?? "").padEnd(6, "0").slice(0, 6));
}

/** The text form of castCell's value of `text` in a column written as `kind`. */
export function expectedCell(field: Field, kind: ColumnKind, text: string, missing: ReadonlySet<string>): Norm {
  const cast = castCell({ ...field, constraints: {} }, text, missing);
  if (!cast.ok) return text;
  const value = cast.value;
  if (value === null) return null;
  if (kind === "string") return String(value);
  switch (field.type) {
    case "integer":
      return BigInt(value as number | string).toString();
    case "number":
      return typeof value === "number" ? numberText(value) : value === "NaN" ? "NaN" : value === "INF" ? "Infinity" : value === "-INF" ? "-Infinity" : numberText(Number(value));
    case "boolean":
      return String(value);
    case "date": {
      const [y, m, d] = String(value).split("-").map(Number) as [number, number, number];
      return String(days(y, m, d));
    }
    case "time": {
      const match = TIME.exec(String(value))!;
      return String((BigInt(match[1]!) * 3600n + BigInt(match[2]!) * 60n + BigInt(match[3]!)) * 1_000_000n + micros(match[4]));
    }
    case "datetime": {
      const match = DATETIME.exec(String(value))!;
      const zone = match[8]?.toUpperCase();
      const offset = zone === undefined || zone === "Z" ? 0 : (zone.startsWith("-") ? -1 : 1) * (Number(zone.slice(1, 3)) * 3600 + Number(zone.slice(4, 6)) * 60);
      const seconds = BigInt(days(Number(match[1]), Number(match[2]), Number(match[3]))) * 86400n + BigInt(Number(match[4]) * 3600 + Number(match[5]) * 60 + Number(match[6]) - offset);
      return String(seconds * 1_000_000n + micros(match[7]));
    }
    case "string":
      return String(value);
  }
}

/** Every row's expected cells. */
export function expectedRows(schema: TableSchema, kinds: readonly ColumnKind[], rows: readonly (readonly string[])[]): Norm[][] {
  const missing = new Set(schema.missingValues);
  return rows.map((row) => schema.fields.map((field, c) => expectedCell(field, kinds[c]!, row[c] ?? "", missing)));
}

function duckCell(value: unknown): Norm {
  if (value === null || value === undefined) return null;
  if (typeof value === "bigint" || typeof value === "boolean") return String(value);
  if (typeof value === "number") return numberText(value);
  if (typeof value === "string") return value;
  const v = value as { micros?: bigint; days?: number; value?: bigint };
  if (v.micros !== undefined) return String(v.micros);
  if (v.days !== undefined) return String(v.days);
  if (v.value !== undefined) return String(v.value);
  throw new Error(`unexpected DuckDB value ${String(value)}`);
}

let connection: Promise<DuckDBConnection> | undefined;

export function duckdb(): Promise<DuckDBConnection> {
  connection ??= DuckDBInstance.create(":memory:").then((db) => db.connect());
  return connection;
}

/** The file's rows as DuckDB reads them. */
export async function readWithDuckDB(path: string): Promise<Norm[][]> {
  const reader = await (await duckdb()).runAndReadAll(`select * from read_parquet('${path}')`);
  return reader.getRows().map((row) => row.map(duckCell));
}

export async function duckRows(sql: string): Promise<unknown[][]> {
  return (await (await duckdb()).runAndReadAll(sql)).getRows();
}

function hyparquetCell(value: unknown, kind: ColumnKind): Norm {
  if (value === null || value === undefined) return null;
  if (kind === "decimal") return String(value);
  if (typeof value === "number") return numberText(value);
  return String(value);
}

export function arrayBufferOf(bytes: Uint8Array): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

/** The file's rows as hyparquet reads them (decimals come back as doubles: compare them with decimalClose). */
export async function readWithHyparquet(bytes: Uint8Array, schema: TableSchema, kinds: readonly ColumnKind[]): Promise<Norm[][]> {
  const rows = await parquetReadObjects({ file: arrayBufferOf(bytes), parsers: { timestampFromMicroseconds: (m: bigint) => m, dateFromDays: (d: number) => d } });
  return rows.map((row) => schema.fields.map((field, c) => hyparquetCell(row[field.name], kinds[c]!)));
}

/** hyparquet's doubles for decimal columns, next to the exact expectation. */
export function decimalsAsDoubles(rows: Norm[][], kinds: readonly ColumnKind[]): Norm[][] {
  return rows.map((row) => row.map((cell, c) => (cell !== null && kinds[c] === "decimal" ? String(Number(BigInt(cell))) : cell)));
}

export function hyparquetMetadata(bytes: Uint8Array) {
  return parquetMetadata(arrayBufferOf(bytes));
}

export function writeTemp(name: string, bytes: Uint8Array): string {
  const path = `/tmp/pubset-parquet-${process.pid}-${name}.parquet`;
  writeFileSync(path, bytes);
  return path;
}
