// The Parquet twin end to end, against a real `npm start` (wrangler dev with its local queue): a
// dataset created and appended to twice, each version's twin waited for by the client and by
// `pubset download --format parquet`, and read by DuckDB cell for cell as castCell reads the CSV.
// The second append brings an integer past int64, so every part is written again as DECIMAL.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PubsetClient } from "../../src/client/index.ts";
import { readAllBytes } from "../../src/client/byte-streams.ts";
import type { ColumnKind } from "../../src/columnar/parquet/index.ts";
import type { TableSchema } from "../../src/schema/table-schema.ts";
import { runInProcess } from "./cli.helpers.ts";
import { expectedRows, readWithDuckDB } from "./helpers/parquet-oracle.ts";
import { e2eServer, type E2eServer } from "./helpers/shared-server.ts";

const dir = mkdtempSync(join(tmpdir(), "pubset-parquet-e2e-"));
let server: E2eServer & { stop(): Promise<void> };
let client: PubsetClient;

const HEADER = "id,big,price,day,at,local,ok,label";
const FIRST = ["1,12,2.5,2024-01-02,2024-01-02T03:04:05Z,2024-01-02 03:04:05,true,one", "2,-7,NaN,1969-12-31,2024-01-02T03:04:06.5+01:00,1900-01-01 00:00:00,false,deux 😀", "3,,,,,,,"];
const SECOND = ["4,9223372036854775807,INF,2000-02-29,1970-01-01T00:00:00Z,2038-01-19 03:14:08,TRUE,Ünïcödé"];
const THIRD = ["5,123456789012345678901234567890,-INF,0001-01-01,9999-12-31T23:59:59.999999Z,2024-06-30 12:00:00.25,False,\"a, \"\"quoted\"\" one\""];

beforeAll(async () => {
  server = await e2eServer();
  client = new PubsetClient({ url: server.url, key: { keyId: server.demoKey.key_id, secret: server.demoKey.secret } });
});
afterAll(async () => {
  await server?.stop();
});

function parseRows(lines: string[]): string[][] {
  // The test's rows hold one quoted cell at most, in the last column.
  return lines.map((line) => {
    const quoted = line.indexOf('"');
    if (quoted < 0) return line.split(",");
    return [...line.slice(0, quoted - 1).split(","), line.slice(quoted + 1, -1).replace(/""/g, '"')];
  });
}

async function twinRows(id: string, version: string): Promise<ReturnType<typeof readWithDuckDB>> {
  const download = await client.download({ id, version }, { format: "parquet" });
  expect(download.fileName).toBe("typed.parquet");
  const path = join(dir, `${version}.parquet`);
  writeFileSync(path, await readAllBytes(download.stream));
  return readWithDuckDB(path);
}

describe("the Parquet twin through npm start", () => {
  it("reads back every version of an appended chain in DuckDB, widened where a value needs it", async () => {
    const created = await client.create({ name: "typed", visibility: "public" }, new TextEncoder().encode([HEADER, ...FIRST].join("\n") + "\n"), { fileName: "typed.csv" });
    const second = await client.append(created.id, new TextEncoder().encode(SECOND.join("\n") + "\n"));
    const third = await client.append(created.id, new TextEncoder().encode(THIRD.join("\n") + "\n"));
    const schema = (await client.schema(created.id, third.version)) as TableSchema;
    expect(schema.fields.map((f) => f.type)).toEqual(["integer", "integer", "number", "date", "datetime", "datetime", "boolean", "string"]);

    const narrow: ColumnKind[] = ["int64", "int64", "double", "date", "timestamp-utc", "timestamp-local", "boolean", "string"];
    const wide: ColumnKind[] = ["int64", "decimal", "double", "date", "timestamp-utc", "timestamp-local", "boolean", "string"];
    const chain: [string, string[], ColumnKind[]][] = [
      [created.version, FIRST, narrow],
      [second.version, [...FIRST, ...SECOND], narrow],
      [third.version, [...FIRST, ...SECOND, ...THIRD], wide],
    ];
    for (const [version, lines, kinds] of chain) {
      expect(await twinRows(created.id, version)).toEqual(expectedRows(schema, kinds, parseRows(lines)));
    }
  });

  it("pubset download --format parquet waits for the twin and saves it under its name", async () => {
    const csv = [HEADER, ...FIRST].join("\n") + "\n";
    writeFileSync(join(dir, "cli.csv"), csv);
    const env = { PUBSET_URL: server.url, PUBSET_KEY_ID: server.demoKey.key_id, PUBSET_SECRET: server.demoKey.secret, PUBSET_CONFIG: join(dir, "no-config.json"), HOME: dir };
    const made = await runInProcess(["create", join(dir, "cli.csv"), "--name", "CLI parquet", "--json"], env);
    expect(made.code, made.stderr).toBe(0);
    const { id } = JSON.parse(made.stdout) as { id: string };
    const out = join(dir, "out.parquet");
    const run = await runInProcess(["download", id, "--format", "parquet", "-o", out], env);
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(out).subarray(0, 4).toString()).toBe("PAR1");
    expect((await readWithDuckDB(out)).length).toBe(FIRST.length);
  });
});
