// Seeded random tables for the Parquet differential tests: every field type, the cells at the
// edges of each kind (int64 limits, 38 digits, NaN/INF, dates before 1970, astral text), and
// missing cells. Deterministic: the same seed gives the same table.
import type { Field, FieldType, TableSchema } from "../../../src/schema/table-schema.ts";

export function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4294967296;
  };
}

const TEXT = ["a", "b", "Zürich", "東京", "😀 emoji", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "\uE000 private", "quote \" inside", "line\nbreak", " padded ", "long ".repeat(30)];
const TYPES: FieldType[] = ["integer", "number", "boolean", "date", "datetime", "time", "string"];

function pad(n: number, width = 2): string {
  return String(n).padStart(width, "0");
}

export function cellOf(type: FieldType, rnd: () => number, flavour: number): string {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
  switch (type) {
    case "integer":
      if (flavour === 1 && rnd() < 0.05) return pick(["9223372036854775807", "-9223372036854775808", "9223372036854775808", "-99999999999999999999999999999999999999"]);
      if (flavour === 2 && rnd() < 0.05) return "1" + "0".repeat(40);
      return pick([String(Math.floor((rnd() - 0.5) * 2000)), String(Math.floor((rnd() - 0.5) * 2 ** 60)), "+7", "007", "0", "-0"]);
    case "number":
      return pick([String((rnd() - 0.5) * 1e6), String(Math.floor(rnd() * 100) / 4), "NaN", "INF", "-INF", "1e300", "-0", "0", ".5", "5.", "1E-7"]);
    case "boolean":
      return pick(["true", "false", "TRUE", "False", "tRuE"]);
    case "date":
      return `${pad(1 + Math.floor(rnd() * 9998), 4)}-${pad(1 + Math.floor(rnd() * 12))}-${pad(1 + Math.floor(rnd() * 28))}`;
    case "datetime": {
      const zone = flavour === 0 ? "" : flavour === 1 ? pick(["Z", "+05:30", "-08:00", "z"]) : pick(["", "Z"]);
      const fraction = pick(["", ".5", ".123456", ".1234567891"]);
      return `${pad(1 + Math.floor(rnd() * 9998), 4)}-${pad(1 + Math.floor(rnd() * 12))}-${pad(1 + Math.floor(rnd() * 28))}${pick(["T", " "])}${pad(Math.floor(rnd() * 24))}:${pad(Math.floor(rnd() * 60))}:${pad(Math.floor(rnd() * 60))}${fraction}${zone}`;
    }
    case "time":
      return `${pad(Math.floor(rnd() * 24))}:${pad(Math.floor(rnd() * 60))}:${pad(Math.floor(rnd() * 60))}${pick(["", ".25", ".000001"])}`;
    case "string":
      return flavour === 1 ? `label-${Math.floor(rnd() * 5)}` : pick(TEXT) + (rnd() < 0.5 ? String(Math.floor(rnd() * 1000)) : "");
  }
}

/** A table of `columns` random fields and `rows` rows; about `missingRate` of the cells are missing. */
export function randomTable(seed: number, columns: number, rows: number, missingRate = 0.1): { schema: TableSchema; rows: string[][] } {
  const rnd = random(seed);
  const fields: Field[] = [];
  const flavours: number[] = [];
  for (let c = 0; c < columns; c++) {
    fields.push({ name: `c${c}`, type: TYPES[Math.floor(rnd() * TYPES.length)]! });
    flavours.push(Math.floor(rnd() * 3));
  }
  const allMissing = rnd() < 0.5 ? Math.floor(rnd() * columns) : -1;
  const table: string[][] = [];
  for (let r = 0; r < rows; r++) {
    table.push(fields.map((field, c) => (c === allMissing || rnd() < missingRate ? "" : cellOf(field.type, rnd, flavours[c]!))));
  }
  return { schema: { fields, missingValues: [""] }, rows: table };
}
