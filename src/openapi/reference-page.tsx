// GET /docs: the API reference as plain server-rendered HTML, read from the same OpenAPI
// document as /openapi.json, with Scalar's interactive reference loaded over it from a CDN.
// Without JavaScript, or with the CDN out of reach (a laptop offline running `npm start`),
// the plain reference is what people read; when Scalar loads, it hides the plain one.
import { API_TITLE } from "./info.ts";

export const SCALAR_VERSION = "1.72.1";
const SCALAR_URL = `https://cdn.jsdelivr.net/npm/@scalar/api-reference@${SCALAR_VERSION}`;

type Json = Record<string, unknown>;

interface Parameter {
  name: string;
  in: string;
  required: boolean;
  description: string;
}

interface Operation {
  method: string;
  path: string;
  summary: string;
  parameters: Parameter[];
  requestTypes: string[];
  responses: Array<{ status: string; description: string; headers: string[] }>;
}

const METHODS = ["get", "head", "post", "put", "patch", "delete"];

const CSS = `body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:0 auto;padding:1rem;color:#1b1b1f;background:#fff}
pre{white-space:pre-wrap;background:#f3f4f6;padding:.75rem;border-radius:4px}code{font-size:.95em}
td,pre,h2,li{overflow-wrap:anywhere}td.short{white-space:nowrap;overflow-wrap:normal}
table{border-collapse:collapse;width:100%;margin:.5rem 0 1rem}th,td{text-align:left;vertical-align:top;padding:.25rem .5rem;border-bottom:1px solid #d4d4d8}
h2{margin-top:2rem;font-size:1.15rem}h2 code{font-size:1rem}
@media (prefers-color-scheme:dark){body{color:#ececf1;background:#17171b}pre{background:#26262c}th,td{border-color:#3f3f46}a{color:#8ab4ff}}`;

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function parametersOf(operation: Json): Parameter[] {
  const list = Array.isArray(operation.parameters) ? (operation.parameters as Json[]) : [];
  return list.map((p) => ({ name: text(p.name), in: text(p.in), required: p.required === true, description: text(p.description) }));
}

function operationsOf(document: Json): Operation[] {
  const paths = (document.paths as Record<string, Json> | undefined) ?? {};
  return Object.entries(paths).flatMap(([path, item]) =>
    METHODS.filter((method) => typeof item[method] === "object" && item[method] !== null).map((method) => {
      const operation = item[method] as Json;
      const body = (operation.requestBody as Json | undefined)?.content as Json | undefined;
      const responses = (operation.responses as Record<string, Json> | undefined) ?? {};
      return {
        method: method.toUpperCase(),
        path,
        summary: text(operation.summary),
        parameters: parametersOf(operation),
        requestTypes: Object.keys(body ?? {}),
        responses: Object.entries(responses).map(([status, response]) => ({
          status,
          description: text(response.description),
          headers: Object.keys((response.headers as Json | undefined) ?? {}),
        })),
      };
    }),
  );
}

/** The documents' descriptions mark code with backticks; show those spans as code. */
function Inline({ value }: { value: string }) {
  return <>{value.split("`").map((piece, i) => (i % 2 === 1 ? <code>{piece}</code> : piece))}</>;
}

function OperationSection({ operation, index }: { operation: Operation; index: number }) {
  return (
    <section aria-labelledby={`op-${index}`}>
      <h2 id={`op-${index}`}>
        <code>
          {operation.method} {operation.path}
        </code>
      </h2>
      <p>
        <Inline value={operation.summary} />
      </p>
      {operation.parameters.length > 0 ? (
        <table aria-label={`Parameters of ${operation.method} ${operation.path}`}>
          <thead>
            <tr>
              <th scope="col">parameter</th>
              <th scope="col">in</th>
              <th scope="col">required</th>
              <th scope="col">meaning</th>
            </tr>
          </thead>
          <tbody>
            {operation.parameters.map((p) => (
              <tr>
                <td>
                  <code>{p.name}</code>
                </td>
                <td class="short">{p.in}</td>
                <td class="short">{p.required ? "yes" : "no"}</td>
                <td>
                  <Inline value={p.description} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {operation.requestTypes.length > 0 ? (
        <p>
          Body: <code>{operation.requestTypes.join(", ")}</code>
        </p>
      ) : null}
      <ul>
        {operation.responses.map((r) => (
          <li>
            <code>{r.status}</code> <Inline value={r.description} />
            {r.headers.length > 0 ? (
              <>
                {" "}
                (headers: {r.headers.map((h, i) => (
                  <>
                    {i > 0 ? ", " : ""}
                    <code>{h}</code>
                  </>
                ))}
                )
              </>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The whole /docs page for a decorated OpenAPI document. */
export async function referencePageHtml(document: object): Promise<string> {
  return "<!doctype html>" + (await (<ReferencePage document={document as Json} />));
}

function ReferencePage({ document }: { document: Json }) {
  const info = (document.info as Json | undefined) ?? {};
  const operations = operationsOf(document);
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${API_TITLE} API reference`}</title>
        <style dangerouslySetInnerHTML={{ __html: CSS }} />
      </head>
      <body>
        <div id="static-reference">
          <main>
            <h1>{`${API_TITLE} API reference`}</h1>
            <p>
              The machine-readable description is <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1). Back to the{" "}
              <a href="/">catalog</a>.
            </p>
            <pre>{text(info.description)}</pre>
            {operations.map((operation, index) => (
              <OperationSection operation={operation} index={index} />
            ))}
          </main>
        </div>
        <script id="api-reference" data-url="/openapi.json"></script>
        <script src={SCALAR_URL} onload="document.getElementById('static-reference').hidden = true"></script>
      </body>
    </html>
  );
}
