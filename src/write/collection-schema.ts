// The `collection` multipart part (docs/api.md#writes): a strict object, so typos such as `visiblity`
// are rejected instead of silently ignored. One schema validates, types and documents it.
import { z } from "@hono/zod-openapi";
import { MAX_NAME_LENGTH } from "../config.ts";
import { ApiError } from "../model/errors.ts";
import { MAX_JSON_DEPTH, pathDeeperThan, pathOfUnsafeText } from "../http/json-checks.ts";
import { isPatternFormat, patternProblem } from "../schema/strftime.ts";
import { FIELD_TYPES } from "../schema/table-schema.ts";
import { PropertiesSchema, VisibilitySchema } from "../http/schemas.ts";

export { PropertiesSchema, VisibilitySchema };

const OneCharacterSchema = z.string().length(1);

/**
 * A dataset's display name: shown as a title in lists, pages, feeds and every catalog document,
 * so it must show something. No control characters (NUL, line breaks, escapes), and at least one
 * character that is not space or an invisible format character (a name that is only U+200B).
 */
export const NameSchema = z
  .string()
  .trim()
  .min(1)
  .max(MAX_NAME_LENGTH)
  .refine((name) => !/\p{Cc}/u.test(name), { message: "name must not contain control characters" })
  .refine((name) => /[^\p{White_Space}\p{Cf}]/u.test(name), { message: "name must have a visible character, not only spaces or invisible ones" });

export const DeclaredFieldSchema = z
  .strictObject({
    name: z.string().min(1),
    type: z.enum(FIELD_TYPES),
    format: z.string().min(1).optional().openapi({
      description: "`default` or `any`; on a date, datetime or time also a Python strptime pattern such as `%d/%m/%Y` or `%Y/%m/%d %H:%M:%S` (directives: see docs/column-types.md).",
    }),
    title: z.string().optional(),
    description: z.string().optional(),
    decimalChar: OneCharacterSchema.optional(),
    groupChar: OneCharacterSchema.optional(),
    trueValues: z.array(z.string()).min(1).optional(),
    falseValues: z.array(z.string()).min(1).optional(),
    constraints: z.strictObject({ required: z.boolean().optional() }).optional(),
  })
  .refine((f) => !isPatternFormat(f.format) || f.type === "date" || f.type === "datetime" || f.type === "time", {
    message: 'a format other than "default" or "any" is a strptime pattern, which applies to date, datetime and time fields',
    path: ["format"],
  })
  .superRefine((f, ctx) => {
    const problem = isPatternFormat(f.format) ? patternProblem(f.format) : null;
    if (problem !== null) ctx.addIssue({ code: "custom", message: `format ${JSON.stringify(f.format)}: ${problem}`, path: ["format"] });
  })
  .refine((f) => f.decimalChar === undefined || f.type === "number", { message: "decimalChar applies to number fields", path: ["decimalChar"] })
  .refine((f) => f.groupChar === undefined || f.type === "number" || f.type === "integer", {
    message: "groupChar applies to number and integer fields",
    path: ["groupChar"],
  })
  .refine((f) => (f.trueValues === undefined && f.falseValues === undefined) || f.type === "boolean", {
    message: "trueValues and falseValues apply to boolean fields",
  })
  .refine((f) => f.groupChar === undefined || f.groupChar !== (f.decimalChar ?? "."), { message: "groupChar must differ from decimalChar", path: ["groupChar"] })
  .openapi("DeclaredField", { description: "A Frictionless Table Schema field, named by its header name (docs/column-types.md)." });

export const DeclaredSchemaSchema = z
  .strictObject({
    fields: z.array(DeclaredFieldSchema),
    missingValues: z.array(z.string()).optional(),
  })
  .refine((s) => new Set(s.fields.map((f) => f.name)).size === s.fields.length, { message: "a field is declared twice", path: ["fields"] })
  .openapi("DeclaredSchema", {
    description:
      "Column types the publisher declares (a partial Frictionless Table Schema): declared fields are used as given and checked on every row; the other columns are inferred. Sent alone on a PUT, it re-types the current content without re-uploading it.",
  });

export const CollectionSchema = z
  .strictObject({
    name: NameSchema.optional(),
    visibility: VisibilitySchema.optional(),
    properties: PropertiesSchema.optional(),
    schema: DeclaredSchemaSchema.optional(),
    history: z.literal("public").optional().openapi({
      description:
        "Only beside `\"visibility\": \"public\"` on a PUT or append: also publish the versions written while the dataset was private (drafts), which otherwise stay readable by its team only.",
    }),
  })
  .refine((value) => value.history === undefined || value.visibility === "public", {
    message: 'history is allowed only with "visibility": "public" (the write that publishes)',
    path: ["history"],
  })
  .openapi("Collection");

export type Collection = z.infer<typeof CollectionSchema>;
export type Properties = z.infer<typeof PropertiesSchema>;

/**
 * Refuses a `collection` whose members nest deeper than MAX_JSON_DEPTH levels, or hold a lone
 * surrogate or a NUL, before any other check walks it (src/http/json-checks.ts): `properties`
 * is free-form, and such a value would break later steps that serialise it, after the commit
 * included.
 */
export function checkCollectionJson(collection: object, where = "collection"): void {
  for (const [key, member] of Object.entries(collection)) {
    const deep = pathDeeperThan(member, MAX_JSON_DEPTH);
    if (deep !== null) {
      const at = [where, key, ...deep.slice(0, MAX_JSON_DEPTH)].join(".");
      throw new ApiError("invalid_request", `${where}.${key} nests deeper than ${MAX_JSON_DEPTH} levels of objects and arrays (at ${at}).`, {
        limit: MAX_JSON_DEPTH,
      });
    }
  }
  const unsafe = pathOfUnsafeText(collection);
  if (unsafe !== null) {
    throw new ApiError("invalid_request", `${[where, ...unsafe].join(".")}: text must be well-formed Unicode without NUL characters (a \\uD800-style escape without its pair is not).`);
  }
}
