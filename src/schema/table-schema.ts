// Frictionless Table Schema v1 as pubset uses it (docs/column-types.md): the field types we infer and accept,
// and the declared options that change how a cell is read. Pure: no Hono, no bindings.
// https://specs.frictionlessdata.io/table-schema/
import { fieldNames } from "./field-names.ts";

/** The types inference chooses among, in its order: the first one every non-missing cell satisfies wins. */
export const INFERRED_TYPES = ["integer", "number", "boolean", "date", "datetime", "string"] as const;
/** Every field type: the inferred ones and `time` (a time of day), which only a publisher declares. */
export const FIELD_TYPES = [...INFERRED_TYPES, "time"] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export interface Field {
  name: string;
  type: FieldType;
  title?: string;
  description?: string;
  /**
   * `"any"` when the values are not all in the type's default lexical form (datetime); on a
   * declared date, datetime or time also a strptime pattern such as `%d/%m/%Y` (strftime.ts).
   */
  format?: string;
  decimalChar?: string;
  groupChar?: string;
  trueValues?: string[];
  falseValues?: string[];
  constraints?: { required?: boolean };
}

export interface TableSchema {
  fields: Field[];
  missingValues: string[];
}

export const DEFAULT_MISSING_VALUES: readonly string[] = [""];
export const DEFAULT_TRUE_VALUES: readonly string[] = ["true", "True", "TRUE"];
export const DEFAULT_FALSE_VALUES: readonly string[] = ["false", "False", "FALSE"];

/** Every column text: the schema of a version written before types were kept. */
export function textSchema(columns: readonly string[]): TableSchema {
  return { fields: fieldNames(columns).map((name) => ({ name, type: "string" })), missingValues: [...DEFAULT_MISSING_VALUES] };
}

/** `schema` with its fields named by fieldNames: a schema stored before names were made unique. */
export function withFieldNames(schema: TableSchema): TableSchema {
  const names = fieldNames(schema.fields.map((field) => field.name));
  if (names.every((name, i) => name === schema.fields[i]!.name)) return schema;
  return { ...schema, fields: schema.fields.map((field, i) => ({ ...field, name: names[i]! })) };
}
