// Request and response schemas of the v1 dataset routes: they validate path and query input
// and describe every response for the OpenAPI document.
import { z } from "@hono/zod-openapi";
import { LIST_MAX_LIMIT, MAX_KEY_WORDS, MAX_PROPERTIES_BYTES, MAX_SEARCH_QUERY_LENGTH } from "../config.ts";
import { UUID_PATTERN } from "../model/ids.ts";

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


export const DatasetIdSchema = z
  .string()
  .regex(UUID_PATTERN, "must be a lowercase UUID v4")
  .openapi({ param: { name: "id", in: "path" }, description: "The dataset's id, a lowercase UUID v4.", example: "5b1c3f0e-8f5a-4c8e-9a57-2a8d7f0c1e42" });

export const VersionRefSchema = z
  .string()
  .refine((value) => value === "latest" || UUID_PATTERN.test(value), "must be a lowercase UUID v4 or `latest`")
  .openapi({ param: { name: "version", in: "path" }, description: "A version id, or `latest`." });

export const IdParamsSchema = z.object({ id: DatasetIdSchema });
export const VersionParamsSchema = z.object({ id: DatasetIdSchema, version: VersionRefSchema });
export const FileParamsSchema = z.object({
  id: DatasetIdSchema,
  version: VersionRefSchema,
  file: z.string().min(1).openapi({ param: { name: "file", in: "path" }, description: "The stored file name; `.gz` for the gzip form." }),
});

/** Routes that take no query parameters refuse any (docs/edge-and-caching.md: `?x=<random>` must not bust caches). */
export const NoQuerySchema = z.strictObject({});

const UserOrTeamIdSchema = z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, "must be 1-64 characters of A-Z a-z 0-9 . _ -");

export const ListQuerySchema = z.strictObject({
  owner: UserOrTeamIdSchema.optional().openapi({ description: "Only this user's datasets." }),
  team: UserOrTeamIdSchema.optional().openapi({ description: "Only this team's datasets (team-list shape unless `owner` is also given)." }),
  limit: z.coerce.number().int().min(1).max(LIST_MAX_LIMIT).optional().openapi({ description: `1-${LIST_MAX_LIMIT}, default 100.` }),
  cursor: z.string().min(1).max(512).optional().openapi({ description: "Opaque; from the `Link: rel=\"next\"` header." }),
  q: z
    .string()
    .max(MAX_SEARCH_QUERY_LENGTH)
    .refine((value) => value.trim() !== "", "must not be empty")
    .optional()
    .openapi({ description: `Full-text search (1-${MAX_SEARCH_QUERY_LENGTH} chars) over the latest version's name, description, key_words, contact_name and columns (names, and declared field titles and descriptions): every term must match, words joined without a space (\`zip_code\`) in a row; the last may be a prefix. Best match first.` }),
});
export type ListQuery = z.infer<typeof ListQuerySchema>;

export const ListItemSchema = z
  .object({ id: z.string(), name: z.string(), version: z.string(), owner: z.string(), team: z.string(), visibility: VisibilitySchema })
  .openapi("DatasetListItem");
export const TeamListItemSchema = z
  .object({ id: z.string(), name: z.string(), version: z.string(), visibility: VisibilitySchema, created: z.string(), properties: PropertiesSchema })
  .openapi("DatasetTeamListItem");
export const ListResponseSchema = z.object({ results: z.array(z.union([ListItemSchema, TeamListItemSchema])) }).openapi("DatasetList");

export const CreatedSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    version: z.string(),
    properties: PropertiesSchema,
    owner: z.string(),
    team: z.string(),
    visibility: VisibilitySchema,
    source: z.string(),
  })
  .openapi("DatasetCreated");
export const UpdatedSchema = CreatedSchema.omit({ properties: true }).openapi("DatasetUpdated");
export const AppendedSchema = UpdatedSchema.omit({ source: true }).openapi("DatasetAppended");
export const VersionRecordSchema = z
  .object({ id: z.string(), name: z.string(), version: z.string(), visibility: VisibilitySchema, created: z.string(), properties: PropertiesSchema })
  .openapi("DatasetVersion");

export const ProblemSchema = z
  .object({ type: z.string(), title: z.string(), status: z.number().int(), detail: z.string(), code: z.string() })
  .catchall(z.unknown())
  .openapi("Problem");

export const problemResponse = (description: string) => ({
  description,
  content: { "application/problem+json": { schema: ProblemSchema } },
});

/**
 * The multipart body of the writes, named part by part with each part's media type (docs/api.md, docs/api.md#writes):
 * `collection` (application/json, the Collection schema) and `dataset` (text/csv, or
 * application/gzip). A plain OpenAPI object, not zod: the body is streamed by the route, never
 * parsed by a validator. `required` lists the parts the operation needs.
 */
export function multipartBody(required: Array<"collection" | "dataset">, description: string) {
  return {
    required: true,
    description,
    content: {
      "multipart/form-data": {
        schema: {
          type: "object" as const,
          required,
          properties: {
            collection: {
              $ref: "#/components/schemas/Collection",
              description: "JSON object: `name`, `visibility`, `properties` (and `history` when publishing).",
            },
            dataset: {
              type: "string" as const,
              format: "binary",
              contentMediaType: "text/csv",
              description:
                "The CSV file, with a file name: `text/csv`, or gzip-compressed CSV as `application/gzip` (or a `.gz` file name). " +
                "A gzip in the parted format (a `PS` extra subfield listing parts that each inflate alone and end at a record end; docs/storage-protocol.md, \"Upload format\") is stored without recompressing.",
            },
          },
        },
        encoding: {
          collection: { contentType: "application/json" },
          dataset: { contentType: "text/csv, application/gzip" },
        },
      },
    },
  };
}
