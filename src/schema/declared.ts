// A publisher's declared types (docs/column-types.md `collection.schema`): a partial Table Schema whose
// fields are named by header name (by field name where the header repeats a name or leaves one
// blank: field-names.ts). Declared fields are used as given, the rest inferred; a declared name
// that is not a field is refused before any row is read. Pure.
import { SchemaError } from "./schema-error.ts";
import type { Field } from "./table-schema.ts";

export interface DeclaredSchema {
  fields: Field[];
  missingValues?: string[];
}

/** The declared field of each column (`header`: the field names), or null where the column is inferred. */
export function declaredFieldsByColumn(header: readonly string[], declared: DeclaredSchema): (Field | null)[] {
  const byName = new Map(declared.fields.map((field) => [field.name, field]));
  for (const field of declared.fields) {
    if (!header.includes(field.name)) {
      throw new SchemaError("invalid_schema", `collection.schema declares "${field.name}", which is not a column of the header`, {
        row: 1,
        column: field.name,
      });
    }
  }
  return header.map((name) => byName.get(name) ?? null);
}

/**
 * What a replacement without its own `collection.schema` keeps of the parent's declaration:
 * the fields whose columns it still has (a publisher's types outlive a monthly re-upload).
 */
export function carriedDeclaration(parent: DeclaredSchema | null, header: readonly string[]): DeclaredSchema | null {
  if (parent === null) return null;
  const fields = parent.fields.filter((field) => header.includes(field.name));
  if (fields.length === 0 && parent.missingValues === undefined) return null;
  return parent.missingValues === undefined ? { fields } : { fields, missingValues: parent.missingValues };
}
