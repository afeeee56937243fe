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
