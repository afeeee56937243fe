// A write that read the dataset just before a concurrent DELETE committed gets 404, not a 500.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { commitChange } from "../src/datasets/commit.ts";
import { ApiError } from "../src/errors.ts";
import { deleteDatasetRows } from "../src/storage/delete-db.ts";
import { createKey } from "./helpers/keys.ts";
import { createDataset } from "./helpers/http.ts";

describe("write racing a delete", () => {
  it("the losing write is not_found", async () => {
    const key = await createKey("race-delete", "racer");
    const created = await createDataset(key, "a\n1\n");
    const attempt = commitChange(
      env,
      created.id,
      {
        collection: { name: "renamed" },
        derive: async (parent) => {
          await deleteDatasetRows(env.DB, created.id);
          return { content: { ...parent }, reuseParentSegments: true, newSegments: [] };
        },
      },
      null,
    );
    const error = await attempt.then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe("not_found");
  });
});
