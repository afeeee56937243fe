// The `collection` multipart part (SPEC B2): a strict object, so typos such as `visiblity`
// are rejected instead of silently ignored. One schema validates, types and documents it.
import { z } from "@hono/zod-openapi";
import { MAX_KEY_WORDS, MAX_NAME_LENGTH, MAX_PROPERTIES_BYTES } from "../config.ts";

export const VisibilitySchema = z.enum(["public", "private"]).openapi("Visibility");

export const PropertiesSchema = z
  .looseObject({
    description: z.string().optional(),
    key_words: z.array(z.string()).max(MAX_KEY_WORDS).optional(),
    contact_name: z.string().optional(),
  })
  .refine((value) => new TextEncoder().encode(JSON.stringify(value)).length <= MAX_PROPERTIES_BYTES, {
    message: `properties must be at most ${MAX_PROPERTIES_BYTES} bytes as JSON`,
  })
  .openapi("Properties", { description: "Free-form metadata with known keys description, key_words, contact_name." });

export const CollectionSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(MAX_NAME_LENGTH).optional(),
    visibility: VisibilitySchema.optional(),
    properties: PropertiesSchema.optional(),
  })
  .openapi("Collection");

export type Collection = z.infer<typeof CollectionSchema>;
export type Properties = z.infer<typeof PropertiesSchema>;
