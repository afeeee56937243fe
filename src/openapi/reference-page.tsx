// GET /docs: the API reference as plain server-rendered HTML in the catalog's frame, read from
// the same OpenAPI document as /openapi.json, with Scalar's interactive reference loaded over it
// from a CDN. Without JavaScript, or with the CDN out of reach (a laptop offline running
// `npm start`), the plain reference is what people read; once Scalar has mounted, a CSS rule
// hides the plain one, so the page needs no inline script and its policy allows none (docs/edge-and-caching.md).
import type { Child } from "hono/jsx";
import { Layout } from "../catalog/pages/layout.tsx";
import { API_TITLE } from "./info.ts";
import { Inline, Markdown } from "./markdown.tsx";

export const SCALAR_VERSION = "1.72.1";
/** An exact file, so the bytes are fixed and Subresource Integrity can pin them. */
export const SCALAR_URL = `https://cdn.jsdelivr.net/npm/@scalar/api-reference@${SCALAR_VERSION}/dist/browser/standalone.js`;
/** SHA-384 of that file as published on npm (`npm pack @scalar/api-reference@1.72.1`). */
export const SCALAR_INTEGRITY = "sha384-U11tb2XnKvmwt8RlTvnwUnYgrN+ur4Xyh9htLhjajWNR/Oyl5AX5DEz00qRmlrmK";

/**
 * The policy of /docs: the catalog's, plus the one pinned Scalar script, its fonts, and requests
 * to the API it documents (the page's origin and the configured public one).
 */
export function docsContentSecurityPolicy(publicOrigin: string): string {
  return [
    "default-src 'none'",
    `script-src ${SCALAR_URL}`,
    "style-src 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src https://fonts.scalar.com",
    `connect-src 'self' ${publicOrigin}`,
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

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
  description: string;
  parameters: Parameter[];
  requestTypes: string[];
  requestDescription: string;
  /** The multipart parts of a write: name, media type, required, meaning. */
  parts: Part[];
  responses: Array<{ status: string; description: string; headers: string[] }>;
}

interface Part {
  name: string;
  mediaType: string;
  required: boolean;
  description: string;
}

/** A multipart body's parts, with their media types from its `encoding` (OpenAPI 3.1 §4.8.15). */
function partsOf(body: Json | undefined): Part[] {
  const multipart = body?.["multipart/form-data"] as Json | undefined;
  const schema = (multipart?.schema as Json | undefined) ?? {};
  const properties = (schema.properties as Record<string, Json> | undefined) ?? {};
  const encoding = (multipart?.encoding as Record<string, Json> | undefined) ?? {};
  const required = Array.isArray(schema.required) ? (schema.required as unknown[]) : [];
  return Object.entries(properties).map(([name, property]) => ({
    name,
    mediaType: text(encoding[name]?.contentType) || text(property.contentMediaType),
    required: required.includes(name),
    description: text(property.description),
  }));
}

const METHODS = ["get", "head", "post", "put", "patch", "delete"];

const CSS = `.reference pre{white-space:pre-wrap;background:var(--panel);padding:.75rem;border-radius:4px}
.reference td,.reference th{white-space:normal;max-width:none;overflow:visible;overflow-wrap:break-word}.reference td.short{white-space:nowrap}
.reference h2{margin-top:2rem;font-size:1.15rem}.reference h2 code{font-size:1rem}
.reference table{width:100%}
body:has(.scalar-app) #main,body:has(.scalar-app) footer{display:none}`;

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
      const requestBody = operation.requestBody as Json | undefined;
      const body = requestBody?.content as Json | undefined;
      const responses = (operation.responses as Record<string, Json> | undefined) ?? {};
      return {
        method: method.toUpperCase(),
        path,
        summary: text(operation.summary),
        description: text(operation.description),
        parameters: parametersOf(operation),
        requestTypes: Object.keys(body ?? {}),
        requestDescription: text(requestBody?.description),
        parts: partsOf(body),
        responses: Object.entries(responses).map(([status, response]) => ({
          status,
          description: text(response.description),
          headers: Object.keys((response.headers as Json | undefined) ?? {}),
        })),
      };
    }),
  );
}

/** A table of named things (parameters, multipart parts): name, kind, required, meaning. */
function FieldTable(props: {
  label: string;
  headings: [name: string, kind: string];
  rows: Array<{ name: string; kind: string | Child; required: boolean; description: string }>;
}) {
  return (
    <div class="scroll" role="region" tabindex={0} aria-label={props.label}>
      <table>
        <thead>
          <tr>
            <th scope="col">{props.headings[0]}</th>
            <th scope="col">{props.headings[1]}</th>
            <th scope="col">required</th>
            <th scope="col">meaning</th>
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row) => (
            <tr>
              <td>
                <code>{row.name}</code>
              </td>
              {typeof row.kind === "string" ? <td class="short">{row.kind}</td> : <td>{row.kind}</td>}
              <td class="short">{row.required ? "yes" : "no"}</td>
              <td>
                <Inline value={row.description} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
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
      {operation.description ? <Markdown source={operation.description} baseLevel={3} /> : null}
      {operation.parameters.length > 0 ? (
        <FieldTable
          label={`Parameters of ${operation.method} ${operation.path}`}
          headings={["parameter", "in"]}
          rows={operation.parameters.map((p) => ({ name: p.name, kind: p.in, required: p.required, description: p.description }))}
        />
      ) : null}
      {operation.requestTypes.length > 0 ? (
        <p>
          Body: <code>{operation.requestTypes.join(", ")}</code>
          {operation.requestDescription ? (
            <>
              . <Inline value={operation.requestDescription} />
            </>
          ) : null}
        </p>
      ) : null}
      {operation.parts.length > 0 ? (
        <FieldTable
          label={`Parts of ${operation.method} ${operation.path}`}
          headings={["part", "media type"]}
          rows={operation.parts.map((part) => ({ name: part.name, kind: <code>{part.mediaType}</code>, required: part.required, description: part.description }))}
        />
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
  const title = `${API_TITLE} API reference`;
  return (
    <Layout
      title="API reference"
      description="The pubset HTTP API: every operation, its parameters, parts and answers."
      head={<style dangerouslySetInnerHTML={{ __html: CSS }} />}
      after={
        <>
          <script id="api-reference" data-url="/openapi.json"></script>
          <script src={SCALAR_URL} integrity={SCALAR_INTEGRITY} crossorigin="anonymous" referrerpolicy="no-referrer"></script>
        </>
      }
    >
      <div id="static-reference" class="reference">
        <h1>{title}</h1>
        <p>
          The machine-readable description is <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).
        </p>
        <Markdown source={text(info.description)} />
        {operations.map((operation, index) => (
          <OperationSection operation={operation} index={index} />
        ))}
      </div>
    </Layout>
  );
}
