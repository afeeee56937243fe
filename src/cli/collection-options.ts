// The metadata flags shared by `create` and `update`, turned into a `collection` part (docs/api.md#writes).
import type { ParseArgsOptionsConfig } from "node:util";
import { readFileSync } from "node:fs";
import type { Collection, DeclaredSchema, Properties, Visibility } from "../client/index.ts";
import { flag, stringOption, type OptionValues } from "./args.ts";
import { nearLicenses, spdxLicense } from "../model/licenses.ts";
import { UsageError } from "./cli-error.ts";

export const COLLECTION_OPTIONS = {
  name: { type: "string" },
  public: { type: "boolean" },
  private: { type: "boolean" },
  description: { type: "string" },
  "key-words": { type: "string" },
  contact: { type: "string" },
  license: { type: "string" },
  schema: { type: "string" },
} as const satisfies ParseArgsOptionsConfig;

export const COLLECTION_DETAILS = [
  "--name N            display name",
  "--public|--private  visibility (create defaults to private)",
  "--description D     properties.description",
  "--key-words a,b     properties.key_words (comma-separated)",
  "--contact C         properties.contact_name",
  "--license L         properties.license: an SPDX id (CC-BY-4.0, CC0-1.0, ODbL-1.0, MIT, …) or the licence's URL",
  "--schema FILE       column types: a JSON Table Schema of the columns to declare",
  "                    (e.g. {\"fields\":[{\"name\":\"zip\",\"type\":\"string\"}]}); the rest are inferred",
];

export function visibilityOption(values: OptionValues): Visibility | undefined {
  if (flag(values, "public") && flag(values, "private")) throw new UsageError("--public and --private exclude each other");
  if (flag(values, "public")) return "public";
  if (flag(values, "private")) return "private";
  return undefined;
}

/** The property changes the flags ask for; undefined when none was given. */
export function propertyChanges(values: OptionValues): Properties | undefined {
  const changes: Properties = {};
  const description = stringOption(values, "description");
  const keyWords = stringOption(values, "key-words");
  const contact = stringOption(values, "contact");
  if (description !== undefined) changes.description = description;
  if (keyWords !== undefined) changes.key_words = keyWords.split(",").map((word) => word.trim()).filter((word) => word !== "");
  if (contact !== undefined) changes.contact_name = contact;
  const license = stringOption(values, "license");
  if (license !== undefined) changes.license = licenseOption(license);
  return Object.keys(changes).length > 0 ? changes : undefined;
}

/** `--license`: a listed SPDX id in SPDX's spelling, or an http(s) URL as given. */
export function licenseOption(given: string): string {
  if (/^https?:\/\//i.test(given)) {
    try {
      return new URL(given).href;
    } catch {
      throw new UsageError(`--license ${given}: not a URL`);
    }
  }
  const id = spdxLicense(given);
  if (id !== undefined) return id;
  const near = nearLicenses(given);
  const hint = near.length > 0 ? ` (did you mean ${near.join(" or ")}?)` : "";
  throw new UsageError(`--license ${given}: not an SPDX licence id pubset knows${hint}; give its URL instead (e.g. https://spdx.org/licenses/ID.html) if it is one`);
}

/**
 * `--schema FILE`: the declared types (docs/column-types.md), read as JSON. The file may also be a whole
 * Table Schema as `pubset schema ID --json` prints it. The server checks the fields.
 */
export function declaredSchemaOption(values: OptionValues): DeclaredSchema | undefined {
  const file = stringOption(values, "schema");
  if (file === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error: unknown) {
    throw new UsageError(`--schema ${file}: cannot read the file (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(`--schema ${file}: not JSON; expected a Table Schema such as {"fields":[{"name":"zip","type":"string"}]}`);
  }
  if (typeof value !== "object" || value === null || !Array.isArray((value as { fields?: unknown }).fields)) {
    throw new UsageError(`--schema ${file}: expected a JSON object with a "fields" array`);
  }
  return value as DeclaredSchema;
}

/** name, visibility and schema from the flags (properties are handled by the caller). */
export function basicCollection(values: OptionValues): Collection {
  const collection: Collection = {};
  const name = stringOption(values, "name");
  const visibility = visibilityOption(values);
  const schema = declaredSchemaOption(values);
  if (name !== undefined) collection.name = name;
  if (visibility !== undefined) collection.visibility = visibility;
  if (schema !== undefined) collection.schema = schema;
  return collection;
}
